"""Brute-force gin rummy reference: slow, by definition, independent of ``service.core``.

Cards are ``(rank, suit)`` pairs, rank 1 (Ace) to 13 (King), suit 0-3 (s h d c); a hand is a
frozenset of them. Nothing here imports the engine: the only link is ``from_bits``/``to_bits``,
which read the documented bit layout (bit ``suit * 16 + rank - 1``).

Definitions used, straight from the rules:
- a meld is any 3+ cards that are all one rank, or all one suit with consecutive ranks (Ace low);
- an arrangement is any collection of pairwise disjoint melds; its deadwood is the value of the
  cards in no meld; touching runs of one suit are joined (3-5s + 6-8s is the run 3-8s), so two
  collections that lay out the same runs count once;
- a layoff puts a defender card on a knocker meld: the 4th card of a 3-card set, or the card
  just below or above a run; laid-off cards extend the meld for the next layoff.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import NamedTuple

RefCard = tuple[int, int]
RefHand = frozenset[RefCard]
RefMeld = frozenset[RefCard]
RefArrangement = frozenset[RefMeld]

RANKS = "A23456789TJQK"
SUITS = "shdc"
DECK: RefHand = frozenset((rank, suit) for rank in range(1, 14) for suit in range(4))


def from_bits(hand: int) -> RefHand:
    """The reference hand of an engine bitmask (bit ``suit * 16 + rank - 1``)."""
    cards = set()
    for bit in range(64):
        if hand >> bit & 1:
            rank, suit = bit % 16 + 1, bit // 16
            assert rank <= 13, f"bit {bit} is not a card"
            cards.add((rank, suit))
    return frozenset(cards)


def from_card(card: int) -> RefCard:
    """The reference card of an engine card (bit ``suit * 16 + rank - 1``)."""
    (only,) = from_bits(1 << card)
    return only


def to_bits(cards: Iterable[RefCard]) -> int:
    """The engine bitmask of reference cards."""
    return sum(1 << (suit * 16 + rank - 1) for rank, suit in set(cards))


def cards(text: str) -> RefHand:
    """``"As Th 10d"`` as reference cards (a tiny parser, for hand-written examples)."""
    found = set()
    for token in text.replace(",", " ").split():
        rank_text, suit_text = token[:-1].upper(), token[-1].lower()
        rank = 10 if rank_text == "10" else RANKS.index(rank_text) + 1
        found.add((rank, SUITS.index(suit_text)))
    return frozenset(found)


def value(card: RefCard) -> int:
    """Ace 1, two to ten face value, J Q K 10."""
    return min(card[0], 10)


def total(hand: Iterable[RefCard]) -> int:
    return sum(value(card) for card in hand)


def is_set(meld: Iterable[RefCard]) -> bool:
    meld = list(meld)
    return len(meld) >= 3 and len({rank for rank, _ in meld}) == 1


def is_run(meld: Iterable[RefCard]) -> bool:
    meld = list(meld)
    ranks = sorted(rank for rank, _ in meld)
    return (
        len(meld) >= 3
        and len({suit for _, suit in meld}) == 1
        and ranks == list(range(ranks[0], ranks[0] + len(ranks)))
    )


def is_meld(meld: Iterable[RefCard]) -> bool:
    meld = list(meld)
    return is_set(meld) or is_run(meld)


def melds(hand: RefHand) -> list[RefMeld]:
    """Every subset of 3+ cards of the hand that is a meld.

    A meld is all one rank or all one suit, so only subsets of those groups are tried (the
    same answer as trying every subset of the hand, a hundred times sooner).
    """
    groups = [[c for c in hand if c[0] == rank] for rank in range(1, 14)]
    groups += [[c for c in hand if c[1] == suit] for suit in range(4)]
    found = {
        frozenset(subset)
        for group in groups
        for size in range(3, len(group) + 1)
        for subset in combinations(sorted(group), size)
        if is_meld(subset)
    }
    return sorted(found, key=sorted)


def packings(hand: RefHand) -> list[tuple[RefMeld, ...]]:
    """Every collection of pairwise disjoint melds of the hand (the empty one included)."""
    candidates = melds(hand)
    found: list[tuple[RefMeld, ...]] = []

    def extend(start: int, used: frozenset[RefCard], chosen: tuple[RefMeld, ...]) -> None:
        found.append(chosen)
        for index in range(start, len(candidates)):
            meld = candidates[index]
            if not meld & used:
                extend(index + 1, used | meld, (*chosen, meld))

    extend(0, frozenset(), ())
    return found


def deadwood(hand: RefHand, packing: Iterable[RefMeld]) -> int:
    melded: set[RefCard] = set()
    for meld in packing:
        melded |= meld
    return total(hand - melded)


def join_runs(packing: Iterable[RefMeld]) -> RefArrangement:
    """The arrangement of a packing, with runs of one suit that touch joined into one."""
    groups = [set(meld) for meld in packing]
    joined = True
    while joined:
        joined = False
        for a, b in combinations(range(len(groups)), 2):
            union = groups[a] | groups[b]
            if is_run(groups[a]) and is_run(groups[b]) and is_run(union):
                groups[a] = union
                del groups[b]
                joined = True
                break
    return frozenset(frozenset(group) for group in groups)


def least_deadwood(hand: RefHand) -> int:
    return min(deadwood(hand, packing) for packing in packings(hand))


def optimal_arrangements(hand: RefHand) -> set[RefArrangement]:
    """Every arrangement (runs joined) reaching the least deadwood."""
    return arrangements_within(hand, least_deadwood(hand))


def arrangements_within(hand: RefHand, limit: int) -> set[RefArrangement]:
    """Every arrangement (runs joined) whose deadwood is at most ``limit``."""
    return {join_runs(p) for p in packings(hand) if deadwood(hand, p) <= limit}


def drawn_hand(hand: RefHand) -> dict[RefCard, tuple[int, set[RefArrangement]]]:
    """For each discard from an 11-card hand: the least deadwood and its optimal arrangements.

    The packings of ``hand - {card}`` are the packings of ``hand`` that avoid ``card``.
    """
    every = packings(hand)
    result = {}
    for card in hand:
        rest = hand - {card}
        scored = [(deadwood(rest, p), p) for p in every if not any(card in meld for meld in p)]
        least = min(score for score, _ in scored)
        result[card] = (least, {join_runs(p) for score, p in scored if score == least})
    return result


def is_big_gin(hand: RefHand) -> bool:
    """True when every card of the hand can be melded at once."""
    return least_deadwood(hand) == 0


def layoff_targets(card: RefCard, knocker_melds: Iterable[RefMeld]) -> list[int]:
    """Indexes of the knocker melds that ``card`` may be laid off on, as they stand now."""
    targets = []
    for index, meld in enumerate(knocker_melds):
        if card not in meld and is_meld(meld | {card}):
            targets.append(index)
    return targets


def layoff_search(knocker_melds: Iterable[RefMeld], defender: RefHand) -> tuple[set[RefHand], set[tuple[RefCard, int]]]:
    """Every sequence of single layoffs, each onto a knocker meld as extended so far.

    Returns every set of cards that can be laid off together, and every (card, meld index)
    layoff that occurs in some legal sequence. Against gin (10 or more cards melded) there is none.
    """
    start = (tuple(knocker_melds), defender)
    if sum(len(meld) for meld in start[0]) >= 10:
        return {frozenset()}, set()
    seen = {start}
    stack = [start]
    laid_off_sets: set[RefHand] = set()
    moves: set[tuple[RefCard, int]] = set()
    while stack:
        table, kept = stack.pop()
        laid_off_sets.add(defender - kept)
        for card in kept:
            for index in layoff_targets(card, table):
                moves.add((card, index))
                extended = (*table[:index], table[index] | {card}, *table[index + 1 :])
                state = (extended, kept - {card})
                if state not in seen:
                    seen.add(state)
                    stack.append(state)
    return laid_off_sets, moves


def defender_deadwood(knocker_melds: Iterable[RefMeld], defender: RefHand) -> int:
    """The defender's least deadwood, choosing own melds and layoffs together.

    Every set of cards it can lay off is tried, and its own melds are packed among the rest.
    """
    laid_off_sets, _ = layoff_search(knocker_melds, defender)
    return min(least_deadwood(defender - laid_off) for laid_off in laid_off_sets)


def knock_result(
    knocker_deadwood: int,
    defender_deadwood: int,
    defender_plain: int,
    gin_bonus: int,
    undercut_bonus: int,
    undercut_on_tie: bool,
) -> tuple[str, int]:
    """How a knock ends and its points for the knocker (negative: the defender scores), straight from the rules.

    ``defender_deadwood`` is after layoffs, ``defender_plain`` without them (used against gin).
    """
    if knocker_deadwood == 0:
        return "gin", gin_bonus + defender_plain
    if knocker_deadwood < defender_deadwood:
        return "knock", defender_deadwood - knocker_deadwood
    if knocker_deadwood > defender_deadwood or undercut_on_tie:
        return "undercut", -(knocker_deadwood - defender_deadwood + undercut_bonus)
    return "tie", 0


def best_knock(
    knocker: RefHand, defender: RefHand, limit: int, gin_bonus: int, undercut_bonus: int, undercut_on_tie: bool
) -> tuple[str, int]:
    """The knocker's best knock over every layout of its 10 cards within the knock limit: how it ends and its
    net points (the outcome is the same for every layout that scores the best)."""
    plain = least_deadwood(defender)
    return max(
        (
            knock_result(
                deadwood(knocker, p), defender_deadwood(p, defender), plain, gin_bonus, undercut_bonus, undercut_on_tie
            )
            for p in packings(knocker)
            if deadwood(knocker, p) <= limit
        ),
        key=lambda result: result[1],
    )


def oklahoma_limit(upcard: RefCard, ace_allows_gin_only: bool) -> int:
    """Oklahoma's knock limit: the first upcard's value, or 0 (gin only) for an Ace where that is played."""
    return 0 if upcard[0] == 1 and ace_allows_gin_only else value(upcard)


def round_score(
    knocker: RefHand,
    defender: RefHand,
    limit: int,
    gin_bonus: int,
    big_gin_bonus: int | None,
    undercut_bonus: int,
    undercut_on_tie: bool,
    doubled: bool,
    extra_boxes: bool,
) -> tuple[str, int, int]:
    """A knock's outcome, the points its winner scores and the Oklahoma extra boxes it wins.

    ``knocker`` is the 10 cards kept, or 11 all melded (big gin: its bonus plus the defender's
    deadwood, no layoffs). ``doubled``: a spade upcard doubles the score, bonuses included, and the
    extra boxes (1 for an undercut, 2 for gin or big gin, when ``extra_boxes`` is played).
    """
    if len(knocker) == 11:
        assert big_gin_bonus is not None and least_deadwood(knocker) == 0
        outcome, net = "big_gin", big_gin_bonus + least_deadwood(defender)
    else:
        outcome, net = best_knock(knocker, defender, limit, gin_bonus, undercut_bonus, undercut_on_tie)
    factor = 2 if doubled else 1
    boxes = {"undercut": 1, "gin": 2, "big_gin": 2}.get(outcome, 0) * factor if extra_boxes else 0
    return outcome, abs(net) * factor, boxes


Record = tuple[int | None, int, int]
"""A hand of a game: the winner (0 or 1, None for a drawn hand), its points and its Oklahoma extra boxes."""


class Game(NamedTuple):
    """A game as the reference scores it."""

    played: int  # how many of the hands given it lasts
    running: list[tuple[int, int]]  # the points after each hand
    boxes: tuple[int, int]  # hands won, with their extra boxes
    final: tuple[int, int]
    winner: int | None
    shut_out: bool
    owed: int  # what the lower final score pays the higher at the end (nothing while the game goes on)


def game_score(hands: Iterable[Record], target: int, game_bonus: int, box_bonus: int, shutout: str) -> Game:
    """A game, straight from the rules.

    Hands count until a player's points reach ``target``. Each hand won is a box (with its extra boxes)
    worth ``box_bonus``; the player who reached the target gets ``game_bonus``; if the loser won no hand,
    that is a shutout, which doubles the game bonus (``double_bonus``) or the winner's whole score
    (``double_score``). A game nobody has won yet scores the points and boxes so far.
    """
    points, boxes, won, running, winner = [0, 0], [0, 0], [0, 0], [], None
    for hand_winner, hand_points, extra in hands:
        if winner is not None:
            break
        if hand_winner is not None:
            points[hand_winner] += hand_points
            won[hand_winner] += 1
            boxes[hand_winner] += 1 + extra
        running.append((points[0], points[1]))
        winner = next((player for player in (0, 1) if points[player] >= target), None)
    final = [points[player] + boxes[player] * box_bonus for player in (0, 1)]
    shut_out = winner is not None and won[1 - winner] == 0 and shutout != "none"
    if winner is not None:
        final[winner] += game_bonus * (2 if shut_out and shutout == "double_bonus" else 1)
        final[winner] *= 2 if shut_out and shutout == "double_score" else 1
    return Game(len(running), running, (boxes[0], boxes[1]), (final[0], final[1]), winner, shut_out,
                0 if winner is None else abs(final[0] - final[1]))


def partnership_deal(first: Record, second: Record) -> Record:
    """A deal's two tables as one team result: a team that won both scores the sum; with one table each, the
    team with more points scores the difference (equal: nothing, a deal won by neither team, unless only one
    team won a table, for 0 points), with the extra boxes of its own tables."""
    signed = sum(points if winner == 0 else -points for winner, points, _ in (first, second) if winner is not None)
    teams_that_won = {winner for winner, _, _ in (first, second) if winner is not None}
    if signed > 0:
        team = 0
    elif signed < 0:
        team = 1
    elif len(teams_that_won) == 1:
        team = teams_that_won.pop()
    else:
        return None, 0, 0
    return team, abs(signed), sum(extra for winner, _, extra in (first, second) if winner == team)


def deadwood_histogram(pool: Iterable[RefCard], size: int) -> dict[int, int]:
    """How many hands of ``size`` cards from ``pool`` have each least deadwood (every hand, slowly)."""
    counts: dict[int, int] = {}
    for hand in combinations(sorted(pool), size):
        least = least_deadwood(frozenset(hand))
        counts[least] = counts.get(least, 0) + 1
    return dict(sorted(counts.items()))
