"""``/v1/layoffs``, ``/v1/rounds/score``, ``/v1/games/score`` and ``/v1/rules``."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry

from service.core.rules import PRESETS, RULE_PARAMETERS, Rules

from .conftest import SPEC_URI, Call

RANKS = "A23456789TJQK"
VALUE = {rank: min(i + 1, 10) for i, rank in enumerate(RANKS)}
KNOCKER = "As 2s 3s 7h 7d 7c Kd Qd Jd 2c"
DEFENDER = "4s 5s 8h 9h Th 4d 4c 9c Tc Qc"


def _value(cards: list[str]) -> int:
    return sum(VALUE[card[0]] for card in cards)


def _play_layoffs(melds: list[list[str]], layoffs: list[dict]) -> None:  # type: ignore[type-arg]
    """Independent check: each layoff, in the given order, fits the meld as it has grown."""
    grown = [list(meld) for meld in melds]
    for layoff in layoffs:
        meld, card = grown[layoff["meld_index"]], layoff["card"]
        if len({c[0] for c in meld}) == 1:
            assert card[0] == meld[0][0] and len(meld) == 3
        else:
            ranks = sorted(RANKS.index(c[0]) for c in meld)
            assert card[1] == meld[0][1] and RANKS.index(card[0]) in (ranks[0] - 1, ranks[-1] + 1)
        meld.append(card)


def test_layoffs_chain_and_choose_the_best(call: Call) -> None:
    answer = call("POST", "/v1/layoffs", json={"knocker_melds": [["6h", "7h", "8h"], "Qs Qd Qc"],
                                                "defender": "9h Th 2c 3c 4c Qh 5s 5d Ks 8d"}).get_json()
    assert answer["possible_layoffs"] == [{"card": "9h", "meld_index": 0}, {"card": "Th", "meld_index": 0},
                                          {"card": "Qh", "meld_index": 1}]
    assert answer["melds"] == [["2c", "3c", "4c"]]
    _play_layoffs(answer["knocker_melds"], answer["layoffs"])
    assert {layoff["card"] for layoff in answer["layoffs"]} == {"9h", "Th", "Qh"}
    assert answer["deadwood_cards"] == ["5s", "5d", "8d", "Ks"] and answer["deadwood"] == 28


def test_nothing_is_laid_off_against_gin_and_the_answer_says_why(call: Call) -> None:
    # Ten cards in the knocker's melds: gin. 6s and 7h would lay off onto a knock's melds.
    body = {"knocker_melds": [["3s", "4s", "5s"], ["3h", "4h", "5h", "6h"], ["5d", "6d", "7d"]],
            "defender": "8d 4c 4d 6c 7h 3d 6s 3c 8s 7c"}
    answer = call("POST", "/v1/layoffs", json=body).get_json()
    assert answer["gin"] is True and answer["possible_layoffs"] == [] and answer["layoffs"] == []
    knock = call("POST", "/v1/layoffs", json={**body, "knocker_melds": body["knocker_melds"][:2]}).get_json()
    assert knock["gin"] is False and {layoff["card"] for layoff in knock["possible_layoffs"]} == {"6s", "7h"}


@pytest.mark.parametrize(
    ("body", "pointer", "detail"),
    [
        ({"knocker_melds": [["6h", "7h", "9h"]], "defender": DEFENDER}, "#/knocker_melds/0", "is not a set"),
        ({"knocker_melds": ["Js Jd Jc", "As 2s 3s", "Jh Qh Kh Ah"], "defender": DEFENDER}, "#/knocker_melds/2",
         "knocker meld 2 (Ah Jh Qh Kh) is not a set"),
        ({"knocker_melds": ["Js Jd Jc", "Th Jh Qh Jd"], "defender": DEFENDER}, "#/knocker_melds/1",
         "knocker meld 1 (Th Jh Jd Qh) is not a set"),
        ({"knocker_melds": ["Js Jd Jc", "Jh Qh Kh", "Jd Qd Kd"], "defender": DEFENDER}, "#/knocker_melds/2",
         "Jd is in more than one knocker meld"),
        ({"knocker_melds": [["Js", "Jd", "Jc"]], "defender": "Js 5s 8h 9h Th 4d 4c 9c Tc Qc"}, "#/defender",
         "Js is in both"),
        ({"knocker_melds": [], "defender": DEFENDER}, "#/knocker_melds", "expected 1 to 3 items"),
        ({"knocker_melds": [["6h", "7h"]], "defender": DEFENDER}, "#/knocker_melds/0",
         "a meld here has 3 to 11 cards, got 2"),
        ({"knocker_melds": [""], "defender": DEFENDER}, "#/knocker_melds/0", "a meld here has 3 to 11 cards, got 0"),
        ({"knocker_melds": ["6h", "7h", "8h"], "defender": DEFENDER}, "#/knocker_melds",
         'expected a list of melds, each a list of cards or one string, like [["6h", "7h", "8h"], "Qs Qd Qc"]'),
        ({"knocker_melds": ["6h 7h 8h 5h", "Js Qs Ks Ts", "As 2s 3s 4s"], "defender": DEFENDER}, "#/knocker_melds",
         "the knocker's melds hold 12 cards"),
        # found by a mutation audit of the schemas: each fault where it is, nothing dropped or passed over
        ({"knocker_melds": ["Js Jd Jc", "Ah"], "defender": DEFENDER}, "#/knocker_melds/1",
         "a meld here has 3 to 11 cards, got 1"),
        ({"knocker_melds": ["As 2s 3s", "Js Jd Jc", "7h 8h 9h", "Kd Kh Kc"],
          "defender": "4s 5s 6h 6c Th 4d 4c 9c Tc Qc"},
         "#/knocker_melds", "expected 1 to 3 items, got 4"),
        ({"knocker_melds": ["Qs Qd Qc", ["6h", "7h", "8h"]],
          "defender": ["9h", "Th", "2c", "3c", "4c", "Qh", "5s", "5d", "Ks", "8h"]},
         "#/defender/9", "8h is in both the defender's hand and a knocker meld"),
        ({"knocker_melds": ["Qs Qd Qc"], "defender": DEFENDER + " 2h"}, "#/defender",
         "a hand here has 10 cards, got 11"),
    ],
)
def test_layoff_input_errors(call: Call, body: dict, pointer: str, detail: str) -> None:  # type: ignore[type-arg]
    problem = call("POST", "/v1/layoffs", json=body).get_json()
    assert problem["status"] == 422 and problem["errors"][0]["pointer"] == pointer
    assert detail in problem["errors"][0]["detail"]


def test_knock_is_scored_with_both_sides_laid_out(call: Call) -> None:
    answer = call("POST", "/v1/rounds/score", json={"knocker": KNOCKER, "defender": DEFENDER}).get_json()
    knocker, defender = answer["knocker"], answer["defender"]
    assert knocker["deadwood"] == _value(knocker["deadwood_cards"]) == 2
    assert defender["deadwood"] == _value(defender["deadwood_cards"])
    _play_layoffs(knocker["melds"], defender["layoffs"])
    assert (answer["outcome"], answer["winner"]) == ("knock", "knocker")
    assert answer["points"] == defender["deadwood"] - knocker["deadwood"]


def test_undercut_gin_and_big_gin(call: Call) -> None:
    undercut = call("POST", "/v1/rounds/score", json={
        "knocker": "As 2s 3s 7h 7d 7c Kd Qd Jd 9c", "defender": "4s 5s 6s 8h 9h Th 4d 4c 4h Ac",
        "rules": {"undercut_bonus": 20}}).get_json()
    assert (undercut["outcome"], undercut["winner"]) == ("undercut", "defender")
    assert undercut["points"] == 9 - 1 + 20
    gin = call("POST", "/v1/rounds/score", json={
        "knocker": "As 2s 3s 4s 7h 7d 7c Kd Qd Jd", "defender": "5s 6s 8h 9h Th 4d 4c 9c Tc Qc"}).get_json()
    assert gin["outcome"] == "gin" and gin["defender"]["layoffs"] == []
    assert gin["points"] == 25 + gin["defender"]["deadwood"]
    big = call("POST", "/v1/rounds/score", json={
        "knocker": "As 2s 3s 4s 5s 7h 7d 7c Kd Qd Jd", "defender": "6s 8h 9h Th 4d 4c 9c Tc Qc 2c"}).get_json()
    assert big["outcome"] == "big_gin" and big["points"] == 31 + big["defender"]["deadwood"]


def test_eleven_cards_with_a_discard_and_given_melds(call: Call) -> None:
    melds = [["As", "2s", "3s"], ["7h", "7d", "7c"], ["Jd", "Qd", "Kd"]]
    answer = call("POST", "/v1/rounds/score", json={
        "knocker": KNOCKER + " 9s", "discard": "9s", "defender": DEFENDER, "knocker_melds": melds}).get_json()
    assert answer["discard"] == "9s"
    assert answer["knocker"] == {"melds": melds, "deadwood_cards": ["2c"], "deadwood": 2}
    short = call("POST", "/v1/rounds/score", json={
        "knocker": KNOCKER + " 9s", "discard": "9s", "defender": DEFENDER, "knocker_melds": melds[:2]}).get_json()
    assert (short["status"], short["deadwood"]) == (422, _value(["2c", "Jd", "Qd", "Kd"]))


def test_oklahoma_spade_upcard_doubles(call: Call) -> None:
    body = {"knocker": KNOCKER, "defender": DEFENDER, "rules": "oklahoma"}
    plain = call("POST", "/v1/rounds/score", json={**body, "upcard": "5h"}).get_json()
    spade = call("POST", "/v1/rounds/score", json={**body, "upcard": "5d"}).get_json()
    doubled = call("POST", "/v1/rounds/score", json={**body, "upcard": "6s"}).get_json()
    assert plain["knock_limit"] == 5 and not plain["doubled"]
    assert doubled["doubled"] and doubled["points"] == 2 * spade["points"]
    # Extra boxes: none for a knock, 2 for gin, doubled on a spade (no test read the field)
    boxes = {**body, "rules": {"preset": "oklahoma", "oklahoma_extra_boxes": True}}
    gin = {"knocker": "As 2s 3s 4s 7h 7d 7c Kd Qd Jd", "defender": "5s 6s 8h 9h Th 4d 4c 9c Tc Qc"}
    assert [call("POST", "/v1/rounds/score", json={**boxes, **hand, "upcard": upcard}).get_json()["extra_boxes"]
            for hand, upcard in ((body, "6h"), (gin, "8h"), (gin, "8s"))] == [0, 2, 4]


@pytest.mark.parametrize(
    ("body", "pointer", "detail"),
    [
        ({"knocker": KNOCKER, "defender": "As 5s 8h 9h Th 4d 4c 9c Tc Qc"}, "#/defender", "As is in both hands"),
        ({"knocker": KNOCKER, "defender": "4s 5s 8h 9h Th 4d 4c 9c Tc Jd"}, "#/defender", "Jd is in both hands"),
        ({"knocker": KNOCKER, "defender": DEFENDER, "discard": "Qh"}, "#/discard", "only with an 11-card"),
        ({"knocker": KNOCKER + " 9s", "defender": DEFENDER, "discard": "Qh"}, "#/discard", "not in the hand"),
        ({"knocker": KNOCKER, "defender": DEFENDER, "rules": "oklahoma"}, "#/upcard", "first upcard"),
        ({"knocker": KNOCKER, "defender": DEFENDER, "knocker_melds": [["As", "2s", "3s"], ["4s", "5s", "6s"]]},
         "#/knocker_melds/1", "knocker meld 1 uses 4s, which is not in the knocker's hand"),
        ({"knocker": KNOCKER, "defender": DEFENDER, "drawn_from_discard": "Tc"}, "#/drawn_from_discard",
         "Tc is in the defender's hand"),
        ({"knocker": KNOCKER, "defender": DEFENDER, "drawn_from_discard": "8d"}, "#/drawn_from_discard",
         "8d was taken from the pile this turn and these rules do not let it be discarded at once, so it must be "
         "among the knocker's 10 cards"),
        ({"knocker": KNOCKER + " 9s", "defender": DEFENDER, "discard": "9s", "drawn_from_discard": "8d",
          "rules": "gra"}, "#/drawn_from_discard", "8d was taken from the pile this turn, so it must be among the "
          "knocker's cards"),
        ({"knocker": "As 2s 3s 4s 7h 7d 7c Kd Qd Jd 2c", "defender": "5s 6s 8h 9h Th 4d 4c 9c Tc Qc", "discard": "4s",
          "knocker_melds": [["As", "2s", "3s", "4s"]]}, "#/knocker_melds/0", "uses 4s, which is the discard"),
        ({"knocker": KNOCKER, "defender": DEFENDER, "knocker_melds": [["As", "2s", "3s"]]}, "#/knocker_melds",
         "the knocker's deadwood is 53, above the knock limit of 10"),
        ({"knocker": "As 2s 3s 4s 4h 5h 6h 7c 7d 7s 7h", "defender": "3h 9c 2d 9d Jc Qc Kc Th Td Ts",
          "rules": "standard"}, "#/discard", "an 11-card knocker needs its discard, since big gin is not played"),
        ({"knocker": KNOCKER, "defender": DEFENDER, "knocker_melds": ["As 2s 3s", "7h 7d 7c", "Jd Qd Kd", "Ah 2h 3h"]},
         "#/knocker_melds", "expected 0 to 3 items, got 4"),
    ],
)
def test_round_input_errors_name_the_field(call: Call, body: dict, pointer: str, detail: str) -> None:  # type: ignore[type-arg]
    problem = call("POST", "/v1/rounds/score", json=body).get_json()
    assert problem["status"] == 422 and problem["errors"][0]["pointer"] == pointer
    assert detail in problem["detail"]


def test_the_card_taken_may_have_been_the_discard_when_the_rules_allow_it(call: Call) -> None:
    """Ten cards given: the card taken this turn is either among them or, where allowed, the discard."""
    body = {"knocker": KNOCKER, "defender": DEFENDER, "drawn_from_discard": "8d"}
    assert call("POST", "/v1/rounds/score", json={**body, "rules": "gra"}).status_code == 200
    assert call("POST", "/v1/rounds/score", json={**body, "drawn_from_discard": "Kd"}).status_code == 200


def test_the_oklahoma_upcard_may_be_in_a_hand(call: Call) -> None:
    """The first upcard may have been taken and kept: it still sets the knock limit."""
    answer = call("POST", "/v1/rounds/score", json={
        "knocker": KNOCKER, "defender": DEFENDER, "rules": "oklahoma", "upcard": "4s"}).get_json()
    assert answer["knock_limit"] == 4 and answer["doubled"]


def test_illegal_knock_says_deadwood_and_limit(call: Call) -> None:
    problem = call("POST", "/v1/rounds/score", json={
        "knocker": "As 2s 3s 7h 7d 7c Kd Qd 9d 2c", "defender": DEFENDER}).get_json()
    assert problem["status"] == 422 and problem["type"].endswith("illegal-knock")
    assert (problem["deadwood"], problem["limit"]) == (_value(["Kd", "Qd", "9d", "2c"]), 10)
    assert "31" in problem["detail"] and "10" in problem["detail"]


def test_a_round_with_the_knockers_seat_is_a_hand_the_game_score_takes(call: Call) -> None:
    """Integrators mapped knocker and defender to seats by hand (two audits named it their likeliest mistake): with
    ``knocker_seat`` the answer's ``game_hand`` goes into ``/v1/games/score`` as it is."""
    rules = {"preset": "oklahoma", "oklahoma_extra_boxes": True, "undercut_on_tie": False}
    rounds: list[tuple[dict[str, Any], dict[str, Any]]] = [  # a knock by seat 1, an undercut of seat 0's knock, a
        # tie that scores nothing, gin on a spade
        ({"knocker": KNOCKER, "defender": DEFENDER, "knocker_seat": 1, "upcard": "5h"}, {"winner": 1, "points": 32}),
        ({"knocker": "As 2s 3s 7h 7d 7c Kd Qd Jd 9c", "defender": "4s 5s 6s 8h 9h Th 4d 4c 4h Ac", "knocker_seat": 0,
          "upcard": "9d"}, {"winner": 1, "points": 8 + 10, "extra_boxes": 1}),
        ({"knocker": "As 2s 3s 7h 7d 7c Kd Qd Jd 5c", "defender": "4s 5s 6s 8h 9h Th 4d 4c 4h 5d", "knocker_seat": 0,
          "upcard": "6h"}, {"winner": None, "points": 0}),
        ({"knocker": "As 2s 3s 4s 7h 7d 7c Kd Qd Jd", "defender": "5s 6s 8h 9h Th 4d 4c 9c Tc Qc", "knocker_seat": 1,
          "upcard": "8s"}, {"winner": 1, "points": 2 * (20 + 48), "extra_boxes": 4}),
    ]
    game_hands = []
    for body, expected in rounds:
        answer = call("POST", "/v1/rounds/score", json={**body, "rules": rules}).get_json()
        assert answer["game_hand"] == {"extra_boxes": 0, **expected}, answer
        game_hands.append(answer["game_hand"])
    game = call("POST", "/v1/games/score", json={"hands": game_hands, "rules": rules})
    assert game.status_code == 200 and game.get_json()["running_totals"][-1] == [0, 32 + 18 + 136]
    assert "game_hand" not in call("POST", "/v1/rounds/score", json={"knocker": KNOCKER, "defender": DEFENDER,
                                                                    "knocker_seat": None}).get_json()
    for seat, detail in ((2, "expected 0 or 1, got 2"), (True, "expected an integer, like 10, got true")):
        problem = call("POST", "/v1/rounds/score", json={"knocker": KNOCKER, "defender": DEFENDER,
                                                         "knocker_seat": seat}).get_json()
        assert problem["errors"] == [{"pointer": "#/knocker_seat", "detail": detail}]


def test_game_totals_and_bonuses(call: Call) -> None:
    hands = [{"winner": 0, "points": 60}, {"winner": None, "points": 0}, {"winner": 1, "points": 30},
             {"winner": 0, "points": 45}]
    answer = call("POST", "/v1/games/score", json={"hands": hands, "rules": "standard"}).get_json()
    assert answer["running_totals"] == [[60, 0], [60, 0], [60, 30], [105, 30]]
    assert answer["complete"] and answer["winner"] == 0 and answer["hands_won"] == [2, 1]
    assert answer["box_points"] == [40, 20] and answer["game_bonus"] == 100
    assert answer["final_scores"] == [105 + 40 + 100, 30 + 20]
    assert answer["settlement"] == 245 - 50 and answer["payer"] == 1 and not answer["shutout"]
    shutout = call("POST", "/v1/games/score", json={"hands": [hands[0], hands[3]], "rules": "traditional"}).get_json()
    assert shutout["shutout"] and shutout["game_bonus"] == 200
    assert shutout["final_scores"] == [105 + 40 + 200, 0]


def test_every_record_no_hand_has_is_listed(call: Call) -> None:
    """Each its own fault, a hand's or a table's (found by a referee's audit: only the first was named)."""
    hands = [{"winner": 0, "points": 0}, {"winner": 1, "points": 20}, {"winner": 1, "points": 500}]
    response = call("POST", "/v1/games/score", json={"hands": hands, "rules": "standard"})
    problem = response.get_json()
    assert response.status_code == 422 and [error["pointer"] for error in problem["errors"]] == ["#/hands/0",
                                                                                                 "#/hands/2"]
    assert problem["errors"][0]["detail"] == ("no hand won under these rules scores 0 points: a knock 1 to 97; an "
                                              "undercut 25 to 35; gin 25 to 123")
    assert problem["errors"][1]["detail"].startswith("a hand scores at most 123 points under these rules")
    deals = [{"tables": [{"winner": 0, "points": 0}, {"winner": 1, "points": 5}]}] * 2
    response = call("POST", "/v1/games/score", json={"deals": deals, "rules": "partnership"})
    assert response.status_code == 422 and response.get_json()["errors"] == [
        {"pointer": f"#/deals/{index}/tables/0", "detail": "no hand won under these rules scores 0 points: a knock 1 "
         "to 97; an undercut 10 to 20; gin 20 to 118"} for index in (0, 1)]


def test_partnership_deals_combine_tables(call: Call) -> None:
    deals = [{"tables": [{"winner": 0, "points": 40}, {"winner": 1, "points": 15}]},
             {"tables": [{"winner": 1, "points": 10}, {"winner": 1, "points": 22}]}]
    answer = call("POST", "/v1/games/score", json={"deals": deals, "rules": "partnership"}).get_json()
    assert answer["hands"] == [{"winner": 0, "points": 25, "extra_boxes": 0},
                               {"winner": 1, "points": 32, "extra_boxes": 0}]
    assert answer["running_totals"] == [[25, 0], [25, 32]] and not answer["complete"]
    boxes = [{"tables": [{"winner": 0, "points": 15, "extra_boxes": 1}, {"winner": 0, "points": 40, "extra_boxes": 2}]}]
    answer = call("POST", "/v1/games/score",
                  json={"deals": boxes, "rules": {"preset": "oklahoma", "oklahoma_extra_boxes": True}}).get_json()
    assert answer["hands"] == [{"winner": 0, "points": 55, "extra_boxes": 3}] and answer["boxes"] == [4, 0]


def test_a_game_of_the_most_hands_or_deals_is_scored(call: Call) -> None:
    hands = call("POST", "/v1/games/score", json={"hands": [{"winner": None, "points": 0}] * 500})
    deals = call("POST", "/v1/games/score", json={"deals": [{"tables": [{"winner": None, "points": 0}] * 2}] * 250})
    assert hands.status_code == deals.status_code == 200
    assert len(hands.get_json()["running_totals"]) == 500 and len(deals.get_json()["running_totals"]) == 250


@pytest.mark.parametrize(
    ("body", "pointer", "detail"),
    [
        ({"hands": [{"winner": 0, "points": 100}, {"winner": 1, "points": 5}]}, "#/hands/1",
         "the game already ended with the hand before, when a player reached 100"),
        ({"deals": [{"tables": [{"winner": 0, "points": 90}, {"winner": 0, "points": 40}]},
                    {"tables": [{"winner": 1, "points": 9}, {"winner": None, "points": 0}]}], "rules": "partnership"},
         "#/deals/1", "the game already ended with the deal before, when a team reached 125"),
        ({"hands": [{"winner": None, "points": 5}]}, "#/hands/0", "scores no points"),
        ({"hands": [{"winner": None, "points": 0, "extra_boxes": 1}], "rules": "oklahoma"}, "#/hands/0",
         "a drawn hand (no winner) scores no points and no boxes"),
        ({"deals": [{"tables": [{"winner": 0, "points": 9}, {"winner": None, "points": 5}]}]}, "#/deals/0/tables/1",
         "a drawn hand (no winner) scores no points and no boxes"),
        ({"hands": [], "deals": []}, "#", "not both"),
        ({}, "#", "neither was given"),
        ({"hands": [{"winner": 2, "points": 5}]}, "#/hands/0/winner",
         "expected 0 or 1 (the player or team that won the hand) or null (a drawn hand), got 2"),
        ({"hands": [{"winner": "knocker", "points": 5}]}, "#/hands/0/winner",
         "expected 0 or 1 (the player or team that won the hand) or null (a drawn hand)"),
        ({"deals": [{"tables": [{"winner": 0, "points": 5}]}]}, "#/deals/0/tables", "expected exactly 2 items"),
        ({"hands": [{"winner": "0", "points": 5}]}, "#/hands/0/winner", "expected 0 or 1"),  # JSON integers only
        ({"hands": [{"winner": 0, "points": "5"}]}, "#/hands/0/points", "expected an integer"),
        ({"hands": [{"winner": 0, "points": 1e30}]}, "#/hands/0/points",
         "expected at most 10,000, got 1e+30"),
        ({"hands": [{"winner": 0, "points": 30, "extra_boxes": 2}]}, "#/hands/0", "only under Oklahoma"),
        ({"hands": [{"winner": 0, "points": 30, "extra_boxes": 3}]}, "#/hands/0/extra_boxes",
         "expected one of 0, 1, 2, 4, got 3"),
        ({"hands": [{"winner": 0, "points": 30, "extra_boxes": 4}],
          "rules": {"oklahoma": True, "oklahoma_extra_boxes": True, "oklahoma_spades_double": False}}, "#/hands/0",
         "oklahoma_spades_double is off"),
        ({"hands": [{"winner": 1, "points": 0}], "rules": "hoyle"}, "#/hands/0", "scores 0 points"),
        ({"deals": [{"tables": [{"winner": 0, "points": 9}, {"winner": 1, "points": 0}]}]}, "#/deals/0/tables/1",
         "no hand won under these rules scores 0 points"),
        ({"hands": [{"winner": None, "points": 0}] * 501}, "#/hands", "expected 0 to 500 items, got 501"),
        ({"deals": [{"tables": [{"winner": None, "points": 0}] * 2}] * 251}, "#/deals",
         "expected 0 to 250 items, got 251"),
    ],
)
def test_game_input_errors(call: Call, body: dict, pointer: str, detail: str) -> None:  # type: ignore[type-arg]
    problem = call("POST", "/v1/games/score", json=body).get_json()
    assert problem["status"] == 422 and problem["errors"][0]["pointer"] == pointer
    assert not problem["errors"][0]["detail"].startswith("hand ")  # the pointer names the hand already
    assert detail in problem["errors"][0]["detail"]


@pytest.mark.parametrize("body", [{}, {"hands": [], "deals": []}])
def test_the_spec_asks_for_hands_or_deals_as_the_service_does(call: Call, registry: Registry,
                                                              body: dict[str, Any]) -> None:
    schema = {"$ref": SPEC_URI + "#/components/schemas/GameScoreRequest"}
    assert not Draft202012Validator(schema, registry=registry).is_valid(body)
    assert call("POST", "/v1/games/score", json=body).status_code == 422
    assert Draft202012Validator(schema, registry=registry).is_valid({"hands": []})
    assert call("POST", "/v1/games/score", json={"hands": []}).status_code == 200


def test_rules_catalog_lists_every_parameter_and_preset(call: Call) -> None:
    catalog = call("GET", "/v1/rules").get_json()
    assert [p["name"] for p in catalog["parameters"]] == [p.name for p in RULE_PARAMETERS]
    assert catalog["default"] == {p.name: getattr(Rules(), p.name) for p in RULE_PARAMETERS}
    assert [p["name"] for p in catalog["presets"]] == list(PRESETS)
    oklahoma = next(p for p in catalog["presets"] if p["name"] == "oklahoma")
    assert oklahoma["rules"]["oklahoma"] is True and oklahoma["rules"]["target"] == 150
    knock_limit = next(p for p in catalog["parameters"] if p["name"] == "knock_limit")
    assert (knock_limit["minimum"], knock_limit["maximum"], knock_limit["default"]) == (0, 10, 10)


def test_the_rules_catalog_takes_no_parameters(call: Call) -> None:
    """A parameter (a preset asked for by name, say) is refused rather than ignored."""
    response = call("GET", "/v1/rules?preset=oklahoma")
    assert response.status_code == 422 and response.mimetype == "application/problem+json"
    assert response.get_json()["errors"] == [{"parameter": "preset",
                                              "detail": "not read: this operation takes no parameters"}]


def test_rules_resolve_to_every_value_the_presets_played_and_the_parameters_unused(call: Call) -> None:
    """A request's answer does not say which rules it was scored under, and a parameter that does not apply
    (`knock_limit` in Oklahoma) is not refused: POST /v1/rules/resolve says both."""
    catalog = call("GET", "/v1/rules").get_json()
    answer = call("POST", "/v1/rules/resolve", json={"rules": {"preset": "oklahoma", "knock_limit": 7}}).get_json()
    oklahoma = next(p for p in catalog["presets"] if p["name"] == "oklahoma")["rules"]
    unused = [{"parameter": "knock_limit", "why": "in Oklahoma the first upcard sets the knock limit", "given": True}]
    assert answer == {"rules": {**oklahoma, "knock_limit": 7}, "presets": ["oklahoma"], "unused": unused}
    default = call("POST", "/v1/rules/resolve", json={}).get_json()
    assert default["rules"] == catalog["default"] and default["presets"] == []
    assert [u["parameter"] for u in default["unused"]] == ["oklahoma_ace", "oklahoma_spades_double",
                                                           "oklahoma_extra_boxes"]
    assert not any(u["given"] for u in default["unused"])  # the defaults' values, not the request's
    set_here = call("POST", "/v1/rules/resolve", json={"rules": {"oklahoma_ace": "gin_only"}}).get_json()["unused"]
    assert [u["parameter"] for u in set_here if u["given"]] == ["oklahoma_ace"]
    by_preset = call("POST", "/v1/rules/resolve", json={"rules": "oklahoma"}).get_json()["unused"]
    assert by_preset == [{**unused[0], "given": False}]
    for preset in catalog["presets"]:
        by_name = call("POST", "/v1/rules/resolve", json={"rules": preset["name"]}).get_json()
        assert (by_name["rules"], by_name["presets"]) == (preset["rules"], [preset["name"]])
    changed = call("POST", "/v1/rules/resolve", json={"rules": {"preset": "hoyle", "target": 250}}).get_json()
    assert changed["rules"]["target"] == 250 and changed["presets"] == []


@pytest.mark.parametrize(("body", "pointer", "detail"), [
    ({"rules": {"preset": "oklahoma", "knock_limt": 7}}, "#/rules/knock_limt",
     "unknown rule parameter; did you mean knock_limit?"),
    ({"rules": "hoyel"}, "#/rules", 'unknown preset "hoyel"; expected one of'),
    ({"rules": {"oklahoma": True, "eleven_card_deal": True}}, "#/rules/eleven_card_deal",
     "Oklahoma needs a first upcard to set the knock limit"),
    ({"preset": "hoyle"}, "#/preset", "unknown field: expected only rules"),
])
def test_rules_that_do_not_resolve_are_refused_as_everywhere(call: Call, body: dict[str, Any], pointer: str,
                                                             detail: str) -> None:
    problem = call("POST", "/v1/rules/resolve", json=body).get_json()
    assert problem["status"] == 422 and problem["errors"][0]["pointer"] == pointer
    assert problem["errors"][0]["detail"].startswith(detail)


# --- from a mutation audit of the answers: each value below could change with no test failing ------------


def test_layoffs_echo_the_knockers_melds_in_the_given_order(call: Call) -> None:
    answer = call("POST", "/v1/layoffs", json={"knocker_melds": [["Qs", "Qd", "Qc"], ["6h", "7h", "8h"]],
                                                "defender": "9h 2c 3c 4c Kd 5s Jd Ts 4h 2d"}).get_json()
    assert answer["knocker_melds"] == [["Qs", "Qd", "Qc"], ["6h", "7h", "8h"]]  # meld_index points into it
    assert answer["layoffs"] == [{"card": "9h", "meld_index": 1}]


def test_a_round_keeps_the_knockers_melds_as_given_so_layoffs_point_into_them_as_in_a_layoffs_answer(
        call: Call) -> None:
    melds = [["7h", "8h", "9h"], ["4h", "5h", "6h"]]  # touching runs, given apart
    defender = "Th 3h 8s 9s Ts 4d 4c 9d Tc Qc"
    layoffs = call("POST", "/v1/layoffs", json={"knocker_melds": melds, "defender": defender}).get_json()
    round_ = call("POST", "/v1/rounds/score", json={
        "knocker": "4h 5h 6h 7h 8h 9h Ac Ad 2c 3c", "defender": defender, "knocker_melds": melds}).get_json()
    assert round_["knocker"]["melds"] == layoffs["knocker_melds"] == melds
    assert round_["defender"]["layoffs"] == layoffs["layoffs"] == [
        {"card": "Th", "meld_index": 0}, {"card": "3h", "meld_index": 1}]
    best = call("POST", "/v1/rounds/score", json={"knocker": "4h 5h 6h 7h 8h 9h Ac Ad 2c 3c", "defender": defender})
    assert ["4h", "5h", "6h", "7h", "8h", "9h"] in best.get_json()["knocker"]["melds"]  # laid out: joined


def test_a_round_lists_a_missing_oklahoma_upcard_beside_a_stock_end_fault(call: Call) -> None:
    body = {"knocker": "As 2s 3s 4s 7h 7d 7c Kd Qd Jd 9c", "discard": "9c", "defender": "2h 3h 5h 8h 9h Th 2d 3d 5c 6c",
            "rules": "oklahoma", "taken_at_stock_end": True, "drawn_from_discard": "Kd"}
    errors = call("POST", "/v1/rounds/score", json=body).get_json()["errors"]
    assert [error["pointer"] for error in errors] == ["#/upcard", "#/taken_at_stock_end"]


def test_possible_layoffs_include_the_ones_the_best_defence_does_not_make(call: Call) -> None:
    answer = call("POST", "/v1/layoffs", json={"knocker_melds": [["6h", "7h", "8h"]],
                                                "defender": "9h 9s 9d 2c 3c 4c Kd 5s Jd Qs"}).get_json()
    assert answer["possible_layoffs"] == [{"card": "9h", "meld_index": 0}]
    assert answer["layoffs"] == []  # the 9h is worth more in the defender's set of nines


def test_a_game_won_by_the_second_player_names_it_and_the_payer(call: Call) -> None:
    hands = [{"winner": 0, "points": 20}, {"winner": 1, "points": 30}, {"winner": 1, "points": 30},
             {"winner": 1, "points": 45}]
    answer = call("POST", "/v1/games/score", json={"hands": hands, "rules": "standard"}).get_json()
    assert (answer["complete"], answer["winner"], answer["payer"]) == (True, 1, 0)
    assert answer["hands_won"] == [1, 3] and answer["boxes"] == [1, 3]


def test_a_double_score_shutout_is_reported(call: Call) -> None:
    answer = call("POST", "/v1/games/score", json={"hands": [{"winner": 0, "points": 105}],
                                                    "rules": {"shutout": "double_score"}}).get_json()
    assert answer["shutout"] and answer["game_bonus"] == 100
    assert answer["final_scores"] == [2 * (105 + 25 + 100), 0]


def test_a_partnership_game_with_no_deals_yet_is_scored(call: Call) -> None:
    answer = call("POST", "/v1/games/score", json={"deals": [], "rules": "partnership"}).get_json()
    assert (answer["hands"], answer["complete"], answer["final_scores"]) == ([], False, [0, 0])


def test_the_rules_catalog_describes_each_parameter_and_preset_by_its_own_values(call: Call) -> None:
    catalog = call("GET", "/v1/rules").get_json()
    parameters = {p["name"]: p for p in catalog["parameters"]}
    assert parameters["big_gin_bonus"]["nullable"] and not parameters["knock_limit"]["nullable"]
    assert parameters["shutout"]["choices"] == ["double_bonus", "double_score", "none"]
    assert parameters["knock_limit"]["choices"] == []
    presets = {p["name"]: p for p in catalog["presets"]}
    standard = presets["standard"]
    assert standard["source"].startswith("seed 000") and standard["description"].startswith("Gin 25")
