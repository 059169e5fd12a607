"""Which part of the opponent's hidden hand is worth most to the hint engine (a diagnostic benchmark).

    python benchmarks/oracle_parts.py --deals 1000 --seed 7 --part meld --workers 2
    python benchmarks/oracle_parts.py --deals 1000 --seed 7 --part threat --paired-with /tmp/ref7.json

``selfplay.py --oracle`` shows the engine the opponent's whole hand, so every belief of its
opponent model becomes the truth. Here only the named parts do, the rest still comes from the
samples:

* ``meld`` - the chance the opponent can meld each card (feeding it, and each discard's safety);
* ``threat`` - how the opponent could knock on its next turn (the defence term of each discard);
* ``knock`` - the opponent hands our knocks are scored against (whether and how to knock).

``--truth-share S`` tells only a share of the truth: each told part becomes a mixture of the
model's belief (weight 1 - S) and the truth (weight S), e.g. a meld chance of
(1 - S) x the model's + S x 0 or 1. It shows how the gain in play grows with sharper beliefs.

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
from dataclasses import replace
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
    play_both_seats,
    report,
    shuffled_deck,
)
from service.core import hints
from service.core.rules import Rules, resolve_rules

PARTS = {"meld": "meld_chance", "threat": "threats", "knock": "samples"}


def mixed(model: hints._Context, told: hints._Context, part: str, share: float) -> object:
    """The belief ``part`` as a mixture: the model's with weight 1 - ``share``, the truth's with ``share``."""
    if part == "meld":
        return {card: (1 - share) * model.meld_chance.get(card, 0.0) + share * told.meld_chance.get(card, 0.0)
                for card in model.meld_chance.keys() | told.meld_chance.keys()}
    if part == "knock":
        return ([(hand, (1 - share) * weight) for hand, weight in model.samples]
                + [(hand, share * weight) for hand, weight in told.samples])
    return ([replace(threat, weight=(1 - share) * threat.weight) for threat in model.threats]
            + [replace(threat, weight=share * threat.weight) for threat in told.threats])


def revealing_prepare(parts: frozenset[str], truth: list[int], share: float = 1.0) -> Callable[..., hints._Context]:
    """``hints._prepare`` with the ``parts`` of the opponent model taken from the hand ``truth[0]``
    (mixed with the model's beliefs unless ``share`` is 1)."""
    prepare = hints._prepare

    def prepare_revealing(state: hints.GameState, rules: Rules, seed: int, config: hints.EngineConfig,
                          budget: hints.TimeBudget | None = None, revealed: int = 0) -> hints._Context:
        context = prepare(state, rules, seed, config, budget, revealed)
        told = prepare(state, rules, seed, config, budget, revealed=truth[0])
        for part in parts:
            belief = getattr(told, PARTS[part]) if share == 1 else mixed(context, told, part, share)
            setattr(context, PARTS[part], belief)
        return context

    return prepare_revealing


def revealing_engine(parts: frozenset[str], share: float = 1.0) -> tuple[Player, Watcher]:
    """The default engine told ``parts`` of the truth (a ``share`` of it), and the watcher that shows it
    the opponent's hand."""
    truth = [0]
    prepare = revealing_prepare(parts, truth, share)

    def play(state: hints.GameState, rules: Rules, seed: int) -> hints.Action:
        with patch.object(hints, "_prepare", prepare):
            return hints.hint(state, rules, seed=seed).action

    def watch(state: hints.GameState, opponent: int, seed: int) -> None:
        truth[0] = opponent

    return play, watch


def play_pair(job: tuple[int, int, frozenset[str], float]) -> tuple[GameRecord, GameRecord]:
    """Deal ``index`` of ``seed`` from both seats, against the baseline."""
    index, seed, parts, share = job
    rules = resolve_rules()
    deck = shuffled_deck(seed, index)
    engine, watch = revealing_engine(parts, share)
    baseline = OPPONENTS["baseline"]
    return play_both_seats(deck, rules, engine, baseline, seed, index, watch)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals (each played from both seats)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--part", action="append", choices=sorted(PARTS), required=True,
                        help="a part of the model to replace by the truth (repeat for several)")
    parser.add_argument("--truth-share", type=float, default=1.0, metavar="S",
                        help="tell this share of the truth, mixed with the model's beliefs (default 1)")
    parser.add_argument("--workers", type=int, default=1, help="processes")
    parser.add_argument("--paired-with", metavar="PATH", help="a run of selfplay.py --opponent baseline --save")
    args = parser.parse_args(argv)
    parts = frozenset(args.part)
    started = time.perf_counter()
    if not 0 <= args.truth_share <= 1:
        parser.error("--truth-share must be between 0 and 1")
    jobs = [(i, args.seed, parts, args.truth_share) for i in range(args.deals)]
    with Pool(args.workers) as pool:
        pairs = pool.map(play_pair, jobs, chunksize=4)
    print(report(pairs, "baseline"))
    if args.paired_with:
        print(paired_report(pairs, load_saved(args.paired_with, args.seed, "baseline", None)))
    print(f"seed {args.seed}; the truth told: {', '.join(sorted(parts))}, share {args.truth_share:g}; "
          f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
