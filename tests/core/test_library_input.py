"""The engine used as a library: raw ints that are no cards or hands, and records no game can have,
are refused with the module's own errors instead of a wrong answer or an IndexError."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from service.core import (
    FULL_DECK,
    CardError,
    GameError,
    HandRecord,
    Rules,
    check_hand,
    format_card,
    is_valid_meld,
    knock_options,
    make_card,
    parse_hand,
    report_layoffs,
    resolve_rules,
    score_game,
    score_partnership_game,
    score_round,
)
from service.core.knocks import knock_limit, report_hand
from service.core.melds import analyze_drawn_hand

KNOCKER = parse_hand("As 2s 3s 7h 7d 7c Kd Qd Jd")  # nine cards
DEFENDER = parse_hand("4s 5s 8h 9h Th 4d 4c 9c Tc Qc")
ELEVEN = parse_hand("As 2s 3s 7h 7d 7c Kd Qd Jd 5c 9s")


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: score_round(KNOCKER | 1 << 13, DEFENDER, Rules()), "is not a hand"),
        (lambda: score_round(KNOCKER | 1 << 70, DEFENDER, Rules()), "is not a hand"),
        (lambda: score_round(-1, DEFENDER, Rules()), "is not a hand"),
        (lambda: score_round(ELEVEN, DEFENDER, Rules(), discard=99), "99 is not a card"),
        (lambda: score_round(ELEVEN, DEFENDER, Rules(), discard=-1), "-1 is not a card"),
        (lambda: score_round(ELEVEN, DEFENDER, Rules(), discard=13), "13 is not a card"),
        (lambda: score_round(KNOCKER | 1 << 4, DEFENDER, resolve_rules("oklahoma"), upcard=99), "99 is not a card"),
        (lambda: knock_limit(resolve_rules("oklahoma"), 99), "99 is not a card"),
        (lambda: knock_options(parse_hand("As 2s 3s 7h 7d 7c Kd Qd Jd 5c"), Rules()), "11 cards, got 10"),
        (lambda: knock_options(ELEVEN, Rules(), drawn_from_discard=make_card(1, 3)), "is not in the hand"),
        (lambda: report_hand(parse_hand("As 2s 3s"), Rules()), "10 or 11 cards, got 3"),
        (lambda: report_hand(ELEVEN & ~1, Rules(), drawn_from_discard=make_card(1, 3)), "only with an 11-card hand"),
        (lambda: report_hand(ELEVEN, Rules(), drawn_from_discard=make_card(1, 3)), "2c, just taken from the pile"),
        (lambda: report_hand(ELEVEN, resolve_rules("oklahoma")), "Oklahoma rules need the first upcard"),
        (lambda: analyze_drawn_hand(parse_hand("As 2s 3s")), "11 cards, got 3"),
        (lambda: analyze_drawn_hand(FULL_DECK), "11 cards, got 52"),
        (lambda: format_card(13), "13 is not a card"),
        (lambda: check_hand(True), "True is not a hand"),  # a bool is an int, but no hand
        (lambda: parse_hand("As;2s;3s"), "unknown card 'As;2s;3s'"),  # cards are separated by spaces or commas
        (lambda: format_card(64), "64 is not a card"),
        (lambda: make_card(13, 0), "no card has rank 13"),
        (lambda: make_card(0, 4), "no card has rank 0 and suit 4"),
    ],
)
def test_what_is_no_card_or_hand_is_a_card_error(call: Callable[[], object], fragment: str) -> None:
    with pytest.raises(CardError, match=fragment):
        call()


@pytest.mark.parametrize(
    ("given", "field"),
    [
        ({"knocker": -1}, "knocker"),
        ({"defender": 1 << 13}, "defender"),
        ({"discard": 99}, "discard"),
        ({"upcard": 99}, "upcard"),
        ({"drawn_from_discard": -1}, "drawn_from_discard"),
    ],
)
def test_score_round_names_the_input_that_is_no_card_or_hand(given: dict[str, int], field: str) -> None:
    with pytest.raises(CardError) as raised:
        score_round(given.get("knocker", ELEVEN), given.get("defender", DEFENDER), Rules(), upcard=given.get("upcard"),
                    discard=given.get("discard"), drawn_from_discard=given.get("drawn_from_discard"))
    assert raised.value.field == field


def test_a_meld_holds_only_cards_of_the_deck() -> None:
    assert not is_valid_meld(0b111 << 11)  # Qs Ks and the empty bit above the King
    assert not is_valid_meld(-7)


@pytest.mark.parametrize(
    ("melds", "defender", "fragment"),
    [
        ([make_card(6, 1)], parse_hand("7s 7c"), "is not a set of 3-4 or a run of 3\\+"),  # a card, not a meld
        ([0b111 << 11], parse_hand("Js"), "is not a set of 3-4 or a run of 3\\+"),
        ([parse_hand("7h 7d 7s")], parse_hand("7s 7c"), "7s is in both"),
        ([parse_hand("7h 7d 7s")], -1, "is not a hand"),
    ],
)
def test_report_layoffs_refuses_what_is_no_meld_or_hand(melds: list[int], defender: int, fragment: str) -> None:
    with pytest.raises(CardError, match=fragment):
        report_layoffs(melds, defender)


def test_the_empty_hand_is_a_hand_of_no_cards() -> None:
    assert check_hand(0) == 0 and check_hand(0, sizes=(0,)) == 0
    with pytest.raises(CardError, match=r"the knocker holds 10 cards \(11 with a discard, or 11 for big gin\), got 0"):
        score_round(0, DEFENDER, Rules())


@pytest.mark.parametrize(
    ("record", "fragment"),
    [
        (HandRecord(2, 10), "the winner is player 0 or 1"),
        (HandRecord(-1, 120), "the winner is player 0 or 1"),
        (HandRecord(True, 120), "the winner is player 0 or 1"),
        (HandRecord(0, -50), "points are a whole number"),
        (HandRecord(0, 10.5), "points are a whole number"),  # type: ignore[arg-type]
    ],
)
def test_a_hand_record_no_game_has_is_a_game_error(record: HandRecord, fragment: str) -> None:
    with pytest.raises(GameError, match=fragment):
        score_game([HandRecord(1, 5), record], Rules())
    with pytest.raises(GameError, match=fragment):
        score_partnership_game([(HandRecord(1, 5), record)], resolve_rules("partnership"))
