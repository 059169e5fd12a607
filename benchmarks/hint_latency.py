"""Hint latency over HTTP: ``POST /v1/hint`` with the states of self-play, against the service under the
project's gunicorn settings on loopback (a benchmark, not a test).

The states are every move the hint engine made in ``--deals`` duplicate deals against the simple baseline
(``selfplay.py``'s, seed ``--seed``, rules ``--preset``). After a warm-up (the first 20 states, untimed), they
are sent once each, in order, by ``--clients`` threads, each request on a new connection (the sync workers close
theirs). The service answers with its defaults (a time budget of 40 ms). Reported: the latency the clients saw
(with more clients than workers, waiting in the queue is part of it), the status codes, the requests that got no
answer, and how many answers ran out of their time budget.

    python -m benchmarks.hint_latency --deals 60 --clients 1 --clients 2 --clients 4
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.selfplay import baseline_player, engine_player, percentile, play_both_seats, shuffled_deck
from service.core.cards import Card, format_card
from service.core.hints import DEFAULT_CONFIG, Action, GameState
from service.core.rules import Rules, resolve_rules
from tests.ops.live_server import GunicornServer

PATH = "/v1/hint"
WARM_UP = 20


def request_body(state: GameState, preset: str | None = None) -> dict[str, Any]:
    """The hint request that describes ``state`` (under the rules ``preset``, if one is given)."""
    def names(cards: tuple[Card, ...]) -> list[str]:
        return [format_card(card) for card in cards]

    def name(card: Card | None) -> str | None:
        return None if card is None else format_card(card)

    body = {
        "hand": names(state.hand), "phase": state.phase, "upcard": name(state.upcard),
        "discard_pile": names(state.discard_pile), "stock_count": state.stock_count,
        "opponent_hand_known": names(state.opponent_hand_known), "opponent_discards": names(state.opponent_discards),
        "drawn_from_discard": name(state.drawn_from_discard), "returned_discard": state.returned_discard,
    }
    return body if preset is None else {**body, "rules": preset}


def self_play_states(deals: int, seed: int, rules: Rules) -> list[GameState]:
    """Every state the engine moved in, over ``deals`` duplicate deals of ``seed`` against the baseline."""
    engine = engine_player(DEFAULT_CONFIG)
    states: list[GameState] = []

    def recording(state: GameState, state_rules: Rules, move_seed: int) -> Action:
        states.append(state)
        return engine(state, state_rules, move_seed)

    for index in range(deals):
        play_both_seats(shuffled_deck(seed, index), rules, recording, baseline_player, seed, index)
    return states


@dataclass
class Tally:
    """What the clients saw: each answer's latency (ms) and status, the requests that failed without an answer
    (by the error's kind), and the answers whose time budget was reached."""

    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    budget_reached: int = 0


def post_all(port: int, bodies: list[bytes], clients: int) -> Tally:
    """Send every body once, ``clients`` at a time."""
    tally = Tally()
    lock = threading.Lock()

    def client(first: int) -> None:
        for body in bodies[first::clients]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                start = time.perf_counter()
                connection.request("POST", PATH, body, {"Content-Type": "application/json"})
                response = connection.getresponse()
                answer = response.read()
                elapsed = (time.perf_counter() - start) * 1000
                reached = response.status == 200 and json.loads(answer)["time_budget_reached"]
            except (OSError, http.client.HTTPException, ValueError, KeyError) as error:
                with lock:
                    tally.failures[type(error).__name__] = tally.failures.get(type(error).__name__, 0) + 1
                continue
            finally:
                connection.close()
            with lock:
                tally.latencies.append(elapsed)
                tally.statuses[response.status] = tally.statuses.get(response.status, 0) + 1
                tally.budget_reached += reached

    threads = [threading.Thread(target=client, args=(first,)) for first in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return tally


def summary(tally: Tally) -> str:
    """The tally in one line."""
    line = (f"{len(tally.latencies)} answers; status {dict(sorted(tally.statuses.items()))}; no answer "
            f"{dict(sorted(tally.failures.items()))}; time budget reached {tally.budget_reached}")
    if not tally.latencies:
        return line
    latencies = tally.latencies
    return (f"{line}; latency p50 {percentile(latencies, 0.5):.1f}, p90 {percentile(latencies, 0.9):.1f}, p99 "
            f"{percentile(latencies, 0.99):.1f}, max {max(latencies):.1f} ms")


def positive(text: str) -> int:
    """An argument that is a whole number of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=positive, default=60, help="duplicate deals of self-play (default 60)")
    parser.add_argument("--seed", type=int, default=7, help="self-play seed (default 7)")
    parser.add_argument("--preset", default=None, help="rules preset (default: the default rules)")
    parser.add_argument("--clients", type=positive, action="append", help="client threads; repeat for several "
                        "runs (default 2, one per worker on two CPUs)")
    args = parser.parse_args(argv)
    states = self_play_states(args.deals, args.seed, resolve_rules(args.preset))
    bodies = [json.dumps(request_body(state, args.preset)).encode() for state in states]
    workers = os.cpu_count() or 1
    print(f"{len(bodies)} hint states from {args.deals} deals of seed {args.seed} ({args.preset or 'default'} "
          f"rules); {workers} CPUs, load average {os.getloadavg()[0]:.1f}")
    with GunicornServer(workers=workers) as server:
        post_all(server.port, bodies[:WARM_UP], workers)
        for clients in args.clients or [2]:
            start = time.perf_counter()
            tally = post_all(server.port, bodies, clients)
            print(f"{clients} clients, {time.perf_counter() - start:.1f} s: {summary(tally)}", flush=True)


if __name__ == "__main__":
    main()
