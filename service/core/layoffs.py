"""Layoffs: the defender's cards added to the knocker's melds, and the defender's best result.

A layoff onto a 3-card set is its fourth card. A layoff onto a run extends one of its ends and may
chain outward (after 9h onto 6h-7h-8h, Th may follow); each chain is a candidate group of cards, as
long as each of its prefixes. The defender's best result packs its own melds and these chains
together with the exact packer, so melding and laying off are optimised jointly.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from .cards import (
    RANK_COLUMN,
    Card,
    CardError,
    Hand,
    card_rank,
    card_repr,
    check_card,
    check_hand,
    format_card,
    format_hand,
    hand_repr,
    hand_value,
    lowest_card,
)
from .errors import describe_value
from .melds import (
    Candidate,
    best_arrangement,
    find_melds,
    is_run,
    is_valid_meld,
    melds_repr,
    merge_runs,
    pack,
)


@dataclass(frozen=True)
class Layoff:
    """The defender's ``card`` laid onto the knocker's meld number ``meld_index``."""

    card: Card
    meld_index: int

    def __repr__(self) -> str:
        return f"Layoff(card={card_repr(self.card)}, meld_index={self.meld_index})"


@dataclass(frozen=True)
class DefenderResult:
    """The defender's own melds, its layoffs in playable order, and what stays deadwood."""

    melds: tuple[int, ...]
    layoffs: tuple[Layoff, ...]
    deadwood_cards: Hand

    @property
    def deadwood(self) -> int:
        """Value of the defender's cards neither melded nor laid off."""
        return hand_value(self.deadwood_cards)

    def __repr__(self) -> str:
        return (f"DefenderResult(melds={melds_repr(self.melds)}, layoffs={self.layoffs!r}, "
                f"deadwood_cards={hand_repr(self.deadwood_cards)})")


GIN_MELDED = 10
"""A knocker with this many cards melded (11 for big gin) has gin: no layoffs."""


def knocker_melds_of(melds: Iterable[int]) -> tuple[int, ...]:
    """The knocker's melds as a tuple (read more than once); CardError where they are no collection of melds,
    like one meld given bare."""
    if isinstance(melds, int | str) or not isinstance(melds, Iterable):
        raise CardError(f"the knocker's melds are a list of melds, each an int like parse_hand('7h 7d 7c'), got "
                        f"{describe_value(melds)}")
    return tuple(melds)


def check_knocker_melds(melds: Sequence[int], knocker: Hand | None = None, discard: Card | None = None) -> None:
    """Raise CardError unless the melds are valid, disjoint, of at most 11 cards and (if given) inside
    the knocker's hand once ``discard`` is gone from it."""
    gone = 0 if discard is None else 1 << check_card(discard)
    kept = None if knocker is None else check_hand(knocker) & ~gone
    seen = 0
    for index, meld in enumerate(melds):
        if not isinstance(meld, int) or isinstance(meld, bool):
            raise CardError(f"knocker meld {index} is no hand: a meld is an int like parse_hand('7h 7d 7c'), got "
                            f"{describe_value(meld)}", index=index)
        shown = " ".join(format_hand(meld))
        if not is_valid_meld(meld):
            raise CardError(f"knocker meld {index} ({shown}) is not a set of 3-4 or a run of 3+", card=shown,
                            index=index)
        if meld & seen:
            card = format_card(lowest_card(meld & seen))
            raise CardError(f"{card} is in more than one knocker meld", card=card, index=index)
        if kept is not None and meld & ~kept:
            outside = meld & ~kept & -(meld & ~kept)
            card = format_card(outside.bit_length() - 1)
            where = "the discard" if discard is not None and outside == 1 << discard else "not in the knocker's hand"
            raise CardError(f"knocker meld {index} uses {card}, which is {where}", card=card, index=index)
        seen |= meld
    if seen.bit_count() > GIN_MELDED + 1:
        raise CardError(f"the knocker's melds hold {seen.bit_count()} cards; a knocker holds {GIN_MELDED} "
                        f"(11 melded for big gin)")


def is_gin(knocker_melds: Sequence[int]) -> bool:
    """Whether melds laid out hold ten cards or more: gin (or big gin), against which nothing is laid off."""
    return sum(meld.bit_count() for meld in knocker_melds) >= GIN_MELDED


def _layoff_chains(meld: int, defender: Hand) -> Iterator[tuple[Card, ...]]:
    """Every chain of the defender's cards that can be laid off onto ``meld``, in playable order."""
    if not is_run(meld):
        if missing := RANK_COLUMN << card_rank(meld.bit_length() - 1) & ~meld & defender:  # none for four
            yield (missing.bit_length() - 1,)
        return
    # A step off either end of the run lands on bits 13-15 of a suit's lane, which no hand holds, or on -1 (below
    # the Ace of the lowest lane).
    for step, card in ((-1, (meld & -meld).bit_length() - 2), (1, meld.bit_length())):
        chain: tuple[Card, ...] = ()
        while card >= 0 and defender >> card & 1:
            chain += (card,)
            yield chain
            card += step


def possible_layoffs(knocker_melds: Sequence[int], defender: Hand) -> list[Layoff]:
    """Every card the defender could lay off, onto which meld (chains count); none against gin. The melds are
    trusted to be valid and apart from the defender (``check_knocker_melds``, ``report_layoffs`` checks them)."""
    if is_gin(knocker_melds):
        return []
    found = {
        Layoff(card, index)
        for index, meld in enumerate(knocker_melds)
        for chain in _layoff_chains(meld, defender)
        for card in chain
    }
    return sorted(found, key=lambda layoff: (layoff.meld_index, layoff.card))


def best_defence(knocker_melds: Sequence[int], defender: Hand) -> DefenderResult:
    """The defender's least deadwood over its own melds and its layoffs chosen together (against gin,
    its own melds alone); the melds trusted as by ``possible_layoffs``."""
    if is_gin(knocker_melds):
        plain = best_arrangement(defender)
        return DefenderResult(plain.melds, (), plain.deadwood_cards)
    candidates: list[Candidate[tuple[Layoff, ...]]] = [
        Candidate(meld, hand_value(meld), ()) for meld in find_melds(defender)
    ]
    for index, meld in enumerate(knocker_melds):
        for chain in _layoff_chains(meld, defender):
            cards = sum(1 << c for c in chain)
            candidates.append(Candidate(cards, hand_value(cards), tuple(Layoff(c, index) for c in chain)))
    packing = pack(candidates, defender)
    covered = 0
    for candidate in packing:
        covered |= candidate.cards
    own = merge_runs(c.cards for c in packing if not c.tag)
    layoffs = tuple(sorted((lay for c in packing for lay in c.tag), key=lambda lay: lay.meld_index))
    return DefenderResult(own, layoffs, defender & ~covered)


@dataclass(frozen=True)
class LayoffReport:
    """What a defender can do against the knocker's melds: whether they are gin, every card it could
    lay off, and its best result."""

    gin: bool
    possible: tuple[Layoff, ...]
    best: DefenderResult


def report_layoffs(knocker_melds: Iterable[int], defender: Hand) -> LayoffReport:
    """The defender's whole picture against ``knocker_melds`` (``possible_layoffs`` and ``best_defence``);
    CardError for melds that ``check_knocker_melds`` refuses, or a defender that is no hand of 10 cards or shares
    a card with them."""
    check_hand(defender)
    knocker_melds = knocker_melds_of(knocker_melds)
    check_knocker_melds(knocker_melds)
    shared = defender & sum(knocker_melds)
    if shared:
        card = format_card(lowest_card(shared))
        raise CardError(f"{card} is in both the defender's hand and a knocker meld", card=card)
    check_hand(defender, (10,))
    return LayoffReport(is_gin(knocker_melds), tuple(possible_layoffs(knocker_melds, defender)),
                        best_defence(knocker_melds, defender))
