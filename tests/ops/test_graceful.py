"""Graceful reload (HUP) and stop (TERM) of a real gunicorn under load.

Clients send requests without pause, each on a new connection and with its own X-Request-ID,
while long batch requests (1,000 of the densest hands, some 0.3-0.75 s each) are in flight. The
server's JSON request log tells which requests the application handled.
"""

from __future__ import annotations

import itertools
import json
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

from .conftest import HAND, service_server
from .live_server import GunicornServer, exchange

ANALYZE = "/v1/hands/analyze"
BATCH = "/v1/hands/analyze/batch"
JSON = {"Content-Type": "application/json"}
# The slowest batch there is (some 0.3-0.75 s): 1,000 random hands took 0.1-0.2 s, often done before the signal.
BATCH_BODY = json.dumps({"hands": [{"hand": "As Ah Ad Ac 3s 3h 3d 3c 4s 4d 4c"}] * 1000}).encode()
ANALYZE_BODY = json.dumps({"hand": HAND}).encode()
# gunicorn's own debug line (its default pre_request hook) as a worker starts a batch, under LOG_LEVEL=debug.
BATCH_STARTED = f'"message":"POST {BATCH}"'


@dataclass(frozen=True)
class Outcome:
    request_id: str
    path: str
    status: int | None  # None: no answer
    error: str | None
    complete: bool  # the whole expected answer arrived


class Load:
    """``clients`` threads posting analyze requests in a loop until the block ends."""

    def __init__(self, port: int, clients: int = 4) -> None:
        self.port = port
        self.outcomes: list[Outcome] = []
        self._ids = itertools.count()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._client, daemon=True) for _ in range(clients)]

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(60)

    def _client(self) -> None:
        while not self._stop.is_set():
            if self.send(ANALYZE, ANALYZE_BODY).error:
                time.sleep(0.01)  # the server is gone: do not spin

    def send(self, path: str, payload: bytes) -> Outcome:
        """One request; its outcome is recorded and returned."""
        request_id = f"load-{next(self._ids)}"
        try:
            reply = exchange(self.port, "POST", path, payload, {**JSON, "X-Request-ID": request_id}, timeout=60)
            answer = reply.json()
            complete = len(answer["results"]) == 1000 if path == BATCH else answer["deadwood"] >= 0
            outcome = Outcome(request_id, path, reply.status, None, complete)
        except (OSError, ValueError) as error:  # ValueError: a cut-off JSON body
            outcome = Outcome(request_id, path, None, type(error).__name__, False)
        self.outcomes.append(outcome)
        return outcome

    def send_in_background(self, path: str, payload: bytes) -> threading.Thread:
        thread = threading.Thread(target=self.send, args=(path, payload), daemon=True)
        thread.start()
        return thread


def handled_request_ids(server: GunicornServer) -> set[str]:
    """The ids of the load's requests in the server's JSON request log: those the app answered."""
    logged = (json.loads(line) for line in server.log().splitlines() if line.startswith("{"))
    return {entry["request_id"] for entry in logged if "status" in entry and entry["request_id"].startswith("load-")}


def wait_for(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def start_batches(load: Load, server: GunicornServer, count: int) -> list[threading.Thread]:
    """Long requests, each taken by a worker before the signal (a fixed pause was not always enough on a busy
    machine: a batch still in the kernel's accept queue at TERM is reset, as the test allows for the others)."""
    started = server.log().count(BATCH_STARTED)
    batches = [load.send_in_background(BATCH, BATCH_BODY) for _ in range(count)]
    wait_for(lambda: server.log().count(BATCH_STARTED) >= started + count, 30)
    return batches


def test_reload_under_load_loses_nothing() -> None:
    with service_server(workers=2, env={"LOG_LEVEL": "debug"}) as server, Load(server.port) as load:
        time.sleep(0.5)
        old_workers = server.worker_pids()
        batches = start_batches(load, server, 2)
        server.send(signal.SIGHUP)
        wait_for(lambda: server.worker_pids().isdisjoint(old_workers) and len(server.worker_pids()) == 2, 30)
        answered_before_reload_ended = len(load.outcomes)
        # Only new workers are left: they must answer (after the batches, if those reached them).
        wait_for(lambda: len(load.outcomes) > answered_before_reload_ended + 20, 30)
        for batch in batches:
            batch.join(60)
    summary = Counter((o.path, o.status, o.error, o.complete) for o in load.outcomes)
    assert set(summary) == {(ANALYZE, 200, None, True), (BATCH, 200, None, True)}, summary
    assert summary[BATCH, 200, None, True] == 2, summary


def test_stop_under_load_finishes_every_request_it_took() -> None:
    """After TERM every request a worker took is answered in full; the others were never handled
    (refused, or reset while queued in the kernel's accept queue), so a gateway may retry them."""
    with service_server(workers=2, env={"LOG_LEVEL": "debug"}) as server:
        with Load(server.port) as load:
            time.sleep(0.5)
            batches = start_batches(load, server, 2)
            assert not any(o.path == BATCH for o in load.outcomes), "a batch ended before the signal"
            server.send(signal.SIGTERM)
            assert server.wait(40) == 0
            for batch in batches:
                batch.join(60)
            # The load outlasts the server: some request finds the port closed.
            wait_for(lambda: any(o.error == "ConnectionRefusedError" for o in load.outcomes), 10)
        handled = handled_request_ids(server)
    answered = {o.request_id for o in load.outcomes if o.status == 200 and o.complete}
    assert handled == answered, "a request the application handled was not answered in full"
    unanswered = [o for o in load.outcomes if o.request_id not in answered]
    # A reset connection reads as RemoteDisconnected when the sending thread meets the reset first.
    assert {o.error for o in unanswered} <= {"ConnectionRefusedError", "ConnectionResetError", "RemoteDisconnected"}
    assert all(o.status is None for o in unanswered)
    assert {o.request_id for o in load.outcomes if o.path == BATCH} <= answered
