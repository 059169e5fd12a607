"""Operability: Prometheus metrics that add up across gunicorn workers, one JSON log line per
request, and a request id on every response.

Wiring:

- ``create_app`` calls ``init_app(app)``: it adds ``GET /metrics``, wraps the WSGI app in
  ``RequestObserver``, and has the app's log records (a failure's traceback, above all) written to
  standard error as JSON lines that carry the request id (``JSONLogFormatter``).
- ``gunicorn_conf.py`` exposes ``when_ready``, ``child_exit`` and ``on_exit`` as its hooks of
  those names.

prometheus_client chooses between single-process and multiprocess mode once, when it is first
imported, by looking for ``PROMETHEUS_MULTIPROC_DIR``; ``when_ready`` sets that in the gunicorn
master. The metrics are therefore made, and prometheus_client imported, on the first request in
each process, never at import or in ``init_app``: with ``preload_app`` gunicorn loads the app
before ``when_ready`` runs. Without the variable (flask run, tests) the metrics live in the
process's own registry.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import logging
import math
import os
import random
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from flask import Flask, Response, has_request_context, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed
from werkzeug.routing import Map

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
    from prometheus_client.metrics_core import Metric

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
REQUEST_ID_HEADER = "X-Request-ID"
REQUEST_ID_ENVIRON = "gin.request_id"
# Accepted as given: visible ASCII, no spaces, bounded (UUIDs, trace ids, "req-42"). Anything else
# is replaced, so a client cannot inject into the logs or make them huge.
REQUEST_ID_PATTERN = re.compile(r"[!-~]{1,128}")
UNMATCHED_ENDPOINT = "unmatched"
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# Seconds. An analysis takes well under 0.1 ms, a hint some 5-40 ms; a request round trip is a few ms.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

# Dead workers' counts are added to one file per kind, and their own files deleted (``child_exit``).
ARCHIVE_NAME = "archive"  # in place of a pid: ``counter_archive.db``
FILES_LOCK = "files.lock"  # held shared by a scrape, exclusive while dead workers' files are archived
WORKER_FILE = re.compile(r"(?P<kind>[a-z]+)_(?P<pid>[0-9]+)\.db")  # a gauge's name has its mode between: not this

_created_metrics_dir: str | None = None
_made_metrics: _Metrics | None = None
_making_metrics = threading.Lock()


class RequestLog:
    """JSON lines on a file descriptor (standard output by default), one ``os.write`` each, so the
    lines of several workers sharing the descriptor never interleave (a pipe writes up to 4 KiB
    at once) and nothing is held in a buffer when a worker dies."""

    def __init__(self, fd: int = 1) -> None:
        self.fd = fd

    def write(self, entry: dict[str, Any]) -> None:
        """Write ``entry`` as one line of JSON."""
        os.write(self.fd, orjson.dumps(entry, option=orjson.OPT_APPEND_NEWLINE))


request_log = RequestLog()


def _utc_timestamp(now: float) -> str:
    """``now`` as ISO 8601 UTC with milliseconds."""
    second = int(now)
    return f"{_utc_second(second)}.{int((now - second) * 1000):03d}+00:00"


@functools.lru_cache(maxsize=1)
def _utc_second(second: int) -> str:
    """The timestamp up to the second, made once a second."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))


@dataclass(frozen=True)
class _Metrics:
    registry: CollectorRegistry  # what /metrics exposes in single-process mode
    multiprocess: bool
    requests: Counter
    latency: Histogram
    in_progress: Gauge
    hands_analyzed: Counter


def _metrics() -> _Metrics:
    """The metrics, made once per process (the first call imports prometheus_client). A lock makes them
    once under gthread workers too: threads that each made their own counted into registries /metrics
    never showed (a threaded review counted 1,808 of 3,292 requests)."""
    global _made_metrics
    made = _made_metrics
    if made is None:
        with _making_metrics:
            if _made_metrics is None:
                _made_metrics = _new_metrics()
            made = _made_metrics
    return made


def _new_metrics() -> _Metrics:
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, values

    multiprocess = values.ValueClass is not values.MutexValue
    registry = CollectorRegistry(auto_describe=True)
    labels = ("method", "endpoint", "status")
    return _Metrics(
        registry=registry,
        multiprocess=multiprocess,
        requests=Counter("http_requests", "HTTP requests answered.", labels, registry=registry),
        latency=Histogram(
            "http_request_duration_seconds",
            "Time in the application, from the request to its answer, in seconds.",
            labels,
            buckets=LATENCY_BUCKETS,
            registry=registry,
        ),
        # livesum: a worker that dies mid-request stops counting once child_exit marks it dead.
        in_progress=Gauge(
            "http_requests_in_progress",
            "Requests being handled now.",
            multiprocess_mode="livesum",
            registry=registry,
        ),
        hands_analyzed=Counter("gin_hands_analyzed", "Hands analyzed successfully.", registry=registry),
    )


def count_hands_analyzed(hands: int = 1) -> None:
    """Add to the hands-analyzed counter; called by the views that analyze hands."""
    _metrics().hands_analyzed.inc(hands)


def init_app(app: Flask) -> None:
    """Add ``GET /metrics`` to ``app``, wrap its WSGI app in ``RequestObserver``, and log its records
    as JSON lines on standard error."""
    app.add_url_rule("/metrics", "metrics", metrics_view, methods=["GET"])
    app.wsgi_app = RequestObserver(app.wsgi_app, app.url_map, app.logger)  # type: ignore[method-assign]
    handler = logging.StreamHandler()
    handler.setFormatter(JSONLogFormatter())
    # Replaces the plain-text handler Flask gives its logger.
    app.logger.handlers = [handler]


class JSONLogFormatter(logging.Formatter):
    """A log record as one line of JSON: time, level, logger, message, and when logged while a request
    is handled its request id, method and path; an exception's traceback goes in ``exception``."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one line of JSON (newlines inside it escaped)."""
        entry: dict[str, Any] = {"time": _utc_timestamp(record.created), "level": record.levelname,
                                 "logger": record.name, "message": record.getMessage()}
        if has_request_context():
            entry.update(request_id=request.environ.get(REQUEST_ID_ENVIRON), method=request.method,
                         **_logged_path(request.path))
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return _within_a_pipe_write(entry)


LOG_LINE_BYTES = 4096
"""The most bytes of a log line, its newline included: a pipe writes that much at once, so the lines of the
processes that share it never interleave."""


def _within_a_pipe_write(entry: dict[str, Any]) -> str:
    """``entry`` as one line of JSON of at most ``LOG_LINE_BYTES`` with its newline: the longer of a traceback (its
    outer frames go, the innermost and the error stay) and a message (its end goes: gunicorn echoes a refused
    request line of up to 8 KiB) is cut until the line fits, each with its whole length beside it
    (``exception_length``, ``message_length``)."""
    line = orjson.dumps(entry)
    while len(line) >= LOG_LINE_BYTES:
        sizes = {field: len(orjson.dumps(entry[field])) for field in ("exception", "message") if entry.get(field)}
        if not sizes:
            break
        field = max(sizes, key=sizes.__getitem__)
        text = entry[field]
        entry.setdefault(f"{field}_length", len(text))
        other = max((size for name, size in sizes.items() if name != field), default=0)
        too_long = len(line) + 32 - LOG_LINE_BYTES  # with room for the length beside it
        cut = math.ceil(min(too_long, max(sizes[field] - other, 64)) * len(text) / sizes[field])
        entry[field] = text[cut:] if field == "exception" else text[:-cut]
        line = orjson.dumps(entry)
    return line.decode()


def metrics_view() -> Response:
    """Prometheus text exposition; under gunicorn the sum over every worker, living or dead."""
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

    metrics = _metrics()
    if os.environ.get(MULTIPROC_ENV) and not metrics.multiprocess:
        # Each worker would show only its own counts: fail loudly instead.
        raise RuntimeError(f"the metrics were made before {MULTIPROC_ENV} was set (at import, in the master?)")
    if not metrics.multiprocess:
        return Response(generate_latest(metrics.registry), content_type=CONTENT_TYPE_LATEST)
    directory = Path(os.environ[MULTIPROC_ENV])
    registry = CollectorRegistry()
    registry.register(WorkerFilesCollector(directory))
    with _metrics_files_locked(directory, exclusive=False):
        text = generate_latest(registry)  # the lock is always given to a scrape in the end
    return Response(text, content_type=CONTENT_TYPE_LATEST)


class WorkerFilesCollector:
    """prometheus_client's multiprocess collection over the files of ``directory``, less any file a worker is still
    making: empty until prometheus_client sizes it, it failed the whole scrape (a 500 now and then as workers
    started, seen under a review's churn of worker exits; prometheus/client_python issue 1199, open)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def collect(self) -> Iterable[Metric]:
        """The metrics summed over the workers' files."""
        from prometheus_client.multiprocess import MultiProcessCollector

        written = []
        for path in self.directory.glob("*.db"):
            with contextlib.suppress(FileNotFoundError):  # a dead worker's gauges, deleted by mark_process_dead
                if path.stat().st_size:
                    written.append(str(path))
        metrics: Iterable[Metric] = MultiProcessCollector.merge(written, accumulate=True)  # type: ignore[no-untyped-call]
        return metrics


@contextlib.contextmanager
def _metrics_files_locked(directory: Path, *, exclusive: bool) -> Iterator[bool]:
    """Hold the metrics directory's lock, and say whether it is held: shared while a scrape reads the files (it
    waits for it), exclusive while dead workers' files are archived (a scrape would otherwise count them twice,
    or miss one deleted after it listed them). The exclusive lock is only tried: the master never waits on a
    scrape, nor on itself (gunicorn reaps workers inside its signal handler, as 27 still does)."""
    with open(directory / FILES_LOCK, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB if exclusive else fcntl.LOCK_SH)
        except BlockingIOError:
            yield False
        else:
            yield True


class RequestObserver:
    """WSGI middleware around the Flask app: every request, whatever answers it (a view, a hook,
    an error handler, routing), gets a request id header, a count and a latency by method, route
    and status, and one log line.

    At the WSGI level there are no request proxies and no hook dispatch to pay for (a third less
    than Flask's request hooks cost, measured in process), and the time covers all of Flask's
    handling. The route comes from Flask's request, read from the environ (``werkzeug.request``).
    """

    def __init__(self, app: WSGIApplication, url_map: Map, logger: logging.Logger) -> None:
        self.app = app
        self.url_map = url_map
        self.logger = logger

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        started = time.perf_counter()
        request_id = environ[REQUEST_ID_ENVIRON] = _given_or_new_request_id(environ)
        header = (REQUEST_ID_HEADER, request_id)
        answered: tuple[str, Any] = ("500", None)

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            nonlocal answered
            # Flask calls this while its request is still in the environ (it drops it afterwards).
            answered = status[:3], environ.get("werkzeug.request")
            headers.append(header)
            return start_response(status, headers, exc_info)

        metrics = _metrics()
        metrics.in_progress.inc()
        try:
            return self.app(environ, start)
        finally:
            metrics.in_progress.dec()
            try:
                _record(environ, request_id, answered[0], _route(answered[1], self.url_map),
                        answered[1], time.perf_counter() - started)
            except Exception:  # a full disk or a closed log pipe must not cost the client its answer
                self.logger.exception("request %s was answered but not recorded", request_id)


def _given_or_new_request_id(environ: WSGIEnvironment) -> str:
    given = environ.get("HTTP_X_REQUEST_ID", "")
    # 128 random bits; random reseeds in every forked worker, so workers never share a sequence.
    return given if REQUEST_ID_PATTERN.fullmatch(given) else f"{random.getrandbits(128):032x}"


def _route(flask_request: Any, url_map: Map) -> str:
    """The route a request matched; for a method the route does not allow (405), the route its path
    matches; else ``unmatched``. Routes are few, so the metric labels stay bounded."""
    rule = getattr(flask_request, "url_rule", None)
    if rule is not None:
        return str(rule.rule)
    error = getattr(flask_request, "routing_exception", None)
    allowed = list(error.valid_methods or ()) if isinstance(error, MethodNotAllowed) else []
    if allowed:
        try:
            matched, _ = url_map.bind_to_environ(flask_request.environ).match(method=allowed[0], return_rule=True)
        except HTTPException:
            return UNMATCHED_ENDPOINT
        return str(matched.rule)
    return UNMATCHED_ENDPOINT


LOGGED_PATH_LIMIT = 512
"""The most characters of a path a request-log line holds (``path_length`` then gives the whole length): with
each character escaped (6 bytes) and the longest request id, the line stays within the 4,096 bytes that a pipe
writes at once, so the lines of several workers never interleave (a path may be some 8,000 characters)."""


def _record(environ: WSGIEnvironment, request_id: str, status: str, route: str, flask_request: Any,
            duration: float) -> None:
    """Count and time one answered request (``route`` from ``_route``), and log it."""
    method = environ["REQUEST_METHOD"]
    requests, latency = _labelled((method if method in KNOWN_METHODS else "OTHER", route, status))
    requests.inc()
    latency.observe(duration)
    path = environ.get("PATH_INFO", "") if flask_request is None else flask_request.path
    entry = {
        "time": _utc_timestamp(time.time()),
        "request_id": request_id,
        "method": method,
        **_logged_path(path),
        "status": int(status),
        "duration_ms": round(duration * 1000, 3),
        "remote_addr": environ.get("REMOTE_ADDR"),
    }
    request_log.write(entry)


def _logged_path(path: str) -> dict[str, Any]:
    """A path as a log line holds it: its first ``LOGGED_PATH_LIMIT`` characters, and its whole length if longer."""
    if len(path) > LOGGED_PATH_LIMIT:
        return {"path": path[:LOGGED_PATH_LIMIT], "path_length": len(path)}
    return {"path": path}


@functools.cache
def _labelled(labels: tuple[str, str, str]) -> tuple[Counter, Histogram]:
    """The request counter and latency histogram of one (method, endpoint, status); the labels
    are bounded (known methods, routes, statuses), and so is this cache."""
    metrics = _metrics()
    return metrics.requests.labels(*labels), metrics.latency.labels(*labels)


def when_ready(server: Any) -> None:
    """gunicorn hook (master, once, its sockets bound, before the workers start): a clean metrics directory.

    Uses ``$PROMETHEUS_MULTIPROC_DIR`` when set (e.g. an emptyDir volume; made and checked with the settings,
    files of an earlier run there are deleted), else a new temporary directory, which ``on_exit`` removes. A
    reload (HUP) does not run this hook again, so totals survive it. A start that fails to bind ends before it, and
    without ``on_exit``: an earlier hook's temporary directory was left behind.
    """
    global _created_metrics_dir
    directory = os.environ.get(MULTIPROC_ENV)
    if directory:
        for stale in Path(directory).glob("*.db"):
            stale.unlink()
    else:
        _created_metrics_dir = tempfile.mkdtemp(prefix="gin-metrics-")
        os.environ[MULTIPROC_ENV] = _created_metrics_dir
    # Imported now, the variable set, rather than in child_exit: gunicorn (27 too) could run that hook again inside
    # itself, mid-import, on a second worker's exit.
    import prometheus_client.multiprocess  # noqa: F401


def child_exit(server: Any, worker: Any) -> None:
    """gunicorn hook (master): forget the live gauges of a worker that exited, and archive the counts of every
    worker that is gone. A failure to archive is logged and leaves the files, which scrapes still count: it must
    not stop the master."""
    from prometheus_client import multiprocess

    if directory := os.environ.get(MULTIPROC_ENV):
        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
        try:
            archive_counts(Path(directory), living=set(server.WORKERS))
        except Exception:  # any failure: a full or broken directory, a file prometheus_client left unreadable
            server.log.exception("could not archive the metrics of exited workers in %s", directory)


def archive_counts(directory: Path, living: set[int]) -> None:
    """Add the counts (counters, histograms, any kind but gauges) of each worker not ``living`` to the archive file
    of its kind, and delete its own files: a scrape reads every file, so without this each worker that ever lived
    (a reload replaces them all) would slow every scrape and fill the directory for good. Skipped while a scrape
    reads the files; the next worker's exit archives them."""
    with _metrics_files_locked(directory, exclusive=True) as held:
        if not held:
            return
        gone: dict[str, list[Path]] = {}
        for path in directory.glob("*.db"):
            if (match := WORKER_FILE.fullmatch(path.name)) and int(match["pid"]) not in living:
                gone.setdefault(match["kind"], []).append(path)
        for kind, files in gone.items():
            if written := [path for path in files if path.stat().st_size]:  # one that died making its file: none
                _add_to_archive(directory / f"{kind}_{ARCHIVE_NAME}.db", written)
            for path in files:
                path.unlink()


def _add_to_archive(archive: Path, files: list[Path]) -> None:
    """Write the archive anew with ``files`` added, and put it in place at once. Its space is allocated first:
    prometheus_client writes through a memory map, and a write past a full disk would kill the master (SIGBUS)
    where allocating raises an OSError. It is allocated exactly what it will hold: sized by its sources, 64 KiB
    or 1 MiB a worker's file whatever it holds, it grew by that at each exit."""
    from prometheus_client.mmap_dict import MmapedDict

    totals: dict[str, tuple[float, float]] = {}
    sources = [archive, *files] if archive.exists() else files
    for source in sources:
        for key, value, timestamp, _ in MmapedDict.read_all_values_from_file(str(source)):  # type: ignore[no-untyped-call]
            total, _ = totals.get(key, (0.0, 0.0))
            totals[key] = (total + value, timestamp)
    merged = archive.with_suffix(".new")  # not a .db: scrapes do not read it
    try:
        with open(merged, "wb") as space:
            os.posix_fallocate(space.fileno(), 0, MMAP_HEADER_BYTES + sum(map(_entry_bytes, totals)))
        written = MmapedDict(str(merged))  # type: ignore[no-untyped-call]
        try:
            for key, (total, timestamp) in totals.items():
                written.write_value(key, total, timestamp)  # type: ignore[no-untyped-call]
        finally:
            written.close()  # type: ignore[no-untyped-call]
    except OSError:
        merged.unlink(missing_ok=True)
        raise
    os.replace(merged, archive)


MMAP_HEADER_BYTES = 8
"""A prometheus_client file's header: the bytes it holds, as an int, padded to 8."""


def _entry_bytes(key: str) -> int:
    """The bytes prometheus_client's file gives one sample: the key's length (4), the key padded with spaces so
    that the two doubles after it (value and timestamp, 16) fall on 8 bytes (``MmapedDict._init_value``)."""
    length = len(key.encode("utf-8"))
    return 4 + length + (8 - (length + 4) % 8) + 16


def on_exit(server: Any) -> None:
    """gunicorn hook (master, at exit): remove the metrics directory if ``when_ready`` made it."""
    if _created_metrics_dir is not None:
        shutil.rmtree(_created_metrics_dir, ignore_errors=True)
