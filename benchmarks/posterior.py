"""How well the opponent's hand can be read at best: the full-history posterior (a benchmark).

    python benchmarks/posterior.py --deals 40 --seed 99 --steps 30000

``opponent_model.py`` scores the engine's beliefs against the hands really held. This benchmark
scores, on the same states, the best beliefs that what a player sees can support against the
simple baseline: the posterior over the opponent's hand given everything it did in public, in
order (each upcard it took or let pass, each stock draw, each discard, each turn it did not knock),
with the baseline's own rules as the likelihood (``selfplay.baseline_player``, which plays the
opponent, so the model of the opponent is exact) and a small chance ``--slip`` of any other move.

The posterior is sampled by Metropolis moves over the hidden part of the opponent's game: the ten
cards it was dealt and the card of each of its stock draws, all from the cards the player has not
seen and the opponent's own discards. A move swaps two of these or puts an unused card in one;
each candidate is replayed through the recorded turns (a discard it could not have made rules it
out). From ``--burn`` steps on, every ``--thin``-th state is kept. ``--start truth`` starts each
chain at the cards the opponent really had instead: a chain that has not mixed stays near its
start, so that run's scores flatter the posterior, and the default start's do not; the posterior's
own scores lie between the two when the chains are long enough for each to move away from its start.

A forecast that knows the truth's distribution cannot be beaten on average, so its scores are
(up to the sampling error) the floor for any opponent model against this opponent; the
meld-chance Brier score is the one ``oracle_parts.py --truth-share`` relates to play.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import pairwise
from multiprocessing import Pool

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from benchmarks.opponent_model import Forecast, forecasts, report
from benchmarks.selfplay import Player, baseline_player, engine_player, moves_seed, play_deal, shuffled_deck
from service.core.cards import FULL_DECK, Card, Hand, card_bit, hand_cards, hand_from_cards, iter_cards
from service.core.hints import DEFAULT_CONFIG, Action, GameState, meld_partners
from service.core.knocks import knock_limit
from service.core.melds import min_deadwood
from service.core.rules import Rules, resolve_rules


@dataclass(frozen=True)
class Turn:
    """One move of the opponent as the other player saw it (the state with its hand left out, and
    the move), and the hand it held (read only to start a chain at the truth)."""

    state: GameState
    action: Action
    held: Hand


def recording(player: Player, turns: list[Turn]) -> Player:
    """``player``, with each of its moves appended to ``turns``."""

    def play(state: GameState, rules: Rules, seed: int) -> Action:
        action = player(state, rules, seed)
        turns.append(Turn(replace(state, hand=()), action, hand_from_cards(state.hand)))
        return action

    return play


def true_cards(turns: list[Turn]) -> list[Card]:
    """The cards the opponent was really dealt, then those it drew from the stock in order."""
    cards = list(iter_cards(turns[0].held))
    for turn, after in pairwise(turns):
        if turn.action.type == "draw_stock":
            cards += iter_cards(after.held & ~turn.held)
    return cards


def own_discards(turns: list[Turn]) -> list[Card]:
    """The opponent's discards of cards it did not take from the pile (so dealt or drawn), in order."""
    taken: set[Card] = set()
    own = []
    for turn in turns:
        if turn.action.type == "take_upcard":
            taken.add(turn.state.discard_pile[-1])
        elif turn.action.type == "discard" and turn.action.card not in taken:
            assert turn.action.card is not None
            own.append(turn.action.card)
    return own


class History:
    """The opponent's recorded turns, scored for any dealt hand and stock draws (cached by turn and hand)."""

    def __init__(self, turns: list[Turn], rules: Rules, slip: float) -> None:
        self.turns, self.rules, self.slip = turns, rules, math.log(slip)
        self.draws = sum(turn.action.type == "draw_stock" for turn in turns)
        self._scores: dict[tuple[int, Hand], float] = {}
        self._deadwood: dict[Hand, int] = {}

    def replay(self, cards: list[Card], floor: float = -math.inf) -> tuple[float, Hand]:
        """The log-likelihood of the turns when dealt ``cards[:10]`` and drawing ``cards[10:]``
        (-inf if a discard was not in the hand, or once it falls below ``floor``: no turn raises
        it), and the hand held after them."""
        hand = hand_from_cards(cards[:10])
        drawn = iter(cards[10:])
        total = 0.0
        for index, turn in enumerate(self.turns):
            total += self._score(index, hand)
            if total < floor:
                return -math.inf, hand
            action = turn.action
            if action.type == "take_upcard":
                hand |= card_bit(turn.state.discard_pile[-1])
            elif action.type == "draw_stock":
                hand |= card_bit(next(drawn))
            elif action.type == "discard":
                assert action.card is not None
                if not hand >> action.card & 1:
                    return -math.inf, hand
                hand &= ~card_bit(action.card)
        return total, hand

    def _score(self, index: int, hand: Hand) -> float:
        key = (index, hand)
        score = self._scores.get(key)
        if score is None:
            turn = self.turns[index]
            seen = turn.state  # the same state with the hand filled in (faster than dataclasses.replace)
            state = GameState(tuple(hand_cards(hand)), seen.phase, seen.upcard, seen.discard_pile, seen.stock_count,
                              seen.opponent_hand_known, seen.opponent_discards, seen.drawn_from_discard)
            move = baseline_player(state, self.rules, 0, self.deadwood)
            score = self._scores[key] = 0.0 if move == turn.action else self.slip
        return score

    def deadwood(self, hand: Hand) -> int:
        """``min_deadwood``, cached."""
        value = self._deadwood.get(hand)
        if value is None:
            value = self._deadwood[hand] = min_deadwood(hand)
        return value


def first_cards(history: History, pool: list[Card], rng: random.Random) -> list[Card]:
    """A dealt hand and stock draws under which every recorded discard was in the hand: each own
    discard is the card of the stock draw just before it when there is one, else dealt."""
    cards: list[Card | None] = [None] * (10 + history.draws)
    dealt, draw, own = 0, 10, set(own_discards(history.turns))
    for turn in history.turns:
        card = turn.action.card
        if turn.action.type == "draw_stock":
            draw += 1
        elif turn.action.type == "discard" and card in own:
            own.discard(card)
            if draw > 10 and cards[draw - 1] is None:
                cards[draw - 1] = card
            else:
                cards[dealt] = card
                dealt += 1
    free = [card for card in pool if card not in cards]
    rng.shuffle(free)
    return [card if card is not None else free.pop() for card in cards]


def sample_hands(history: History, pool: list[Card], rng: random.Random, steps: int, burn: int, thin: int,
                 start: list[Card] | None = None) -> list[Hand]:
    """Hands the opponent may hold now, drawn from the posterior by ``steps`` Metropolis moves from
    ``start`` (by default ``first_cards``)."""
    cards = first_cards(history, pool, rng) if start is None else list(start)
    free = [card for card in pool if card not in cards]
    score, hand = history.replay(cards)
    assert score > -math.inf, "the first cards explain every discard"
    kept = []
    for step in range(steps):
        proposal = list(cards)
        slot = rng.randrange(len(proposal))
        spare = None
        if history.draws == 0 or rng.random() < 0.5:
            spare = rng.randrange(len(free))
            proposal[slot], unused = free[spare], proposal[slot]
        else:  # swapping two dealt cards would change nothing
            other = rng.randrange(10, len(proposal))
            proposal[slot], proposal[other] = proposal[other], proposal[slot]
        new_score, new_hand = history.replay(proposal, floor=score + math.log(1 - rng.random()))
        if new_score > -math.inf:  # above the floor: accepted with chance min(1, exp(new_score - score))
            if spare is not None:
                free[spare] = unused
            cards, score, hand = proposal, new_score, new_hand
        if step >= burn and (step - burn) % thin == 0:
            kept.append(hand)
    return kept


def posterior_forecasts(state: GameState, opponent: int, turns: list[Turn], rules: Rules, seed: int,
                        options: argparse.Namespace) -> dict[str, list[Forecast]]:
    """The posterior's forecasts in ``state`` against the opponent's true hand ``opponent``."""
    seen = hand_from_cards(state.hand + state.discard_pile + state.opponent_discards + state.opponent_hand_known)
    unseen = list(iter_cards(FULL_DECK & ~seen))
    history = History(list(turns), rules, options.slip)
    start = None
    if options.start == "truth":  # before the opponent's first move, its hand is the one it was dealt
        start = true_cards(history.turns) if history.turns else list(iter_cards(opponent))
    hands = sample_hands(history, unseen + own_discards(history.turns), random.Random(seed), options.steps,
                         options.burn, options.thin, start)
    share = 1 / len(hands)
    melds: dict[Card, float] = defaultdict(float)
    held: dict[Card, float] = defaultdict(float)
    for hand in hands:
        for card in iter_cards(meld_partners(hand)):
            melds[card] += share
        for card in iter_cards(hand):
            held[card] += share
    limit = knock_limit(rules, state.upcard)
    knocks = {hand: knock_share(hand, unseen, history.deadwood, limit) for hand in set(hands)}
    truth_melds = meld_partners(opponent)
    stock = state.stock_count
    return {
        "meld chance": [Forecast(stock, melds[card], float(truth_melds >> card & 1)) for card in state.hand],
        "held": [Forecast(stock, held[card], float(opponent >> card & 1)) for card in unseen],
        "next-turn knock": [Forecast(stock, sum(knocks[hand] for hand in hands) * share,
                                     knock_share(opponent, unseen, history.deadwood, limit))],
    }


def knock_share(hand: Hand, unseen: list[Card], deadwood: Callable[[Hand], int], limit: int) -> float:
    """The share of the unseen cards outside ``hand`` whose draw would let it knock."""
    stock = [card for card in unseen if not hand >> card & 1]
    knocks = 0
    for card in stock:
        drawn = hand | card_bit(card)
        knocks += any(deadwood(drawn & ~card_bit(c)) <= limit for c in iter_cards(drawn))
    return knocks / len(stock)


def collect(job: tuple[int, int, argparse.Namespace]) -> dict[str, list[Forecast]]:
    """The engine's and the posterior's forecasts at each of the engine's discards in deal ``index``."""
    index, seed, options = job
    found: dict[str, list[Forecast]] = defaultdict(list)
    rules, deck = resolve_rules(), shuffled_deck(seed, index)
    for seat in (0, 1):
        turns: list[Turn] = []

        def watch(state: GameState, opponent: int, move_seed: int, turns: list[Turn] = turns) -> None:
            if state.phase == "discard":
                for name, items in forecasts(state, opponent, move_seed, DEFAULT_CONFIG).items():
                    found[f"{name}, engine"] += items
                for name, items in posterior_forecasts(state, opponent, turns, rules, move_seed, options).items():
                    found[f"{name}, posterior"] += items

        baseline = recording(baseline_player, turns)
        players: tuple[Player, Player] = ((engine_player(DEFAULT_CONFIG), baseline) if seat == 0
                                          else (baseline, engine_player(DEFAULT_CONFIG)))
        play_deal(deck, rules, players, seat, moves_seed(seed, index), watch=watch)
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=40, help="duplicate deals (each played from both seats)")
    parser.add_argument("--seed", type=int, default=99)
    parser.add_argument("--workers", type=int, default=2, help="processes")
    parser.add_argument("--steps", type=int, default=30_000, help="Metropolis moves per state")
    parser.add_argument("--burn", type=int, default=None, help="moves before any is kept (default: a fifth)")
    parser.add_argument("--thin", type=int, default=None, help="keep every THIN-th state (default: 500 kept)")
    parser.add_argument("--slip", type=float, default=0.01, help="chance of a move the baseline would not make")
    parser.add_argument("--start", choices=("history", "truth"), default="history",
                        help="start each chain from cards that explain the discards, or at the truth (a check)")
    options = parser.parse_args(argv)
    options.burn = options.steps // 5 if options.burn is None else options.burn
    options.thin = max(1, (options.steps - options.burn) // 500) if options.thin is None else options.thin
    started = time.perf_counter()
    found: dict[str, list[Forecast]] = defaultdict(list)
    with Pool(options.workers) as pool:
        for result in pool.imap_unordered(collect, [(i, options.seed, options) for i in range(options.deals)]):
            for name, items in result.items():
                found[name] += items
    names = ("meld chance", "held", "next-turn knock")
    print(report(found, [f"{name}, {who}" for name in names for who in ("engine", "posterior")]))
    print(f"seed {options.seed}; {options.deals} duplicate deals; {options.steps} moves per state (burn "
          f"{options.burn}, thin {options.thin}), slip {options.slip}, start: {options.start}; "
          f"{time.perf_counter() - started:.0f} s")

if __name__ == "__main__":
    main()
