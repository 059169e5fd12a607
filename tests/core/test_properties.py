"""Hypothesis properties of the meld engine (deterministic: derandomized, bounded examples)."""

from __future__ import annotations

from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from service.core.cards import ALL_CARDS, Card, Hand, card_value, hand_value, make_card
from service.core.melds import (
    Arrangement,
    analyze_drawn_hand,
    arrangements_within,
    best_arrangement,
    min_deadwood,
    optimal_arrangements,
)

from . import reference as ref
from .hands import as_reference, hands

PROPERTY = settings(max_examples=300)
ANY_HAND = st.one_of(hands("deck"), hands("dense"), hands("high"), hands("suited"))
CARD = st.sampled_from(ALL_CARDS)


def check_arrangement(arrangement: Arrangement, hand: Hand) -> None:
    """Melds valid by definition, disjoint, inside the hand; deadwood is what is left."""
    melded = 0
    for meld in arrangement.melds:
        assert ref.is_meld(ref.from_bits(meld))
        assert not meld & melded
        melded |= meld
    assert melded & ~hand == 0
    assert arrangement.deadwood_cards == hand & ~melded
    assert arrangement.deadwood == hand_value(hand) - hand_value(melded)


@PROPERTY
@given(ANY_HAND)
def test_optimal_arrangements_are_valid_and_least(hand: Hand) -> None:
    found = optimal_arrangements(hand)
    assert found
    for arrangement in found:
        check_arrangement(arrangement, hand)
        assert arrangement.deadwood == min_deadwood(hand)
    assert best_arrangement(hand).deadwood == min_deadwood(hand)


@PROPERTY
@given(ANY_HAND)
def test_least_deadwood_and_every_optimal_layout_are_the_references(hand: Hand) -> None:
    """The engine's answers, not only valid ones: the brute-force reference's least deadwood and layouts."""
    assert min_deadwood(hand) == ref.least_deadwood(ref.from_bits(hand))
    assert {as_reference(a) for a in optimal_arrangements(hand)} == ref.optimal_arrangements(ref.from_bits(hand))


@PROPERTY
@given(ANY_HAND, st.integers(0, 60))
def test_arrangements_within_are_valid_and_nested(hand: Hand, limit: int) -> None:
    found = arrangements_within(hand, limit)
    for arrangement in found:
        check_arrangement(arrangement, hand)
        assert arrangement.deadwood <= limit
    assert set(found) <= set(arrangements_within(hand, limit + 5))
    if limit >= min_deadwood(hand):
        assert set(optimal_arrangements(hand)) <= set(found)
    else:
        assert found == []
    assert set(arrangements_within(hand, min_deadwood(hand))) == set(optimal_arrangements(hand))


def lowest_card(meld: int) -> ref.RefCard:
    """A meld's lowest card: least rank, then suit (s h d c)."""
    return min(ref.from_bits(meld))


@PROPERTY
@given(ANY_HAND, st.integers(0, 30))
def test_melds_are_listed_by_their_lowest_cards_rank_then_suit(hand: Hand, limit: int) -> None:
    for arrangement in [*optimal_arrangements(hand), *arrangements_within(hand, limit)]:
        lows = [lowest_card(meld) for meld in arrangement.melds]
        assert lows == sorted(lows)


@PROPERTY
@given(ANY_HAND, CARD)
def test_an_added_card_costs_at_most_its_value(hand: Hand, card: Card) -> None:
    assume(not hand >> card & 1)
    assert min_deadwood(hand | 1 << card) <= min_deadwood(hand) + card_value(card)


def meld_makers(hand: Hand) -> list[Card]:
    """The cards not in ``hand`` that extend a meld of its best arrangement or complete one with its deadwood
    (by the reference)."""
    arrangement = best_arrangement(hand)
    dead = ref.from_bits(arrangement.deadwood_cards)
    return [card for card in ALL_CARDS if not hand >> card & 1 and (
        any(ref.is_meld(ref.from_bits(meld | 1 << card)) for meld in arrangement.melds)
        or any(ref.from_card(card) in group for group in ref.melds(dead | {ref.from_card(card)})))]


@PROPERTY
@given(ANY_HAND, st.data())
def test_a_card_that_extends_or_completes_a_meld_never_raises_deadwood(hand: Hand, data: st.DataObject) -> None:
    # Half of the cards are drawn among those that extend or complete a meld: a card from anywhere did in 24 of
    # 300 examples (a test audit).
    makers = meld_makers(hand)
    among_makers = bool(makers) and data.draw(st.booleans())
    card = data.draw(st.sampled_from(makers)) if among_makers else data.draw(CARD)
    assume(not hand >> card & 1)
    arrangement = best_arrangement(hand)
    grown = hand | 1 << card
    extends = any(ref.is_meld(ref.from_bits(meld | 1 << card)) for meld in arrangement.melds)
    # completing a meld with deadwood cards: the largest value of deadwood it could meld with
    dead = ref.from_bits(arrangement.deadwood_cards)
    new = ref.from_card(card)
    completed = [group for group in ref.melds(dead | {new}) if new in group]
    event(f"extends a meld: {extends}; completes one: {bool(completed)}")
    if extends:
        assert min_deadwood(grown) <= min_deadwood(hand)
    for group in completed:
        assert min_deadwood(grown) <= min_deadwood(hand) - ref.total(group - {new})


@PROPERTY
@given(ANY_HAND, st.permutations(range(4)))
def test_relabelling_suits_keeps_the_deadwood(hand: Hand, suits: list[int]) -> None:
    relabelled = 0
    for card in ALL_CARDS:
        if hand >> card & 1:
            relabelled |= 1 << make_card(card & 15, suits[card >> 4])
    assert min_deadwood(relabelled) == min_deadwood(hand)
    assert len(optimal_arrangements(relabelled)) == len(optimal_arrangements(hand))


@PROPERTY
@given(st.one_of(*(hands(pool, 11, 11) for pool in ("deck", "dense", "high", "suited"))))
def test_drawn_hand_options_are_the_ten_card_answers(hand: Hand) -> None:
    analysis = analyze_drawn_hand(hand)
    for option in analysis.options:
        rest = hand & ~(1 << option.card)
        assert option.deadwood == min_deadwood(rest)
        assert set(option.arrangements) == set(optimal_arrangements(rest))
    assert (analysis.big_gin is not None) == (min_deadwood(hand) == 0)
    if analysis.big_gin is not None:
        check_arrangement(analysis.big_gin, hand)
        assert analysis.big_gin == optimal_arrangements(hand)[0]  # as a round's score lays big gin out
