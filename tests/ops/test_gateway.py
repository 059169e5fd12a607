"""The gateway of compose.yaml (service/deploy/nginx.conf) in front of two real replicas.

Runs where nginx is installed (Debian: ``apt-get install nginx-light``), skipped elsewhere. The
upstream is rewritten from compose's ``app:8000 resolve`` (Docker DNS, nginx >= 1.27.3) to the two
local replicas; everything else is the file as deployed.
"""

from __future__ import annotations

import contextlib
import getpass
import gzip
import json
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import HAND, service_server
from .live_server import ROOT, GunicornServer, Reply, exchange

pytestmark = pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx is not installed")

ANALYZE = "/v1/hands/analyze"
JSON = {"Content-Type": "application/json"}
GOOD = json.dumps({"hand": HAND}).encode()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def local_config(replicas: list[int], port: int, scratch: Path) -> str:
    """The gateway's config with ``replicas`` (their ports) as its upstream, listening on ``port``."""
    text = (ROOT / "service" / "deploy" / "nginx.conf").read_text()
    servers = "\n".join(f"        server 127.0.0.1:{replica};" for replica in replicas)
    replacements = {
        "        server app:8000 resolve;": servers,
        "listen 8080;": f"listen 127.0.0.1:{port};",
        # The workers run as this user, so that they may write large bodies and answers to the scratch
        # directory (started by root, they would run as nobody; otherwise nginx ignores the line). The error
        # log keeps warnings, the level of the rate limits' refusals (limit_req_log_level).
        "pid /tmp/nginx.pid;": f"pid {scratch}/nginx.pid;\nerror_log {scratch}/error.log warn;\n"
        f"user {getpass.getuser()};",
        "access_log /dev/stdout json;": f"access_log {scratch}/access.log json;\n"
        f"    client_body_temp_path {scratch}/body;\n    proxy_temp_path {scratch}/proxy;",
    }
    for old, new in replacements.items():
        assert old in text, old
        text = text.replace(old, new)
    return text


@dataclass(frozen=True)
class Gateway:
    port: int
    replicas: list[GunicornServer]


@contextlib.contextmanager
def serving_nginx(config: Path, port: int) -> Iterator[None]:
    """nginx run with ``config`` in the foreground, once it answers on ``port``; stopped gracefully after."""
    subprocess.run(["nginx", "-t", "-q", "-c", str(config)], check=True)
    nginx = subprocess.Popen(["nginx", "-c", str(config), "-g", "daemon off;"])
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                exchange(port, "GET", "/healthz")
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        yield
    finally:
        nginx.send_signal(signal.SIGQUIT)
        nginx.wait(10)


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    scratch = tmp_path_factory.mktemp("nginx")
    with service_server(workers=1) as first, service_server(workers=1) as second:
        port = free_port()
        config = scratch / "nginx.conf"
        config.write_text(local_config([first.port, second.port], port, scratch))
        with serving_nginx(config, port):
            yield Gateway(port, [first, second])


@contextlib.contextmanager
def own_gateway(gateway: Gateway, scratch: Path, edit: Callable[[str], str] = str) -> Iterator[int]:
    """A new nginx in front of the module's replicas, its config changed by ``edit``, with empty limit zones
    whatever the tests before it sent (the port to ask)."""
    port = free_port()
    config = scratch / "nginx.conf"
    config.write_text(edit(local_config([replica.port for replica in gateway.replicas], port, scratch)))
    with serving_nginx(config, port):
        yield port


@pytest.fixture()
def fresh_gateway(gateway: Gateway, tmp_path: Path) -> Iterator[int]:
    """A gateway of its own, for a test that spends a rate limit."""
    with own_gateway(gateway, tmp_path) as port:
        yield port


PAGE = "http://page.example"
SHARED_CACHE = """pid {scratch}/nginx.pid;
error_log {scratch}/error.log;
user {user};
events {{}}
http {{
    access_log off;
    client_body_temp_path {scratch}/body;
    proxy_temp_path {scratch}/proxy;
    proxy_cache_path {scratch}/cache keys_zone=answers:1m;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://127.0.0.1:{replica};
            proxy_cache answers;
            add_header X-Cache $upstream_cache_status always;
        }}
    }}
}}
"""


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A shared cache (nginx's proxy_cache, which honours Cache-Control and Vary) in front of a replica that lets
    one origin's pages call it: the port to ask."""
    scratch = tmp_path_factory.mktemp("cache")
    with service_server(workers=1, env={"GIN_CORS_ORIGINS": PAGE}) as replica:
        port = free_port()
        config = scratch / "nginx.conf"
        config.write_text(SHARED_CACHE.format(scratch=scratch, user=getpass.getuser(), port=port, replica=replica.port))
        with serving_nginx(config, port):
            yield port


def test_request_ids_pass_through(gateway: Gateway) -> None:
    given = exchange(gateway.port, "POST", ANALYZE, GOOD, {**JSON, "X-Request-ID": "edge-7"})
    assert (given.status, given.headers["X-Request-ID"]) == (200, "edge-7")
    made = exchange(gateway.port, "POST", ANALYZE, GOOD, JSON)
    assert made.status == 200 and len(made.headers["X-Request-ID"]) == 32


def test_answers_are_compressed_for_clients_that_ask(gateway: Gateway) -> None:
    batch = json.dumps({"hands": [{"hand": HAND}] * 200}).encode()
    plain = exchange(gateway.port, "POST", "/v1/hands/analyze/batch", batch, JSON)
    packed = exchange(gateway.port, "POST", "/v1/hands/analyze/batch", batch, {**JSON, "Accept-Encoding": "gzip"})
    assert plain.status == packed.status == 200 and "Content-Encoding" not in plain.headers
    assert packed.headers["Content-Encoding"] == "gzip" and packed.headers["Vary"] == "Accept-Encoding"
    assert len(packed.body) * 10 < len(plain.body) and gzip.decompress(packed.body) == plain.body
    small = exchange(gateway.port, "GET", "/healthz", headers={"Accept-Encoding": "gzip"})
    assert small.status == 200 and "Content-Encoding" not in small.headers  # not worth it under 1 KiB


def test_metrics_are_not_exposed_through_the_gateway(gateway: Gateway) -> None:
    reply = exchange(gateway.port, "GET", "/metrics", headers={"X-Request-ID": "edge-8"})
    assert (reply.status, reply.headers["Content-Type"], reply.headers["X-Request-ID"]) == (
        404, "application/problem+json", "edge-8")
    assert reply.json()["status"] == 404


@pytest.mark.parametrize(("method", "path", "headers", "version", "status"), [
    ("POST", "/v1/hands/analyze/batch", {}, "HTTP/1.1", 413),
    ("GET", "/v1/rules?" + "x" * 10_000, {}, "HTTP/1.1", 414),  # past nginx's 8 KiB request line
    ("GET", "/v1/rules", {"X-Long": "x" * 9_000}, "HTTP/1.1", 400),  # a header past its 8 KiB
    ("TRACE", "/v1/rules", {}, "HTTP/1.1", 405),
    ("POST", ANALYZE, {"Transfer-Encoding": "gzip"}, "HTTP/1.1", 501),
    ("GET", "/v1/rules", {}, "HTTP/9.9", 505),
    ("GET", "/problems/bad-request", {}, "HTTP/1.1", 404),  # the gateway's own problem pages are not served
])
def test_the_gateways_own_refusals_are_problems_with_the_request_id(
        gateway: Gateway, method: str, path: str, headers: dict[str, str], version: str, status: int) -> None:
    """Found by deployment reviews: nginx answered these in HTML, and its own problems carried no request id."""
    body = b"[" + b" " * (3 * 1024 * 1024) + b"]" if status == 413 else b""
    reply = exchange(gateway.port, method, path, body, {**JSON, **headers, "X-Request-ID": "edge-9"}, version=version)
    assert (reply.status, reply.headers["Content-Type"]) == (status, "application/problem+json")
    assert reply.json()["status"] == status
    # Past a request line or header nginx cannot read, the client's id is unread too: nginx makes one.
    unread = status in (400, 414, 505)
    assert reply.headers["X-Request-ID"] == "edge-9" if not unread else len(reply.headers["X-Request-ID"]) == 32


@pytest.mark.parametrize("what", ["request line", "header line"])
def test_a_line_the_gateway_passes_is_one_gunicorn_reads(gateway: Gateway, what: str) -> None:
    """A line of 8 KiB with its CRLF passes nginx and gunicorn alike; one more byte is nginx's problem with a request
    id (found by a docs audit: request lines of 4-8 KiB passed nginx to gunicorn's 414, which has no id)."""
    def reply(length: int) -> Reply:
        if what == "request line":
            return exchange(gateway.port, "GET", "/healthz?" + "x" * (length - len("GET /healthz? HTTP/1.1")))
        return exchange(gateway.port, "GET", "/healthz", headers={"X-Long": "x" * (length - len("X-Long: "))})

    assert reply(8_190).status == 200
    refused = reply(8_191)
    assert (refused.status, refused.headers["Content-Type"]) == (414 if what == "request line" else 400,
                                                                 "application/problem+json")
    assert "8 KiB" in refused.json()["detail"] and len(refused.headers["X-Request-ID"]) == 32


def test_with_no_replica_answering_the_gateway_says_so_as_a_problem(tmp_path: Path) -> None:
    port, nobody = free_port(), free_port()  # nothing listens on the replica's port
    config = tmp_path / "nginx.conf"
    config.write_text(local_config([nobody], port, tmp_path))
    with serving_nginx(config, port):
        reply = exchange(port, "POST", ANALYZE, GOOD, {**JSON, "X-Request-ID": "edge-10"})
    assert (reply.status, reply.headers["Content-Type"], reply.headers["Retry-After"]) == (
        503, "application/problem+json", "1")
    assert reply.headers["X-Request-ID"] == "edge-10" and reply.json()["status"] == 503


def refused_by(scratch: Path, zone: str) -> int:
    """How many requests nginx's error log says a limit of ``zone`` refused (a 429 does not say which limit)."""
    log = (scratch / "error.log").read_text(encoding="utf-8")
    return sum(f'by zone "{zone}"' in line for line in log.splitlines())


def test_a_burst_is_rate_limited_with_problems(fresh_gateway: int, tmp_path: Path) -> None:
    """300 requests at once: the rate (50 a second, bursts of 100) refuses some, and so may the 50 connections."""
    replies = []

    def hit() -> None:
        replies.append(exchange(fresh_gateway, "GET", "/healthz"))

    threads = [threading.Thread(target=hit) for _ in range(300)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = Counter(reply.status for reply in replies)
    assert set(statuses) == {200, 429}
    limited = next(reply for reply in replies if reply.status == 429)
    assert limited.headers["Content-Type"] == "application/problem+json"
    assert limited.headers["Retry-After"] == "1" and len(limited.headers["X-Request-ID"]) == 32
    assert limited.json()["status"] == 429
    assert refused_by(tmp_path, "per_client") > 0  # not only the connection limit (a flakiness audit)


def test_batches_have_their_own_rate_limit(fresh_gateway: int, tmp_path: Path) -> None:
    """A security audit: a batch of 1,000 dense hands costs a worker some 0.75 s, so two connections looping them
    (2 to 4 requests a second, far inside the 50 a second of every path) took another client's answers from 2 ms
    to a second. Two batches at a time per client, 2 a second with bursts of 4; other paths stay open meanwhile."""
    batch = json.dumps({"hands": [{"hand": HAND}]}).encode()
    statuses = [exchange(fresh_gateway, "POST", "/v1/hands/analyze/batch", batch, JSON).status for _ in range(8)]
    assert statuses[:5] == [200] * 5 and 429 in statuses[5:]  # the burst of 4 beyond the first, then refused
    limited = exchange(fresh_gateway, "POST", "/v1/hands/analyze/batch", batch, JSON)
    assert (limited.status, limited.headers["Content-Type"]) == (429, "application/problem+json")
    assert exchange(fresh_gateway, "POST", ANALYZE, GOOD, JSON).status == 200
    assert refused_by(tmp_path, "batches_per_client") == statuses.count(429) + 1
    time.sleep(2.5)  # the batch bucket (at most 4 over) empties in 2 s
    dense = json.dumps({"hands": [{"hand": "As Ah Ad Ac 3s 3h 3d 3c 4s 4d 4c"}] * 1000}).encode()
    replies: list[int] = []
    threads = [threading.Thread(target=lambda: replies.append(
        exchange(fresh_gateway, "POST", "/v1/hands/analyze/batch", dense, JSON).status)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(replies) == [200, 200, 429]  # not all three at once
    assert refused_by(tmp_path, "batch_connections_per_client") == 1


def test_batches_sent_one_after_another_are_never_refused_for_connections(
    gateway: Gateway, tmp_path: Path
) -> None:
    """CI, 2026-11-27: with one batch connection per client, the second of five batches sent one after another was
    refused. An nginx worker frees a connection's slot a moment after the answer has gone, and the next connection may
    reach the other worker first: 11 of 1,500 such batches were refused. The rates are lifted here, so that only the
    connection limit can refuse; under a limit of one, this test failed in 4 runs of 4."""
    def unlimited_rates(config: str) -> str:
        lifted = config.replace("rate=2r/s", "rate=10000r/s").replace("rate=50r/s", "rate=10000r/s")
        assert lifted.count("rate=10000r/s") == 2
        return lifted

    batch = json.dumps({"hands": [{"hand": HAND}]}).encode()
    with own_gateway(gateway, tmp_path, unlimited_rates) as port:
        statuses = Counter(exchange(port, "POST", "/v1/hands/analyze/batch", batch, JSON).status for _ in range(600))
    assert statuses == {200: 600}


def test_stopping_a_replica_under_load_fails_no_request(gateway: Gateway) -> None:
    statuses: list[int | str] = []
    stop = threading.Event()

    def client() -> None:  # ~10 requests/s each: under the rate limit
        while not stop.is_set():
            try:
                statuses.append(exchange(gateway.port, "POST", ANALYZE, GOOD, JSON).status)
            except OSError as error:
                statuses.append(type(error).__name__)
            time.sleep(0.1)

    clients = [threading.Thread(target=client) for _ in range(3)]
    for thread in clients:
        thread.start()
    time.sleep(1)
    gateway.replicas[0].send(signal.SIGTERM)
    gateway.replicas[0].wait(40)
    time.sleep(1.5)
    stop.set()
    for thread in clients:
        thread.join()
    assert Counter(statuses) == Counter({200: len(statuses)}) and len(statuses) > 30


def test_a_cached_answer_is_revalidated_through_the_gateway(gateway: Gateway) -> None:
    """The replica's tag is weak, so gzipped or not the answer has the same one, and the 304 that revalidates it
    names the tag held and what the 200 varies with (RFC 9110, 15.4.5): the replica says Accept-Encoding itself,
    for the gateway's gzip, which says it again on the 200s it may compress but not on a 304."""
    plain = exchange(gateway.port, "GET", "/v1/rules")
    packed = exchange(gateway.port, "GET", "/v1/rules", headers={"Accept-Encoding": "gzip"})
    assert plain.status == packed.status == 200 and packed.headers["Content-Encoding"] == "gzip"
    assert packed.headers["ETag"] == plain.headers["ETag"]
    again = exchange(gateway.port, "GET", "/v1/rules", headers={"If-None-Match": packed.headers["ETag"],
                                                                "Accept-Encoding": "gzip"})
    assert (again.status, again.body, again.headers["ETag"]) == (304, b"", packed.headers["ETag"])
    assert again.headers["Cache-Control"] == "public, max-age=300"
    for answer in (plain, packed, again):
        tokens = {token.strip() for line in answer.headers.get_all("Vary", []) for token in line.split(",")}
        assert tokens == {"X-Request-ID", "Accept-Encoding"}


def test_a_shared_cache_keeps_answers_apart_as_they_vary(shared_cache: int) -> None:
    """The first review put such a cache in front of a replica: an allowed page got the answer kept for a request
    without an Origin, which carries no Access-Control-Allow-Origin (the browser blocks it), and a client that
    sent its own X-Request-ID got another client's id back."""
    url = f"{ANALYZE}?hand=As,2s,3s,7h,7d,7c,Kd,Qd,Jd,5c"

    def ask(**headers: str) -> tuple[str, str, str | None]:
        reply = exchange(shared_cache, "GET", url, headers=headers)
        assert reply.status == 200
        return reply.headers["X-Cache"], reply.headers["X-Request-ID"], reply.headers["Access-Control-Allow-Origin"]

    plain = ask()
    assert plain[0] == "MISS" and ask() == ("HIT", *plain[1:])
    page = ask(Origin=PAGE)
    assert page[0] == "MISS" and page[2] == PAGE and ask(Origin=PAGE) == ("HIT", *page[1:])
    assert ask(**{"X-Request-ID": "client-a"}) == ("MISS", "client-a", None)
    assert ask(**{"X-Request-ID": "client-b"}) == ("MISS", "client-b", None)
    assert ask(**{"X-Request-ID": "client-a"}) == ("HIT", "client-a", None)
