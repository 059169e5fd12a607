"""Suit frames: naming the suits of a position by the part their cards play in it.

The suits are alike in gin rummy, so a position and the same position with its suits renamed
deserve the same analysis (Oklahoma's spade upcard, which doubles the score, is the one exception:
decide it before renaming). An engine that samples unseen cards, or breaks ties, by card id would
not give it: it would answer the two differently. Analysed in the frame of ``canonical_frame``,
every renaming of a position is the same position.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .cards import LANE_BITS, RANK_MASK, Card, Hand, format_card

SUITS = range(4)


@dataclass(frozen=True)
class SuitFrame:
    """A renaming of the suits: suit ``s`` is called ``into[s]`` in the frame, and ``back[into[s]]`` is ``s``."""

    into: tuple[int, ...]
    back: tuple[int, ...]

    @classmethod
    def of(cls, into: Iterable[int]) -> SuitFrame:
        """The frame calling suit ``s`` by the ``s``-th suit of ``into`` (a permutation of 0-3)."""
        order = tuple(into)
        if sorted(order) != list(SUITS):
            raise ValueError(f"expected a permutation of the suits 0-3, got {order!r}")
        back = [0] * 4
        for suit, renamed in enumerate(order):
            back[renamed] = suit
        return cls(order, tuple(back))

    def card(self, card: Card) -> Card:
        """``card`` as the frame calls it."""
        return self.into[card >> 4] * LANE_BITS + (card & 15)

    def card_back(self, card: Card) -> Card:
        """The card that the frame calls ``card``."""
        return self.back[card >> 4] * LANE_BITS + (card & 15)

    def hand(self, hand: Hand) -> Hand:
        """``hand`` as the frame calls its cards."""
        return _renamed(hand, self.into)

    def hand_back(self, hand: Hand) -> Hand:
        """The hand whose cards the frame calls ``hand``."""
        return _renamed(hand, self.back)

    def name(self, card: Card) -> str:
        """How the caller names the card that the frame calls ``card``."""
        return format_card(self.card_back(card))


def _renamed(hand: Hand, into: tuple[int, ...]) -> Hand:
    renamed = 0
    for suit in SUITS:
        renamed |= (hand >> suit * LANE_BITS & RANK_MASK) << into[suit] * LANE_BITS
    return renamed


IDENTITY = SuitFrame.of(SUITS)


Roles = Mapping[Card, tuple[tuple[int, ...], ...]]
"""What each card does in a position, as comparable tuples (``canonical_frame``)."""


def canonical_frame(roles: Roles) -> SuitFrame:
    """The frame that orders the suits by the roles of their cards (``roles[card]``; a card without one has
    none), rank by rank.

    Renaming the suits of the roles (``roles`` keyed by ``frame.card(card)``) gives the same frame after that
    renaming, so every renaming of the roles looks the same in its frame. Suits whose cards play the same
    roles keep their order: swapping them changes nothing.
    """
    def signature(suit: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
        return tuple(roles.get(suit * LANE_BITS + rank, ()) for rank in range(13))

    into = [0] * 4
    for place, suit in enumerate(sorted(SUITS, key=lambda suit: (signature(suit), suit))):
        into[suit] = place
    return SuitFrame.of(into)
