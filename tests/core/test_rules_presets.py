"""Rules values: defaults, presets, overrides and their errors."""

import dataclasses
import random
from decimal import Decimal
from difflib import get_close_matches
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.core import (
    ALL_CARDS,
    PRESETS,
    RULE_PARAMETERS,
    IllegalKnockError,
    RoundResult,
    RuleParameter,
    Rules,
    RulesError,
    card_value,
    hand_from_cards,
    min_deadwood,
    presets_played,
    resolve_rules,
    score_round,
    unused_parameters,
)
from service.core.rules import _nearest_parameter, is_whole


def test_defaults_are_the_documented_ones() -> None:
    rules = resolve_rules()
    assert (rules.knock_limit, rules.gin_bonus, rules.big_gin_bonus, rules.undercut_bonus) == (10, 25, 31, 25)
    assert rules.undercut_on_tie and not rules.oklahoma and not rules.discard_pickup_allowed
    assert (rules.target, rules.game_bonus, rules.box_bonus, rules.shutout) == (100, 100, 25, "double_bonus")
    # rules notes: 2 cards left in the stock end the hand as a draw
    assert rules.stock_end == 2


def test_every_parameter_is_described_once() -> None:
    names = [p.name for p in RULE_PARAMETERS]
    assert sorted(names) == sorted(f.name for f in dataclasses.fields(Rules))
    assert all(p.description for p in RULE_PARAMETERS)


@pytest.mark.parametrize(("number", "whole"), [
    (5.0, True), (5.5, False), (float("inf"), False), (Decimal("500E-2"), True), (Decimal("4.9999999999999999"), False),
    (Decimal("1E+999999999999999999"), True), (Decimal("-1E+999999999999999999"), True),
    (Decimal("1.5E-999999999999999999"), False), (Decimal("0E-999999999999999999"), True),
    (Decimal("Infinity"), False), (Decimal("NaN"), False), (Decimal("sNaN"), False),
])
def test_a_number_is_whole_exactly_even_far_past_a_decimals_context(number: float | Decimal, whole: bool) -> None:
    assert is_whole(number) is whole


@pytest.mark.parametrize("parameter", RULE_PARAMETERS, ids=lambda p: p.name)
def test_a_value_of_the_wrong_type_is_told_what_the_parameter_takes(parameter: RuleParameter) -> None:
    """Each parameter's error names its kind, and an integer's its range."""
    message = parameter.problem([])
    assert message is not None and message.startswith("expected ") and message.endswith(", got a list")
    if parameter.kind == "integer":
        bounds = f" from {parameter.minimum:,} to {parameter.maximum:,}"
        assert bounds + (" or null," if parameter.nullable else ",") in message


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ("standard", {"gin_bonus": 25, "undercut_bonus": 25, "box_bonus": 20, "big_gin_bonus": None,
                      "target": 100, "game_bonus": 100, "shutout": "none"}),
        ("hoyle", {"gin_bonus": 25, "undercut_bonus": 25, "box_bonus": 25, "big_gin_bonus": None, "target": 100,
                   "game_bonus": 100, "shutout": "double_score", "stock_end": 2,
                   "stock_end_discard": "take_to_knock"}),
        ("online", {"big_gin_bonus": 31, "game_bonus": 0, "box_bonus": 0, "discard_pickup_allowed": False,
                    "target": 100, "shutout": "none"}),
        ("traditional", {"gin_bonus": 20, "undercut_bonus": 10, "box_bonus": 20, "shutout": "double_bonus",
                         "big_gin_bonus": None, "target": 100, "game_bonus": 100}),
        ("gra", {"gin_bonus": 25, "undercut_bonus": 25, "box_bonus": 25, "discard_pickup_allowed": True,
                 "shutout": "double_score", "big_gin_bonus": None}),
        ("oklahoma", {"oklahoma": True, "target": 150, "gin_bonus": 20, "undercut_bonus": 10, "box_bonus": 20,
                      "big_gin_bonus": None, "shutout": "double_bonus"}),
        ("partnership", {"target": 125, "gin_bonus": 20, "undercut_bonus": 10, "box_bonus": 20,
                         "big_gin_bonus": None, "shutout": "double_bonus"}),
    ],
)
def test_presets_follow_their_sources(preset: str, expected: dict[str, object]) -> None:
    """Every parameter: those not listed are the defaults (a preset's gin bonus changed, or gra given big gin,
    passed when only the listed ones were compared)."""
    rules = resolve_rules(preset)
    assert dataclasses.asdict(rules) == {**dataclasses.asdict(Rules()), **expected}
    assert PRESETS[preset].source.startswith("seed 00")


def test_overrides_apply_on_top_of_a_preset() -> None:
    rules = resolve_rules("traditional", {"undercut_bonus": 25, "big_gin_bonus": 50})
    assert (rules.gin_bonus, rules.undercut_bonus, rules.big_gin_bonus) == (20, 25, 50)


@pytest.mark.parametrize(
    ("preset", "overrides", "field", "fragment"),
    [
        ("nope", {}, "preset", "unknown preset"),
        (None, {"knock_limt": 5}, "knock_limt", "unknown rule parameter; did you mean knock_limit?"),
        (None, {"Oklahoma_Aces": "one"}, "Oklahoma_Aces", "unknown rule parameter; did you mean oklahoma_ace?"),
        (None, {"colour": 1}, "colour", "unknown rule parameter; expected one of knock_limit, gin_bonus,"),
        (None, {"knock_limit": 11}, "knock_limit", "at most 10"),
        (None, {"knock_limit": -1}, "knock_limit", "at least 0"),
        (None, {"knock_limit": True}, "knock_limit", "integer"),
        (None, {"knock_limit": "5"}, "knock_limit", "integer"),
        (None, {"target": "x"}, "target", 'target: expected an integer from 1 to 10,000, got "x"'),
        (None, {"oklahoma": 1}, "oklahoma", "true or false"),
        (None, {"shutout": "triple"}, "shutout", "one of"),
        (None, {"gin_bonus": None}, "gin_bonus", "null"),
    ],
)
def test_bad_rules_name_the_field(preset: str | None, overrides: dict[str, object], field: str, fragment: str) -> None:
    with pytest.raises(RulesError) as caught:
        resolve_rules(preset, overrides)
    assert caught.value.field == field
    assert fragment in str(caught.value)


def test_big_gin_may_be_switched_off() -> None:
    assert resolve_rules(None, {"big_gin_bonus": None}).big_gin_bonus is None


@pytest.mark.parametrize(
    ("values", "field", "fragment"),
    [
        ({"knock_limit": 50}, "knock_limit", "at most 10"),
        ({"knock_limit": "x"}, "knock_limit", 'expected an integer from 0 to 10, got "x"'),
        ({"knock_limit": 10.5}, "knock_limit", "expected an integer from 0 to 10, got 10.5"),
        ({"knock_limit": 10**400}, "knock_limit", "expected at most 10, got a 1329-bit integer"),
        ({"knock_limit": [[[]]]}, "knock_limit", "expected an integer from 0 to 10, got a list"),
        ({"shutout": "x" * 10_000}, "shutout", 'got "x{40}..."$'),
        ({"knock_limit": 5.0}, "knock_limit", "expected an integer from 0 to 10, got 5.0"),  # ints only
        ({"knock_limit": 1e30}, "knock_limit", r"expected at most 10, got 1e\+30"),
        ({"shutout": "bogus"}, "shutout", "expected one of"),
        ({"oklahoma": 1}, "oklahoma", "true or false"),
    ],
)
def test_rules_made_directly_are_checked_too(values: dict[str, object], field: str, fragment: str) -> None:
    """A library user may build ``Rules`` without ``resolve_rules``: the same checks apply."""
    with pytest.raises(RulesError, match=fragment) as caught:
        Rules(**values)  # type: ignore[arg-type]
    assert caught.value.field == field
    with pytest.raises(RulesError):
        dataclasses.replace(Rules(), **values)  # type: ignore[arg-type]


def test_a_value_nested_past_the_recursion_limit_is_described_not_printed() -> None:
    value: object = []
    for _ in range(5_000):
        value = [value]
    with pytest.raises(RulesError, match=r"knock_limit: expected an integer from 0 to 10, got a list$"):
        resolve_rules(None, {"knock_limit": value})


def test_every_bad_parameter_is_named_at_once() -> None:
    with pytest.raises(RulesError) as caught:
        resolve_rules("oklahoma", {"shutout": "bad", "knock_limit": 11, "target": 0})
    assert caught.value.problems == {
        "knock_limit": "expected at most 10, got 11",
        "target": "expected at least 1, got 0",
        "shutout": 'expected one of double_bonus, double_score, none, got "bad"',
    }
    with pytest.raises(RulesError) as caught:
        resolve_rules(None, {"knock_limt": 5, "target": 0})
    assert caught.value.problems == {"knock_limt": "unknown rule parameter; did you mean knock_limit?",
                                     "target": "expected at least 1, got 0"}


def test_parameter_names_are_listed_once_however_many_names_are_unknown() -> None:
    """A rules object of unknown names is answered with the list of names once, at the first name no parameter's
    is near (a batch of such objects was answered with some 13 MB when each name carried the list)."""
    with pytest.raises(RulesError) as caught:
        resolve_rules(None, {"colour": 1, "knock_limt": 5, "size": 2, "pace": 3})
    problems = caught.value.problems
    assert problems["colour"].startswith("unknown rule parameter; expected one of knock_limit, gin_bonus,")
    assert problems["knock_limt"] == "unknown rule parameter; did you mean knock_limit?"
    assert problems["size"] == problems["pace"] == "unknown rule parameter (the names are listed at the first such key)"


def test_the_first_three_unknown_names_are_matched_to_parameters() -> None:
    """A rules object's later misspellings are not matched (each match costs up to some 200 us: 18 in each of a
    batch's 1,000 items took 1.2 s); they get the list instead, once."""
    with pytest.raises(RulesError) as caught:
        resolve_rules(None, {"knok_limit": 3, "gin_bonu": 1, "undercut_bonsu": 2, "big_gin_bonsu": 3, "targte": 9})
    problems = caught.value.problems
    assert [problems[name] for name in ("knok_limit", "gin_bonu", "undercut_bonsu")] == [
        f"unknown rule parameter; did you mean {name}?" for name in ("knock_limit", "gin_bonus", "undercut_bonus")]
    assert problems["big_gin_bonsu"].startswith("unknown rule parameter; expected one of knock_limit, gin_bonus,")
    assert problems["targte"] == "unknown rule parameter (the names are listed at the first such key)"


@settings(max_examples=300)
@given(st.sampled_from([p.name for p in RULE_PARAMETERS]), st.text("abcdefghiklmnoprstu_K", max_size=60),
       st.integers(0, 60))
def test_a_name_is_matched_as_difflib_matches_it_whatever_its_length(parameter: str, noise: str, at: int) -> None:
    """Names over twice the longest parameter name's length are not given to difflib: none would match."""
    name = parameter[:at] + noise + parameter[at:]
    near = get_close_matches(name.lower(), [p.name for p in RULE_PARAMETERS], n=1, cutoff=0.75)
    assert _nearest_parameter(name) == (near[0] if near else None)



def _values(parameter: RuleParameter) -> list[Any]:
    """Values of a (not nullable) parameter: every choice, or its bounds and default."""
    if parameter.choices:
        return list(parameter.choices)
    if parameter.kind == "boolean":
        return [False, True]
    assert parameter.minimum is not None and parameter.maximum is not None
    return sorted({parameter.minimum, parameter.default, parameter.maximum})


def _knocks(rng: random.Random, count: int) -> list[tuple[int, int, int]]:
    """Random knocks of every kind (gin, knocks, undercuts, ties) with upcards of every value and suit: each hand
    improved by random swaps with the rest of the deck until its deadwood is down to one drawn for it; every
    fourth knocker is aimed at 1 deadwood or less, under an Ace upcard (where ``oklahoma_ace`` decides)."""
    found: list[tuple[int, int, int]] = []
    while len(found) < count:
        deck = list(ALL_CARDS)
        rng.shuffle(deck)
        aces = len(found) % 4 == 0
        knocker = _improved(rng, deck, 0, rng.randint(0, 1) if aces else rng.randint(0, 10))
        defender = _improved(rng, deck, 10, rng.randint(0, 14))
        upcard = next((card for card in deck[20:] if card_value(card) == 1), deck[20]) if aces else deck[20]
        found.append((knocker, defender, upcard))
    return found


def _improved(rng: random.Random, deck: list[int], start: int, target: int) -> int:
    """The ten cards ``deck[start:start + 10]``, swapped with cards beyond ``start + 10`` (in place, keeping the
    rest of the deck apart) while that does not raise their deadwood, until it is ``target`` or less."""
    hand = slice(start, start + 10)
    for _ in range(400):
        if min_deadwood(hand_from_cards(deck[hand])) <= target:
            break
        i, j = rng.randrange(start, start + 10), rng.randrange(start + 10, len(deck))
        before = min_deadwood(hand_from_cards(deck[hand]))
        deck[i], deck[j] = deck[j], deck[i]
        if min_deadwood(hand_from_cards(deck[hand])) > before:
            deck[i], deck[j] = deck[j], deck[i]
    return hand_from_cards(deck[hand])


def _scores(knocks: list[tuple[int, int, int]], rules: Rules) -> list[object]:
    """Each knock's score under ``rules``, or its refusal (a knock above the limit)."""
    scores: list[object] = []
    for knocker, defender, upcard in knocks:
        try:
            scores.append(score_round(knocker, defender, rules, upcard=upcard))
        except IllegalKnockError as error:
            scores.append(str(error))
    return scores


ROUND_PARAMETERS = ("knock_limit", "gin_bonus", "undercut_bonus", "undercut_on_tie", "oklahoma", "oklahoma_ace",
                    "oklahoma_spades_double", "oklahoma_extra_boxes")
"""The parameters that score a round of ten cards a side (the rest score games, big gin, or guide a hint)."""


@pytest.mark.parametrize(("preset", "overrides"), [(None, None), ("oklahoma", None), (None, {"knock_limit": 0})])
def test_a_parameter_is_called_unused_just_when_no_value_of_it_changes_a_rounds_score(
        preset: str | None, overrides: dict[str, int] | None) -> None:
    """``unused_parameters`` (what POST /v1/rules/resolve reports) against the scorer, on knocks of every kind:
    each value of an unused parameter scores them all alike, and some value of every other round parameter
    scores one of them otherwise. With a knock limit of 0 there is no undercut (found by a referee's audit: its
    parameters were not called unused)."""
    base = resolve_rules(preset, overrides)
    knocks = _knocks(random.Random(7), 48)
    outcomes = {score.outcome for score in _scores(knocks, resolve_rules()) if isinstance(score, RoundResult)}
    assert outcomes == {"gin", "knock", "undercut"}
    unused = unused_parameters(base)
    parameters = {p.name: p for p in RULE_PARAMETERS}
    for name in ROUND_PARAMETERS:
        variants = {tuple(_scores(knocks, dataclasses.replace(base, **{name: value})))
                    for value in _values(parameters[name])}
        assert (len(variants) == 1) == (name in unused), (name, len(variants))


def test_presets_play_as_themselves_and_not_as_each_other() -> None:
    for name, preset in PRESETS.items():
        assert presets_played(preset.rules) == [name]
    assert presets_played(resolve_rules("oklahoma", {"knock_limit": 3})) == ["oklahoma"]  # unused in Oklahoma
    assert presets_played(resolve_rules("oklahoma", {"target": 100})) == []
    assert presets_played(resolve_rules("hoyle", {"oklahoma_ace": "gin_only"})) == ["hoyle"]
    assert presets_played(resolve_rules()) == []  # the defaults follow no single source


def test_an_eleven_card_deal_has_no_first_turn_to_play_plainly() -> None:
    """It turns no upcard, so ``first_turn`` changes nothing there (nor scores: it guides hints only)."""
    assert "first_turn" not in unused_parameters(resolve_rules("standard"))
    assert unused_parameters(resolve_rules("gra", {"eleven_card_deal": True}))["first_turn"] == \
        "an eleven-card deal turns no card up"
