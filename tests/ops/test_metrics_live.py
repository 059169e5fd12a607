"""Metrics and request logs of a real gunicorn with 2 workers: /metrics gives the totals over
every worker whichever worker answers, and they survive a reload (HUP)."""

from __future__ import annotations

import contextlib
import fcntl
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service import observability

from .conftest import HAND, service_server
from .live_server import ROOT, GunicornServer, exchange

ANALYZE = "/v1/hands/analyze"
JSON = {"Content-Type": "application/json"}
OK = {"method": "POST", "endpoint": ANALYZE, "status": "200"}
INVALID = {"method": "POST", "endpoint": ANALYZE, "status": "422"}
GOOD = json.dumps({"hand": HAND}).encode()
BAD = json.dumps({"hand": HAND[:9]}).encode()

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture(scope="module")
def metrics_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("metrics")


@pytest.fixture(scope="module")
def server(metrics_dir: Path) -> Iterator[GunicornServer]:
    # A stale file from an earlier run in the same directory must not count.
    (metrics_dir / "counter_999999.db").write_bytes(b"stale")
    with service_server(workers=2, env={"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)}) as server:
        yield server
        assert_every_line_is_json(server.log())  # after every test of the module: reloads, stops and kills


def scrape(server: GunicornServer) -> Samples:
    reply = exchange(server.port, "GET", "/metrics")
    assert reply.status == 200
    assert reply.headers["Content-Type"].startswith("text/plain; version=")
    samples: Samples = {}
    for family in text_string_to_metric_families(reply.body.decode()):
        for s in family.samples:
            samples[s.name, tuple(sorted(s.labels.items()))] = s.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def request_totals(samples: Samples) -> Samples:
    """Everything but the counts that /metrics itself and the gauge change."""
    return {key: v for key, v in samples.items() if "/metrics" not in str(key) and "in_progress" not in key[0]}


def send(server: GunicornServer, payload: bytes, request_id: str) -> None:
    reply = exchange(server.port, "POST", ANALYZE, payload, {**JSON, "X-Request-ID": request_id})
    assert reply.headers["X-Request-ID"] == request_id


@contextlib.contextmanager
def one_worker_held(server: GunicornServer) -> Iterator[None]:
    """Hold one sync worker on a good request whose body arrives only at the end of the block,
    so the other worker answers everything sent meanwhile."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as connection:
        head = (f"POST {ANALYZE} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(GOOD)}\r\nConnection: close\r\n\r\n").encode()
        connection.sendall(head + GOOD[:5])
        time.sleep(0.3)  # a worker accepts it and waits for the rest of the body
        yield
        connection.sendall(GOOD[5:])
        response = http.client.HTTPResponse(connection, method="POST")
        response.begin()
        assert response.status == 200


def test_totals_over_both_workers(server: GunicornServer, metrics_dir: Path) -> None:
    before = scrape(server)
    with one_worker_held(server):
        for i in range(40):
            send(server, GOOD, f"good-{i}")
        for i in range(6):
            send(server, BAD, f"bad-{i}")
    scrapes = [scrape(server) for _ in range(6)]
    after = scrapes[0]
    assert all(request_totals(s) == request_totals(after) for s in scrapes), "totals depend on the worker"

    assert value(after, "http_requests_total", **OK) - value(before, "http_requests_total", **OK) == 41
    assert value(after, "http_requests_total", **INVALID) - value(before, "http_requests_total", **INVALID) == 6
    assert value(after, "gin_hands_analyzed_total") - value(before, "gin_hands_analyzed_total") == 41
    count = value(after, "http_request_duration_seconds_count", **OK)
    assert count == value(after, "http_requests_total", **OK)
    assert value(after, "http_request_duration_seconds_bucket", **OK, le="+Inf") == count
    assert value(after, "http_request_duration_seconds_bucket", **OK, le="0.001") <= count
    assert value(after, "http_requests_in_progress") == 1  # the scrape itself

    workers = server.worker_pids()
    writers = {int(path.stem.rsplit("_", 1)[1]) for path in metrics_dir.glob("counter_[0-9]*.db")}
    assert writers == workers, "both workers answered, each into its own file; the stale file is gone"


def test_one_json_log_line_per_request(server: GunicornServer) -> None:
    for i in range(5):
        send(server, GOOD, f"logged-{i}")
    send(server, BAD, "logged-bad")
    time.sleep(0.2)
    lines = (json.loads(line) for line in server.log().splitlines() if line.startswith("{"))
    entries = [entry for entry in lines if "status" in entry]  # request lines, not gunicorn's or the app's records
    ours = {entry["request_id"]: entry for entry in entries if entry["request_id"].startswith("logged-")}
    assert sorted(ours) == sorted([f"logged-{i}" for i in range(5)] + ["logged-bad"])
    assert sum(entry["request_id"].startswith("logged-") for entry in entries) == 6
    assert ours["logged-bad"]["status"] == 422
    assert ours["logged-0"]["status"] == 200
    assert {entry["method"] for entry in ours.values()} == {"POST"}
    assert {entry["path"] for entry in ours.values()} == {ANALYZE}
    assert all(0 < entry["duration_ms"] < 5000 for entry in ours.values())


def test_totals_survive_a_reload(server: GunicornServer) -> None:
    send(server, GOOD, "before-reload")
    before = request_totals(scrape(server))
    old_workers = server.worker_pids()
    server.send(signal.SIGHUP)
    deadline = time.monotonic() + 30
    while not (server.worker_pids().isdisjoint(old_workers) and len(server.worker_pids()) == 2):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    after = scrape(server)
    assert request_totals(after) == before
    assert value(after, "http_requests_in_progress") == 1, "the old workers' gauges are gone"
    records = assert_every_line_is_json(server.log())
    assert any("Handling signal: hup" in record.get("message", "") for record in records)


def assert_every_line_is_json(log: str) -> list[dict[str, Any]]:
    """Request lines, gunicorn's own messages and the app's records are JSON objects, one a line: a log pipeline
    that reads JSON lines loses none of them. (A test of its own needed the reload test to have run first.)"""
    records = [json.loads(line) for line in log.splitlines()]
    assert all(isinstance(record, dict) for record in records)
    assert any("Booting worker" in record.get("message", "") for record in records)
    return records


def test_a_dead_workers_counts_are_archived(server: GunicornServer, metrics_dir: Path) -> None:
    """Workers that exit (the reload above replaced both; here one is stopped at a time) leave their counts to one
    archive file per kind, and their own files go: however many workers have come and gone, a scrape reads the
    files of the living ones and the archive. Before, each left a counter and a histogram file for good, which
    every scrape read (some 3 ms a worker, measured) and which filled the directory, a pod's memory in k8s."""
    send(server, GOOD, "before-stops")
    before = request_totals(scrape(server))
    for _ in range(3):
        worker = min(server.worker_pids())
        os.kill(worker, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while worker in server.worker_pids() or len(server.worker_pids()) != 2:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    assert request_totals(scrape(server)) == before
    names = {path.name for path in metrics_dir.glob("*.db")}
    assert {"counter_archive.db", "histogram_archive.db"} <= names
    owners = {name.rsplit("_", 1)[1].removesuffix(".db") for name in names} - {"archive"}
    assert owners <= {str(pid) for pid in server.worker_pids()}, "a dead worker's file is left"


def test_a_scrape_waits_while_counts_are_archived(server: GunicornServer, metrics_dir: Path) -> None:
    """Without the lock a scrape under worker exits counted a worker twice (a counter that then went down) or failed
    on a file deleted after it listed it, as a review measured."""
    with open(metrics_dir / observability.FILES_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with pytest.raises(TimeoutError):
            exchange(server.port, "GET", "/metrics", timeout=1)
    assert exchange(server.port, "GET", "/metrics").status == 200


def test_a_killed_workers_request_in_progress_is_dropped(server: GunicornServer) -> None:
    """Runs last on this server: both workers are killed (KILL: no chance to lower the gauge) while one holds
    a request; their replacements do not count it."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as connection:
        connection.sendall((f"POST {ANALYZE} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            f"Content-Length: {len(GOOD)}\r\n\r\n").encode() + GOOD[:5])
        time.sleep(0.3)  # a worker is in the request, waiting for its body
        assert value(scrape(server), "http_requests_in_progress") == 2  # that request and the scrape
        old_workers = server.worker_pids()
        for pid in old_workers:
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while not (server.worker_pids().isdisjoint(old_workers) and len(server.worker_pids()) == 2):
            assert time.monotonic() < deadline
            time.sleep(0.05)
    assert value(scrape(server), "http_requests_in_progress") == 1


def test_a_directory_set_but_missing_is_made(tmp_path: Path) -> None:
    directory = tmp_path / "not" / "yet"
    with service_server(workers=1, env={"PROMETHEUS_MULTIPROC_DIR": str(directory)}) as server:
        [worker] = server.worker_pids()
        assert exchange(server.port, "POST", ANALYZE, GOOD, JSON).status == 200
        assert exchange(server.port, "GET", "/metrics").status == 200
    assert (directory / "counter_archive.db").exists() and not (directory / f"counter_{worker}.db").exists()


def test_without_a_directory_set_a_temporary_one_is_made_and_removed() -> None:
    with service_server(workers=1) as server:
        [worker] = server.worker_pids()
        exchange(server.port, "POST", ANALYZE, GOOD, JSON)
        [written] = Path(tempfile.gettempdir()).glob(f"gin-metrics-*/counter_{worker}.db")
    assert not written.parent.exists()


def test_a_start_that_cannot_bind_leaves_no_directory(tmp_path: Path) -> None:
    """gunicorn gives up on a port in use (after some 5 s) without running on_exit: the temporary directory, made
    once the sockets are bound, is not made at all. Made before, it was left behind."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(taken.getsockname()[1]), "WEB_CONCURRENCY": "1",
               "TMPDIR": str(tmp_path)}
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        server = subprocess.run([sys.executable, "-m", "service"], env=env, cwd=ROOT, capture_output=True, text=True,
                                timeout=60)
    assert server.returncode != 0 and "Address already in use" in server.stdout + server.stderr
    assert not list(tmp_path.iterdir())
