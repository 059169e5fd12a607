"""Which part of the opponent's hidden hand is worth most to the hint engine (a diagnostic benchmark).

    python benchmarks/oracle_parts.py --deals 1000 --seed 7 --part meld --workers 2
    python benchmarks/oracle_parts.py --deals 1000 --seed 7 --part threat --paired-with /tmp/ref7.json

``selfplay.py --oracle`` shows the engine the opponent's whole hand, so every belief of its
opponent model becomes the truth. Here only the named parts do, the rest still comes from the
samples:

* ``meld`` - the chance the opponent can meld each card (feeding it, and each discard's safety);
* ``threat`` - how the opponent could knock on its next turn (the defence term of each discard);
* ``knock`` - the opponent hands our knocks are scored against (whether and how to knock).

The engine plays the baseline as in ``selfplay.py`` (same deals, same report; ``--paired-with``
takes a run of ``selfplay.py --opponent baseline --save``). It works by wrapping the engine's
private ``_prepare``: a diagnostic, not a way to play.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from multiprocessing import Pool
from unittest.mock import patch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from benchmarks.selfplay import (
    OPPONENTS,
    GameRecord,
    Player,
    Watcher,
    load_saved,
    paired_report,
    play_deal,
    report,
    shuffled_deck,
    with_opponent_hand,
)
from service.core import hints
from service.core.rules import Rules, resolve_rules

PARTS = {"meld": "meld_chance", "threat": "threats", "knock": "samples"}


def revealing_prepare(parts: frozenset[str], truth: list[int]) -> Callable[..., hints._Context]:
    """``hints._prepare`` with the ``parts`` of the opponent model taken from the hand ``truth[0]``."""
    prepare = hints._prepare

    def prepare_revealing(state: hints.GameState, rules: Rules, seed: int, config: hints.EngineConfig,
                          threats: bool, budget: hints.TimeBudget | None = None) -> hints._Context:
        context = prepare(state, rules, seed, config, threats, budget)
        told = prepare(with_opponent_hand(state, truth[0]), rules, seed, config, threats, budget)
        for part in parts:
            setattr(context, PARTS[part], getattr(told, PARTS[part]))
        return context

    return prepare_revealing


def revealing_engine(parts: frozenset[str]) -> tuple[Player, Watcher]:
    """The default engine told ``parts`` of the truth, and the watcher that shows it the opponent's hand."""
    truth = [0]
    prepare = revealing_prepare(parts, truth)

    def play(state: hints.GameState, rules: Rules, seed: int) -> hints.Action:
        with patch.object(hints, "_prepare", prepare):
            return hints.hint(state, rules, seed=seed).action

    def watch(state: hints.GameState, opponent: int, seed: int) -> None:
        truth[0] = opponent

    return play, watch


def play_pair(job: tuple[int, int, frozenset[str]]) -> tuple[GameRecord, GameRecord]:
    """Deal ``index`` of ``seed`` from both seats, against the baseline."""
    index, seed, parts = job
    rules = resolve_rules()
    deck = shuffled_deck(seed, index)
    engine, watch = revealing_engine(parts)
    baseline = OPPONENTS["baseline"]
    pair_seed = seed * 100_003 + index
    return (play_deal(deck, rules, (engine, baseline), 0, pair_seed, watch=watch),
            play_deal(deck, rules, (baseline, engine), 1, pair_seed, watch=watch))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals (each played from both seats)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--part", action="append", choices=sorted(PARTS), required=True,
                        help="a part of the model to replace by the truth (repeat for several)")
    parser.add_argument("--workers", type=int, default=1, help="processes")
    parser.add_argument("--paired-with", metavar="PATH", help="a run of selfplay.py --opponent baseline --save")
    args = parser.parse_args(argv)
    parts = frozenset(args.part)
    started = time.perf_counter()
    jobs = [(i, args.seed, parts) for i in range(args.deals)]
    with Pool(args.workers) as pool:
        pairs = pool.map(play_pair, jobs, chunksize=4)
    print(report(pairs, "baseline"))
    if args.paired_with:
        print(paired_report(pairs, load_saved(args.paired_with, args.seed, "baseline", None)))
    print(f"seed {args.seed}; the truth told: {', '.join(sorted(parts))}; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
