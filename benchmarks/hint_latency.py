"""Hint latency over HTTP: ``POST /v1/hint`` with the states of self-play, against the service under the
project's gunicorn settings on loopback (a benchmark, not a test).

The states are every move the hint engine made in ``--deals`` duplicate deals against the simple baseline
(``selfplay.py``'s, seed ``--seed``, rules ``--preset``), sent once each, in order, by ``--clients`` threads,
each request on a new connection (the sync workers close theirs). The service answers with its defaults (a time
budget of 40 ms). Reported: the latency the clients saw (with more clients than workers, waiting in the queue is
part of it), the status codes, and how many answers ran out of their time budget.

    python -m benchmarks.hint_latency --deals 60 --clients 2
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.selfplay import baseline_player, engine_player, play_both_seats, shuffled_deck
from service.core.cards import Card, format_card
from service.core.hints import DEFAULT_CONFIG, GameState
from service.core.rules import Rules, resolve_rules
from tests.ops.live_server import GunicornServer

PATH = "/v1/hint"


def request_body(state: GameState, preset: str | None) -> str:
    """The hint request that describes ``state`` (under the rules ``preset``)."""
    def names(cards: tuple[Card, ...]) -> list[str]:
        return [format_card(card) for card in cards]

    body: dict[str, Any] = {
        "hand": names(state.hand), "phase": state.phase, "discard_pile": names(state.discard_pile),
        "upcard": None if state.upcard is None else format_card(state.upcard), "stock_count": state.stock_count,
        "opponent_hand_known": names(state.opponent_hand_known), "opponent_discards": names(state.opponent_discards),
        "returned_discard": state.returned_discard,
    }
    if state.drawn_from_discard is not None:
        body["drawn_from_discard"] = format_card(state.drawn_from_discard)
    if preset is not None:
        body["rules"] = preset
    return json.dumps(body)


def self_play_states(deals: int, seed: int, rules: Rules) -> list[GameState]:
    """Every state the engine moved in, over ``deals`` duplicate deals of ``seed`` against the baseline."""
    engine = engine_player(DEFAULT_CONFIG)
    states: list[GameState] = []

    def recording(state: GameState, rules: Rules, move_seed: int) -> Any:
        states.append(state)
        return engine(state, rules, move_seed)

    for index in range(deals):
        play_both_seats(shuffled_deck(seed, index), rules, recording, baseline_player, seed, index)
    return states


def post_all(port: int, bodies: list[str], clients: int) -> tuple[list[float], dict[int, int], int]:
    """Send every body once, ``clients`` at a time: the latencies in ms, the count of each status, and the
    answers whose time budget was reached."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    budget_reached = 0
    lock = threading.Lock()

    def client(first: int) -> None:
        nonlocal budget_reached
        for body in bodies[first::clients]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            start = time.perf_counter()
            connection.request("POST", PATH, body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            answer = response.read()
            elapsed = (time.perf_counter() - start) * 1000
            connection.close()
            with lock:
                latencies.append(elapsed)
                statuses[response.status] = statuses.get(response.status, 0) + 1
                budget_reached += response.status == 200 and json.loads(answer)["time_budget_reached"]

    threads = [threading.Thread(target=client, args=(first,)) for first in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, statuses, budget_reached


def percentile(values: list[float], q: float) -> float:
    """The value below which a share ``q`` of ``values`` fall (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=60, help="duplicate deals of self-play (default 60)")
    parser.add_argument("--seed", type=int, default=7, help="self-play seed (default 7)")
    parser.add_argument("--preset", default=None, help="rules preset (default: the default rules)")
    parser.add_argument("--clients", type=int, action="append", help="client threads; repeat for several runs "
                        "(default 2, one per worker on two CPUs)")
    args = parser.parse_args(argv)
    bodies = [request_body(state, args.preset)
              for state in self_play_states(args.deals, args.seed, resolve_rules(args.preset))]
    print(f"{len(bodies)} hint states from {args.deals} deals of seed {args.seed} ({args.preset or 'default'} "
          f"rules); {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    with GunicornServer() as server:
        for clients in args.clients or [2]:
            start = time.perf_counter()
            latencies, statuses, budget_reached = post_all(server.port, bodies, clients)
            print(f"{clients} clients: {len(latencies)} hints in {time.perf_counter() - start:.1f} s; status "
                  f"{dict(sorted(statuses.items()))}; time budget reached {budget_reached}; latency p50 "
                  f"{percentile(latencies, 0.5):.1f}, p90 {percentile(latencies, 0.9):.1f}, p99 "
                  f"{percentile(latencies, 0.99):.1f}, max {max(latencies):.1f} ms", flush=True)


if __name__ == "__main__":
    main()
