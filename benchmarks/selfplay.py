"""Strength and speed of the hint engine, measured by self-play (a benchmark, not a test).

    python benchmarks/selfplay.py --deals 500 --seed 1            # against each opponent
    python benchmarks/selfplay.py --deals 200 --seed 1 --opponent lookahead --workers 2
    python benchmarks/selfplay.py --deals 300 --seed 11 --opponent baseline --preset gra \
        --rule stock_end_discard=take_to_knock_any --rule eleven_card_deal=true   # under rule variants
    python benchmarks/selfplay.py --deals 500 --seed 3 --opponent baseline --save /tmp/ref.json
    python benchmarks/selfplay.py --deals 500 --seed 3 --opponent baseline --set defence_weight=0 \
        --paired-with /tmp/ref.json                              # paired with the saved run

Each deal is played twice from the same shuffled deck, the engine sitting in one seat and then in
the other (duplicate play), so the luck of the cards cancels. The opponents:

* ``baseline`` - the well-known simple rules: take the upcard only if it completes or extends a
  meld (it is melded in every least-deadwood arrangement of the hand with it); discard the card
  that leaves the least deadwood, highest first (by value, then rank: a King before a Ten); knock
  (or go gin) as soon as the rules allow.
* ``lookahead`` - an earlier version of the engine: the same look-ahead, but no opponent model
  (no safety, no knock timing: it knocks whenever it may).
* ``engine`` - the engine itself with the defaults, changed by ``--opponent-set KNOB=VALUE``: one
  configuration against another, e.g. a knock margin against an opponent as patient as the engine
  (not part of ``all``). Against its very own configuration every deal is drawn: the two hands of
  a deal are the same game with the seats swapped.

Reported, each with a 95% confidence interval that treats each duplicate deal as one sample:

* hands (one deal from one seat) won / lost / drawn by the engine (drawn: stock end or a tie),
  and its share of the decided hands;
* duplicate deals won / lost / drawn by net points: a deal is won when the engine's points over
  its two hands beat the opponent's, drawn when they are equal; and its share of the decided deals;
* its net points per duplicate deal, halved to a per-hand figure (its points minus the opponent's);
* how many of the engine's discards the opponent took from the pile, per hand;
* the deals by their two hands: both lost, one won and one lost (and who took the deal), both won;

and the engine's hint latency (p50 / p99 / max) over every move it made.

``--save`` writes each deal's two results to a JSON file; ``--paired-with`` compares this run with
such a file of the same deals (same seed, opponent and rules): the mean difference of the net
points per hand and of the decided-deal wins (won +1, lost -1, drawn 0, per deal), each with a 95%
confidence interval over deals. Both configurations play the very same cards against the same
opponent, so the difference is far less noisy than comparing two reports.

``--time-budget MS`` gives each hint that time budget, as the HTTP service does (40 ms there; by
default the benchmark's engine has none): the latency it measures is then that of the service's
engine, and the play may depend on the machine's speed.

``--oracle`` shows the engine the opponent's whole hand (passed as ``revealed``, so the opponent
model holds that one hand): an upper bound on what a better opponent model can bring.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing import Pool
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from service.core.cards import ALL_CARDS, Hand, card_bit, card_rank, card_value, hand_from_cards
from service.core.game import Table
from service.core.hints import (
    DEFAULT_CONFIG,
    KNOB_RANGES,
    Action,
    EngineConfig,
    GameState,
    TimeBudget,
    hint,
    knock_rules,
    legal_actions,
    meld_partners,
    take_only_to_knock,
    upcard_refused,
)
from service.core.knocks import knock_limit
from service.core.melds import min_deadwood
from service.core.rules import Rules, RulesError, resolve_rules

Player = Callable[[GameState, Rules, int], Action]
Watcher = Callable[[GameState, int, int], None]


def baseline_player(state: GameState, rules: Rules, seed: int, deadwood: Callable[[Hand], int] = min_deadwood
                    ) -> Action:
    """The simple rules: meld-completing upcards only, least deadwood highest first, knock at once.

    An upcard completes or extends a meld when the hand with it has less deadwood than the hand with it
    left unmelded; of the discards that leave the least deadwood the highest card goes, by value and
    then by rank.

    ``deadwood`` gives the least deadwood of a hand (a cached one plays the same moves faster).
    """
    hand = hand_from_cards(state.hand)
    if state.phase == "draw" and take_only_to_knock(state, rules):
        return legal_actions(state, rules)[0]  # the take if a knock follows (it knocks at once), else the other
    if state.phase != "discard":
        top = state.discard_pile[-1] if state.discard_pile else state.upcard
        if (top is not None and not upcard_refused(state, rules)
                and meld_partners(hand) >> top & 1  # the cheap test first
                and deadwood(hand | card_bit(top)) < deadwood(hand) + card_value(top)):
            return Action("take_upcard")
        return Action("pass") if state.phase == "first_upcard" else Action("draw_stock")
    if rules.big_gin_bonus is not None and deadwood(hand) == 0:
        return Action("big_gin")
    forbidden = None if knock_rules(state, rules).discard_pickup_allowed else state.drawn_from_discard
    left, _, _, card = min((deadwood(hand & ~card_bit(c)), -card_value(c), -card_rank(c), c)
                           for c in state.hand if c != forbidden)
    if left <= knock_limit(rules, state.upcard):
        return Action("gin" if left == 0 else "knock", card)
    return Action("discard", card)


def engine_player(config: EngineConfig, budget_ms: int | None = None) -> Player:
    """The hint engine with ``config`` (and a time budget of ``budget_ms`` per hint) as a player."""
    return oracle_engine(config, budget_ms, shown=False)[0]


def oracle_engine(config: EngineConfig, budget_ms: int | None = None, shown: bool = True) -> tuple[Player, Watcher]:
    """The hint engine as a player, and the watcher that shows it the opponent's hand before each
    move (as ``revealed``) when ``shown``."""
    truth = [0]

    def play(state: GameState, rules: Rules, seed: int) -> Action:
        budget = None if budget_ms is None else TimeBudget(budget_ms / 1000)
        return hint(state, rules, seed=seed, config=config, budget=budget, revealed=truth[0]).action

    def watch(state: GameState, opponent: int, seed: int) -> None:
        truth[0] = opponent if shown else 0

    return play, watch


OPPONENTS: dict[str, Player] = {
    "baseline": baseline_player,
    "lookahead": engine_player(EngineConfig(samples=0)),
}


@dataclass(frozen=True)
class GameRecord:
    """One deal from one seat: +points if the engine scored, -points if the opponent did, 0 drawn.

    ``how`` names who ended the hand and how, e.g. ``engine gin``, ``opponent undercut`` (the
    opponent knocked and was undercut) or ``stock end``; ``fed`` counts the engine's discards that
    the opponent took from the pile.
    """

    net: int
    how: str
    latencies: tuple[float, ...]
    fed: int = 0


def play_deal(deck: list[int], rules: Rules, players: tuple[Player, Player], engine_seat: int,
              seed: int, watch: Watcher | None = None) -> GameRecord:
    """Play one hand (player 0 deals) and return the engine's result and its hint latencies.

    ``watch`` is given each state the engine moves in, the opponent's hand then, and the move's seed.
    """
    table = Table.deal(rules, deck, dealer=0)
    latencies: list[float] = []
    move = fed = 0
    while not table.over:
        seat = table.to_move
        state = table.view()
        if seat == engine_seat and watch:
            watch(state, table.hands[1 - seat], seed * 1000 + move)
        started = time.perf_counter()
        action = players[seat](state, rules, seed * 1000 + move)
        if seat == engine_seat:
            latencies.append(time.perf_counter() - started)
        elif action.type == "take_upcard" and state.phase == "draw":
            fed += 1
        table.play(action)
        move += 1
    outcome = table.outcome
    assert outcome is not None
    winner = outcome.winner
    net = 0 if winner is None else outcome.points if winner == engine_seat else -outcome.points
    if outcome.result is None:
        how = "stock end"
    else:
        how = f"{'engine' if outcome.knocker == engine_seat else 'opponent'} {outcome.result.outcome}"
    return GameRecord(net, how, tuple(latencies), fed)


def configured(overrides: list[str]) -> EngineConfig:
    """The default engine config with ``KNOB=VALUE`` overrides (a ValueError saying what is wrong with one)."""
    changes: dict[str, Any] = {}
    for item in overrides:
        knob, _, value = item.partition("=")
        if knob not in KNOB_RANGES:
            raise ValueError(f"unknown knob {knob!r}; expected one of {', '.join(KNOB_RANGES)}")
        changes[knob] = type(getattr(DEFAULT_CONFIG, knob))(value)
    return replace(DEFAULT_CONFIG, **changes)  # a value out of the knob's range: a FieldError


def shuffled_deck(seed: int, index: int) -> list[int]:
    """The deck of deal ``index`` of ``seed``."""
    deck = list(ALL_CARDS)
    random.Random(seed * 1_000_003 + index).shuffle(deck)
    return deck


def moves_seed(seed: int, index: int) -> int:
    """The seed of the players' moves in deal ``index`` of ``seed``, the same from both seats."""
    return seed * 100_003 + index


def play_both_seats(deck: list[int], rules: Rules, engine: Player, other: Player, seed: int, index: int,
                    watch: Watcher | None = None) -> tuple[GameRecord, GameRecord]:
    """Deal ``index`` of ``seed`` played with the engine in seat 0, then in seat 1 (``other`` in the other)."""
    moves = moves_seed(seed, index)
    return (play_deal(deck, rules, (engine, other), 0, moves, watch),
            play_deal(deck, rules, (other, engine), 1, moves, watch))


@dataclass(frozen=True)
class Job:
    """One duplicate deal to play: deal ``index`` of ``seed``, the engine against ``opponent``
    (with ``opponent_config`` when that is ``engine``)."""

    index: int
    seed: int
    opponent: str
    rules: Rules
    config: EngineConfig
    oracle: bool = False
    budget_ms: int | None = None
    opponent_config: EngineConfig = DEFAULT_CONFIG


def play_pair(job: Job) -> tuple[GameRecord, GameRecord]:
    """Deal ``index`` of ``seed`` from both seats."""
    index, seed = job.index, job.seed
    rules = job.rules
    deck = shuffled_deck(seed, index)
    engine, watch = oracle_engine(job.config, job.budget_ms, shown=job.oracle)
    other = engine_player(job.opponent_config) if job.opponent == "engine" else OPPONENTS[job.opponent]
    return play_both_seats(deck, rules, engine, other, seed, index, watch)


def _interval(values: list[float]) -> tuple[float, float]:
    """Mean and 95% half-width (normal approximation)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan")
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(variance / n)


def percentile(values: list[float], q: float) -> float:
    """The value at rank ``int(q * n)`` of the ``n`` values sorted (0-based; the largest at most): at or just
    above a share ``q`` of them."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(pairs: list[tuple[GameRecord, GameRecord]], opponent: str) -> str:
    """The figures of a run as text."""
    games = [g for pair in pairs for g in pair]
    won = sum(g.net > 0 for g in games)
    lost = sum(g.net < 0 for g in games)
    drawn = len(games) - won - lost
    decided = won + lost
    # Share of decided deals: a ratio estimator over pairs (each pair one sample).
    wins = [sum(g.net > 0 for g in p) for p in pairs]
    counts = [sum(g.net != 0 for g in p) for p in pairs]
    share = won / decided if decided else float("nan")
    spread = sum((w - share * c) ** 2 for w, c in zip(wins, counts, strict=True)) * len(pairs) / max(1, len(pairs) - 1)
    share_half = 1.96 * math.sqrt(spread) / decided if decided else float("nan")
    points, points_half = _interval([sum(g.net for g in p) / 2 for p in pairs])
    latencies = [t * 1000 for g in games for t in g.latencies]
    endings: dict[str, int] = {}
    for game in games:
        endings[game.how] = endings.get(game.how, 0) + 1
    pair_nets = [sum(g.net for g in p) for p in pairs]
    pairs_won = sum(n > 0 for n in pair_nets)
    pairs_lost = sum(n < 0 for n in pair_nets)
    pair_share, pair_half = _interval([float(n > 0) for n in pair_nets if n != 0] or [float("nan")])
    lines = [
        f"opponent: {opponent}; {len(pairs)} duplicate deals = {len(games)} hands",
        f"hands: engine won {won}, lost {lost}, drawn {drawn}; "
        f"share of decided hands won: {share:.1%} +- {share_half:.1%} (95% CI)",
        f"duplicate deals by net points over both seats: engine won {pairs_won}, lost {pairs_lost}, "
        f"drawn {len(pairs) - pairs_won - pairs_lost}; "
        f"share of decided deals won: {pair_share:.1%} +- {pair_half:.1%} (95% CI)",
        f"net points per hand: {points:+.2f} +- {points_half:.2f} (95% CI)",
        f"engine points per hand {sum(g.net for g in games if g.net > 0) / len(games):.2f}, "
        f"opponent {-sum(g.net for g in games if g.net < 0) / len(games):.2f}",
        f"hint latency over {len(latencies)} moves: p50 {percentile(latencies, 0.5):.1f} ms, "
        f"p99 {percentile(latencies, 0.99):.1f} ms, max {max(latencies):.1f} ms",
        "endings: " + ", ".join(f"{how} {count}" for how, count in sorted(endings.items())),
        f"the opponent took {sum(g.fed for g in games) / len(games):.2f} of the engine's discards per hand",
        deal_shapes(pairs),
    ]
    return "\n".join(lines)


def deal_shapes(pairs: list[tuple[GameRecord, GameRecord]]) -> str:
    """The deals by the results of their two hands: a deal with one hand won and one lost goes to the
    bigger score, so the share of decided deals rises with fewer deals in which both hands are lost."""
    both_lost = both_won = drawn_hand = 0
    split = {"won": 0, "drawn": 0, "lost": 0}
    for first, second in pairs:
        if first.net == 0 or second.net == 0:
            drawn_hand += 1
        elif (first.net > 0) != (second.net > 0):
            net = first.net + second.net
            split["won" if net > 0 else "lost" if net < 0 else "drawn"] += 1
        elif first.net > 0:
            both_won += 1
        else:
            both_lost += 1
    return (f"deals by their two hands: both lost {both_lost}, one won and one lost {sum(split.values())} "
            f"(the deal won {split['won']}, drawn {split['drawn']}, lost {split['lost']}), both won {both_won}, "
            f"a hand drawn {drawn_hand}")


def paired_report(pairs: list[tuple[GameRecord, GameRecord]], saved: dict[str, object]) -> str:
    """This run against a saved run of the same deals: mean differences with 95% intervals."""
    other = saved["nets"]
    assert isinstance(other, list)
    if len(other) < len(pairs):
        raise SystemExit(f"the saved run has {len(other)} deals, this one {len(pairs)}")
    mine = [sum(g.net for g in p) for p in pairs]
    theirs = [sum(p) for p in other[:len(pairs)]]
    points, points_half = _interval([(a - b) / 2 for a, b in zip(mine, theirs, strict=True)])
    outcome, outcome_half = _interval([float((a > 0) - (a < 0) - (b > 0) + (b < 0))
                                       for a, b in zip(mine, theirs, strict=True)])
    changed = sum(a != b for a, b in zip(mine, theirs, strict=True))
    return (f"paired with {saved['engine']} over the same {len(pairs)} deals ({changed} deals differ): "
            f"net points per hand {points:+.2f} +- {points_half:.2f}, "
            f"deal outcome (won +1, lost -1) {outcome:+.3f} +- {outcome_half:.3f} per deal (95% CI)")


def load_saved(path: str, seed: int, opponent: str, preset: str | None) -> dict[str, object]:
    """A run saved by ``--save``, which must hold the deals of ``seed`` against ``opponent`` under ``preset``
    (the rules as given on the command line: the preset and any ``--rule``)."""
    with open(path, encoding="utf-8") as file:
        saved: dict[str, object] = json.load(file)
    if (saved["seed"], saved["opponent"], saved["preset"]) != (seed, opponent, preset):
        raise SystemExit(f"{path} holds other deals (seed, opponent or rules differ)")
    return saved


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals (each played from both seats)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--opponent", choices=[*sorted(OPPONENTS), "engine", "all"], default="all",
                        help="who the engine plays (default: baseline and lookahead in turn)")
    parser.add_argument("--opponent-set", action="append", default=[], metavar="KNOB=VALUE",
                        help="config override of the engine opponent, e.g. --opponent-set knock_margin=10")
    parser.add_argument("--preset", default=None, help="rules preset (default rules if omitted)")
    parser.add_argument("--rule", action="append", default=[], metavar="PARAMETER=VALUE",
                        help="rule parameter over the preset (a JSON value or a word), e.g. --rule "
                             "stock_end_discard=take_to_knock --rule eleven_card_deal=true")
    parser.add_argument("--workers", type=int, default=1, help="processes (latency is cleanest with 1)")
    parser.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE",
                        help="engine config override for experiments, e.g. --set feed_penalty=4")
    parser.add_argument("--oracle", action="store_true",
                        help="show the engine the opponent's hand: how much a perfect opponent model is worth")
    parser.add_argument("--time-budget", type=int, default=None, metavar="MS",
                        help="time budget of each hint in milliseconds (default: none)")
    parser.add_argument("--save", metavar="PATH", help="write each deal's results (JSON) for --paired-with")
    parser.add_argument("--paired-with", metavar="PATH", help="compare with a run saved by --save")
    args = parser.parse_args(argv)
    if (args.save or args.paired_with) and args.opponent == "all":
        parser.error("--save and --paired-with need one --opponent")
    if args.opponent_set and args.opponent != "engine":
        parser.error("--opponent-set needs --opponent engine")
    try:
        config, opponent_config = configured(args.set), configured(args.opponent_set)
    except ValueError as error:
        parser.error(f"--set: {error}")
    try:
        rules = resolve_rules(args.preset, dict(_rule_override(text) for text in args.rule))
    except (RulesError, ValueError) as error:
        parser.error(f"--rule: {error}")
    preset = f"{args.preset or 'default'} {' '.join(args.rule)}" if args.rule else args.preset
    engine = f"{config}{' with --oracle' if args.oracle else ''}"
    if args.time_budget is not None:
        engine += f", time budget {args.time_budget} ms"
    for opponent in sorted(OPPONENTS) if args.opponent == "all" else [args.opponent]:
        jobs = [Job(i, args.seed, opponent, rules, config, args.oracle, args.time_budget, opponent_config)
                for i in range(args.deals)]
        if opponent == "engine":
            opponent = f"engine({', '.join(args.opponent_set) or 'defaults'})"
        started = time.perf_counter()
        if args.workers > 1:
            with Pool(args.workers) as pool:
                pairs = pool.map(play_pair, jobs, chunksize=4)
        else:
            pairs = [play_pair(job) for job in jobs]
        print(report(pairs, opponent))
        if args.paired_with:
            print(paired_report(pairs, load_saved(args.paired_with, args.seed, opponent, preset)))
        if args.save:
            with open(args.save, "w", encoding="utf-8") as file:
                json.dump({"seed": args.seed, "opponent": opponent, "preset": preset, "engine": engine,
                           "nets": [[g.net for g in p] for p in pairs]}, file)
        print(f"rules: {preset or 'default'}; seed {args.seed}; engine {engine}; "
              f"{time.perf_counter() - started:.0f} s\n", flush=True)


def _rule_override(text: str) -> tuple[str, object]:
    """``PARAMETER=VALUE`` as a rule override: the value read as JSON (true, 5, null), else as a word."""
    name, separator, value = text.partition("=")
    if not separator:
        raise ValueError(f"expected PARAMETER=VALUE, got {text!r}")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


if __name__ == "__main__":
    main()
