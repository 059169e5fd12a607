"""Which discards of a just-drawn hand allow a legal knock, gin or big gin."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import SPADES, Card, CardError, Hand, card_suit, card_value, check_card, format_card
from .melds import Arrangement, analyze_drawn_hand
from .rules import Rules


def knock_limit(rules: Rules, upcard: Card | None = None) -> int:
    """The most deadwood a knocker may hold: Oklahoma takes it from the first upcard."""
    if not rules.oklahoma:
        return rules.knock_limit
    if upcard is None:
        raise CardError("Oklahoma rules need the first upcard to set the knock limit", card=None)
    value = card_value(check_card(upcard))
    if value == 1 and rules.oklahoma_ace == "gin_only":
        return 0
    return value


def score_doubled(rules: Rules, upcard: Card | None) -> bool:
    """Whether the hand's score is doubled: Oklahoma with a spade upcard (``oklahoma_spades_double``)."""
    return rules.oklahoma and rules.oklahoma_spades_double and upcard is not None and card_suit(upcard) == SPADES


@dataclass(frozen=True)
class KnockOption:
    """A discard after which the remaining ten cards may be laid out as a knock: ``arrangements`` are every
    layout with the least deadwood, in ``optimal_arrangements``' order."""

    card: Card
    deadwood: int
    gin: bool
    arrangements: tuple[Arrangement, ...]

    @property
    def arrangement(self) -> Arrangement:
        """The first least-deadwood layout."""
        return self.arrangements[0]


def check_discard(hand: Hand, card: Card, rules: Rules, drawn_from_discard: Card | None) -> None:
    """Raise CardError if ``card`` may not be discarded from ``hand`` under ``rules``."""
    if not hand >> card & 1:
        raise CardError(f"discard {format_card(card)} is not in the hand", card=format_card(card))
    if card == rules.banned_discard(drawn_from_discard):
        raise CardError(
            f"{format_card(card)} was just taken from the discard pile and may not be discarded this turn",
            card=format_card(card),
        )


def knock_options(
    hand: Hand, rules: Rules, upcard: Card | None = None, drawn_from_discard: Card | None = None
) -> list[KnockOption]:
    """Every legal knocking discard of an 11-card hand, least deadwood first (``drawn_from_discard``:
    the card just taken from the pile, one of the eleven)."""
    limit = knock_limit(rules, upcard)
    analysis = analyze_drawn_hand(hand)
    if drawn_from_discard is not None and not hand >> check_card(drawn_from_discard) & 1:
        name = format_card(drawn_from_discard)
        raise CardError(f"{name}, just taken from the pile, is not in the hand", card=name)
    banned = rules.banned_discard(drawn_from_discard)
    options = []
    for option in analysis.options:
        if option.deadwood > limit:
            break
        if option.card == banned:
            continue
        options.append(KnockOption(option.card, option.deadwood, option.deadwood == 0, option.arrangements))
    return options
