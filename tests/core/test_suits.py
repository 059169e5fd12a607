"""Suit frames: renaming the suits, and the frame that names them by the roles of their cards."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.core.cards import ALL_CARDS, FULL_DECK, Card, format_card, make_card
from service.core.suits import IDENTITY, SuitFrame, canonical_frame

PERMUTATIONS = list(itertools.permutations(range(4)))
hands = st.integers(0, FULL_DECK).map(lambda bits: bits & FULL_DECK)
roles = st.dictionaries(st.sampled_from(ALL_CARDS), st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)),
                                                             min_size=1, max_size=2).map(tuple), max_size=30)


def renamed(card: Card, into: tuple[int, ...]) -> Card:
    """Reference: the card of the same rank in suit ``into[suit]``."""
    return make_card(card & 15, into[card >> 4])


@given(st.sampled_from(PERMUTATIONS), hands)
def test_a_frame_renames_cards_and_hands_and_back(into: tuple[int, ...], hand: int) -> None:
    frame = SuitFrame.of(into)
    for card in ALL_CARDS:
        assert frame.card(card) == renamed(card, into) and frame.card_back(frame.card(card)) == card
        assert frame.name(frame.card(card)) == format_card(card)
    assert frame.hand(hand) == sum(1 << renamed(card, into) for card in ALL_CARDS if hand >> card & 1)
    assert frame.hand_back(frame.hand(hand)) == hand


@pytest.mark.parametrize("into", [(0, 1, 2), (0, 1, 2, 2), (1, 2, 3, 4), (0, 1, 2, 3, 0)])
def test_a_frame_is_a_permutation_of_the_four_suits(into: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="expected a permutation of the suits 0-3"):
        SuitFrame.of(into)


@given(roles, st.sampled_from(PERMUTATIONS))
def test_every_renaming_of_the_roles_looks_the_same_in_its_frame(given_roles: dict[Card, tuple[tuple[int, ...], ...]],
                                                                 into: tuple[int, ...]) -> None:
    moved = {renamed(card, into): role for card, role in given_roles.items()}
    frame, moved_frame = canonical_frame(given_roles), canonical_frame(moved)
    assert ({frame.card(card): role for card, role in given_roles.items()}
            == {moved_frame.card(card): role for card, role in moved.items()})


def test_the_frame_orders_the_suits_by_their_cards_roles_and_keeps_alike_ones_in_order() -> None:
    spade, heart, diamond, club = (make_card(0, suit) for suit in range(4))  # the four Aces
    assert canonical_frame({}) == IDENTITY
    by_role = canonical_frame({spade: ((2, 0),), heart: ((1, 0),), diamond: ((0, 0),)})
    assert by_role.into == (3, 2, 1, 0)  # clubs (no role) first, then by the role of the Ace
    assert canonical_frame({heart: ((0, 0),), club: ((0, 0),)}).into == (0, 2, 1, 3)  # alike: in their order
