"""``/v1/hands/analyze`` (GET, POST) and the batch: the core's exact answers, faithfully carried."""

from __future__ import annotations

import random
from typing import Any
from urllib.parse import quote

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, example, given, settings
from prometheus_client.parser import text_string_to_metric_families

from service import create_app
from service.api import hands as hands_api
from service.core.cards import ALL_CARDS, format_card, hand_from_cards, iter_cards, parse_card, parse_hand
from service.core.melds import analyze_drawn_hand, min_deadwood, optimal_arrangements

from ..core import reference as ref
from ..core.hands import hands
from .conftest import Call

TEN = "As 2s 3s 7h 7d 7c Kd Qd Jd 5c"
VALUE = {rank: min(i + 1, 10) for i, rank in enumerate("A23456789TJQK")}


def _random_hands(size: int, count: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [[format_card(c) for c in rng.sample(ALL_CARDS, size)] for _ in range(count)]


def _laid_out(melds: list[list[str]], deadwood_cards: list[str]) -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(sorted(m)) for m in melds) | {("dead", *sorted(deadwood_cards))}


def _check_layout(hand: list[str], melds: list[list[str]], deadwood_cards: list[str], deadwood: int) -> None:
    """Independent of the core: the layout partitions the hand, and deadwood is the cards' value."""
    laid = [card for meld in melds for card in meld] + deadwood_cards
    assert sorted(laid) == sorted(hand)
    assert deadwood == sum(VALUE[card[0]] for card in deadwood_cards)


@pytest.mark.parametrize("cards", _random_hands(10, 25, seed=1))
def test_ten_cards_match_the_core(call: Call, cards: list[str]) -> None:
    answer = call("POST", "/v1/hands/analyze", json={"hand": cards}).get_json()
    hand = hand_from_cards(map(parse_card, cards))
    optimal = optimal_arrangements(hand)
    assert answer["deadwood"] == min_deadwood(hand)
    assert answer["gin"] == (answer["deadwood"] == 0) and answer["can_knock"] == (answer["deadwood"] <= 10)
    assert {_laid_out(a["melds"], a["deadwood_cards"]) for a in answer["arrangements"]} == {
        _laid_out([[format_card(c) for c in _cards_of(m)] for m in a.melds],
                  [format_card(c) for c in _cards_of(a.deadwood_cards)]) for a in optimal}
    _check_layout(cards, answer["melds"], answer["deadwood_cards"], answer["deadwood"])
    for arrangement in answer["arrangements"]:
        _check_layout(cards, arrangement["melds"], arrangement["deadwood_cards"], arrangement["deadwood"])
        assert arrangement["deadwood"] == answer["deadwood"]


@pytest.mark.parametrize("cards", _random_hands(11, 15, seed=2))
def test_eleven_cards_list_every_discard_best_first(call: Call, cards: list[str]) -> None:
    answer = call("POST", "/v1/hands/analyze", json={"hand": " ".join(cards)}).get_json()
    hand = hand_from_cards(map(parse_card, cards))
    discards = answer["discards"]
    assert sorted(d["card"] for d in discards) == sorted(cards)
    assert [d["deadwood"] for d in discards] == sorted(d["deadwood"] for d in discards)
    for discard in discards:
        rest = [c for c in cards if c != discard["card"]]
        assert discard["deadwood"] == min_deadwood(hand_from_cards(map(parse_card, rest)))
        _check_layout(rest, discard["melds"], discard["deadwood_cards"], discard["deadwood"])
    assert answer["deadwood"] == discards[0]["deadwood"] and answer["discard"] == discards[0]["card"]
    assert answer["best_discards"] == [d["card"] for d in discards if d["deadwood"] == answer["deadwood"]]
    assert answer["big_gin"] == (analyze_drawn_hand(hand).big_gin is not None)


@settings(max_examples=120, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(hands("dense", 10, 11) | hands("suited", 10, 11))
@example(parse_hand("As 2s 3s 4s 4h 4d 4c 9c Tc Jc"))  # gin laid out two ways
@example(parse_hand("As 2s 3s 4s 4h 4d 4c 9c Tc Jc Kd"))
def test_every_answers_deadwood_and_flags_agree_with_the_reference(call: Call, hand: int) -> None:
    """The deadwood, gin and can_knock of the hand and of each discard, against the brute force; dense hands have
    gins of several layouts (an audit's mutant that called those no gin passed every other test)."""
    cards = [format_card(c) for c in iter_cards(hand)]
    answer = call("POST", "/v1/hands/analyze", json={"hand": cards}).get_json()
    if len(cards) == 10:
        least = ref.least_deadwood(ref.from_bits(hand))
        assert (answer["deadwood"], answer["gin"], answer["can_knock"]) == (least, least == 0, least <= 10)
        return
    by_discard = ref.drawn_hand(ref.from_bits(hand))
    for discard in answer["discards"]:
        least = by_discard[ref.from_card(parse_card(discard["card"]))][0]
        assert (discard["deadwood"], discard["gin"], discard["can_knock"]) == (least, least == 0, least <= 10)
    best = answer["discards"][0]
    assert (answer["deadwood"], answer["gin"], answer["can_knock"]) == (best["deadwood"], best["gin"],
                                                                         best["can_knock"])


def _cards_of(hand: int) -> list[int]:
    return [c for c in ALL_CARDS if hand >> c & 1]


def test_big_gin_is_reported(call: Call) -> None:
    answer = call("POST", "/v1/hands/analyze", json={"hand": "As 2s 3s 4s 5s 7h 7d 7c Jd Qd Kd"}).get_json()
    assert answer["big_gin"] is True and answer["gin"] is True
    assert sorted(map(sorted, answer["big_gin_melds"])) == sorted(
        map(sorted, [["As", "2s", "3s", "4s", "5s"], ["7h", "7d", "7c"], ["Jd", "Qd", "Kd"]]))
    # gin after a discard is not big gin: 9c melds with nothing
    gin = call("POST", "/v1/hands/analyze", json={"hand": "As 2s 3s 4s 7h 7d 7c Kd Qd Jd 9c"}).get_json()
    assert (gin["gin"], gin["big_gin"], gin["big_gin_melds"], gin["discard"]) == (True, False, None, "9c")


def test_every_form_of_a_hand_gets_the_same_answer(call: Call) -> None:
    as_list = call("POST", "/v1/hands/analyze", json={"hand": TEN.split()}).get_json()
    as_text = call("POST", "/v1/hands/analyze", json={"hand": "a♠, 2S, 3s 7♥ 7d 7c Kd Qd Jd 5c"}).get_json()
    as_query = call("GET", f"/v1/hands/analyze?hand={quote(TEN.replace(' ', ','))}",
                    template="/v1/hands/analyze").get_json()
    white_spaced = call("POST", "/v1/hands/analyze", json={"hand": ["A s", "2♤", "3♤", "7♡", "7♢", "7♧", "K d", "Qd",
                                                                     "Jd", "5c"]}).get_json()  # as the README says
    assert as_list == as_text == as_query == white_spaced
    assert as_list["hand"] == ["As", "2s", "3s", "5c", "7h", "7d", "7c", "Jd", "Qd", "Kd"]


@pytest.mark.parametrize(
    ("extra", "limit"),
    [
        ({}, 10),
        ({"rules": {"knock_limit": 4}}, 4),
        ({"rules": "oklahoma", "upcard": "8c"}, 8),
        ({"rules": "oklahoma", "upcard": "Ks"}, 10),
        ({"rules": "oklahoma", "upcard": "Ah"}, 1),  # an Ace's value (seed 003's main text)
        ({"rules": {"preset": "oklahoma", "oklahoma_ace": "gin_only"}, "upcard": "Ah"}, 0),  # "some play"
    ],
)
def test_knock_limit_follows_the_rules(call: Call, extra: dict, limit: int) -> None:  # type: ignore[type-arg]
    answer = call("POST", "/v1/hands/analyze", json={"hand": TEN, **extra}).get_json()
    assert answer["knock_limit"] == limit and answer["can_knock"] == (limit >= 5)


def test_query_takes_the_card_just_taken(call: Call) -> None:
    """As in a body: Kc was just taken, so 9s is the discard; a ten-card hand cannot have taken one."""
    url = "/v1/hands/analyze?hand=" + quote("As,2s,3s,7h,7d,Kd,Qd,Jd,9s,5c,Kc")
    answer = call("GET", url + "&drawn_from_discard=Kc", template="/v1/hands/analyze").get_json()
    assert (answer["discard"], answer["discards"][-1]["card"]) == ("9s", "Kc")
    problem = call("GET", f"/v1/hands/analyze?hand={quote(TEN)}&drawn_from_discard=5c",
                   template="/v1/hands/analyze").get_json()
    assert problem["errors"] == [{"parameter": "drawn_from_discard",
                                  "detail": "a card just taken is given only with an 11-card hand"}]


def test_query_takes_a_preset_and_overrides(call: Call) -> None:
    url = f"/v1/hands/analyze?hand={quote(TEN)}&rules=oklahoma&upcard=3d&oklahoma=false&knock_limit=4"
    assert call("GET", url, template="/v1/hands/analyze").get_json()["knock_limit"] == 4


@pytest.mark.parametrize(
    ("query", "parameter", "detail"),
    [
        ("&hand=Kd", "hand", "given 2 times: expected one value"),
        ("&knock_limit=5&knock_limit=9", "knock_limit", "given 2 times: expected one value"),
        ("&knock_limit=%D9%A5", "knock_limit", "expected an integer written with the digits 0-9"),  # Arabic-Indic 5
        ("&knock_limit=+5+", "knock_limit", "expected an integer written with the digits 0-9"),
        ("&knock_limit=+5", "knock_limit", 'got " 5" (no space before it, and a "+" in a query string is one: '
                                           "write the number without a sign)"),
        ("&knock_limit=1_0", "knock_limit", "expected an integer written with the digits 0-9"),
        ("&knock_limit=99999999999999", "knock_limit", "expected at most 10, got 99999999999999"),
        ("&oklahoma=yes", "oklahoma", "expected true or false"),
    ],
)
def test_query_parameters_are_read_strictly(call: Call, query: str, parameter: str, detail: str) -> None:
    """A repeated parameter is not silently read as its first value, nor an integer as Python's int would."""
    response = call("GET", f"/v1/hands/analyze?hand={quote(TEN)}{query}", template="/v1/hands/analyze")
    problem = response.get_json()
    assert response.status_code == 422 and problem["errors"][0]["parameter"] == parameter
    assert detail in problem["errors"][0]["detail"]


@pytest.mark.parametrize(("query", "rules"), [("&knock_limit=11", {"knock_limit": 11}),
                                              ("&shutout=bad", {"shutout": "bad"}),
                                              ("&rules=Standard", "Standard"),
                                              ("&rules=default", "default")])  # the defaults are no preset
def test_a_rule_fault_is_worded_alike_in_a_query_and_a_body(call: Call, query: str, rules: object) -> None:
    in_query = call("GET", f"/v1/hands/analyze?hand={quote(TEN)}{query}", template="/v1/hands/analyze").get_json()
    in_body = call("POST", "/v1/hands/analyze", json={"hand": TEN, "rules": rules}).get_json()
    assert in_query["errors"][0]["detail"] == in_body["errors"][0]["detail"]


@pytest.mark.parametrize(
    ("body", "pointer", "detail"),
    [
        ({"hand": "As 2s 3s 7h 7d 7c Kd Qd Jd Zz"}, "#/hand", "unknown card 'Zz'"),
        # in a list, the card at fault is named by its position
        ({"hand": ["As", "A♠", "3s", "7h", "7d", "7c", "Kd", "Qd", "Jd", "5c"]}, "#/hand/1", "duplicate card As"),
        ({"hand": ["As", "2s", "3s", "7h", "7d", "7c", "Kd", "Qd", "Jd", "Zz"]}, "#/hand/9", "unknown card 'Zz'"),
        ({"hand": TEN.split()[:9]}, "#/hand", "10 or 11 cards, got 9"),
        ({"hand": [*TEN.split(), "9c", "9d"]}, "#/hand", "10 or 11 cards, got 12"),
        ({"hand": [1, *TEN.split()[1:]]}, "#/hand/0", "expected a card as a string"),  # the item at fault
        ({}, "#/hand", "required, but missing"),
        ({"hand": TEN, "rules": {"knock_limit": 11}}, "#/rules/knock_limit", "at most 10"),
        ({"hand": TEN, "rules": {"knock_limit": True}}, "#/rules/knock_limit", "expected an integer"),
        ({"hand": TEN, "rules": {"colour": 1}}, "#/rules/colour", "unknown rule parameter"),
        ({"hand": TEN, "rules": {"preset": None}}, "#/rules/preset",
         "may not be null: expected one of standard, hoyle, online, traditional, gra, oklahoma, partnership"),
        ({"hand": TEN, "rules": {"preset": 5}}, "#/rules/preset",
         "expected one of standard, hoyle, online, traditional, gra, oklahoma, partnership, got 5"),
        ({"hand": TEN, "rules": "tournament"}, "#/rules", 'unknown preset "tournament"'),
        ({"hand": TEN, "rules": {"preset": "tournament"}}, "#/rules/preset", 'unknown preset "tournament"'),
        # GET /v1/rules lists the defaults under "default", but they are no preset
        ({"hand": TEN, "rules": "default"}, "#/rules", "partnership; the default rules are no preset: give none"),
        ({"hand": TEN + " " * 230}, "#/hand", "expected at most 256 characters"),  # the spec's maxLength
        ({"hand": TEN, "rules": "oklahoma"}, "#/upcard", "need the first upcard"),
        ({"hand": TEN, "upcard": "1s"}, "#/upcard", "unknown card '1s'"),
    ],
)
def test_invalid_input_names_the_field(call: Call, body: dict, pointer: str, detail: str) -> None:  # type: ignore[type-arg]
    problem = call("POST", "/v1/hands/analyze", json=body).get_json()
    assert problem["status"] == 422
    [error] = problem["errors"]
    assert error["pointer"] == pointer and detail in error["detail"]
    assert detail in problem["detail"]


def test_batch_answers_each_hand_in_order(call: Call) -> None:
    hands: list[dict[str, Any]] = [{"hand": cards}
                                   for cards in _random_hands(10, 5, seed=3) + _random_hands(11, 5, seed=4)]
    hands.insert(3, {"hand": "As 2s"})
    hands.insert(7, {"hand": TEN, "rules": {"knock_limit": 2}})
    answer = call("POST", "/v1/hands/analyze/batch", json={"hands": hands, "rules": {"knock_limit": 6}}).get_json()
    results = answer["results"]
    assert len(results) == len(hands)
    for item, result in zip(hands, results, strict=True):
        if item["hand"] == "As 2s":
            continue
        single = call("POST", "/v1/hands/analyze", json={"rules": {"knock_limit": 6}, **item}).get_json()
        assert result == {"status": 200, "analysis": single}
    assert results[3]["status"] == 422
    assert results[3]["problem"]["errors"] == [{"pointer": "#/hands/3/hand",
                                                "detail": "a hand here has 10 or 11 cards, got 2"}]
    assert results[7]["analysis"]["knock_limit"] == 2 and results[0]["analysis"]["knock_limit"] == 6


def test_a_batch_items_rules_replace_the_batchs_rather_than_merge(call: Call) -> None:
    """The item's rules say nothing of the knock limit: it is the default 10, not the batch's 7."""
    body = {"hands": [{"hand": TEN, "rules": {"gin_bonus": 30}}, {"hand": TEN}], "rules": {"knock_limit": 7}}
    results = call("POST", "/v1/hands/analyze/batch", json=body).get_json()["results"]
    assert [result["analysis"]["knock_limit"] for result in results] == [10, 7]


def test_a_batchs_rules_are_checked_with_each_hand_that_takes_them(call: Call) -> None:
    """Oklahoma for the whole batch: a hand without its upcard is refused at its own upcard; a hand that is no
    object at all is refused as such."""
    body = {"hands": [{"hand": TEN, "upcard": "8c"}, {"hand": TEN}, "As 2s 3s", {"hand": TEN, "rules": "standard"}],
            "rules": "oklahoma"}
    results = call("POST", "/v1/hands/analyze/batch", json=body).get_json()["results"]
    assert [result["status"] for result in results] == [200, 422, 422, 200]
    assert results[0]["analysis"]["knock_limit"] == 8 and results[3]["analysis"]["knock_limit"] == 10
    assert results[1]["problem"]["errors"] == [
        {"pointer": "#/hands/1/upcard", "detail": "Oklahoma rules need the first upcard to set the knock limit"}]
    assert results[2]["problem"]["errors"][0]["pointer"] == "#/hands/2"


def _hands_analyzed(client: FlaskClient) -> float:
    exposition = client.get("/metrics").get_data(as_text=True)
    return next(s.value for family in text_string_to_metric_families(exposition) for s in family.samples
                if s.name == "gin_hands_analyzed_total")


def test_a_batch_counts_only_the_hands_it_analyzed(call: Call, client: FlaskClient) -> None:
    before = _hands_analyzed(client)
    hands = [{"hand": TEN}, {"hand": "As 2s"}, {"hand": TEN + " 9c"}, {"hand": TEN, "upcard": "Zz"}, {"hand": TEN}]
    results = call("POST", "/v1/hands/analyze/batch", json={"hands": hands}).get_json()["results"]
    assert [result["status"] for result in results] == [200, 422, 200, 422, 200]
    assert _hands_analyzed(client) == before + 3


@pytest.mark.parametrize("method", ["POST", "GET"])
def test_a_hand_whose_analysis_fails_is_not_counted(monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    def fail(**args: object) -> None:
        raise RuntimeError("the analysis failed")

    monkeypatch.setattr(hands_api, "analyze", fail)
    client = create_app().test_client()  # not TESTING: the error is answered, as in production
    before = _hands_analyzed(client)
    if method == "POST":
        answer = client.post("/v1/hands/analyze", json={"hand": TEN})
    else:
        answer = client.get("/v1/hands/analyze", query_string={"hand": TEN})
    assert answer.status_code == 500
    assert _hands_analyzed(client) == before


@pytest.mark.parametrize(("hands", "detail"), [([], "expected 1 to 1,000 items"),
                                               ([{"hand": TEN}] * 1001, "expected 1 to 1,000 items"),
                                               ("As", "expected a list (a JSON array)")])
def test_batch_size_is_bounded(call: Call, hands: object, detail: str) -> None:
    problem = call("POST", "/v1/hands/analyze/batch", json={"hands": hands}).get_json()
    assert problem["status"] == 422 and problem["errors"][0]["pointer"] == "#/hands"
    assert detail in problem["errors"][0]["detail"]


def test_the_card_just_taken_is_no_legal_discard(call: Call) -> None:
    """7c was just taken from the pile: under the default rules it may not go straight back."""
    body = {"hand": "As 2s 3s 7h 7d Kd Qd Jd 9s 5c 7c", "drawn_from_discard": "7c"}
    answer = call("POST", "/v1/hands/analyze", json=body).get_json()
    by_card = {entry["card"]: entry for entry in answer["discards"]}
    assert not by_card["7c"]["legal"] and not by_card["7c"]["can_knock"]
    assert answer["discard"] == "9s" and answer["deadwood"] == 5 and answer["can_knock"]
    allowed = call("POST", "/v1/hands/analyze", json={**body, "rules": "gra"}).get_json()
    assert all(entry["legal"] for entry in allowed["discards"])


def test_the_card_just_taken_comes_last_among_the_discards_even_when_it_would_be_best(call: Call) -> None:
    """Kc was just taken: throwing it back would leave 28, the best legal discard 9s leaves 29."""
    body = {"hand": "As 2s 3s 7h 7d Kd Qd Jd 9s 5c Kc", "drawn_from_discard": "Kc"}
    answer = call("POST", "/v1/hands/analyze", json=body).get_json()
    first, last = answer["discards"][0], answer["discards"][-1]
    assert (first["card"], first["deadwood"], first["legal"]) == (answer["discard"], 29, True) == ("9s", 29, True)
    assert (last["card"], last["deadwood"], last["legal"]) == ("Kc", 28, False)
    allowed = call("POST", "/v1/hands/analyze", json={**body, "rules": "gra"}).get_json()
    assert allowed["discard"] == allowed["discards"][0]["card"] == "Kc"


def test_the_best_discards_leave_out_the_card_just_taken(call: Call) -> None:
    """Without 9c or without 9h the rest is gin, but 9h was just taken: only 9c is among the best discards."""
    body = {"hand": "As 2s 3s 7h 7d 7c Kd Qd Jd 9c 9h", "drawn_from_discard": "9h"}
    answer = call("POST", "/v1/hands/analyze", json=body).get_json()
    assert (answer["discard"], answer["best_discards"]) == ("9c", ["9c"])
    allowed = call("POST", "/v1/hands/analyze", json={**body, "rules": "gra"}).get_json()
    assert sorted(allowed["best_discards"]) == ["9c", "9h"]


def test_the_card_just_taken_allows_no_knock_nor_gin_where_it_may_not_be_discarded(call: Call) -> None:
    """Throwing 9h back would leave gin (or a knock), but it was just taken: it may not go."""
    for hand, deadwood in (("As 2s 3s 4s 7h 7d 7c Kd Qd Jd 9h", 0), ("As 2s 3s 5c 7h 7d 7c Kd Qd Jd 9h", 5)):
        body = {"hand": hand, "drawn_from_discard": "9h"}
        taken = call("POST", "/v1/hands/analyze", json=body).get_json()["discards"][-1]
        assert (taken["card"], taken["deadwood"]) == ("9h", deadwood)
        assert not (taken["legal"] or taken["can_knock"] or taken["gin"])
        allowed = call("POST", "/v1/hands/analyze", json={**body, "rules": "gra"}).get_json()["discards"][0]
        assert (allowed["card"], allowed["legal"], allowed["can_knock"], allowed["gin"]) == ("9h", True, True,
                                                                                              deadwood == 0)


def test_each_discard_is_laid_out_as_one_arrangement(call: Call) -> None:
    """Without Kc, 6h goes in 5h 6h 7h (6s 6d unmatched) or in 6s 6h 6d (5h 7h unmatched), 12 both ways, and
    9c is left: two layouts of 21. The discard's melds and unmatched cards come from the same one."""
    cards = ["5h", "6h", "7h", "6s", "6d", "As", "2s", "3s", "4s", "9c", "Kc"]
    answer = call("POST", "/v1/hands/analyze", json={"hand": cards}).get_json()
    without = next(d for d in answer["discards"] if d["card"] == "Kc")
    assert without["deadwood"] == 21
    _check_layout([c for c in cards if c != "Kc"], without["melds"], without["deadwood_cards"], 21)
    for discard in answer["discards"]:
        _check_layout([c for c in cards if c != discard["card"]], discard["melds"], discard["deadwood_cards"],
                      discard["deadwood"])


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"hand": "As 2s 3s 7h 7d Kd Qd Jd 9s 5c", "drawn_from_discard": "5c"}, "only with an 11-card hand"),
        ({"hand": "As 2s 3s 7h 7d Kd Qd Jd 9s 5c 7c", "drawn_from_discard": "8c"}, "not in the hand"),
    ],
)
def test_a_card_just_taken_must_be_in_the_drawn_hand(call: Call, body: dict, detail: str) -> None:  # type: ignore[type-arg]
    problem = call("POST", "/v1/hands/analyze", json=body).get_json()
    assert problem["status"] == 422 and problem["errors"][0]["pointer"] == "#/drawn_from_discard"
    assert detail in problem["detail"]


def test_the_top_level_layout_is_the_first_arrangement_and_the_best_discards(call: Call) -> None:
    """6h goes in 5h 6h 7h or in 6s 6h 6d: two layouts of 21. The top level describes the first one listed,
    and for eleven cards the first discard's entry is laid out the same way."""
    ten = ["5h", "6h", "7h", "6s", "6d", "As", "2s", "3s", "4s", "9c"]
    for cards in (ten, [*ten, "Kc"]):
        answer = call("POST", "/v1/hands/analyze", json={"hand": cards}).get_json()
        first = answer["arrangements"][0]
        assert len(answer["arrangements"]) == 2 and answer["deadwood"] == 21
        assert (answer["melds"], answer["deadwood_cards"]) == (first["melds"], first["deadwood_cards"])
        if len(cards) == 11:
            best = answer["discards"][0]
            assert best["card"] == "Kc" and (best["melds"], best["deadwood_cards"]) == (
                first["melds"], first["deadwood_cards"])


def test_deadwood_equal_to_the_knock_limit_allows_a_knock(call: Call) -> None:
    """TEN leaves 5 (the 5c): a knock limit of 5 allows the knock, in the hand and in the discard that keeps it."""
    rules = {"knock_limit": 5}
    answer = call("POST", "/v1/hands/analyze", json={"hand": TEN, "rules": rules}).get_json()
    assert (answer["deadwood"], answer["can_knock"]) == (5, True)
    drawn = call("POST", "/v1/hands/analyze", json={"hand": TEN + " 9c", "rules": rules}).get_json()
    by_card = {entry["card"]: entry for entry in drawn["discards"]}
    assert (by_card["9c"]["deadwood"], by_card["9c"]["can_knock"]) == (5, True)
    assert (by_card["5c"]["deadwood"], by_card["5c"]["can_knock"]) == (9, False)


def test_a_card_and_a_hand_at_their_documented_maximum_length_are_read(call: Call) -> None:
    """The spec allows 16 characters for a card and 256 for a hand as one string; one more is refused."""
    upcard, hand = "8c".ljust(16), TEN.ljust(256)
    answer = call("POST", "/v1/hands/analyze", json={"hand": hand, "rules": "oklahoma", "upcard": upcard}).get_json()
    assert answer["knock_limit"] == 8 and len(answer["hand"]) == 10
    listed = [card.ljust(16) for card in TEN.split()]
    assert call("POST", "/v1/hands/analyze", json={"hand": listed}).get_json()["hand"] == answer["hand"]
    problem = call("POST", "/v1/hands/analyze", json={"hand": hand + " ", "rules": "oklahoma", "upcard": upcard + " "}
                   ).get_json()
    assert {error["pointer"] for error in problem["errors"]} == {"#/hand", "#/upcard"}


# --- from a mutation audit of the answers ------------------------------------------------------------


def test_ten_cards_with_one_point_of_deadwood_are_no_gin(call: Call) -> None:
    answer = call("POST", "/v1/hands/analyze", json={"hand": "As 2s 3s 7h 7d 7c Kd Qd Jd Ac"}).get_json()
    assert (answer["deadwood"], answer["gin"], answer["can_knock"]) == (1, False, True)


def test_a_null_batch_item_says_what_is_expected(call: Call) -> None:
    [result] = call("POST", "/v1/hands/analyze/batch", json={"hands": [None]}).get_json()["results"]
    assert result["problem"]["errors"] == [{"pointer": "#/hands/0", "detail": 'may not be null: expected a JSON '
                                            'object like {"hand": "As 2s 3s ..."}'}]


def test_a_batch_items_null_rules_are_refused_as_everywhere_else(call: Call) -> None:
    body = {"hands": [{"hand": TEN, "rules": None}], "rules": {"knock_limit": 7}}
    [result] = call("POST", "/v1/hands/analyze/batch", json=body).get_json()["results"]
    assert result["status"] == 422
    assert result["problem"]["errors"] == [{"pointer": "#/hands/0/rules", "detail": "may not be null: expected a "
                                            "preset name or an object of rule parameters"}]


def test_a_hand_analyzed_from_the_query_is_counted(call: Call, client: FlaskClient) -> None:
    before = _hands_analyzed(client)
    assert call("GET", "/v1/hands/analyze?hand=As,2s,3s,7h,7d,7c,Kd,Qd,Jd,5c").status_code == 200
    assert _hands_analyzed(client) == before + 1


STOCK_END_RULES = [{"stock_end_discard": offer, "discard_pickup_allowed": pickup}
                   for offer in ("take_to_knock", "take_to_knock_any") for pickup in (False, True)]


@pytest.mark.parametrize("rules", STOCK_END_RULES)
def test_the_card_taken_at_the_stock_end_is_discarded_as_stock_end_discard_says(call: Call, rules: dict) -> None:  # type: ignore[type-arg]
    """The 50th-card rule (take_to_knock) forbids discarding the card taken and Game Colony's form allows it,
    whatever discard_pickup_allowed says: 9h thrown back leaves a knock of 2, any other discard 10 or more."""
    body = {"hand": "As 6s 7s 8s 9s Ts Js Ah 9h 6d 6c", "drawn_from_discard": "9h", "rules": rules,
            "taken_at_stock_end": True}
    answer = call("POST", "/v1/hands/analyze", json=body).get_json()
    may = rules["stock_end_discard"] == "take_to_knock_any"
    taken = next(entry for entry in answer["discards"] if entry["card"] == "9h")
    assert (taken["legal"], taken["can_knock"], answer["can_knock"]) == (may, may, True)
    assert answer["deadwood"] == (2 if may else 10)
    query = ("/v1/hands/analyze?hand=As,6s,7s,8s,9s,Ts,Js,Ah,9h,6d,6c&drawn_from_discard=9h&taken_at_stock_end=true"
             + "".join(f"&{name}={str(value).lower()}" for name, value in rules.items()))
    assert call("GET", query, template="/v1/hands/analyze").get_json() == answer
    batch = call("POST", "/v1/hands/analyze/batch", json={"hands": [body]}).get_json()
    assert batch["results"] == [{"status": 200, "analysis": answer}]
    knock = {"knocker": body["hand"], "defender": "3s 4s 8h Th 3d 7d 8c Ks Kd Kc", "discard": "9h",
             "drawn_from_discard": "9h", "rules": rules, "taken_at_stock_end": True}
    scored = call("POST", "/v1/rounds/score", json=knock)
    assert scored.status_code == (200 if may else 422)
    if not may:
        fault = scored.get_json()["errors"][0]
        assert fault == {"pointer": "#/discard", "detail": "9h was just taken from the discard pile and may not be "
                         "discarded this turn under these rules (see discard_pickup_allowed, and stock_end_discard "
                         "for a card taken at the stock end)"}


@pytest.mark.parametrize("rules", STOCK_END_RULES)
def test_a_card_taken_at_the_stock_end_by_a_hand_that_cannot_knock_is_refused(call: Call, rules: dict) -> None:  # type: ignore[type-arg]
    """The card is taken only to knock or go gin, as the hint says; analysis answered every discard of such a
    hand. Under the 50th-card rule this hand could knock only by throwing back Jh, which it may not."""
    hand = "As 6s 7s 8s 9s Ts Js Ah Jh 6d 6c" if rules["stock_end_discard"] == "take_to_knock" \
        else "4s Ts Js Ah 2h 3h Th 6d 5c 7c 8s"
    taken = "Jh" if rules["stock_end_discard"] == "take_to_knock" else "8s"
    body = {"hand": hand, "drawn_from_discard": taken, "rules": rules, "taken_at_stock_end": True}
    detail = f"{taken} is taken at the stock end only to knock or go gin, and this hand cannot"
    problem = call("POST", "/v1/hands/analyze", json=body).get_json()
    assert problem["errors"] == [{"pointer": "#/taken_at_stock_end", "detail": detail}]
    query = (f"/v1/hands/analyze?hand={hand.replace(' ', ',')}&drawn_from_discard={taken}&taken_at_stock_end=true"
             + "".join(f"&{name}={str(value).lower()}" for name, value in rules.items()))
    assert call("GET", query, template="/v1/hands/analyze").get_json()["errors"] == [
        {"parameter": "taken_at_stock_end", "detail": detail}]
    batch = call("POST", "/v1/hands/analyze/batch", json={"hands": [body]}).get_json()
    assert batch["results"][0]["problem"]["errors"] == [{"pointer": "#/hands/0/taken_at_stock_end", "detail": detail}]


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"hand": "As 6s 7s 8s 9s Ts Js Ah Jh 6d 6c", "taken_at_stock_end": True,
          "rules": {"stock_end_discard": "take_to_knock"}}, "goes in drawn_from_discard: give it"),
        ({"hand": "As 6s 7s 8s 9s Ts Js Ah Jh 6d 6c", "taken_at_stock_end": True, "drawn_from_discard": "Jh"},
         "under stock_end_discard draw the discard that leaves the stock's end is not offered"),
        ({"hand": "As 6s 7s 8s 9s Ts Js Ah Jh 6d 6c", "taken_at_stock_end": "yes", "drawn_from_discard": "Jh"},
         "expected true or false"),
    ],
)
def test_a_card_taken_at_the_stock_end_needs_the_card_and_the_offer(call: Call, body: dict, detail: str) -> None:  # type: ignore[type-arg]
    problem = call("POST", "/v1/hands/analyze", json=body).get_json()
    assert problem["status"] == 422 and problem["errors"][0]["pointer"] == "#/taken_at_stock_end"
    assert detail in problem["detail"]
    knock = {"knocker": body["hand"], "defender": "3s 4s 9h Th 3d 7d 8c Ks Kd Kc", "discard": "As",
             **{key: value for key, value in body.items() if key != "hand"}}
    problem = call("POST", "/v1/rounds/score", json=knock).get_json()
    assert problem["status"] == 422 and problem["errors"][0]["pointer"] == "#/taken_at_stock_end"


@pytest.mark.parametrize(("extra", "faults"), [
    ({}, ["upcard", "drawn_from_discard"]),
    ({"taken_at_stock_end": True}, ["upcard", "drawn_from_discard", "taken_at_stock_end"]),
])
def test_every_fault_of_a_hand_under_its_rules_is_listed_by_post_get_and_batch_alike(
        call: Call, extra: dict, faults: list[str]) -> None:  # type: ignore[type-arg]
    """Oklahoma without its upcard, a card just taken with a 10-card hand, and (Oklahoma's stock end ending in a
    draw) a card taken at the stock end: POST and the batch listed only the first, GET only the second."""
    body = {"hand": "As 2s 3s 7h 7d 7c Kd Qd Jd 5c", "rules": "oklahoma", "drawn_from_discard": "9h", **extra}
    post = call("POST", "/v1/hands/analyze", json=body).get_json()
    assert [error["pointer"] for error in post["errors"]] == [f"#/{field}" for field in faults]
    query = ("/v1/hands/analyze?hand=As,2s,3s,7h,7d,7c,Kd,Qd,Jd,5c&rules=oklahoma&drawn_from_discard=9h"
             + "".join(f"&{name}={str(value).lower()}" for name, value in extra.items()))
    got = call("GET", query, template="/v1/hands/analyze").get_json()
    assert [error["parameter"] for error in got["errors"]] == faults
    assert [error["detail"] for error in got["errors"]] == [error["detail"] for error in post["errors"]]
    batch = call("POST", "/v1/hands/analyze/batch", json={"hands": [body]}).get_json()
    assert batch["results"][0]["problem"]["errors"] == [
        {**error, "pointer": error["pointer"].replace("#/", "#/hands/0/")} for error in post["errors"]]


def test_a_card_taken_at_the_stock_end_goes_with_an_eleven_card_hand(call: Call) -> None:
    """It said "give drawn_from_discard", which a 10-card hand cannot take; a 10-card knocker may give it."""
    rules = {"stock_end_discard": "take_to_knock"}
    body = {"hand": "As 2s 3s 7h 7d 7c Kd Qd Jd 5c", "taken_at_stock_end": True, "rules": rules}
    problem = call("POST", "/v1/hands/analyze", json=body).get_json()
    assert problem["errors"] == [{"pointer": "#/taken_at_stock_end", "detail": "goes with an 11-card hand: the card "
                                  "taken at the stock end is one of its eleven"}]
    knock = {"knocker": body["hand"], "defender": "4s 5s 8h 9h Th 4d 4c 9c Tc Qc", "drawn_from_discard": "9s",
             "taken_at_stock_end": True, "rules": {**rules, "discard_pickup_allowed": True}}  # 9s taken and thrown
    problem = call("POST", "/v1/rounds/score", json=knock).get_json()  # which the 50th-card rule forbids
    assert problem["errors"][0]["pointer"] == "#/drawn_from_discard"
    scored = call("POST", "/v1/rounds/score", json={**knock, "rules": {"stock_end_discard": "take_to_knock_any"}})
    assert scored.status_code == 200


def test_rules_at_fault_are_listed_alone_by_post_get_and_batch_alike(call: Call) -> None:
    """Oklahoma with the eleven-card deal, and a card taken that is not in the hand: GET also checked the card,
    where POST and the batch, having no rules to check the hand under, list the rules alone."""
    hand = "As 2s 3s 4s 7h 7d 7c Kd Qd Jd 9c"
    body = {"hand": hand, "rules": {"preset": "oklahoma", "eleven_card_deal": True}, "drawn_from_discard": "5h"}
    post = call("POST", "/v1/hands/analyze", json=body).get_json()
    assert [error["pointer"] for error in post["errors"]] == ["#/rules/eleven_card_deal"]
    query = (f"/v1/hands/analyze?hand={hand.replace(' ', ',')}&rules=oklahoma&eleven_card_deal=true"
             "&drawn_from_discard=5h")
    got = call("GET", query, template="/v1/hands/analyze").get_json()
    assert [(error["parameter"], error["detail"]) for error in got["errors"]] == [
        ("eleven_card_deal", post["errors"][0]["detail"])]
    batch = call("POST", "/v1/hands/analyze/batch", json={"hands": [body]}).get_json()
    assert [error["pointer"] for error in batch["results"][0]["problem"]["errors"]] == [
        "#/hands/0/rules/eleven_card_deal"]


def test_rules_at_fault_are_listed_beside_the_hand_by_post_get_and_batch_alike(call: Call) -> None:
    """GET resolved its rule parameters only once every field had loaded: with the hand at fault it did not list
    Oklahoma with the eleven-card deal, which POST and the batch list beside it."""
    body = {"hand": "As 2s 3s", "rules": {"preset": "oklahoma", "eleven_card_deal": True}, "upcard": "Ks"}
    post = call("POST", "/v1/hands/analyze", json=body).get_json()
    assert [error["pointer"] for error in post["errors"]] == ["#/hand", "#/rules/eleven_card_deal"]
    got = call("GET", "/v1/hands/analyze?hand=As,2s,3s&rules=oklahoma&eleven_card_deal=true&upcard=Ks",
               template="/v1/hands/analyze").get_json()
    assert [(error["parameter"], error["detail"]) for error in got["errors"]] == [
        ("hand", post["errors"][0]["detail"]), ("eleven_card_deal", post["errors"][1]["detail"])]
    batch = call("POST", "/v1/hands/analyze/batch", json={"hands": [body]}).get_json()
    assert [error["pointer"] for error in batch["results"][0]["problem"]["errors"]] == [
        "#/hands/0/hand", "#/hands/0/rules/eleven_card_deal"]
    unknown = call("GET", "/v1/hands/analyze?hand=As,2s,3s&rules=oklahoma&eleven_card_deal=tru",
                   template="/v1/hands/analyze").get_json()  # a parameter at fault is listed once, as itself
    assert [error["parameter"] for error in unknown["errors"]] == ["hand", "eleven_card_deal"]
    assert "expected true or false" in unknown["errors"][1]["detail"]
