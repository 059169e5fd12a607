"""Layoffs and the defender's joint optimum against the brute-force reference."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from service.core.cards import ALL_CARDS, FULL_DECK, CardError, Hand, hand_from_cards, parse_card, parse_hand
from service.core.layoffs import (
    DefenderResult,
    Layoff,
    best_defence,
    check_knocker_melds,
    possible_layoffs,
    report_layoffs,
)

from . import reference as ref
from .hands import POOLS, hands


def knock_deals(pool: str, count: int, seed: int) -> list[tuple[list[Hand], Hand]]:
    """(knocker melds, defender hand) pairs: melds packed from a random hand, defender from what is left.

    The defender draws mostly from the same pool, so its cards often touch the knocker's melds.
    """
    rng = random.Random(f"layoffs-{pool}-{seed}")
    deals: list[tuple[list[Hand], Hand]] = []
    while len(deals) < count:
        source = frozenset(ref.from_bits(hand_from_cards(rng.sample(POOLS[pool], 10))))
        packings = [p for p in ref.packings(source) if p]
        if not packings:
            continue
        melds = [ref.to_bits(meld) for meld in rng.choice(packings)]
        used = sum(melds)
        near = [c for c in POOLS[pool] if not used >> c & 1]
        far = [c for c in ALL_CARDS if not used >> c & 1 and c not in near]
        size = rng.randint(0, 10)
        from_near = rng.randint(size // 2, size) if far else size
        defender = hand_from_cards(rng.sample(near, from_near) + rng.sample(far, size - from_near))
        deals.append((melds, defender))
    return deals


def check_defence(result: DefenderResult, knocker_melds: list[Hand], defender: Hand) -> None:
    """Own melds valid and disjoint, layoffs playable in the given order, deadwood what is left."""
    table = [ref.from_bits(m) for m in knocker_melds]
    used = 0
    for meld in result.melds:
        assert ref.is_meld(ref.from_bits(meld)) and not meld & used
        used |= meld
    for layoff in result.layoffs:
        card = ref.from_card(layoff.card)
        assert not used >> layoff.card & 1
        assert layoff.meld_index in ref.layoff_targets(card, table), f"{layoff} not playable now"
        table[layoff.meld_index] = table[layoff.meld_index] | {card}
        used |= 1 << layoff.card
    assert used & ~defender == 0
    assert result.deadwood_cards == defender & ~used
    assert result.deadwood == ref.total(ref.from_bits(result.deadwood_cards))


@pytest.mark.parametrize(
    ("pool", "count", "seed"), [("deck", 700, 1), ("dense", 700, 2), ("high", 500, 3), ("suited", 500, 7)]
)
def test_best_defence_matches_reference(pool: str, count: int, seed: int) -> None:
    for knocker_melds, defender in knock_deals(pool, count, seed):
        result = best_defence(knocker_melds, defender)
        check_defence(result, knocker_melds, defender)
        expected = ref.defender_deadwood([ref.from_bits(m) for m in knocker_melds], ref.from_bits(defender))
        assert result.deadwood == expected, ([ref.from_bits(m) for m in knocker_melds], ref.from_bits(defender))


@pytest.mark.parametrize(("pool", "count", "seed"), [("deck", 500, 4), ("dense", 500, 5), ("high", 300, 6)])
def test_possible_layoffs_match_reference(pool: str, count: int, seed: int) -> None:
    for knocker_melds, defender in knock_deals(pool, count, seed):
        found = possible_layoffs(knocker_melds, defender)
        assert len(found) == len(set(found))
        _, moves = ref.layoff_search([ref.from_bits(m) for m in knocker_melds], ref.from_bits(defender))
        assert {(ref.from_card(lay.card), lay.meld_index) for lay in found} == moves


@st.composite
def knocks(draw: st.DrawFn) -> tuple[list[Hand], Hand]:
    """Knocker melds packed from a hand of one pool, and 0-10 other cards for the defender, from the same pool
    (touching the melds often) or the whole deck."""
    pool = draw(st.sampled_from(sorted(POOLS)))
    packings = [p for p in ref.packings(ref.from_bits(draw(hands(pool, min_size=3)))) if p]
    assume(packings)
    melds = [ref.to_bits(meld) for meld in draw(st.sampled_from(packings))]
    used = sum(melds)
    rest = [c for c in draw(st.sampled_from([POOLS[pool], ALL_CARDS])) if not used >> c & 1]
    return melds, hand_from_cards(draw(st.sets(st.sampled_from(rest), max_size=10)))


@settings(max_examples=300, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(knocks())
def test_the_defence_and_every_layoff_match_the_reference_for_any_melds(knock: tuple[list[Hand], Hand]) -> None:
    knocker_melds, defender = knock
    table, defender_cards = [ref.from_bits(m) for m in knocker_melds], ref.from_bits(defender)
    result = best_defence(knocker_melds, defender)
    check_defence(result, knocker_melds, defender)
    assert result.deadwood == ref.defender_deadwood(table, defender_cards)
    _, moves = ref.layoff_search(table, defender_cards)
    assert {(ref.from_card(lay.card), lay.meld_index) for lay in possible_layoffs(knocker_melds, defender)} == moves


def melds_of(*texts: str) -> list[Hand]:
    return [parse_hand(text) for text in texts]


@pytest.mark.parametrize("melds", [("6h 7h 8h", "Qs Qd Qc", "As 2s 3s 4s"), ("As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js",)])
def test_nothing_is_laid_off_against_gin(melds: tuple[str, ...]) -> None:
    """Ten cards melded (eleven for big gin): the defender keeps its own melds and lays off nothing."""
    defender = parse_hand("9h Th 2c 3c 4c Qh 5d 5h Ks 8d")
    knocker_melds = melds_of(*melds)
    assert possible_layoffs(knocker_melds, defender) == []
    result = best_defence(knocker_melds, defender)
    assert result.layoffs == () and result.melds == (parse_hand("2c 3c 4c"),)
    assert result.deadwood == ref.defender_deadwood([ref.from_bits(m) for m in knocker_melds], ref.from_bits(defender))


def test_fourth_queen_is_laid_off() -> None:
    # seed 000: the knocker melds three Queens, the defender's Queen goes on them for 10 less.
    result = best_defence(melds_of("Qs Qh Qd"), parse_hand("Qc 2h 5d"))
    assert result.layoffs == (Layoff(parse_card("Qc"), 0),)
    assert result.deadwood == 7


def test_nothing_is_laid_off_on_the_knockers_deadwood() -> None:
    # seed 000 / 003: the knocker's two Aces are deadwood, the defender's third Ace stays.
    result = best_defence(melds_of("7s 8s 9s"), parse_hand("Ad 4c"))
    assert result.layoffs == () and result.deadwood == 5
    assert possible_layoffs(melds_of("7s 8s 9s"), parse_hand("Ad 4c")) == []


def test_run_layoffs_chain_outward() -> None:
    # rules: after 9h on 6h-7h-8h, Th may follow; 5h goes on the other end.
    result = best_defence(melds_of("6h 7h 8h"), parse_hand("9h Th 5h Kc"))
    assert result.deadwood == 10
    laid = [lay.card for lay in result.layoffs]
    assert sorted(laid) == sorted(parse_hand_cards("5h 9h Th"))
    assert laid.index(parse_card("9h")) < laid.index(parse_card("Th"))
    assert possible_layoffs(melds_of("6h 7h 8h"), parse_hand("Th")) == []


@pytest.mark.parametrize(("melds", "gin"), [(("6h 7h 8h", "Qs Qd Qc"), False),
                                            (("6h 7h 8h", "Qs Qd Qc", "As 2s 3s 4s"), True)])
def test_report_gathers_gin_every_layoff_and_the_best_defence(melds: tuple[str, ...], gin: bool) -> None:
    knocker_melds, defender = melds_of(*melds), parse_hand("9h Th 2c 3c 4c Qh 5s 5d Ks 8d")
    report = report_layoffs(knocker_melds, defender)
    assert report.gin is gin
    assert report.possible == (() if gin else (Layoff(parse_card("9h"), 0), Layoff(parse_card("Th"), 0),
                                                 Layoff(parse_card("Qh"), 1)))
    assert report.best == best_defence(knocker_melds, defender)
    assert report.best.deadwood == (57 if gin else 28)


def parse_hand_cards(text: str) -> list[int]:
    return [parse_card(token) for token in text.split()]


def test_laying_off_can_beat_the_defenders_own_run() -> None:
    # 6h 7h 8h as its own run leaves 8s 8d (16); laying 6h 7h on 3h-5h frees 8h for three eights (0).
    result = best_defence(melds_of("3h 4h 5h"), parse_hand("6h 7h 8h 8s 8d"))
    assert result.deadwood == 0
    assert result.melds == (parse_hand("8h 8s 8d"),)
    assert [lay.card for lay in result.layoffs] == [parse_card("6h"), parse_card("7h")]


def test_no_layoff_onto_a_four_card_set_or_past_the_king() -> None:
    melds = melds_of("5s 5h 5d 5c", "Jd Qd Kd")
    assert possible_layoffs(melds, parse_hand("Ad 2d 4s 6s")) == []
    assert possible_layoffs(melds, parse_hand("Ad Td")) == [Layoff(parse_card("Td"), 1)]


@pytest.mark.parametrize(
    ("melds", "bad", "index"),
    [(["As 2s"], "As 2s", 0), (["As 2s 3s", "3s 3h 3d"], "3s", 1), (["Js Jd Jc", "Kh Ah 2h"], "Ah 2h Kh", 1)],
)
def test_invalid_knocker_melds_are_named(melds: list[str], bad: str, index: int) -> None:
    with pytest.raises(CardError) as raised:
        check_knocker_melds([parse_hand(m) for m in melds])
    assert (raised.value.card, raised.value.index) == (bad, index)


def test_knocker_melds_must_be_in_the_knockers_hand() -> None:
    with pytest.raises(CardError) as raised:
        check_knocker_melds(melds_of("As 2s 3s"), knocker=FULL_DECK & ~parse_hand("3s"))
    assert raised.value.card == "3s"


def test_knocker_melds_hold_at_most_eleven_cards() -> None:
    """Ten cards melded is gin, eleven big gin; no knocker lays out twelve."""
    eleven = melds_of("As 2s 3s 4s 5s 6s", "7h 8h 9h Th Jh")
    check_knocker_melds(eleven)
    with pytest.raises(CardError, match="the knocker's melds hold 12 cards"):
        check_knocker_melds(melds_of("As 2s 3s 4s 5s 6s", "7h 8h 9h Th Jh Qh"))


def test_a_knocker_meld_outside_the_hand_names_its_lowest_card_and_says_if_it_is_the_discard() -> None:
    melds = melds_of("As 2s 3s 4s")
    knocker = FULL_DECK & ~parse_hand("2s 4s")
    with pytest.raises(CardError, match="uses 2s, which is not in the knocker's hand") as raised:
        check_knocker_melds(melds, knocker=knocker)
    assert raised.value.card == "2s"
    with pytest.raises(CardError, match="uses 2s, which is the discard"):
        check_knocker_melds(melds, knocker=knocker, discard=parse_card("2s"))
    with pytest.raises(CardError, match="uses 2s, which is not in the knocker's hand"):
        check_knocker_melds(melds, knocker=knocker, discard=parse_card("4s"))


def test_a_knocker_meld_names_its_own_card_at_fault() -> None:
    """Found by a mutation audit: the tests above named a card the wrong computations named too (the lowest of
    the meld, or the one above a held Ace)."""
    with pytest.raises(CardError, match="knocker meld 0 uses 9h, which is not in the knocker's hand") as raised:
        check_knocker_melds(melds_of("7h 8h 9h"), knocker=parse_hand("7h 8h 2c 3c 4c Ks Kd Kh 5d 6d"))
    assert (raised.value.card, raised.value.index) == ("9h", 0)
    with pytest.raises(CardError, match="9d is in more than one knocker meld") as raised:
        report_layoffs(melds_of("9d Td Jd", "9h 9d 9c"), parse_hand("As 2d 4c 5h 6s 8d 3c Th Js Kd"))
    assert (raised.value.card, raised.value.index) == ("9d", 1)


def test_layoffs_come_meld_by_meld_in_the_knockers_order() -> None:
    # From a mutation audit: sorting by card instead of by meld went unseen.
    melds, defender = [parse_hand("Qs Qh Qd"), parse_hand("6h 7h 8h")], parse_hand("Qc 9h Th 2c")
    in_order = (Layoff(parse_card("Qc"), 0), Layoff(parse_card("9h"), 1), Layoff(parse_card("Th"), 1))
    assert tuple(possible_layoffs(melds, defender)) == in_order
    defence = best_defence(melds, defender)
    assert (defence.layoffs, defence.deadwood) == (in_order, 2)


def test_the_defenders_own_runs_are_joined_into_one() -> None:
    # Caught before only by the spec snapshot's example: 3h-8h is one run, not 3h-5h and 6h-8h.
    assert best_defence([parse_hand("Qs Qh Qd")], parse_hand("3h 4h 5h 6h 7h 8h Kc")).melds == (
        parse_hand("3h 4h 5h 6h 7h 8h"),)
