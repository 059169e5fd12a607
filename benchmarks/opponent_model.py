"""How well the hint engine reads the opponent's hand, scored against the hands really held (a benchmark).

    python benchmarks/opponent_model.py --deals 150 --seed 99
    python benchmarks/opponent_model.py --deals 150 --seed 99 --set samples=96

Plays duplicate deals of the hint engine against the simple baseline (as ``selfplay.py`` does)
and, at each of the engine's discard decisions, compares what ``model_opponent`` believes with
the opponent's true hand:

* *meld chance*: Brier score of "the opponent can meld this card", over the cards of the
  engine's hand (its possible discards);
* *held*: log loss of "the opponent holds this card", over the unseen cards (chances clipped to
  1%-99%);
* *next-turn knock*: Brier score (mean squared error) of the chance that the opponent's next stock draw lets
  it knock (the truth is the share of the real stock that would).

Each score is set against a forecast that knows only how many cards are left in the stock: for
each bucket of 6 stock counts, the mean truth of the states in it (fitted on the very states it
is scored on, which flatters it a little). Lower is better; a model no better than that forecast
has learnt nothing from the opponent's pickups and discards. Beside the model's own score is the
score of its chances *rescaled*: mapped by the straight line that fits the truths best (least
squares, on the same states, clipped to 0-1), which tells a model that ranks states well but is
over- or under-confident from one that cannot tell them apart.

``selfplay.py --oracle`` measures what perfect knowledge of the opponent's hand is worth in play;
this benchmark measures how far the model is from it, and ``posterior.py`` how close any model could get.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing import Pool

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from benchmarks.selfplay import OPPONENTS, configured, engine_player, play_both_seats, shuffled_deck
from service.core.cards import hand_from_cards, iter_cards
from service.core.hints import EngineConfig, GameState, model_opponent
from service.core.rules import resolve_rules

BUCKET = 6


@dataclass(frozen=True)
class Forecast:
    """One forecast and its truth, with the stock count it was made at."""

    stock: int
    chance: float
    truth: float


def forecasts(state: GameState, opponent: int, seed: int, config: EngineConfig) -> dict[str, list[Forecast]]:
    """The model's forecasts in ``state`` against the truth of the opponent's hand ``opponent``."""
    rules = resolve_rules()
    model = model_opponent(state, rules, seed, config)
    truth = model_opponent(state, rules, seed, config, revealed=opponent)  # every sample is the real hand
    stock = state.stock_count
    hand = hand_from_cards(state.hand)
    return {
        "meld chance": [Forecast(stock, model.meld_chance.get(card, 0.0), truth.meld_chance.get(card, 0.0))
                        for card in iter_cards(hand)],
        "held": [Forecast(stock, chance, float(opponent >> card & 1)) for card, chance in model.held.items()],
        "next-turn knock": [Forecast(stock, model.knock_next, truth.knock_next)],
    }


def collect(job: tuple[int, int, EngineConfig]) -> dict[str, list[Forecast]]:
    """Every forecast of deal ``index`` of ``seed``, played from both seats."""
    index, seed, config = job
    found: dict[str, list[Forecast]] = defaultdict(list)

    def watch(state: GameState, opponent: int, move_seed: int) -> None:
        if state.phase == "discard":
            for name, items in forecasts(state, opponent, move_seed, config).items():
                found[name] += items

    deck, rules = shuffled_deck(seed, index), resolve_rules()
    engine, baseline = engine_player(config), OPPONENTS["baseline"]
    play_both_seats(deck, rules, engine, baseline, seed, index, watch)
    return found


def brier(pairs: list[tuple[float, float]]) -> float:
    """Mean squared error of (chance, truth) pairs."""
    return sum((chance - truth) ** 2 for chance, truth in pairs) / len(pairs)


def log_loss(pairs: list[tuple[float, float]]) -> float:
    """Mean negative log-likelihood of 0/1 truths."""
    total = 0.0
    for chance, truth in pairs:
        clipped = min(0.99, max(0.01, chance))
        total -= math.log(clipped if truth else 1 - clipped)
    return total / len(pairs)


def stock_only(items: list[Forecast]) -> list[tuple[float, float]]:
    """The forecast that knows only the stock count: each bucket's mean truth."""
    buckets: dict[int, list[float]] = defaultdict(list)
    for item in items:
        buckets[item.stock // BUCKET].append(item.truth)
    means = {bucket: sum(truths) / len(truths) for bucket, truths in buckets.items()}
    return [(means[item.stock // BUCKET], item.truth) for item in items]


def rescaled(items: list[Forecast]) -> list[tuple[float, float]]:
    """The chances mapped by the least-squares line from chance to truth, clipped to 0-1."""
    count = len(items)
    mean_chance = sum(i.chance for i in items) / count
    mean_truth = sum(i.truth for i in items) / count
    spread = sum((i.chance - mean_chance) ** 2 for i in items)
    slope = sum((i.chance - mean_chance) * (i.truth - mean_truth) for i in items) / spread if spread else 0.0
    return [(min(1.0, max(0.0, mean_truth + slope * (i.chance - mean_chance))), i.truth) for i in items]


def report(found: dict[str, list[Forecast]], names: Sequence[str] = ("meld chance", "held", "next-turn knock")) -> str:
    """Each score of the forecasts ``names``, rescaled, and the stock-count-only forecast's
    (held chances by log loss, the others by Brier score)."""
    lines = []
    for name in names:
        items = found[name]
        score = log_loss if name.startswith("held") else brier
        measure = "log loss" if score is log_loss else "Brier score"
        lines.append(f"{name}: {measure} {score([(i.chance, i.truth) for i in items]):.4f}, rescaled "
                     f"{score(rescaled(items)):.4f}, stock count only {score(stock_only(items)):.4f} "
                     f"({len(items)} forecasts)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=150, help="duplicate deals (each played from both seats)")
    parser.add_argument("--seed", type=int, default=99)
    parser.add_argument("--workers", type=int, default=2, help="processes")
    parser.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE",
                        help="engine config override, e.g. --set samples=96")
    args = parser.parse_args(argv)
    try:
        config = configured(args.set)
    except ValueError as error:
        parser.error(f"--set: {error}")
    started = time.perf_counter()
    jobs = [(i, args.seed, config) for i in range(args.deals)]
    with Pool(args.workers) as pool:
        results = pool.map(collect, jobs, chunksize=4)
    found: dict[str, list[Forecast]] = defaultdict(list)
    for result in results:
        for name, items in result.items():
            found[name] += items
    print(report(found))
    print(f"seed {args.seed}; {args.deals} duplicate deals; engine {config}; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
