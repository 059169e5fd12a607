"""A hand under the rules: its knock limit, and which discards of a just-drawn hand allow a legal knock, gin or
big gin."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .cards import SPADES, Card, CardError, Hand, card_suit, card_value, check_card, check_hand, format_card
from .errors import FieldError, describe_value
from .melds import (
    Arrangement,
    DiscardOption,
    DrawnHandAnalysis,
    analyze_drawn_hand,
    min_deadwood,
    optimal_arrangements,
)
from .rules import Rules, check_rules


def knock_limit(rules: Rules, upcard: Card | None = None) -> int:
    """The most deadwood a knocker may hold: Oklahoma takes it from the first upcard (checked whenever given)."""
    if upcard is not None:
        check_card(upcard)
    if not check_rules(rules).oklahoma:
        return rules.knock_limit
    if upcard is None:
        raise CardError("Oklahoma rules need the first upcard to set the knock limit", card=None)
    value = card_value(upcard)
    if value == 1 and rules.oklahoma_ace == "gin_only":
        return 0
    return value


def may_double(rules: Rules) -> bool:
    """Whether a hand's score may be doubled: Oklahoma with ``oklahoma_spades_double``, on a spade upcard."""
    return rules.oklahoma and rules.oklahoma_spades_double


def score_doubled(rules: Rules, upcard: Card | None) -> bool:
    """Whether the hand's score is doubled: ``may_double`` and a spade upcard."""
    return may_double(rules) and upcard is not None and card_suit(upcard) == SPADES


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


def is_big_gin(hand: Hand, rules: Rules) -> bool:
    """Whether an 11-card hand is big gin under rules that score it."""
    return rules.big_gin_bonus is not None and min_deadwood(hand) == 0


def can_finish(hand: Hand, rules: Rules, upcard: Card | None = None, drawn_from_discard: Card | None = None) -> bool:
    """Whether an 11-card hand may end the hand now: a legal knock or gin, or big gin where the rules score it."""
    return report_hand(hand, rules, upcard, drawn_from_discard).may_finish(rules)


def check_discard(hand: Hand, card: Card, rules: Rules, drawn_from_discard: Card | None) -> None:
    """Raise CardError if ``card`` may not be discarded from ``hand`` under ``rules`` (or either is no card or
    hand)."""
    check_rules(rules)
    if not check_hand(hand) >> check_card(card) & 1:
        raise CardError(f"discard {format_card(card)} is not in the hand", card=format_card(card))
    if card == rules.banned_discard(drawn_from_discard):
        raise CardError(
            f"{format_card(card)} was just taken from the discard pile and may not be discarded this turn under these "
            "rules (see discard_pickup_allowed, and stock_end_discard for a card taken at the stock end)",
            card=format_card(card),
        )


def check_taken_card(hand: Hand, taken: Card | None) -> None:
    """Raise CardError unless ``taken``, the card just taken from the pile (if any), is one of an 11-card hand."""
    if taken is None:
        return
    if hand.bit_count() != 11:
        raise CardError("a card just taken is given only with an 11-card hand", card=None)
    if not hand >> check_card(taken) & 1:
        name = format_card(taken)
        raise CardError(f"{name}, just taken from the pile, is not in the hand", card=name)


def knock_options(
    hand: Hand, rules: Rules, upcard: Card | None = None, drawn_from_discard: Card | None = None
) -> list[KnockOption]:
    """Every legal knocking discard of an 11-card hand, least deadwood first (``drawn_from_discard``:
    the card just taken from the pile, one of the eleven)."""
    limit = knock_limit(rules, upcard)
    analysis = analyze_drawn_hand(hand)
    check_taken_card(hand, drawn_from_discard)
    banned = rules.banned_discard(drawn_from_discard)
    options = []
    for option in analysis.options:
        if option.deadwood > limit:
            break
        if option.card == banned:
            continue
        options.append(KnockOption(option.card, option.deadwood, option.deadwood == 0, option.arrangements))
    return options


@dataclass(frozen=True)
class HandReport:
    """A hand of 10 cards, or 11 just after a draw, under the rules: its knock limit and, for 10 cards, every
    least-deadwood layout (``arrangements``), for 11 every discard (``drawn``), of which ``banned_discard``
    may not be thrown this turn: ``deadwood`` and ``best_discards`` leave it out, as the API's answer does."""

    hand: Hand
    knock_limit: int
    arrangements: tuple[Arrangement, ...]
    drawn: DrawnHandAnalysis | None
    banned_discard: Card | None

    @cached_property
    def legal_discards(self) -> tuple[DiscardOption, ...]:
        """For 11 cards, the discards that may be thrown this turn, best first (for 10, none)."""
        if self.drawn is None:
            return ()
        return tuple(option for option in self.drawn.options if option.card != self.banned_discard)

    @property
    def deadwood(self) -> int:
        """The least deadwood of the ten cards, or after the best discard that may be thrown."""
        return self.arrangements[0].deadwood if self.drawn is None else self.legal_discards[0].deadwood

    @property
    def best_discards(self) -> list[Card]:
        """For 11 cards, every discard that may be thrown and reaches ``deadwood`` (for 10, none)."""
        legal = self.legal_discards
        return [option.card for option in legal if option.deadwood == legal[0].deadwood]

    def may_finish(self, rules: Rules) -> bool:
        """For 11 cards, whether the hand may end the hand now: a discard that may be thrown leaves a knock or gin,
        or all eleven meld (big gin) where ``rules`` score it (for 10, no)."""
        if self.drawn is None:
            return False
        return self.deadwood <= self.knock_limit or (self.drawn.big_gin is not None and rules.big_gin_bonus is not None)


STOCK_END_TAKE = "taken_at_stock_end"
"""The input that says the card just taken is the one offered at the stock end."""


def stock_end_rules(rules: Rules, drawn_from_discard: Card | None, taken_at_stock_end: bool,
                    hand: Hand | None = None) -> Rules:
    """The rules a knock is made under: ``rules``, or with the discard offered at the stock end taken
    (``taken_at_stock_end``, the card in ``drawn_from_discard``) ``Rules.stock_end_knock``'s. A FieldError on
    ``taken_at_stock_end`` where it is not true or false, the card is not given, the rules offer none, or
    ``hand``, the cards it was taken into (where known), are not eleven."""
    if type(taken_at_stock_end) is not bool:
        raise FieldError(STOCK_END_TAKE, f"expected true or false, got {describe_value(taken_at_stock_end)}")
    if not taken_at_stock_end:
        return rules
    if hand is not None and hand.bit_count() != 11:
        raise FieldError(STOCK_END_TAKE, "goes with an 11-card hand: the card taken at the stock end is one of its "
                         "eleven")
    if drawn_from_discard is None:
        raise FieldError(STOCK_END_TAKE, "the card taken at the stock end goes in drawn_from_discard: give it")
    if rules.stock_end_discard == "draw":
        raise FieldError(STOCK_END_TAKE, "under stock_end_discard draw the discard that leaves the stock's end is "
                         "not offered (the hand is a draw)")
    return rules.stock_end_knock()


def report_hand(
    hand: Hand, rules: Rules, upcard: Card | None = None, drawn_from_discard: Card | None = None,
    taken_at_stock_end: bool = False,
) -> HandReport:
    """Analyze a hand of 10 cards, or of 11 over every discard (``drawn_from_discard``: the card just taken
    from the pile, one of the eleven; ``taken_at_stock_end``: that card was the discard offered at the stock
    end, taken under ``stock_end_rules`` only by a hand that can then knock or go gin: a FieldError on
    ``taken_at_stock_end`` where it cannot, or where ``stock_end_rules`` refuses the take)."""
    limit = knock_limit(rules, upcard)
    check_taken_card(check_hand(hand, (10, 11)), drawn_from_discard)
    rules = stock_end_rules(rules, drawn_from_discard, taken_at_stock_end, hand)
    if hand.bit_count() == 10:
        return HandReport(hand, limit, tuple(optimal_arrangements(hand)), None, None)
    report = HandReport(hand, limit, (), analyze_drawn_hand(hand), rules.banned_discard(drawn_from_discard))
    if taken_at_stock_end and drawn_from_discard is not None and not report.may_finish(rules):
        raise FieldError(STOCK_END_TAKE, f"{format_card(drawn_from_discard)} is taken at the stock end only to "
                         "knock or go gin, and this hand cannot")
    return report
