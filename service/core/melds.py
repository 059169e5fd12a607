"""Melds, least deadwood and every optimal arrangement of a hand.

A meld is a hand (bitmask) of 3+ cards: a set (3 or 4 of a rank) or a run (3+ consecutive
cards of a suit, Ace low). Arranging a hand is choosing disjoint melds so that the melded
value is largest; deadwood is the value of what is left.

Least deadwood is found by choosing the sets first. A hand of at most 11 cards holds at most
three ranks of 3+ cards, and each such rank is either not a set, a 3-card set, or (with four
cards) the 4-card set or one of its four 3-card subsets: at most 6 x 6 x 2 = 72 choices. Once
the sets are fixed, only runs are left, and in one suit's lane alone the best is to meld every
stretch of 3+ consecutive cards: a table of the 8,192 lane patterns gives that lane's deadwood
in one lookup. Every arrangement is some choice of sets plus runs, so the minimum over the
choices is exact.

Arrangements that may leave melds unmelded (every layout within a knock limit) and the
defender's joint melds-and-layoffs use a general exact packer instead: it branches on the
lowest free card (unmelded, or in one of the groups containing it) with memoisation.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Generic, TypeVar

from .cards import (
    FULL_DECK,
    RANK_COLUMN,
    RANK_MASK,
    Card,
    Hand,
    card_rank,
    card_suit,
    card_value,
    check_hand,
    hand_repr,
    hand_value,
    iter_cards,
    lowest_card,
)

Meld = int
T = TypeVar("T")


def _lane_run_cover(lane: int) -> int:
    """Bits of a 13-bit lane that lie in a run of 3 or more."""
    starts = lane & lane >> 1 & lane >> 2
    return starts | starts << 1 | starts << 2


_LANE_VALUE = tuple(hand_value(lane) for lane in range(1 << 13))
_LANE_RUN_COVER = tuple(_lane_run_cover(lane) for lane in range(1 << 13))
_LANE_DEADWOOD = tuple(_LANE_VALUE[lane & ~_LANE_RUN_COVER[lane]] for lane in range(1 << 13))


def _lane_segments(lane: int) -> tuple[int, ...]:
    """The maximal stretches of 3+ consecutive bits of a lane."""
    cover = _LANE_RUN_COVER[lane]
    segments = []
    while cover:
        low = cover & -cover
        segment = low
        while cover >> segment.bit_length() & 1:
            segment |= 1 << segment.bit_length()
        segments.append(segment)
        cover &= ~segment
    return tuple(segments)


_LANE_SEGMENTS = tuple(_lane_segments(lane) for lane in range(1 << 13))


def is_run(meld: Meld) -> bool:
    """True when the meld's cards share one suit (a run), False for a set."""
    return card_suit(meld.bit_length() - 1) == card_suit((meld & -meld).bit_length() - 1)


def is_valid_meld(cards: Hand) -> bool:
    """True for a set of 3-4 cards of one rank or a run of 3+ consecutive cards of one suit."""
    count = cards.bit_count()
    if count < 3 or cards & ~FULL_DECK:  # also refuses a negative int and the empty bits 13-15 of a lane
        return False
    low = (cards & -cards).bit_length() - 1
    if is_run(cards):
        return cards == ((1 << count) - 1) << low
    return count <= 4 and cards & ~(RANK_COLUMN << card_rank(low)) == 0


def _set_ranks(hand: Hand) -> int:
    """Rank bits (0-12) held in at least three suits."""
    a, b = hand & RANK_MASK, hand >> 16 & RANK_MASK
    c, d = hand >> 32 & RANK_MASK, hand >> 48 & RANK_MASK
    return (a & b & (c | d)) | (c & d & (a | b))


def find_melds(hand: Hand) -> list[Meld]:
    """Every meld inside the hand: each run and sub-run, each 3- and 4-card set."""
    melds: list[Meld] = []
    starts = hand & hand >> 1 & hand >> 2
    while starts:
        low = starts & -starts
        starts ^= low
        run = low * 7
        while run & hand == run:
            melds.append(run)
            run |= 1 << run.bit_length()
    for sets in _sets_by_rank(hand):
        melds.extend(sets)
    return melds


def _sets_by_rank(hand: Hand) -> list[list[Meld]]:
    """For each rank held three or four times, its sets: the 3 cards, or the 4 and each 3 of them."""
    found = []
    ranks = _set_ranks(hand)
    while ranks:
        low = ranks & -ranks
        ranks ^= low
        column = hand & RANK_COLUMN * low
        found.append([column, *(column ^ bit for bit in _single_bits(column))] if column.bit_count() == 4 else [column])
    return found


def _single_bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


def min_deadwood(hand: Hand) -> int:
    """The least deadwood of a hand (exact; made for hands of up to 11 or 12 cards)."""
    lanes = (hand & RANK_MASK, hand >> 16 & RANK_MASK, hand >> 32 & RANK_MASK, hand >> 48 & RANK_MASK)
    a, b, c, d = lanes
    set_ranks = (a & b & (c | d)) | (c & d & (a | b))  # _set_ranks, inline: the hottest function of the service
    deadwood = _LANE_DEADWOOD[a] + _LANE_DEADWOOD[b] + _LANE_DEADWOOD[c] + _LANE_DEADWOOD[d]
    if not set_ranks:
        return deadwood
    covers = _LANE_RUN_COVER
    if not set_ranks & (covers[a] | covers[b] | covers[c] | covers[d]):
        values = _LANE_VALUE
        return deadwood - (
            values[a & set_ranks] + values[b & set_ranks] + values[c & set_ranks] + values[d & set_ranks]
        )
    return min(_runs_deadwood(hand & ~chosen) for chosen in _set_masks(hand))


def _runs_deadwood(hand: Hand) -> int:
    """Least deadwood of a hand melded with runs only."""
    table = _LANE_DEADWOOD
    return (
        table[hand & RANK_MASK]
        + table[hand >> 16 & RANK_MASK]
        + table[hand >> 32 & RANK_MASK]
        + table[hand >> 48 & RANK_MASK]
    )


def _run_melds(hand: Hand) -> list[Meld]:
    """The maximal runs of a hand (each stretch of 3+ consecutive cards of a suit)."""
    return [segment << shift for shift in (0, 16, 32, 48) for segment in _LANE_SEGMENTS[hand >> shift & RANK_MASK]]


def _set_masks(hand: Hand) -> list[Hand]:
    """Every way to choose the hand's sets, as the cards they use; the first is 'no sets'. (``_set_choices``
    without the melds, for ``min_deadwood``, which needs only the cards.)"""
    masks = [0]
    for options in _sets_by_rank(hand):
        masks += [used | option for used in masks for option in options]
    return masks


def _set_choices(hand: Hand) -> list[tuple[Hand, tuple[Meld, ...]]]:
    """Every way to choose the hand's sets: (cards used, set melds); the first is 'no sets'."""
    choices: list[tuple[Hand, tuple[Meld, ...]]] = [(0, ())]
    for options in _sets_by_rank(hand):
        choices += [(used | option, (*melds, option)) for used, melds in choices for option in options]
    return choices


@dataclass(frozen=True)
class Candidate(Generic[T]):
    """A group of cards that may be taken together (a meld or a layoff), with a tag."""

    cards: Hand
    value: int
    tag: T


class _Packer(Generic[T]):
    """Exact packing of disjoint candidates, maximising the covered value."""

    def __init__(self, candidates: Iterable[Candidate[T]]) -> None:
        self.by_card: dict[Card, list[Candidate[T]]] = {}
        self.coverable = 0
        for candidate in candidates:
            self.coverable |= candidate.cards
            for card in iter_cards(candidate.cards):
                self.by_card.setdefault(card, []).append(candidate)
        self.memo: dict[Hand, int] = {0: 0}

    @classmethod
    def of_melds(cls, hand: Hand) -> _Packer[None]:
        """A packer over every meld of ``hand``."""
        return _Packer(Candidate(m, hand_value(m), None) for m in find_melds(hand))

    def best(self, free: Hand) -> int:
        """The largest value coverable inside ``free``."""
        free &= self.coverable
        memo = self.memo
        found = memo.get(free)
        if found is not None:
            return found
        low = free & -free
        best = self.best(free ^ low)
        for candidate in self.by_card[low.bit_length() - 1]:
            cards = candidate.cards
            if cards & free == cards:
                value = candidate.value + self.best(free ^ cards)
                if value > best:
                    best = value
        memo[free] = best
        return best

    def optimal(self, free: Hand) -> Iterator[tuple[Candidate[T], ...]]:
        """Every packing inside ``free`` that covers the largest value."""
        free &= self.coverable
        if not free:
            yield ()
            return
        target = self.best(free)
        low = free & -free
        if self.best(free ^ low) == target:
            yield from self.optimal(free ^ low)
        for candidate in self.by_card[low.bit_length() - 1]:
            cards = candidate.cards
            if cards & free == cards and candidate.value + self.best(free ^ cards) == target:
                for rest in self.optimal(free ^ cards):
                    yield (candidate, *rest)

    def within(self, free: Hand, budget: int) -> Iterator[tuple[Candidate[T], ...]]:
        """Every packing inside ``free`` leaving at most ``budget`` value uncovered."""
        if hand_value(free) - self.best(free) > budget:
            return
        free_coverable = free & self.coverable
        if not free_coverable:
            yield ()
            return
        low = free_coverable & -free_coverable
        card = low.bit_length() - 1
        yield from self.within(free ^ low, budget - card_value(card))
        for candidate in self.by_card[card]:
            cards = candidate.cards
            if cards & free == cards:
                for rest in self.within(free ^ cards, budget):
                    yield (candidate, *rest)


def merge_runs(melds: Iterable[Meld]) -> tuple[Meld, ...]:
    """Join runs of one suit that touch end to end, and sort the melds for display."""
    melds = tuple(melds)
    runs = sorted(m for m in melds if is_run(m))
    sets = [m for m in melds if not is_run(m)]
    merged: list[Meld] = []
    for run in runs:
        if merged and run & -run == 1 << merged[-1].bit_length():
            merged[-1] |= run
        else:
            merged.append(run)
    return tuple(sorted(merged + sets, key=meld_sort_key))


def meld_sort_key(meld: Meld) -> tuple[int, int]:
    """Melds ordered by their lowest card's rank, then suit."""
    low = lowest_card(meld)
    return card_rank(low), card_suit(low)


_MELD_ORDER = {meld: meld_sort_key(meld) for meld in find_melds(FULL_DECK)}
"""Every meld there is (329), with its ``meld_sort_key``."""


@dataclass(frozen=True)
class Arrangement:
    """A hand laid out: disjoint melds and the unmelded rest."""

    melds: tuple[Meld, ...]
    deadwood_cards: Hand

    @property
    def deadwood(self) -> int:
        """Value of the unmelded cards."""
        return hand_value(self.deadwood_cards)

    @property
    def hand(self) -> Hand:
        """Every card of the arrangement."""
        total = self.deadwood_cards
        for meld in self.melds:
            total |= meld
        return total

    @classmethod
    def of(cls, hand: Hand, melds: Iterable[Meld], *, join_runs: bool = True) -> Arrangement:
        """The arrangement of ``hand`` that lays out ``melds``, runs that touch joined unless ``join_runs`` is
        false (melds a player laid out, kept as laid)."""
        melds = tuple(melds)
        melded = 0
        for meld in melds:
            melded |= meld
        return cls(merge_runs(melds) if join_runs else melds, hand & ~melded)

    def __repr__(self) -> str:
        return f"Arrangement(melds={melds_repr(self.melds)}, deadwood_cards={hand_repr(self.deadwood_cards)})"


def melds_repr(melds: tuple[Meld, ...]) -> str:
    """Code that makes a tuple of melds, each by ``hand_repr``."""
    return "(" + ", ".join(map(hand_repr, melds)) + ("," if len(melds) == 1 else "") + ")"


def _unique(arrangements: Iterable[Arrangement]) -> list[Arrangement]:
    return list(dict.fromkeys(arrangements))


def optimal_arrangements(hand: Hand) -> list[Arrangement]:
    """Every distinct arrangement with the least deadwood (touching runs joined)."""
    scored = [(_runs_deadwood(hand & ~used), used, melds) for used, melds in _set_choices(hand)]
    least = min(deadwood for deadwood, _, _ in scored)
    return _sorted_arrangements(
        [_arrangement(hand, used, melds) for deadwood, used, melds in scored if deadwood == least]
    )


def _arrangement(hand: Hand, used: Hand, sets: tuple[Meld, ...]) -> Arrangement:
    """The arrangement made of the chosen ``sets`` and every maximal run of the rest."""
    runs = _run_melds(hand & ~used)
    melded = used
    for run in runs:
        melded |= run
    return Arrangement(tuple(sorted((*sets, *runs), key=_MELD_ORDER.__getitem__)), hand & ~melded)


def _sorted_arrangements(arrangements: list[Arrangement]) -> list[Arrangement]:
    return sorted(arrangements, key=_arrangement_sort_key) if len(arrangements) > 1 else arrangements


def best_arrangement(hand: Hand) -> Arrangement:
    """One arrangement with the least deadwood."""
    return optimal_arrangements(hand)[0]


def arrangements_within(hand: Hand, max_deadwood: int) -> list[Arrangement]:
    """Every distinct arrangement whose deadwood is at most ``max_deadwood``, least first."""
    packer = _Packer.of_melds(hand)
    found = _unique(Arrangement.of(hand, (c.cards for c in p)) for p in packer.within(hand, max_deadwood))
    return sorted(found, key=_arrangement_sort_key)


def _arrangement_sort_key(arrangement: Arrangement) -> tuple[int, int, tuple[tuple[int, int], ...]]:
    return arrangement.deadwood, len(arrangement.melds), tuple(meld_sort_key(m) for m in arrangement.melds)


@dataclass(frozen=True)
class DiscardOption:
    """An 11-card hand after discarding ``card``: the least deadwood and its arrangements."""

    card: Card
    deadwood: int
    arrangements: tuple[Arrangement, ...]


@dataclass(frozen=True)
class DrawnHandAnalysis:
    """An 11-card hand: every discard (best first) and big gin if all 11 cards meld (the first such layout in
    ``optimal_arrangements``' order, as ``best_arrangement`` lays it out)."""

    hand: Hand
    options: tuple[DiscardOption, ...]
    big_gin: Arrangement | None

    @property
    def deadwood(self) -> int:
        """The least deadwood after the best discard."""
        return self.options[0].deadwood

    @property
    def best_discards(self) -> list[Card]:
        """Every discard that reaches the least deadwood."""
        return [o.card for o in self.options if o.deadwood == self.deadwood]


def analyze_drawn_hand(hand: Hand) -> DrawnHandAnalysis:
    """Exact analysis of a hand just after a draw: the least deadwood over every discard, the options by
    deadwood, ties by the card's value, highest first, then by suit (s h d c) and rank; a CardError unless 11
    cards.

    For each choice of sets, discarding a card changes only its own lane's runs, so one table
    lookup gives the deadwood after each discard. A card left unmelded by a choice's arrangement of
    all eleven is discarded without touching that arrangement's melds.
    """
    check_hand(hand, (11,))
    table = _LANE_DEADWOOD
    # Highest value first, then by suit: a stable sort by deadwood then gives the documented order.
    cards = sorted(iter_cards(hand), key=_DISCARD_ORDER.__getitem__)
    least = dict.fromkeys(cards, 1 << 30)
    best_choices: dict[Card, list[int]] = {}
    choices = _set_choices(hand)
    slots = [(card, 1 << card, card >> 4, card & ~15) for card in cards]
    for index, (used, _) in enumerate(choices):
        rest = hand & ~used
        lanes = (table[rest & RANK_MASK], table[rest >> 16 & RANK_MASK], table[rest >> 32 & RANK_MASK],
                 table[rest >> 48 & RANK_MASK])
        total = lanes[0] + lanes[1] + lanes[2] + lanes[3]
        for card, bit, suit, shift in slots:
            if used & bit:
                continue
            deadwood = total - lanes[suit] + table[(rest ^ bit) >> shift & RANK_MASK]
            if deadwood < least[card]:
                least[card] = deadwood
                best_choices[card] = [index]
            elif deadwood == least[card]:
                best_choices[card].append(index)
    whole: dict[int, Arrangement] = {}  # the arrangement of all eleven cards under a choice

    def discard(card: Card, index: int) -> Arrangement:
        laid = whole.get(index)
        if laid is None:
            laid = whole[index] = _arrangement(hand, *choices[index])
        if laid.deadwood_cards >> card & 1:
            return Arrangement(laid.melds, laid.deadwood_cards & ~(1 << card))
        return _arrangement(hand & ~(1 << card), *choices[index])

    options = []
    for card in cards:
        indices = best_choices[card]
        if len(indices) == 1:
            arrangements: tuple[Arrangement, ...] = (discard(card, indices[0]),)
        else:
            arrangements = tuple(_sorted_arrangements([discard(card, index) for index in indices]))
        options.append(DiscardOption(card, least[card], arrangements))
    options.sort(key=_deadwood_of)
    gins = [_arrangement(hand, used, sets) for used, sets in choices if _runs_deadwood(hand & ~used) == 0]
    return DrawnHandAnalysis(hand, tuple(options), _sorted_arrangements(gins)[0] if gins else None)


_DISCARD_ORDER = tuple((-card_value(card), card_suit(card)) for card in range(64))
_deadwood_of = attrgetter("deadwood")


def pack(candidates: Sequence[Candidate[T]], free: Hand) -> tuple[Candidate[T], ...]:
    """Disjoint candidates inside ``free`` that cover the largest value (one such packing)."""
    return next(_Packer(candidates).optimal(free))
