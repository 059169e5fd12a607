"""Hands for the core tests: seeded random families and hypothesis strategies, and the reference's reading of
engine values."""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import strategies as st

from service.core.cards import ALL_CARDS, Card, Hand, card_rank, card_suit, hand_from_cards
from service.core.melds import Arrangement
from service.core.rules import Rules

from . import reference as ref

LOW_CARDS: tuple[Card, ...] = tuple(c for c in ALL_CARDS if card_rank(c) <= 4)  # the twenty A-5
HIGH_CARDS: tuple[Card, ...] = tuple(c for c in ALL_CARDS if card_rank(c) >= 7)  # 8 to K, ties of 10s
# every spade, the 5-9 of hearts and the 6-8 of diamonds: long runs that split or join, sets across them
RUNS_CARDS: tuple[Card, ...] = tuple(
    c
    for c in ALL_CARDS
    if card_suit(c) == 0
    or (card_suit(c) == 1 and 4 <= card_rank(c) <= 8)
    or (card_suit(c) == 2 and 5 <= card_rank(c) <= 7)
)
POOLS = {"deck": ALL_CARDS, "dense": LOW_CARDS, "high": HIGH_CARDS, "suited": RUNS_CARDS}


def hand_sizes(pool: str) -> range:
    """Sizes to deal from a pool: 0-11 cards, but 7-11 from the runs pool (long runs need many cards)."""
    return range(7, 12) if pool == "suited" else range(0, 12)


def random_hands(pool: str, count: int, sizes: range, seed: int) -> Iterator[Hand]:
    """``count`` hands of a size drawn from ``sizes``, cards from the named pool (seeded)."""
    rng = random.Random(f"{pool}-{seed}")
    cards = POOLS[pool]
    for _ in range(count):
        yield hand_from_cards(rng.sample(cards, rng.choice(sizes)))


def hands(pool: str = "deck", min_size: int = 0, max_size: int = 11) -> st.SearchStrategy[Hand]:
    """Hypothesis hands (bitmasks) of ``min_size``..``max_size`` cards from the named pool."""
    return st.sets(st.sampled_from(POOLS[pool]), min_size=min_size, max_size=max_size).map(hand_from_cards)


def as_reference(arrangement: Arrangement) -> ref.RefArrangement:
    """An engine arrangement as the reference sees it: a set of melds of (rank, suit) cards."""
    return frozenset(ref.from_bits(meld) for meld in arrangement.melds)


def reference_limit(rules: Rules, upcard: Card | None) -> int:
    """The knock limit by the reference: Oklahoma's from the upcard, else the rules' own."""
    if not rules.oklahoma:
        return rules.knock_limit
    assert upcard is not None
    return ref.oklahoma_limit(ref.from_card(upcard), rules.oklahoma_ace == "gin_only")
