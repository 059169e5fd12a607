"""Cards and hands: parsing every spelling, canonical output, clear errors, values."""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import service.core
from service.core import GinError
from service.core.cards import (
    ALL_CARDS,
    FULL_DECK,
    RANK_CHARS,
    SUIT_CHARS,
    CardError,
    card_rank,
    card_suit,
    card_value,
    format_card,
    format_hand,
    hand_cards,
    hand_from_cards,
    hand_value,
    make_card,
    parse_card,
    parse_cards,
    parse_hand,
)

from . import reference as ref
from .hands import hands, random_hands

PROPERTY = settings(max_examples=200)
SUIT_SPELLINGS = (("s", "S", "♠", "♤"), ("h", "H", "♥", "♡"), ("d", "D", "♦", "♢"), ("c", "C", "♣", "♧"))


def rank_spellings(rank: int) -> list[str]:
    """Every accepted spelling of a rank index (0 = Ace)."""
    char = "A23456789TJQK"[rank]
    spellings = {char, char.lower()}
    if rank == 9:
        spellings.add("10")
    return sorted(spellings)


def test_deck_is_52_distinct_cards() -> None:
    assert len(set(ALL_CARDS)) == 52
    assert hand_from_cards(ALL_CARDS) == FULL_DECK
    assert FULL_DECK.bit_count() == 52


def test_every_spelling_of_every_card_parses_to_it() -> None:
    for card in ALL_CARDS:
        rank, suit = card_rank(card), card_suit(card)
        for rank_text in rank_spellings(rank):
            for suit_text in SUIT_SPELLINGS[suit]:
                assert parse_card(rank_text + suit_text) == card, rank_text + suit_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("As", "As"),
        ("AS", "As"),
        ("as", "As"),
        ("aS", "As"),
        ("10h", "Th"),
        ("10H", "Th"),
        ("Th", "Th"),
        ("th", "Th"),
        ("T♥", "Th"),
        ("A♠", "As"),
        ("k♣", "Kc"),
        ("Q♦", "Qd"),
        (" 7d ", "7d"),
        ("5♣\ufe0f", "5c"),  # as phone keyboards send it: the emoji presentation selector after the suit
        ("5♣\ufe0e", "5c"),  # the text presentation selector
        ("k s", "Ks"),  # a lowercase rank, a space inside (the spec's card pattern allows both)
    ],
)
def test_spellings_from_the_brief(text: str, expected: str) -> None:
    assert format_card(parse_card(text)) == expected


def test_format_is_canonical_and_round_trips() -> None:
    formatted = [format_card(card) for card in ALL_CARDS]
    assert len(set(formatted)) == 52
    for card, text in zip(ALL_CARDS, formatted, strict=True):
        assert len(text) == 2 and text[0] in "A23456789TJQK" and text[1] in "shdc"
        assert parse_card(text) == card


def test_rank_suit_and_value_agree_with_the_reference() -> None:
    for card in ALL_CARDS:
        ref_card = ref.from_card(card)
        assert (card_rank(card) + 1, card_suit(card)) == ref_card
        assert make_card(card_rank(card), card_suit(card)) == card
        assert card_value(card) == ref.value(ref_card)


def test_card_values_from_the_rules() -> None:
    values = {text: card_value(parse_card(text)) for text in ["As", "2h", "9d", "Tc", "Js", "Qh", "Kd"]}
    assert values == {"As": 1, "2h": 2, "9d": 9, "Tc": 10, "Js": 10, "Qh": 10, "Kd": 10}


def test_hand_value_is_the_sum_of_card_values() -> None:
    for hand in random_hands("deck", 500, range(0, 53), seed=1):
        assert hand_value(hand) == ref.total(ref.from_bits(hand))
    assert hand_value(FULL_DECK) == 4 * (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 10 + 10 + 10)


@pytest.mark.parametrize("text", ["As 2s 3s", "As,2s,3s", "As, 2s ,3s", "  As\t2s\n3s  ", "as,2S 3♠", "As,,2s  ,3s"])
def test_hand_text_split_by_spaces_or_commas(text: str) -> None:
    assert format_hand(parse_hand(text)) == ["As", "2s", "3s"]


def test_list_and_string_forms_agree() -> None:
    assert parse_hand(["Kd", "10c", "a♥"]) == parse_hand("Kd 10c a♥") == parse_hand("Kd,10c,a♥")


def test_parse_cards_keeps_order() -> None:
    assert [format_card(c) for c in parse_cards("Kd 2c As Th")] == ["Kd", "2c", "As", "Th"]


def test_format_hand_orders_by_rank_then_suit() -> None:
    assert format_hand(parse_hand("Kc 2d As 2s Ah 10h")) == ["As", "Ah", "2s", "2d", "Th", "Kc"]


def test_empty_text_is_the_empty_hand() -> None:
    assert parse_hand("") == 0 and parse_hand([]) == 0 and format_hand(0) == []


@pytest.mark.parametrize(
    ("cards", "bad"),
    [
        ("As Xs 3s", "Xs"),
        ("As 1h", "1h"),
        ("11h", "11h"),
        (["As2s"], "As2s"),
        (["A"], "A"),
        (["s"], "s"),
        (["10"], "10"),
        (["Ts", ""], ""),
        (["Ah", "A h h"], "A h h"),
        ("0s", "0s"),
        ("Ae", "Ae"),
        ("♠A", "♠A"),
    ],
)
def test_unknown_card_is_named(cards: str | list[str], bad: str) -> None:
    with pytest.raises(CardError) as raised:
        parse_hand(cards)
    assert raised.value.card == bad
    assert repr(bad) in str(raised.value)


def test_non_string_card_is_rejected_not_crashed() -> None:
    with pytest.raises(CardError) as raised:
        parse_hand(["As", 7])  # type: ignore[list-item]
    assert raised.value.card == "7"


@pytest.mark.parametrize(
    ("cards", "bad", "canonical"),
    [("As 2s As", "As", "As"), ("Th 2s 10h", "10h", "Th"), ("as AS", "AS", "As"), (["Q♦", "qd"], "qd", "Qd")],
)
def test_duplicate_card_is_named(cards: str | list[str], bad: str, canonical: str) -> None:
    with pytest.raises(CardError) as raised:
        parse_hand(cards)
    assert raised.value.card == bad
    assert canonical in str(raised.value) and "duplicate" in str(raised.value)


def test_every_error_of_the_core_is_a_gin_error() -> None:
    """A library user catches GinError (or ValueError) for every error the engine raises on purpose."""
    errors = {value for module in (importlib.import_module(f"service.core.{info.name}")
                                   for info in pkgutil.iter_modules(service.core.__path__))
              for value in vars(module).values()
              if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == module.__name__}
    assert {error.__name__ for error in errors} >= {"CardError", "FieldError", "GameError", "HintStateError",
                                                    "IllegalKnockError", "IllegalMoveError", "RulesError"}
    assert all(issubclass(error, GinError) and issubclass(error, ValueError) for error in errors)


@pytest.mark.parametrize("count", [0, 1, 9, 12])
def test_wrong_size_is_rejected_with_both_counts(count: int) -> None:
    text = " ".join(format_card(c) for c in ALL_CARDS[:count])
    with pytest.raises(CardError) as raised:
        parse_hand(text, sizes=(10, 11))
    message = str(raised.value)
    assert "10 or 11" in message and f"got {count}" in message


@pytest.mark.parametrize(
    ("sizes", "wanted"), [(range(3, 12), "3 to 11"), ((3, 4, 5), "3 to 5"), ((3, 5, 7), "3 or 5 or 7"), ((10,), "10")]
)
def test_wrong_size_names_the_allowed_sizes_as_a_range_when_they_run_on(sizes: Sequence[int], wanted: str) -> None:
    with pytest.raises(CardError, match=f"a hand here has {wanted} cards, got 2"):
        parse_hand("As 2s", sizes=sizes)


@pytest.mark.parametrize("count", [10, 11])
def test_allowed_sizes_pass(count: int) -> None:
    assert parse_hand([format_card(c) for c in ALL_CARDS[:count]], sizes=[10, 11]).bit_count() == count


def test_iteration_orders() -> None:
    hand = parse_hand("Kc 2d As 2s")
    assert hand_cards(hand) == sorted(hand_cards(hand))  # bit order: suit lane, then rank
    assert format_hand(hand) == ["As", "2s", "2d", "Kc"]


@PROPERTY
@given(hands(max_size=52), st.randoms(use_true_random=False), st.sampled_from([" ", ",", ", ", "\n"]))
def test_parse_is_order_and_separator_invariant(hand: int, rng: random.Random, separator: str) -> None:
    tokens = format_hand(hand)
    rng.shuffle(tokens)
    assert parse_hand(separator.join(tokens)) == hand == parse_hand(tokens)


@PROPERTY
@given(hands(max_size=52), st.randoms(use_true_random=False))
def test_any_spelling_round_trips_to_the_canonical_form(hand: int, rng: random.Random) -> None:
    spelled = [
        rng.choice(rank_spellings(card_rank(c))) + rng.choice(SUIT_SPELLINGS[card_suit(c)]) for c in hand_cards(hand)
    ]
    assert parse_hand(spelled) == hand
    assert parse_hand(format_hand(parse_hand(spelled))) == hand


@PROPERTY
@given(hands(max_size=52))
def test_format_hand_sorts_by_rank_then_suit(hand: int) -> None:
    by_rank_then_suit = sorted(hand_cards(hand), key=lambda card: (card_rank(card), card_suit(card)))
    assert format_hand(hand) == [RANK_CHARS[card_rank(c)] + SUIT_CHARS[card_suit(c)] for c in by_rank_then_suit]
