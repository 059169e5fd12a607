"""The meld engine against the brute-force reference, plus worked examples from the rules."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from service.core.cards import (
    ALL_CARDS,
    Hand,
    card_suit,
    card_value,
    format_hand,
    hand_cards,
    hand_from_cards,
    parse_card,
    parse_hand,
)
from service.core.melds import (
    Arrangement,
    Candidate,
    analyze_drawn_hand,
    arrangements_within,
    best_arrangement,
    find_melds,
    is_run,
    is_valid_meld,
    min_deadwood,
    optimal_arrangements,
    pack,
)
from service.core.rules import Rules
from service.core.scoring import score_round

from . import reference as ref
from .hands import LOW_CARDS, as_reference, hand_sizes, random_hands

# (pool, number of hands, seed): thousands of random hands of 0-11 cards, and dense families
# where melds overlap heavily (the twenty A-5 cards; the 8-K cards, full of equal 10-values;
# every spade with a few hearts and diamonds, for long runs that split or join).
FAMILIES = [("deck", 3000, 1), ("dense", 2000, 2), ("high", 1000, 3), ("suited", 1000, 14)]


def family_hands(pool: str, count: int, seed: int) -> list[Hand]:
    return list(random_hands(pool, count, hand_sizes(pool), seed))


@pytest.mark.parametrize(("pool", "count", "seed"), FAMILIES)
def test_min_deadwood_matches_reference(pool: str, count: int, seed: int) -> None:
    for hand in family_hands(pool, count, seed):
        assert min_deadwood(hand) == ref.least_deadwood(ref.from_bits(hand)), ref.from_bits(hand)


@pytest.mark.parametrize(("pool", "count", "seed"), FAMILIES)
def test_optimal_arrangements_match_reference(pool: str, count: int, seed: int) -> None:
    for hand in family_hands(pool, count, seed):
        found = optimal_arrangements(hand)
        expected = ref.optimal_arrangements(ref.from_bits(hand))
        assert len(found) == len(set(found)), "an arrangement is listed twice"
        assert {as_reference(a) for a in found} == expected, ref.from_bits(hand)
        assert best_arrangement(hand) == found[0]
        for arrangement in found:
            assert arrangement.hand == hand
            assert arrangement.deadwood == min_deadwood(hand)


@pytest.mark.parametrize(("pool", "seed"), [("deck", 4), ("dense", 5), ("high", 6), ("suited", 15)])
def test_arrangements_within_match_reference(pool: str, seed: int) -> None:
    rng = random.Random(seed)
    for hand in random_hands(pool, 600, hand_sizes(pool), seed):
        limit = rng.choice([0, 0, 5, 10, 10, 15, 25, 40, 200])
        found = arrangements_within(hand, limit)
        assert len(found) == len(set(found)), "an arrangement is listed twice"
        assert {as_reference(a) for a in found} == ref.arrangements_within(ref.from_bits(hand), limit)
        assert [a.deadwood for a in found] == sorted(a.deadwood for a in found), "least deadwood first"
        assert all(a.hand == hand for a in found)


@pytest.mark.parametrize(
    ("pool", "count", "seed"), [("deck", 800, 7), ("dense", 800, 8), ("high", 400, 9), ("suited", 400, 16)]
)
def test_drawn_hand_analysis_matches_reference(pool: str, count: int, seed: int) -> None:
    for hand in random_hands(pool, count, range(11, 12), seed):
        analysis = analyze_drawn_hand(hand)
        expected = ref.drawn_hand(ref.from_bits(hand))
        assert analysis.hand == hand
        assert sorted(o.card for o in analysis.options) == hand_cards(hand)
        for option in analysis.options:
            card = ref.from_card(option.card)
            least, arrangements = expected[card]
            assert option.deadwood == least
            assert {as_reference(a) for a in option.arrangements} == arrangements
            assert all(a.hand == hand & ~(1 << option.card) for a in option.arrangements)
        deadwoods = [o.deadwood for o in analysis.options]
        assert deadwoods == sorted(deadwoods)
        assert analysis.deadwood == min(least for least, _ in expected.values())
        assert set(analysis.best_discards) == {o.card for o in analysis.options if o.deadwood == analysis.deadwood}
        if ref.is_big_gin(ref.from_bits(hand)):
            assert analysis.big_gin is not None
            assert as_reference(analysis.big_gin) in ref.optimal_arrangements(ref.from_bits(hand))
        else:
            assert analysis.big_gin is None


@pytest.mark.parametrize(("pool", "seed"), [("deck", 10), ("dense", 11)])
def test_find_melds_is_every_meld(pool: str, seed: int) -> None:
    for hand in random_hands(pool, 1500, range(0, 14), seed):
        found = find_melds(hand)
        assert len(found) == len(set(found))
        assert {ref.from_bits(m) for m in found} == set(ref.melds(ref.from_bits(hand)))


def test_is_valid_meld_and_is_run_match_the_definition() -> None:
    groups = [group for size in (3, 4, 5) for group in combinations(LOW_CARDS, size)]
    for hand in random_hands("deck", 30, range(12, 13), 12):
        cards = [c for c in ALL_CARDS if hand >> c & 1]
        groups += [group for size in (2, 3, 4, 5, 6) for group in combinations(cards, size)]
    for group in groups:
        meld = hand_from_cards(group)
        expected = ref.is_meld(ref.from_bits(meld))
        assert is_valid_meld(meld) == expected, ref.from_bits(meld)
        if expected:
            assert is_run(meld) == ref.is_run(ref.from_bits(meld))
    assert not is_valid_meld(0)


def test_pack_matches_brute_force() -> None:
    rng = random.Random(13)
    universe = ALL_CARDS[:12]
    for _ in range(400):
        candidates = [
            Candidate(hand_from_cards(rng.sample(universe, rng.randint(1, 4))), rng.randint(1, 30), index)
            for index in range(rng.randint(0, 9))
        ]
        free = hand_from_cards(rng.sample(universe, rng.randint(0, 12)))
        packing = pack(candidates, free)
        expected = 0
        for size in range(len(candidates) + 1):
            for chosen in combinations(candidates, size):
                cards = [c.cards for c in chosen]
                union = sum(cards)
                if (
                    all(c & free == c for c in cards)
                    and hand_from_cards([card for c in cards for card in ALL_CARDS if c >> card & 1]) == union
                ):
                    expected = max(expected, sum(c.value for c in chosen))
        covered = 0
        for candidate in packing:
            assert candidate in candidates and candidate.cards & free == candidate.cards
            assert not candidate.cards & covered
            covered |= candidate.cards
        assert sum(c.value for c in packing) == expected


# Worked examples from the rules and seed documents, each also checked against the reference.
GOLDEN = [
    # (hand, least deadwood, why)
    ("As 2s 3s 4s 5s 6h 7h 8h 9h Th", 0, "gin with two 5-card runs (seed 003)"),
    ("7s 7h 7d 8s 9s", 14, "the 7 of spades melds once: run 7-9s, 7h 7d left (rules: one meld per card)"),
    ("7s 7h 7d 7c 8s 9s", 0, "four 7s: 7h 7d 7c set plus 7s 8s 9s run"),
    ("Kh Kd Kc Qh Jh Th 9h", 0, "K-K-K and Q-J-10-9 of hearts (seed 001)"),
    ("Qs Ks As", 21, "Q-K-A is not a run: the Ace is low"),
    ("Ks As 2s", 13, "K-A-2 is not a run"),
    ("As 2s 3s", 0, "A-2-3 is a run"),
    ("As 2s 4s", 7, "deadwood 2, 4 and A of spades: 7, low enough to knock (seed 003)"),
    ("Qh Qd Qs 5c 5d 8s 8h 8c 3s 3h", 16, "sets of queens and eights; a pair is not a meld: 5+5+3+3"),
    ("As 2s 3s 7h 7d 7c Kd Qd Jd 5c", 5, "the core package's own docstring example"),
    ("", 0, "no cards, no deadwood"),
    ("Kd", 10, "a King alone is 10"),
]


@pytest.mark.parametrize(("text", "deadwood", "why"), GOLDEN)
def test_golden_least_deadwood(text: str, deadwood: int, why: str) -> None:
    hand = parse_hand(text)
    assert ref.least_deadwood(ref.cards(text)) == deadwood, f"golden example wrong: {why}"
    assert min_deadwood(hand) == deadwood, why
    assert best_arrangement(hand).deadwood == deadwood, why


def test_two_five_card_runs_is_gin_laid_as_two_runs() -> None:
    (arrangement,) = optimal_arrangements(parse_hand("As 2s 3s 4s 5s 6h 7h 8h 9h Th"))
    assert as_reference(arrangement) == {ref.cards("As 2s 3s 4s 5s"), ref.cards("6h 7h 8h 9h Th")}


def test_touching_runs_of_a_suit_are_joined() -> None:
    (arrangement,) = optimal_arrangements(parse_hand("3s 4s 5s 6s 7s 8s"))
    assert as_reference(arrangement) == {ref.cards("3s 4s 5s 6s 7s 8s")}
    assert arrangement == Arrangement.of(parse_hand("3s 4s 5s 6s 7s 8s"), parse_hand_melds("3s 4s 5s", "6s 7s 8s"))


def test_seven_of_spades_in_the_run_not_the_set() -> None:
    (arrangement,) = optimal_arrangements(parse_hand("7s 7h 7d 8s 9s"))
    assert as_reference(arrangement) == {ref.cards("7s 8s 9s")}
    assert ref.from_bits(arrangement.deadwood_cards) == ref.cards("7h 7d")


def test_equal_choices_are_all_listed() -> None:
    # The King of hearts ends the run J-Q-K of hearts or completes three Kings: 20 left either way.
    found = optimal_arrangements(parse_hand("Jh Qh Kh Kd Kc"))
    assert {as_reference(a) for a in found} == {
        frozenset({ref.cards("Jh Qh Kh")}),
        frozenset({ref.cards("Kh Kd Kc")}),
    }
    assert [a.deadwood for a in found] == [20, 20]


def test_equal_choices_are_listed_in_one_order_by_every_call() -> None:
    # Tc ends the run T-J-Q of clubs or completes three Tens: 20 left either way, both with one meld.
    hand = parse_hand("Tc Jc Qc Ts Th")
    found = optimal_arrangements(hand)
    assert {as_reference(a) for a in found} == {
        frozenset({ref.cards("Tc Jc Qc")}),
        frozenset({ref.cards("Ts Th Tc")}),
    }
    assert found == arrangements_within(hand, 20)
    assert best_arrangement(hand) == found[0]


def test_big_gin_is_laid_out_as_the_round_score_lays_it_out() -> None:
    """4d goes in the set or in the run: the first layout in the arrangements' order, where the analysis took
    whichever choice of sets came first."""
    hand = parse_hand("4s 4h 4d 4c 5d 6d 7d 8d 9s Ts Js")
    big_gin = analyze_drawn_hand(hand).big_gin
    assert big_gin is not None and [format_hand(meld) for meld in big_gin.melds] == [
        ["4s", "4h", "4c"], ["4d", "5d", "6d", "7d", "8d"], ["9s", "Ts", "Js"]]
    assert big_gin == optimal_arrangements(hand)[0] == score_round(hand, parse_hand("As 2s 3s 5h 6h 7h Kc Qc Jc 9c"),
                                                                   Rules()).knocker


def test_big_gin_needs_every_card_melded() -> None:
    analysis = analyze_drawn_hand(parse_hand("As 2s 3s 4s 5s 6h 7h 8h 9h Th Jh"))
    assert analysis.big_gin is not None and analysis.big_gin.deadwood == 0
    assert analyze_drawn_hand(parse_hand("As 2s 3s 4s 5s 6h 7h 8h 9h Th Kc")).big_gin is None


def test_best_discard_of_a_drawn_hand() -> None:
    analysis = analyze_drawn_hand(parse_hand("As 2s 3s 7h 7d 7c Kd Qd Jd 5c 9s"))
    assert analysis.deadwood == 5
    assert analysis.best_discards == [parse_card("9s")]


def test_discards_that_tie_come_highest_first_then_by_suit() -> None:
    """6s and 2s each leave gin: the higher goes first (and is the suggested discard). Over random hands, the
    options are ordered by deadwood, then value from the highest, then suit (spades, hearts, diamonds, clubs)."""
    assert analyze_drawn_hand(parse_hand("2s 3s 4s 5s 6s 7h 7d 7c Kd Qd Jd")).best_discards == [
        parse_card("6s"), parse_card("2s")]
    rng = random.Random(21)
    for _ in range(300):
        options = analyze_drawn_hand(hand_from_cards(rng.sample(ALL_CARDS, 11))).options
        keys = [(o.deadwood, -card_value(o.card), card_suit(o.card)) for o in options]
        assert keys == sorted(keys)


def parse_hand_melds(*melds: str) -> list[Hand]:
    return [parse_hand(meld) for meld in melds]


def test_of_arrangements_with_equal_deadwood_the_one_with_fewer_melds_comes_first() -> None:
    # From a mutation audit: more melds first changed best_arrangement and nothing failed.
    hand = parse_hand("8c 9c Tc Jc Qc Kc Jh Jd")
    assert [a.melds for a in optimal_arrangements(hand)] == [(parse_hand("8c 9c Tc Jc Qc Kc"),),
                                                             (parse_hand("8c 9c Tc"), parse_hand("Jh Jd Jc"))]
    assert best_arrangement(hand).deadwood_cards == parse_hand("Jh Jd")
    assert [len(a.melds) for a in arrangements_within(parse_hand("As Ad Ac 3c 4c 5c 5h 5d"), 10)] == [2, 1, 2]
