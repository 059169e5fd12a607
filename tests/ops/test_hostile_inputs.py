"""Hostile input against a real gunicorn: each gets a quick 4xx problem+json, and afterwards the
same workers are alive, healthy and answering.
"""

from __future__ import annotations

import gzip
import http.client
import json
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from service.api import ERROR_RESPONSES
from service.errors import problem_body
from service.gunicorn_conf import WORKER_STOPPED

from .conftest import HAND, service_server
from .live_server import GunicornServer, exchange

ANALYZE = "/v1/hands/analyze"
BATCH = "/v1/hands/analyze/batch"
JSON = {"Content-Type": "application/json"}
MiB = 1024 * 1024
# No input may hold a worker: every rejection comes back well within this (seconds).
QUICK = 2.0


def body(value: object) -> bytes:
    return json.dumps(value).encode()


def with_rules(rules: object) -> bytes:
    return body({"hand": HAND, "rules": rules})


def nested(depth: int, opening: bytes, closing: bytes, core: bytes = b"1") -> bytes:
    return opening * depth + core + closing * depth


# Where two statuses are listed either is right: NaN is not JSON (400) but Python reads it (then 422).
EITHER = (400, 422)
# (name, method, path, headers, body, chunked, accepted statuses)
CASES = [
    ("truncated JSON", "POST", ANALYZE, JSON, b'{"hand": ["As", "2s", "3', False, (400,)),
    ("empty body", "POST", ANALYZE, JSON, b"", False, (400,)),
    ("a body of spaces", "POST", ANALYZE, JSON, b"   \n", False, (400,)),
    ("not JSON at all", "POST", ANALYZE, JSON, b"hand=As,2s", False, (400,)),
    ("invalid UTF-8", "POST", ANALYZE, JSON, b'{"hand": "\xff\xfe"}', False, (400,)),
    ("NaN", "POST", ANALYZE, JSON, b'{"hand": NaN}', False, EITHER),
    ("a 5,000-digit number", "POST", ANALYZE, JSON, b'{"hand": ' + b"9" * 5000 + b"}", False, (422,)),
    ("an exponent of 19 digits", "POST", ANALYZE, JSON, b'{"hand": 1e1000000000000000000}', False, (422,)),
    ("64 KiB of 4,300-digit numbers", "POST", ANALYZE, JSON,
     b'{"hand": "As 2s 3s 7h 7d 7c Kd Qd Jd 5c", "x": [' + b",".join([b"1e4299"] * 9300) + b"]}", False, (422,)),
    ("arrays nested 30,000 deep (60 kB)", "POST", ANALYZE, JSON, nested(30_000, b"[", b"]"), False, (400,)),
    ("objects nested 10,000 deep", "POST", ANALYZE, JSON, nested(10_000, b'{"a":', b"}"), False, (400,)),
    ("batch nested 20,000 deep", "POST", BATCH, JSON, b'{"hands": ' + nested(20_000, b"[", b"]") + b"}", False, (400,)),
    ("5 MiB body", "POST", ANALYZE, JSON, body({"hand": HAND, "pad": "x" * 5 * MiB}), False, (413,)),
    ("5 MiB body, chunked", "POST", ANALYZE, JSON, body({"hand": HAND, "pad": "x" * 5 * MiB}), True, (413,)),
    ("valid JSON padded past 64 KiB, chunked", "POST", ANALYZE, JSON, body({"hand": HAND}) + b" " * 70_000, True,
     (413,)),
    ("batch past 2 MiB, chunked", "POST", BATCH, JSON, body({"hands": [{"hand": HAND}] * 30_000}), True, (413,)),
    ("gzip", "POST", ANALYZE, {**JSON, "Content-Encoding": "gzip"}, gzip.compress(body({"hand": HAND})), False,
     (415,)),
    ("UTF-16", "POST", ANALYZE, {"Content-Type": "application/json; charset=utf-16"},
     json.dumps({"hand": HAND}).encode("utf-16"), False, (415,)),
    ("5 MiB batch", "POST", BATCH, JSON, body({"hands": [{"hand": HAND}] * 40_000}), False, (413,)),
    ("100,000-card hand", "POST", ANALYZE, JSON, body({"hand": ["As"] * 100_000}), False, (413,)),
    ("2 MiB of unknown keys in a batch", "POST", BATCH, JSON,
     body({"hands": [{"hand": HAND}], **{f"k{i}": 0 for i in range(140_000)}}), False, (422,)),
    ("1,001 hands in a batch", "POST", BATCH, JSON, body({"hands": [{"hand": HAND}] * 1001}), False, (422,)),
    ("100,000 empty items in a batch", "POST", BATCH, JSON, body({"hands": [{}] * 100_000}), False, (422,)),
    ("hand is a number", "POST", ANALYZE, JSON, body({"hand": 11}), False, (422,)),
    ("hand is an object", "POST", ANALYZE, JSON, body({"hand": {"As": True}}), False, (422,)),
    ("hand is null", "POST", ANALYZE, JSON, body({"hand": None}), False, (422,)),
    ("cards are numbers", "POST", ANALYZE, JSON, body({"hand": list(range(11))}), False, (422,)),
    ("rules is a list", "POST", ANALYZE, JSON, with_rules([1]), False, (422,)),
    ("knock limit is a string", "POST", ANALYZE, JSON, with_rules({"knock_limit": "10"}), False, (422,)),
    ("knock limit is huge", "POST", ANALYZE, JSON, with_rules({"knock_limit": 10**300}), False, (422,)),
    ("body is an array", "POST", ANALYZE, JSON, body([HAND]), False, (422,)),
    ("body is a string", "POST", ANALYZE, JSON, body("As 2s 3s"), False, (422,)),
    ("hands is a string", "POST", BATCH, JSON, body({"hands": "As 2s"}), False, (422,)),
    ("text/plain", "POST", ANALYZE, {"Content-Type": "text/plain"}, body({"hand": HAND}), False, (415,)),
    ("form", "POST", ANALYZE, {"Content-Type": "application/x-www-form-urlencoded"}, b"hand=As", False, (415,)),
    ("XML", "POST", ANALYZE, {"Content-Type": "application/xml"}, b"<hand/>", False, (415,)),
    ("no content type", "POST", ANALYZE, {}, body({"hand": HAND}), False, (415,)),
    ("multipart", "POST", ANALYZE, {"Content-Type": "multipart/form-data; boundary=x"}, b"--x--", False, (415,)),
    ("PUT", "PUT", ANALYZE, JSON, body({"hand": HAND}), False, (405,)),
    ("unknown path", "POST", "/v1/hands/analyse", JSON, body({"hand": HAND}), False, (404,)),
    ("query of 600 cards", "GET", ANALYZE + "?hand=" + ",".join(["As"] * 600), {}, b"", False, (422,)),
    # Refused by gunicorn itself, before the application runs.
    ("request line over 8,190 bytes", "GET", ANALYZE + "?hand=" + "As," * 3000, {}, b"", False, (414,)),
    ("200 headers", "GET", "/readyz", {f"X-H{i}": "1" for i in range(200)}, b"", False, (431,)),
    ("a header of 9,000 bytes", "GET", "/readyz", {"X-Long": "x" * 9000}, b"", False, (431,)),
    ("a header name with a control byte", "GET", "/readyz", {"X-Bad\x01": "1"}, b"", False, (400,)),
    ("a raw non-ASCII byte in the request line", "GET", ANALYZE + "?hand=\xe9", {}, b"", False, (400,)),
]

# A batch answers 200 with one result per hand; a hostile hand gets its own 422 problem there.
BATCH_ITEMS = {
    "100,000-card hand": {"hand": ["As"] * 100_000},
    "100,000-card string": {"hand": "As " * 100_000},
    "100,000 cards, repeated": {"hand": (HAND * 9_091)[:100_000]},
    "hand nested 900 deep": {"hand": json.loads(nested(900, b"[", b"]", b'"As"'))},
    "rules of 10,000 parameters": {"hand": HAND, "rules": {f"p{i}": i for i in range(10_000)}},
    "100,000 unknown keys": {"hand": HAND, **{f"k{i}": i for i in range(100_000)}},
}


@dataclass(frozen=True)
class Target:
    """The shared server, with its workers and log length before the first hostile input."""

    server: GunicornServer
    workers: set[int]
    log_start: int

    @property
    def port(self) -> int:
        return self.server.port


@pytest.fixture(scope="module")
def target(shared_server: GunicornServer) -> Iterator[Target]:
    """The shared server; once this module's hostile inputs are done, it must still be healthy."""
    hostile = Target(shared_server, shared_server.worker_pids(), len(shared_server.log()))
    yield hostile
    assert_still_healthy(hostile)


@pytest.mark.parametrize(
    ("method", "path", "headers", "payload", "chunked", "statuses"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_hostile_input_gets_a_quick_problem(
    target: Target,
    method: str,
    path: str,
    headers: dict[str, str],
    payload: bytes,
    chunked: bool,
    statuses: tuple[int, ...],
) -> None:
    reply = exchange(target.port, method, path, payload, headers, chunked=chunked)
    assert reply.status in statuses, reply.body[:500]
    assert reply.headers["Content-Type"] == "application/problem+json"
    assert_problem(reply.json(), reply.status)
    assert reply.seconds < QUICK


@pytest.mark.parametrize("item", BATCH_ITEMS.values(), ids=BATCH_ITEMS.keys())
def test_hostile_batch_item_gets_its_own_problem(target: Target, item: dict[str, object]) -> None:
    reply = exchange(target.port, "POST", BATCH, body({"hands": [item, {"hand": HAND}]}), JSON)
    assert reply.status == 200, reply.body[:500]
    hostile, fine = reply.json()["results"]
    assert hostile["status"] == 422
    assert_problem(hostile["problem"], 422)
    assert fine["status"] == 200
    assert reply.seconds < QUICK
    assert len(reply.body) < 8_000  # the hostile item's problem stays small: one fault, its count


def raw_exchange(port: int, request: bytes, close_write: bool = False) -> tuple[http.client.HTTPResponse, bytes]:
    """Send ``request`` as written (``close_write``: then say no more comes) and read the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(request)
        if close_write:
            connection.shutdown(socket.SHUT_WR)
        response = http.client.HTTPResponse(connection, method=request.split(b" ", 1)[0].decode())
        response.begin()
        return response, response.read()


def assert_problem(problem: dict[str, object], status: int) -> None:
    assert problem["status"] == status
    assert problem["title"] and problem["detail"]


def test_gunicorn_refusals_are_the_documented_problems(target: Target) -> None:
    """gunicorn's own 414 and 431 are the problems the spec shows (the request line's length aside)."""
    long_line = exchange(target.port, "GET", ANALYZE + "?hand=" + "As," * 3000)
    long_header = exchange(target.port, "GET", "/readyz", headers={"X-Long": "x" * 9000})
    for reply, name in ((long_line, "URITooLong"), (long_header, "HeadersTooLarge")):
        documented = ERROR_RESPONSES[name][1]
        assert re.sub(r"\(\d+ ", "(N ", reply.json()["detail"]) == re.sub(r"\(\d+ ", "(N ", documented["detail"])
        assert reply.json() == {**documented, "detail": reply.json()["detail"]}
        assert "X-Request-ID" not in reply.headers  # as documented: gunicorn answers before the app's id


def test_gunicorns_line_limits_are_the_documented_ones(target: Target) -> None:
    """8,192 bytes a header line with its CRLF: 8,190 of ``Name: value``, as the gateway passes them; and a request
    line of 8,190 bytes."""
    def status(length: int) -> int:
        return exchange(target.port, "GET", "/readyz", headers={"X-Long": "x" * (length - len("X-Long: "))}).status

    def line_status(length: int) -> int:
        return exchange(target.port, "GET", "/readyz?" + "x" * (length - len("GET /readyz? HTTP/1.1"))).status

    assert (status(8_190), status(8_191)) == (200, 431)
    assert (line_status(8_190), line_status(8_191)) == (200, 414)


# The reason phrases of RFC 9110 for the statuses gunicorn answers itself.
GUNICORN_STATUSES = {400: "Bad Request", 414: "URI Too Long", 417: "Expectation Failed",
                     431: "Request Header Fields Too Large", 501: "Not Implemented"}


@pytest.mark.parametrize(("head", "status"), [
    ("GET /readyz HTTP/1.1\r\nX-Bad\x01: 1\r\n\r\n", 400),
    (f"GET {ANALYZE}?hand={'As,' * 3000} HTTP/1.1\r\n\r\n", 414),
    (f"POST {ANALYZE} HTTP/1.1\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{{}}", 417),
    ("GET /readyz HTTP/1.1\r\nX-Long: " + "x" * 9000 + "\r\n\r\n", 431),
    (f"POST {ANALYZE} HTTP/1.1\r\nTransfer-Encoding: xyz\r\n\r\n", 501),
], ids=lambda value: str(value) if isinstance(value, int) else None)
def test_gunicorn_answers_a_whole_problem(target: Target, head: str, status: int) -> None:
    """Status line and title in RFC 9110's words (gunicorn's own line for a 501 says "Bad Request"), the body's
    length given, and the connection closed."""
    response, payload = raw_exchange(target.port, head.encode("latin-1"))
    assert (response.status, response.reason) == (status, GUNICORN_STATUSES[status])
    assert response.headers["Content-Type"] == "application/problem+json"
    assert response.headers["Connection"] == "close" and response.headers["Content-Length"] == str(len(payload))
    problem = json.loads(payload)
    assert (problem["status"], problem["title"]) == (status, GUNICORN_STATUSES[status]) and problem["detail"]


def test_a_request_past_the_time_limit_gets_a_problem() -> None:
    """A worker held past ``GUNICORN_TIMEOUT`` (here by a body that never comes) is stopped; gunicorn's 500
    is a problem like every other error."""
    with service_server(workers=1, env={"GUNICORN_TIMEOUT": "1"}) as server:
        response, payload = raw_exchange(server.port, f"POST {ANALYZE} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                                         "application/json\r\nContent-Length: 100\r\n\r\n".encode())
        problem = json.loads(payload)
        assert response.status == 500 and response.headers["Content-Type"] == "application/problem+json"
        assert problem == problem_body(500, WORKER_STOPPED)
        assert exchange(server.port, "POST", ANALYZE, body({"hand": HAND}), JSON).status == 200


@pytest.mark.parametrize("size", [100, 64 * 1024])
def test_a_chunked_body_within_the_limit_is_read_whole(target: Target, size: int) -> None:
    """Werkzeug cuts a chunked body at the limit; one that ends there is still whole, not too large."""
    payload = body({"hand": HAND})
    reply = exchange(target.port, "POST", ANALYZE, payload + b" " * (size - len(payload)), JSON, chunked=True)
    assert reply.status == 200 and reply.json()["deadwood"] >= 0


def assert_still_healthy(target: Target) -> None:
    """The same workers are alive, ready, answering, and logged no error (a fixture's teardown: after every test of
    the module, whatever their order)."""
    assert target.server.worker_pids() == target.workers, "a worker died or was killed"
    assert exchange(target.port, "GET", "/readyz").status == 200
    answer = exchange(target.port, "POST", ANALYZE, body({"hand": HAND}), JSON)
    assert answer.status == 200 and answer.json()["deadwood"] >= 0
    log = target.server.log()[target.log_start :]
    for trouble in ("Traceback", "WORKER TIMEOUT", '"level":"ERROR"', '"level":"CRITICAL"'):
        assert trouble not in log
    assert not re.search(r'"status":5(?!01)', log), "a server error (a 501 is a transfer coding refused)"


@pytest.mark.parametrize(("chunks", "detail"), [
    (b"zz\r\n{}\r\n0\r\n\r\n", "the request body's chunked coding could not be read: Invalid chunk size: b'zz'"),
    (b"2\r\n{}XX0\r\n\r\n", "the request body's chunked coding could not be read: Invalid chunk terminator is not "
                            "'\\r\\n': b'XX'"),
    (b"10\r\n{\"hand\"", "the chunked request body ended before its last chunk (of size 0)"),
    (b"2\r\n{}", "the chunked request body ended before its last chunk (of size 0)"),
    (b"2\r\n{}\r\n0\r\n", "the chunked request body ended before its last chunk (of size 0)"),
], ids=["chunk size", "chunk terminator", "no last chunk", "ends after a chunk", "ends after the last chunk"])
def test_a_chunked_body_that_cannot_be_read_is_a_400(target: Target, chunks: bytes, detail: str) -> None:
    """The app's problem, with a request id (gunicorn's reader raised it into the app, which answered a 500)."""
    head = (f"POST {ANALYZE} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
            "Connection: close\r\n\r\n").encode()
    response, payload = raw_exchange(target.port, head + chunks, close_write=True)
    assert response.status == 400 and response.headers["Content-Type"] == "application/problem+json"
    assert response.headers["X-Request-ID"]
    assert json.loads(payload)["detail"] == detail


def test_a_body_short_of_its_content_length_is_a_400(target: Target) -> None:
    """gunicorn ends the body where the client stopped sending; a whole JSON object short of its length was
    answered as if complete (found by an integrator's audit)."""
    sent = body({"hand": HAND})
    head = (f"POST {ANALYZE} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(sent) + 10}\r\nConnection: close\r\n\r\n").encode()
    response, payload = raw_exchange(target.port, head + sent, close_write=True)
    assert (response.status, response.headers["Content-Type"]) == (400, "application/problem+json")
    assert json.loads(payload)["detail"] == "the request body ended before the length its Content-Length header gave"


def test_a_body_with_a_transfer_coding_besides_chunked_is_a_501(target: Target) -> None:
    """gunicorn passes ``gzip, chunked`` on with the body still compressed, which was read as JSON that is not
    UTF-8 (a 400 that misled; found by a docs audit); nginx answers it 501 too."""
    head = (f"POST {ANALYZE} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n").encode()
    packed = gzip.compress(body({"hand": HAND}))
    response, payload = raw_exchange(target.port, head + b"%x\r\n%s\r\n0\r\n\r\n" % (len(packed), packed))
    assert (response.status, response.headers["Content-Type"]) == (501, "application/problem+json")
    assert response.headers["X-Request-ID"]
    assert json.loads(payload)["detail"] == ("the request body is sent with Transfer-Encoding: gzip, chunked; send "
                                             "it chunked alone, or with a Content-Length")
