"""The engine used as a library: raw ints that are no cards or hands, and records no game can have,
are refused with the module's own errors instead of a wrong answer or an IndexError."""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle
import random
from collections.abc import Callable
from itertools import combinations

import pytest

import service.core as core
from service.core import (
    ALL_CARDS,
    FULL_DECK,
    PRESETS,
    Arrangement,
    CardError,
    FieldError,
    GameError,
    GinError,
    HandRecord,
    Layoff,
    Rules,
    RulesError,
    card_value,
    check_discard,
    check_drawn_from_discard,
    check_hand,
    check_knocker_melds,
    format_card,
    format_hand,
    hand_from_cards,
    is_valid_meld,
    knock_options,
    make_card,
    min_deadwood,
    optimal_arrangements,
    parse_card,
    parse_cards,
    parse_hand,
    partnership_deal,
    presets_played,
    report_layoffs,
    resolve_rules,
    score_game,
    score_partnership_game,
    score_round,
)
from service.core.cards import check_card
from service.core.game import HandOutcome, IllegalMoveError, Table
from service.core.hints import HintStateError
from service.core.knocks import knock_limit, report_hand
from service.core.melds import analyze_drawn_hand, arrangements_within, merge_runs
from service.core.rules import RULE_PARAMETERS, unused_parameters
from service.core.scoring import MOST_DEADWOOD, IllegalKnockError

KNOCKER = parse_hand("As 2s 3s 7h 7d 7c Kd Qd Jd")  # nine cards
DEFENDER = parse_hand("4s 5s 8h 9h Th 4d 4c 9c Tc Qc")
ELEVEN = parse_hand("As 2s 3s 7h 7d 7c Kd Qd Jd 5c 9s")
SET_AND_RUN = [parse_hand("6h 7h 8h"), parse_hand("Qh Qd Qc")]
LAYING_OFF = parse_hand("5h 9h Qs 2c 3d 4s 6c 8d Jc Kc")


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
        (lambda: report_layoffs(SET_AND_RUN, parse_hand("5h 9h Qs")), "10 cards, got 3"),
        # one meld given bare, not in a list (an int was iterated: a TypeError)
        (lambda: score_round(KNOCKER | parse_hand("5c"), DEFENDER, Rules(), knocker_melds=parse_hand("7h 7d 7c")),  # type: ignore[arg-type]
         r"the knocker's melds are a list of melds, each an int like parse_hand\('7h 7d 7c'\), got \d+"),
        (lambda: report_layoffs("7h 7d 7c", LAYING_OFF), 'a list of melds.*got "7h 7d 7c"'),  # type: ignore[arg-type]
        (lambda: report_layoffs(SET_AND_RUN, LAYING_OFF | 1 << 28), "10 cards, got 11"),
        (lambda: report_hand(ELEVEN, Rules(), upcard=999), "999 is not a card"),  # checked without Oklahoma too
        (lambda: knock_options(ELEVEN, Rules(), upcard=-1), "-1 is not a card"),
        # the checks themselves: a plain ValueError (a negative shift) got past GinError
        (lambda: check_discard(ELEVEN, -1, Rules(), None), "-1 is not a card"),
        (lambda: check_discard(-1, 5, Rules(), None), "-1 is not a hand"),  # took 5 as in the hand
        (lambda: check_drawn_from_discard(KNOCKER, DEFENDER, -1, Rules()), "-1 is not a card"),
        (lambda: check_drawn_from_discard(KNOCKER, -1, parse_card("5c"), Rules()), "-1 is not a hand"),  # not "in
        # the defender's hand"
        (lambda: check_knocker_melds(SET_AND_RUN, ELEVEN, discard=-1), "-1 is not a card"),
        (lambda: check_knocker_melds(SET_AND_RUN, discard=-1), "-1 is not a card"),
        (lambda: check_knocker_melds(SET_AND_RUN, -1), "-1 is not a hand"),  # every meld looked inside it
        (lambda: check_knocker_melds(SET_AND_RUN, 1 << 70), "is not a hand"),
        # found by a mutation audit: a card taken given as True (2s) or -1 (a ValueError) went unseen, and so did
        # melds given as None or a float (a TypeError) and True as a meld
        (lambda: report_hand(ELEVEN, Rules(), drawn_from_discard=True), "True is not a card"),
        (lambda: report_hand(ELEVEN, Rules(), drawn_from_discard=-1), "-1 is not a card"),
        (lambda: report_layoffs(None, LAYING_OFF), "a list of melds.*got null"),  # type: ignore[arg-type]
        (lambda: report_layoffs(1.5, LAYING_OFF), "a list of melds.*got 1.5"),  # type: ignore[arg-type]
        (lambda: report_layoffs([True], LAYING_OFF), "knocker meld 0 is no hand"),
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
        # a knocker of the wrong size is named before the card it took, which it was said to lack "among its 10
        # cards" (found by a review)
        ({"knocker": parse_hand("As 2s 3s 7h 7d 7c Kd Qd Jd"), "drawn_from_discard": make_card(1, 3)}, "knocker"),
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




def test_melds_and_deals_given_as_generators_count_as_given_as_lists() -> None:
    """They were read twice, once by the check: the second reading found nothing (no layoffs, an empty game,
    or a false illegal knock)."""
    assert report_layoffs(iter(SET_AND_RUN), LAYING_OFF) == report_layoffs(SET_AND_RUN, LAYING_OFF)
    assert len(report_layoffs(SET_AND_RUN, LAYING_OFF).possible) == 3
    knocker = SET_AND_RUN[0] | SET_AND_RUN[1] | parse_hand("As 2s 3s 4d")
    defender = parse_hand("5h 9h Qs 2c 3d 5s 6c 8d Jc Kc")
    assert score_round(knocker, defender, Rules(), knocker_melds=iter(SET_AND_RUN)) == score_round(
        knocker, defender, Rules(), knocker_melds=SET_AND_RUN)
    deals = [(HandRecord(0, 60), HandRecord(0, 50))] * 2
    assert score_partnership_game(iter(deals), resolve_rules("partnership")) == score_partnership_game(
        deals, resolve_rules("partnership"))
    assert score_partnership_game(deals, resolve_rules("partnership"))[1].running_totals[-1] == (220, 0)


def test_report_hand_leaves_out_the_discard_the_rules_ban_as_the_api_does() -> None:
    hand, taken = parse_hand("As 2s 3s 4s 7h 7d 7c Kd Qd Jd 9c"), parse_card("9c")
    report = report_hand(hand, Rules(), drawn_from_discard=taken)
    assert (report.deadwood, format_hand(sum(1 << card for card in report.best_discards))) == (9, ["As", "4s"])
    assert taken not in [option.card for option in report.legal_discards] and len(report.legal_discards) == 10
    assert report.drawn is not None and report.drawn.best_discards == [taken]  # every discard, as documented
    gra = report_hand(hand, resolve_rules("gra"), drawn_from_discard=taken)
    assert (gra.deadwood, gra.best_discards, len(gra.legal_discards)) == (0, [taken], 11)
    ten = report_hand(hand & ~(1 << taken), Rules())
    assert (ten.deadwood, ten.best_discards, ten.legal_discards) == (0, [], ())  # gin


STOCK_END_HAND, STOCK_END_CARD = parse_hand("As 6s 7s 8s 9s Ts Js Ah 9h 6d 6c"), parse_card("9h")


@pytest.mark.parametrize("pickup", [False, True])
@pytest.mark.parametrize("offer", ["take_to_knock", "take_to_knock_any"])
def test_the_card_taken_at_the_stock_end_is_discarded_as_the_offer_says_as_the_api_does(offer: str,
                                                                                         pickup: bool) -> None:
    """The 50th-card rule bans throwing back the card taken at the stock end and Game Colony's form allows it,
    whatever discard_pickup_allowed says: 9h thrown back leaves a knock of 2, any other discard 10 or more."""
    rules, may = Rules(stock_end_discard=offer, discard_pickup_allowed=pickup), offer == "take_to_knock_any"  # type: ignore[arg-type]
    report = report_hand(STOCK_END_HAND, rules, drawn_from_discard=STOCK_END_CARD, taken_at_stock_end=True)
    assert (STOCK_END_CARD in [option.card for option in report.legal_discards], report.deadwood) == (
        may, 2 if may else 10)
    knock = {"knocker": STOCK_END_HAND, "defender": parse_hand("3s 4s 8h Th 3d 7d 8c Ks Kd Kc"), "rules": rules,
             "discard": STOCK_END_CARD, "drawn_from_discard": STOCK_END_CARD, "taken_at_stock_end": True}
    if may:
        assert score_round(**knock).knocker.deadwood == 2  # type: ignore[arg-type]
    else:
        with pytest.raises(CardError, match="may not be discarded") as caught:
            score_round(**knock)  # type: ignore[arg-type]
        assert caught.value.field == "discard"


@pytest.mark.parametrize("flag", ["false", 1, None])
def test_whether_the_card_was_taken_at_the_stock_end_is_true_or_false(flag: object) -> None:
    """Not read for its truth: the string "false" is true."""
    rules, fault = Rules(stock_end_discard="take_to_knock"), r"^taken_at_stock_end: expected true or false, got "
    with pytest.raises(FieldError, match=fault):
        report_hand(STOCK_END_HAND, rules, drawn_from_discard=STOCK_END_CARD, taken_at_stock_end=flag)  # type: ignore[arg-type]
    with pytest.raises(FieldError, match=fault):
        score_round(STOCK_END_HAND, parse_hand("3s 4s 8h Th 3d 7d 8c Ks Kd Kc"), rules, discard=parse_card("As"),
                    drawn_from_discard=STOCK_END_CARD, taken_at_stock_end=flag)  # type: ignore[arg-type]


@pytest.mark.parametrize(("hand", "taken", "rules", "fragment"), [
    ("As 6s 7s 8s 9s Ts Js Ah Jh 6d 6c", "Jh", Rules(stock_end_discard="take_to_knock"),
     "Jh is taken at the stock end only to knock or go gin, and this hand cannot"),
    ("As 6s 7s 8s 9s Ts Js Ah 9h 6d 6c", "9h", Rules(), "under stock_end_discard draw the discard that leaves the "
     "stock's end is not offered"),
    ("As 6s 7s 8s 9s Ts Js Ah 9h 6d 6c", None, Rules(stock_end_discard="take_to_knock"),
     "the card taken at the stock end goes in drawn_from_discard"),
    ("As 6s 7s 8s 9s Ts Js Ah 6d 6c", None, Rules(stock_end_discard="take_to_knock"), "goes with an 11-card hand"),
])
def test_a_take_at_the_stock_end_the_rules_or_the_hand_do_not_allow_is_a_field_error(
        hand: str, taken: str | None, rules: Rules, fragment: str) -> None:
    with pytest.raises(FieldError, match=fragment) as caught:
        report_hand(parse_hand(hand), rules, drawn_from_discard=None if taken is None else parse_card(taken),
                    taken_at_stock_end=True)
    assert caught.value.field == "taken_at_stock_end"




@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: score_game([HandRecord(0.0, 10)], Rules()), "hands/0: the winner is player 0 or 1"),  # type: ignore[arg-type]
        (lambda: score_game([(0, 10)], Rules()), "hands/0: a hand's result is a HandRecord, got a list"),  # type: ignore[list-item]
        (lambda: score_partnership_game([(HandRecord(0, 10),)], resolve_rules("partnership")),  # type: ignore[list-item]
         "deals/0: a deal is its two tables' results"),
        (lambda: score_partnership_game([HandRecord(0, 10)], resolve_rules("partnership")),  # type: ignore[list-item]
         "deals/0: a deal is its two tables' results"),
        (lambda: partnership_deal(HandRecord(5, 1), HandRecord(0, 1)), "tables/0: the winner is player 0 or 1"),
        (lambda: partnership_deal(HandRecord(0, 1), HandRecord(0, -1)), "tables/1: points are a whole number"),
    ],
)
def test_a_game_record_of_the_wrong_kind_is_a_game_error(call: Callable[[], object], fragment: str) -> None:
    with pytest.raises(GameError, match=fragment):
        call()


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: report_hand(ELEVEN, "standard"), "rules"),  # type: ignore[arg-type]
        (lambda: knock_options(ELEVEN, {"knock_limit": 5}), "rules"),  # type: ignore[arg-type]
        (lambda: score_round(ELEVEN, DEFENDER, None, discard=parse_card("9s")), "rules"),  # type: ignore[arg-type]
        (lambda: score_game([HandRecord(0, 10)], "gra"), "rules"),  # type: ignore[arg-type]
        (lambda: score_partnership_game([], "partnership"), "rules"),  # type: ignore[arg-type]
        (lambda: presets_played("standard"), "rules"),  # type: ignore[arg-type]
        (lambda: resolve_rules(["standard"]), "preset"),  # type: ignore[arg-type]
        (lambda: resolve_rules("gra", "knock_limit=5"), "overrides"),  # type: ignore[arg-type]
        (lambda: resolve_rules("gra", {5: 5}), "overrides"),  # type: ignore[dict-item]
    ],
)
def test_rules_that_are_no_rules_are_a_rules_error_naming_them(call: Callable[[], object], field: str) -> None:
    """A preset's name where rules go raised an AttributeError from deep inside; a list as the preset, a string
    or a mapping of non-string names as the overrides, a TypeError, a plain ValueError or an AttributeError."""
    with pytest.raises(RulesError) as raised:
        call()
    assert raised.value.field == field


def test_the_presets_and_the_rules_cannot_be_changed_by_mistake() -> None:
    with pytest.raises(TypeError):
        PRESETS["standard"] = PRESETS["gra"]  # type: ignore[index]
    with pytest.raises(TypeError):
        Rules(5)  # type: ignore[call-arg]  # which parameter would 5 be?
    assert Rules(knock_limit=5).knock_limit == 5


def test_every_engine_error_names_the_input_at_fault_where_it_knows_it() -> None:
    """``field`` is on the base class, so a caller catching GinError may read it (None where unknown)."""
    assert GinError("no input named").field is None
    with pytest.raises(GinError) as raised:
        score_round(-1, DEFENDER, Rules())
    assert raised.value.field == "knocker"


@pytest.mark.parametrize(
    ("call", "error", "fragment"),
    [
        (lambda: check_discard(ELEVEN, parse_card("9s"), "gra", None), RulesError, "expected a Rules"),  # type: ignore[arg-type]
        (lambda: check_drawn_from_discard(KNOCKER, DEFENDER, parse_card("9s"), None), RulesError, "got null"),  # type: ignore[arg-type]
        (lambda: Table.deal("gra", list(ALL_CARDS)), RulesError, "expected a Rules"),  # type: ignore[arg-type]
        (lambda: report_layoffs(["6h 7h 8h"], LAYING_OFF), CardError, "knocker meld 0 is no hand"),  # type: ignore[list-item]
        (lambda: score_round(ELEVEN, DEFENDER, Rules(), knocker_melds=[1.5]), CardError,  # type: ignore[list-item]
         "knocker meld 0 is no hand: a meld is an int like"),
    ],
)
def test_the_helpers_refuse_rules_and_melds_of_the_wrong_kind(call: Callable[[], object], error: type[Exception],
                                                              fragment: str) -> None:
    """They raised an AttributeError or a TypeError from deep inside."""
    with pytest.raises(error, match=fragment):
        call()


BIG_GIN = parse_hand("As 2s 3s 4s 5s Ah 2h 3h Ad 2d 3d")
MOST_DEADWOOD_HAND = parse_hand("Ts Js Ks Th Jh Kh Qd Qc 9d 9c")
KNOCK_OF_TEN = parse_hand("As 2s 3s 7h 7d 7c Kd Qd Jd Tc")
MELDED = parse_hand("4h 5h 6h 8s 9s Ts 2c 3c 4c 5c")


def test_ten_cards_hold_at_most_98_deadwood() -> None:
    """Deadwood of 99 or more needs cards worth 99 or more: ten ten-point cards, or nine and a Nine. Every such
    hand (53,768) melds something; at most two of each ten-point rank and two Nines meld nothing."""
    tens = [card for card in ALL_CARDS if card_value(card) == 10]
    nines = [card for card in ALL_CARDS if card_value(card) == 9]
    rich = [hand_from_cards(cards) for cards in combinations(tens, 10)]
    rich += [hand_from_cards([*cards, nine]) for cards in combinations(tens, 9) for nine in nines]
    assert len(rich) == 53_768 and max(map(min_deadwood, rich)) < 99
    assert min_deadwood(MOST_DEADWOOD_HAND) == MOST_DEADWOOD == 98


@pytest.mark.parametrize(
    ("rules", "knocker", "defender", "upcard"),
    [
        (Rules(), BIG_GIN, MOST_DEADWOOD_HAND, None),  # big gin 31 + 98
        (resolve_rules("standard"), BIG_GIN & ~(1 << 4), MOST_DEADWOOD_HAND, None),  # gin 25 + 98, no big gin
        (resolve_rules("oklahoma"), BIG_GIN & ~(1 << 4), MOST_DEADWOOD_HAND, parse_card("Qs")),  # (20 + 98) x 2
        (resolve_rules(None, {"undercut_bonus": 1000}), KNOCK_OF_TEN, MELDED, None),  # an undercut: 1000 + 10
        (resolve_rules("oklahoma", {"knock_limit": 0, "undercut_bonus": 1000}), KNOCK_OF_TEN, MELDED,
         parse_card("Qs")),  # Oklahoma's limit comes from the upcard: (1000 + 10) x 2
        (resolve_rules("oklahoma", {"oklahoma_spades_double": False}), BIG_GIN & ~(1 << 4), MOST_DEADWOOD_HAND,
         parse_card("Qs")),  # 20 + 98, not doubled
        (resolve_rules(None, {"knock_limit": 0, "undercut_bonus": 1000}), BIG_GIN, MOST_DEADWOOD_HAND, None),
        # with a limit of 0 every knock is gin: no undercut, so big gin's 31 + 98
    ],
)
def test_a_hand_scores_at_most_its_bound_and_a_round_reaches_it(rules: Rules, knocker: int, defender: int,
                                                                upcard: int | None) -> None:
    """A record above it is refused (the API took up to 10,000 points a hand under any rules)."""
    most = score_round(knocker, defender, rules, upcard=upcard).points
    assert score_game([HandRecord(0, most)], rules).running_totals == ((most, 0),)
    how = "an undercut" if rules.undercut_bonus == 1000 and most > 1000 else "gin"  # big gin, or gin
    with pytest.raises(GameError, match=f"a hand scores at most {most} points under these rules \\(.*{how}"):
        score_game([HandRecord(1, most + 1)], rules)


APART = resolve_rules(None, {"undercut_bonus": 500, "gin_bonus": 1000, "big_gin_bonus": None})  # no way overlaps


@pytest.mark.parametrize(("knocker", "defender", "points"), [
    ("As 4h 5h 6h 7d 8d 9d Jc Qc Kc", "3s 3h 3c 5s 6s 7s Ts Js Qs 2d", 1),  # a knock of 1 against 2
    ("As 2h 3h 4h 5d 6d 7d 2c 3c 4c", "Ts Js Ks Th Jh Kh Qd Qc 9d 9c", 97),  # a knock of 1 against 98
    ("As 2s 3s 7h 7d 7c Kd Qd Jd 5c", "4h 4d 4c 8s 8h 8d Tc Jc Qc 5d", 500),  # a tie, an undercut
    ("As 2s 3s 7h 7d 7c Kd Qd Jd Tc", "4h 5h 6h 8s 9s Ts 2c 3c 4c 5c", 510),  # a knock of 10 against none
    ("As 2s 3s 4s 7h 7d 7c Jd Qd Kd", "4h 5h 6h 8s 9s Ts 2c 3c 4c 5c", 1000),  # gin against none
    ("As 2s 3s 4s 7h 7d 7c 5d 6d 7s", "Ts Js Ks Th Jh Kh Qd Qc 9d 9c", 1098),  # gin against 98
])
def test_each_end_of_each_way_to_win_is_a_real_round(knocker: str, defender: str, points: int) -> None:
    """The records a game takes are exactly the points a knock, an undercut or gin can score; between them, none
    (found by a referee's audit: 149 points passed with gin worth 1,000)."""
    assert score_round(parse_hand(knocker), parse_hand(defender), APART).points == points
    score_game([HandRecord(0, points)], APART)
    beyond = points + (1 if points in (97, 510, 1098) else -1)
    with pytest.raises(GameError, match=r"a hand scores at most 1098 points under these rules \(gin \(1000\) against "
                       r"98 deadwood, the most ten cards hold\); got 1099$" if beyond == 1099 else
                       f"scores {beyond} points: a knock 1 to 97; an undercut 500 to 510; gin 1000 to 1098$"):
        score_game([HandRecord(0, beyond)], APART)


def test_a_meld_may_not_hold_the_discard_of_the_knocker_it_is_checked_against() -> None:
    """As the docstring says: inside the knocker's hand once the discard is gone (the 11 cards held it)."""
    knocker = parse_hand("As 2s 3s 4s 7h 7d 7c Kd Qd Jd 5c")
    check_knocker_melds([parse_hand("As 2s 3s 4s")], knocker)
    with pytest.raises(CardError, match="uses 4s, which is the discard"):
        check_knocker_melds([parse_hand("As 2s 3s 4s")], knocker, discard=parse_card("4s"))


ERRORS = [
    GinError("any fault"),
    CardError("4x is no card", card="4x", index=2, field="defender"),
    FieldError("upcard", "may not be null", 0),
    RulesError({"knock_limit": "expected at most 10, got 11", "target": "expected at least 1, got 0"}),
    GameError("deals", "a team won no table", 3, table=1),
    IllegalKnockError(12, 10),
    IllegalKnockError(5, 0, "big gin needs all 11 cards melded", "knocker_melds"),
    HintStateError("hand", "4s is also in the pile", 7),
    IllegalMoveError("pass is not legal in the discard phase"),
]


def _subclasses(kind: type[GinError]) -> set[type[GinError]]:
    return {kind}.union(*(_subclasses(sub) for sub in kind.__subclasses__()))


def test_every_engine_error_is_among_those_copied() -> None:
    assert {type(error) for error in ERRORS} == _subclasses(GinError)


@pytest.mark.parametrize("error", ERRORS, ids=lambda error: type(error).__name__)
@pytest.mark.parametrize("duplicate", [lambda error: pickle.loads(pickle.dumps(error)), copy.copy, copy.deepcopy],
                         ids=["pickle", "copy", "deepcopy"])
def test_an_engine_error_survives_pickling_and_copying(error: GinError, duplicate: Callable[[GinError], GinError]
                                                       ) -> None:
    """Their constructors take other arguments than ``args`` holds: unpickling one failed, and a process pool whose
    worker raised one waited for ever."""
    copied = duplicate(error)
    assert type(copied) is type(error) and str(copied) == str(error) and vars(copied) == vars(error)


DENSE = parse_hand("7s 7c 7d 7h 8h 9h 2c 3c 4c Kd")
VALUES = [
    lambda: optimal_arrangements(DENSE),
    lambda: optimal_arrangements(parse_hand("As 2s 3s 4s 5s 6s 7s 8s 9s Ts")),  # one meld, no deadwood
    lambda: optimal_arrangements(parse_hand("Kd Qs 9h 2c 4d 6h 8c Tc Js 3h")),  # no meld
    lambda: score_round(KNOCKER | parse_hand("5c"), DEFENDER, Rules()),
    lambda: score_round(parse_hand("6h 7h 8h Qh Qd Qc As Ah Ad 2h"), LAYING_OFF, Rules()),  # with layoffs
    lambda: report_layoffs(SET_AND_RUN, LAYING_OFF),
    lambda: knock_options(ELEVEN, Rules()),
    lambda: report_hand(ELEVEN, resolve_rules("gra")),
    lambda: analyze_drawn_hand(ELEVEN),
    lambda: score_game([HandRecord(0, 31), HandRecord(None, 0), HandRecord(1, 80)], resolve_rules("hoyle")),
    lambda: PRESETS["oklahoma"],
]


@pytest.mark.parametrize("make", VALUES)
def test_a_value_objects_repr_pastes_back(make: Callable[[], object]) -> None:
    """As python-chess's do, so a repr from a log or a failing test can be pasted into a session."""
    value = make()
    assert eval(repr(value), vars(core)) == value


def test_hands_and_cards_print_by_name_and_what_is_none_as_it_is() -> None:
    """They showed as raw ints, or as text that was no code; an int that is no hand or card shows as itself (a
    repr that raised, or named other cards, would hide the bad input being debugged)."""
    defence = score_round(parse_hand("6h 7h 8h Qh Qd Qc As Ah Ad 2h"), LAYING_OFF, Rules()).defender
    assert repr(defence) == ("DefenderResult(melds=(), layoffs=(Layoff(card=parse_card('5h'), meld_index=1), "
                             "Layoff(card=parse_card('9h'), meld_index=1), Layoff(card=parse_card('Qs'), "
                             "meld_index=2)), deadwood_cards=parse_hand('2c 3d 4s 6c 8d Jc Kc'))")
    assert repr(optimal_arrangements(DENSE)[0]) == ("Arrangement(melds=(parse_hand('2c 3c 4c'), parse_hand('7s 7d "
                                                    "7c'), parse_hand('7h 8h 9h')), deadwood_cards=parse_hand('Kd'))")
    assert repr(Layoff(99, 0)) == "Layoff(card=99, meld_index=0)"
    assert repr(Arrangement((-1,), 1 << 13)) == "Arrangement(melds=(-1,), deadwood_cards=8192)"


SEEN = core.GameState(hand=tuple(parse_cards("As 2s 3s 7h 7d 7c Kd Qd Jd 5c 9h")), phase="discard",
                      upcard=parse_card("4d"), discard_pile=tuple(parse_cards("4d Tc")), stock_count=29,
                      opponent_discards=(parse_card("7c"),), drawn_from_discard=parse_card("7c"))


@pytest.mark.parametrize(("call", "field", "fragment"), [
    (lambda: core.hint(SEEN, Rules(), seed=None), "seed", "expected an integer"),  # type: ignore[arg-type]
    (lambda: core.hint(SEEN, Rules(), seed=True), "seed", "expected an integer"),
    (lambda: core.hint(SEEN, Rules(), config=None), "config", "expected an EngineConfig, got null"),  # type: ignore[arg-type]
    (lambda: core.hint(SEEN, Rules(), budget=-1), "budget", "expected a TimeBudget or None, got -1"),  # type: ignore[arg-type]
    (lambda: core.hint(SEEN, "gra"), "rules", "expected a Rules"),  # type: ignore[arg-type]
    (lambda: core.hint(dataclasses.replace(SEEN, hand=ELEVEN), Rules()), "hand",  # type: ignore[arg-type]
     r"expected the cards as a list or tuple of card ints \(parse_cards makes one\), got \d+"),
    (lambda: core.legal_actions(dataclasses.replace(SEEN, opponent_discards=None), Rules()),  # type: ignore[arg-type]
     "opponent_discards", "got null"),
    (lambda: core.hint(dataclasses.asdict(SEEN), Rules()), "state", "expected a GameState, got an object"),  # type: ignore[arg-type]
    (lambda: core.hint(dataclasses.replace(SEEN, returned_discard="no"), resolve_rules("gra")),  # type: ignore[arg-type]
     "returned_discard", 'expected true or false, got "no"'),  # "no" is true: it changed the advice
    (lambda: core.hint(SEEN, Rules(), budget=core.TimeBudget(math.nan)), "budget", "expected a number of seconds"),
    (lambda: core.EngineConfig(feed_penalty=math.nan), "feed_penalty", "from 0 to 1,000,000, got nan"),
    (lambda: core.EngineConfig(knock_margin=True), "knock_margin", "expected a number from 0 to infinity, got true"),
    (lambda: core.EngineConfig(samples="24"), "samples", 'from 0 to 10,000, got "24"'),  # type: ignore[arg-type]
    (lambda: core.EngineConfig(samples=-1), "samples", "expected a whole number from 0 to 10,000, got -1"),
    (lambda: core.EngineConfig(sample_pool=2.5), "sample_pool", "got 2.5"),  # type: ignore[arg-type]
    (lambda: core.EngineConfig(ceiling_evidence=-1), "ceiling_evidence", "from 0 to 1, got -1"),  # it knocked
    (lambda: core.EngineConfig(defence_weight=1e308), "defence_weight", r"got 1e\+308"),  # a NaN evaluation
    (lambda: core.EngineConfig(feed_penalty=10**400), "feed_penalty", "got a 1329-bit integer"),  # OverflowError
])
def test_the_hint_engine_refuses_what_a_library_caller_gets_wrong(call: Callable[[], object], field: str,
                                                                  fragment: str) -> None:
    """An AttributeError or a TypeError from deep inside, or quietly other advice (a NaN knob; a null seed, which
    samples anew each call)."""
    with pytest.raises(GinError, match=fragment) as raised:
        call()
    assert raised.value.field == field


def test_the_hint_engine_is_among_the_public_names() -> None:
    assert str(core.hint(SEEN, Rules(), config=core.EngineConfig(samples=8)).action) == "discard 9h"
    assert core.EngineConfig(knock_margin=math.inf, second_draw_margin=-math.inf)  # never knock; one draw only
    table = core.Table.shuffled(Rules(), random.Random(1))
    table.play(core.legal_actions(table.view(), Rules())[0])
    assert table.phase == "discard"


def test_cards_given_as_lists_are_read_as_tuples() -> None:
    """``parse_cards`` makes lists; the checks compare tuples (a list refused three states in four)."""
    table = core.Table.shuffled(resolve_rules("gra"), random.Random(2))
    for _ in range(12):
        state = table.view()
        listed = core.GameState(**{**vars(state), **{name: list(getattr(state, name)) for name in (
            "hand", "discard_pile", "opponent_hand_known", "opponent_discards")}})
        assert listed == state and core.legal_actions(listed, table.rules) == table.legal_actions()
        table.play(table.legal_actions()[-1])


@pytest.mark.parametrize(("call", "fragment"), [
    (lambda: core.Table.shuffled(Rules(), 1), "expected a random.Random to shuffle with, got 1"),  # type: ignore[arg-type]
    (lambda: core.Table.deal(Rules(), list(ALL_CARDS), dealer=1.0), "the dealer is player 0 or 1, got 1.0"),  # type: ignore[arg-type]
    (lambda: core.Table.deal(Rules(), [float(card) for card in ALL_CARDS]), "each of the 52 cards once"),  # type: ignore[misc]
])
def test_the_table_refuses_what_is_no_deal(call: Callable[[], object], fragment: str) -> None:
    with pytest.raises(GinError, match=fragment):
        call()


def test_the_table_deals_from_any_iterable_and_plays_the_legal_move_a_caller_means() -> None:
    """A deck given as an iterator was read twice (an IndexError); ``True`` as a card equals 1 and was applied as
    given, and every later view refused the pile."""
    rest = [card for card in ALL_CARDS if card not in (0, 1, 5)]
    table = core.Table.deal(Rules(), iter([*rest, 1, 5, 0]))  # the non-dealer is dealt As, then 2s (card 1)
    assert len(table.stock) == 31
    table.play(core.Action("take_upcard"))
    table.play(core.Action("discard", True))
    assert type(table.pile[-1]) is int and table.view().discard_pile[-1] == 1


# --- found by the second mutation run over the core: behaviour that no test pinned --------------------------------

def test_big_gin_laid_out_as_given_is_big_gin() -> None:
    knocker = parse_hand("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc")
    result = score_round(knocker, parse_hand("2h 3h 4h 5h 6h 7h 8h 9h Th Jh"), Rules(), knocker_melds=[knocker])
    assert (result.outcome, result.points) == ("big_gin", 31)


def test_a_run_joins_its_suits_last_run_after_another_suits() -> None:
    runs = [parse_hand("2s 3s 4s"), parse_hand("2h 3h 4h"), parse_hand("5h 6h 7h")]
    assert merge_runs(runs) == (parse_hand("2s 3s 4s"), parse_hand("2h 3h 4h 5h 6h 7h"))
    assert len(arrangements_within(parse_hand("2s 3s 4s 2h 3h 4h 5h 6h 7h 9c"), 9)) == 1


def test_ten_cards_may_not_finish_even_as_gin() -> None:
    assert not report_hand(parse_hand("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc"), Rules()).may_finish(Rules())


@pytest.mark.parametrize(("records", "rules", "fault"), [
    ([HandRecord(0, True)], Rules(), "points are a whole number, 0 or more; got True"),  # True is no 1 point
    ([HandRecord(0, 1000)], Rules(), r"^hands/0: a hand scores at most 129 points under these rules \(big gin \(31\) "
     r"against 98 deadwood, the most ten cards hold\); got 1000$"),
    ([HandRecord(0, 1000)], resolve_rules("oklahoma"), r"at most 236 points under these rules \(gin \(20\) against 98 "
     r"deadwood, the most ten cards hold, doubled by a spade upcard\); got 1000$"),
    ([HandRecord(0, 0)], resolve_rules(None, {"oklahoma_extra_boxes": True}),  # no boxes outside Oklahoma
     "scores 0 points: a knock 1 to 97; an undercut 25 to 35; gin 25 to 123; big gin 31 to 129$"),
])
def test_a_record_no_hand_has_is_refused_in_these_words(records: list[HandRecord], rules: Rules, fault: str) -> None:
    with pytest.raises(GameError, match=fault):
        score_game(records, rules)


def test_the_extra_boxes_rule_alone_is_no_oklahoma() -> None:
    """Outside Oklahoma a gin is scored without boxes, even with ``oklahoma_extra_boxes`` on."""
    assert score_game([HandRecord(0, 120)], resolve_rules(None, {"oklahoma_extra_boxes": True})).boxes == (1, 0)


def test_a_deal_may_be_given_as_a_list() -> None:
    hands, _ = score_partnership_game([[HandRecord(0, 10), HandRecord(None, 0)]], Rules())  # type: ignore[list-item]
    assert hands == (HandRecord(0, 10),)


@pytest.mark.parametrize("card", [1.5, "Ks"])
def test_what_is_no_int_is_no_card(card: object) -> None:
    with pytest.raises(CardError, match="is not a card"):
        check_card(card)  # type: ignore[arg-type]
    with pytest.raises(CardError) as raised:
        score_round(KNOCKER | 1 << 4, DEFENDER, resolve_rules("oklahoma"), upcard=card)  # type: ignore[arg-type]
    assert raised.value.field == "upcard"


@pytest.mark.parametrize("hand", [1.5, "As 2s", None])
def test_what_is_no_int_is_no_hand(hand: object) -> None:
    with pytest.raises(CardError, match="is not a hand"):
        check_hand(hand)  # type: ignore[arg-type]
    with pytest.raises(CardError, match="is not a hand"):
        score_round(hand, DEFENDER, Rules())  # type: ignore[arg-type]


def test_player_0_deals_unless_another_is_named() -> None:
    table = Table.deal(Rules(), list(ALL_CARDS))
    shuffled = Table.shuffled(Rules(), random.Random(1))
    assert (table.dealer, table.to_move) == (shuffled.dealer, shuffled.to_move) == (0, 1)


def test_an_eleven_card_deal_with_a_knock_limit_of_0_leaves_both_unused() -> None:
    assert set(unused_parameters(Rules(knock_limit=0, eleven_card_deal=True))) >= {
        "first_turn", "undercut_bonus", "undercut_on_tie"}


def test_the_integer_parameters_bounds() -> None:
    """As the spec publishes them (the tests elsewhere read them from the table itself)."""
    assert {p.name: (p.minimum, p.maximum) for p in RULE_PARAMETERS if p.minimum is not None} == {
        "knock_limit": (0, 10), "gin_bonus": (0, 1000), "big_gin_bonus": (0, 1000), "undercut_bonus": (0, 1000),
        "target": (1, 10000), "game_bonus": (0, 10000), "box_bonus": (0, 1000), "stock_end": (0, 10)}


@pytest.mark.parametrize("value", [
    HandRecord(0, 10), score_game([HandRecord(0, 10)], Rules()), report_hand(ELEVEN, Rules()), RULE_PARAMETERS[0],
    PRESETS["gra"], analyze_drawn_hand(ELEVEN), analyze_drawn_hand(ELEVEN).options[0], HandOutcome(None, None),
], ids=lambda value: type(value).__name__)
def test_value_objects_are_frozen(value: object) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.points = 1  # type: ignore[attr-defined]
