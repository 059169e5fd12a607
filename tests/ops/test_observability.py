"""The observability module on a tiny Flask app, in process (single-process metrics)."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask, abort, request
from flask.testing import FlaskClient
from prometheus_client.parser import text_string_to_metric_families

from service import observability


@pytest.fixture(scope="module")
def app() -> Flask:
    app = Flask("tiny")

    @app.before_request  # registered first, as create_app registers its body checks
    def reject_teapots() -> None:
        if request.path == "/teapot":
            time.sleep(0.01)
            abort(418)

    observability.init_app(app)

    @app.post("/hands/<int:size>")
    def hands(size: int) -> dict[str, int]:
        observability.count_hands_analyzed(size)
        return {"size": size}

    @app.get("/fail/<int:status>")
    def fail(status: int) -> str:
        abort(status)

    @app.get("/in-progress")
    def in_progress() -> dict[str, float]:
        exposition = observability.metrics_view().get_data(as_text=True)
        return {"value": value_in(exposition, "http_requests_in_progress")}

    return app


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


LogReader = Callable[[], list[dict[str, object]]]


@pytest.fixture
def logged(monkeypatch: pytest.MonkeyPatch) -> Iterator[LogReader]:
    """Reads the request log's lines written so far, from a pipe, each parsed as one JSON object."""
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    monkeypatch.setattr(observability, "request_log", observability.RequestLog(write_end))

    def read() -> list[dict[str, object]]:
        try:
            data = os.read(read_end, 1 << 16)
        except BlockingIOError:
            return []
        assert data.endswith(b"\n")
        return [json.loads(line) for line in data.splitlines()]

    yield read
    os.close(read_end)
    os.close(write_end)


def value_in(exposition: str, name: str, **labels: str) -> float:
    """The value of one sample in a Prometheus text exposition (0 if it is not there yet)."""
    for family in text_string_to_metric_families(exposition):
        for s in family.samples:
            if s.name == name and s.labels == labels:
                return s.value
    return 0.0


def sample(client: FlaskClient, name: str, **labels: str) -> float:
    """The value of one sample on /metrics."""
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.content_type.startswith("text/plain; version=")
    return value_in(response.get_data(as_text=True), name, **labels)


def test_counts_and_latency_by_endpoint_and_status(client: FlaskClient) -> None:
    labels = {"method": "POST", "endpoint": "/hands/<int:size>", "status": "200"}
    before = sample(client, "http_requests_total", **labels)
    latency_before = sample(client, "http_request_duration_seconds_count", **labels)
    slowest_bucket_before = sample(client, "http_request_duration_seconds_bucket", **labels, le="+Inf")
    for size in (10, 11, 11):
        assert client.post(f"/hands/{size}").status_code == 200
    assert sample(client, "http_requests_total", **labels) == before + 3
    assert sample(client, "http_request_duration_seconds_count", **labels) == latency_before + 3
    assert sample(client, "http_request_duration_seconds_bucket", **labels, le="+Inf") == slowest_bucket_before + 3


@pytest.mark.parametrize(
    ("method", "path", "labels"),
    [
        ("GET", "/fail/400", {"method": "GET", "endpoint": "/fail/<int:status>", "status": "400"}),
        ("GET", "/fail/503", {"method": "GET", "endpoint": "/fail/<int:status>", "status": "503"}),
        ("GET", "/no/such/path/42", {"method": "GET", "endpoint": "unmatched", "status": "404"}),
        # a method the route does not allow is counted under the route
        ("BREW", "/hands/3", {"method": "OTHER", "endpoint": "/hands/<int:size>", "status": "405"}),
        ("GET", "/hands/3", {"method": "GET", "endpoint": "/hands/<int:size>", "status": "405"}),
        # a browser's preflight is counted as what it is
        ("OPTIONS", "/hands/3", {"method": "OPTIONS", "endpoint": "/hands/<int:size>", "status": "200"}),
        # and so is every standard method
        ("HEAD", "/fail/400", {"method": "HEAD", "endpoint": "/fail/<int:status>", "status": "400"}),
        *((method, "/hands/3", {"method": method, "endpoint": "/hands/<int:size>", "status": "405"})
          for method in ("PUT", "PATCH", "DELETE")),
    ],
)
def test_errors_are_counted_with_bounded_labels(
    client: FlaskClient, method: str, path: str, labels: dict[str, str]
) -> None:
    before = sample(client, "http_requests_total", **labels)
    client.open(path, method=method)
    assert sample(client, "http_requests_total", **labels) == before + 1


def test_latency_is_counted_in_the_documented_buckets(client: FlaskClient) -> None:
    client.post("/hands/3")
    exposition = client.get("/metrics").get_data(as_text=True)
    bounds = [s.labels["le"] for family in text_string_to_metric_families(exposition) for s in family.samples
              if s.name == "http_request_duration_seconds_bucket" and s.labels["endpoint"] == "/hands/<int:size>"
              and s.labels["status"] == "200" and s.labels["method"] == "POST"]
    assert bounds == [*map(str, observability.LATENCY_BUCKETS), "+Inf"]
    assert bounds[0] == "0.001" and bounds[-2] == "30.0"  # 1 ms to 30 s, as the deploy README says


def test_hands_analyzed(client: FlaskClient) -> None:
    before = sample(client, "gin_hands_analyzed_total")
    client.post("/hands/7")
    client.post("/hands/1")
    assert sample(client, "gin_hands_analyzed_total") == before + 8


def test_in_progress_counts_the_current_request_only(client: FlaskClient) -> None:
    assert client.get("/in-progress").get_json() == {"value": 1.0}
    assert sample(client, "http_requests_in_progress") == 1.0  # the /metrics request itself


def test_a_given_request_id_is_echoed_and_logged(client: FlaskClient, logged: LogReader) -> None:
    response = client.post("/hands/11?x=1", headers={"X-Request-ID": "trace-7f3a:42"})
    assert response.headers["X-Request-ID"] == "trace-7f3a:42"
    [line] = logged()
    assert line["request_id"] == "trace-7f3a:42"
    assert line["method"] == "POST"
    assert line["path"] == "/hands/11"
    assert line["status"] == 200
    assert isinstance(line["duration_ms"], float) and 0 <= line["duration_ms"] < 1000
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", str(line["time"]))


def test_the_log_line_names_the_peer_and_the_decoded_path(client: FlaskClient, logged: LogReader) -> None:
    client.get("/fail/caf%C3%A9", environ_base={"REMOTE_ADDR": "10.1.2.3"})
    [line] = logged()
    assert (line["remote_addr"], line["path"], line["status"]) == ("10.1.2.3", "/fail/café", 404)


def test_a_long_path_is_logged_cut_short_so_that_every_line_is_written_at_once(
        client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A security audit: 8,000-character paths made log lines longer than a pipe writes at once (4 KiB), and
    under load half the lines of a slow reader's pipe were spliced into one another."""
    read_end, write_end = os.pipe()
    monkeypatch.setattr(observability, "request_log", observability.RequestLog(write_end))
    try:
        client.get("/" + "%01" * 3000, headers={"X-Request-ID": '"' * 128})  # 3,001 characters, 6 bytes each
        written = os.read(read_end, 1 << 16)  # the bytes as the log wrote them
        client.get("/" + "x" * (observability.LOGGED_PATH_LIMIT - 1))
        shorter = json.loads(os.read(read_end, 1 << 16))
    finally:
        os.close(read_end)
        os.close(write_end)
    assert written.endswith(b"\n") and written.count(b"\n") == 1 and len(written) <= select.PIPE_BUF == 4096
    line = json.loads(written)
    assert line["path"] == "/" + "\x01" * (observability.LOGGED_PATH_LIMIT - 1) and line["path_length"] == 3001
    assert "path_length" not in shorter
    # A mutation audit: the limit could change without a test failing, and the deploy README names it.
    limit = observability.LOGGED_PATH_LIMIT
    readme = (Path(__file__).parents[2] / "service" / "deploy" / "README.md").read_text(encoding="utf-8")
    assert f"A path longer than {limit} characters is logged cut to its first {limit}," in readme


@pytest.mark.parametrize("given", [None, "", "has space", "x" * 129, "naïve", 'tab\t"}{', "del\x7f"])
def test_a_missing_or_unsafe_request_id_is_replaced(
    client: FlaskClient, logged: LogReader, given: str | None
) -> None:
    headers = {} if given is None else {"X-Request-ID": given}
    response = client.get("/fail/400", headers=headers)
    generated = response.headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", generated)
    [line] = logged()
    assert (line["request_id"], line["status"]) == (generated, 400)


def test_generated_request_ids_differ(client: FlaskClient) -> None:
    ids = {client.get("/fail/404").headers["X-Request-ID"] for _ in range(20)}
    assert len(ids) == 20
    assert len({request_id[:16] for request_id in ids}) > 1  # 128 random bits, not 64 padded with zeros


def test_log_times_are_utc_with_milliseconds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "America/New_York")  # the server's own time zone does not show
    time.tzset()
    try:
        assert observability._utc_timestamp(1_700_000_000.5) == "2023-11-14T22:13:20.500+00:00"
        assert observability._utc_timestamp(1_700_003_600.25) == "2023-11-14T23:13:20.250+00:00"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_request_rejected_by_a_later_hook_is_timed_and_keeps_its_id(
    client: FlaskClient, logged: LogReader
) -> None:
    response = client.get("/teapot", headers={"X-Request-ID": "tea-1"})
    assert (response.status_code, response.headers["X-Request-ID"]) == (418, "tea-1")
    [line] = logged()
    assert (line["request_id"], line["status"]) == ("tea-1", 418)
    assert float(str(line["duration_ms"])) >= 10


def test_metrics_made_before_the_multiprocess_directory_was_set_fail_loudly(tmp_path: Path) -> None:
    """As when a module counts at import in a preloading gunicorn master: /metrics must not
    quietly show one worker's counts."""
    script = f"""
import os
from flask import Flask
from service import observability
observability.count_hands_analyzed()
os.environ["PROMETHEUS_MULTIPROC_DIR"] = {str(tmp_path)!r}
app = Flask("late")
observability.init_app(app)
print(app.test_client().get("/metrics").status_code)
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.stdout.splitlines()[-1] == "500"
    assert "made before PROMETHEUS_MULTIPROC_DIR was set" in run.stderr


def test_threads_that_make_the_first_requests_together_count_into_one_registry() -> None:
    """As the first requests of a gthread worker: the metrics are made once however many threads
    ask for them at once (making a registry is slowed so that they all do)."""
    script = """
import os, threading, time
import prometheus_client
from flask import Flask
from service import observability

class SlowRegistry(prometheus_client.CollectorRegistry):
    def __init__(self, *args, **kwargs):
        time.sleep(0.05)
        super().__init__(*args, **kwargs)

prometheus_client.CollectorRegistry = SlowRegistry
observability.request_log = observability.RequestLog(os.open(os.devnull, os.O_WRONLY))
app = Flask("threaded")
observability.init_app(app)
app.add_url_rule("/ok", "ok", lambda: "ok")
threads = [threading.Thread(target=app.test_client().get, args=("/ok",)) for _ in range(16)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(app.test_client().get("/metrics").get_data(as_text=True))
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    ok = {"method": "GET", "endpoint": "/ok", "status": "200"}
    assert value_in(run.stdout, "http_requests_total", **ok) == 16
    assert value_in(run.stdout, "http_requests_in_progress") == 1  # the scrape itself


@pytest.mark.parametrize(("level", "logged_levels"), [
    ("", ["ERROR"]), ("CRITICAL", []), ("debug", ["DEBUG", "ERROR"])])
def test_the_app_logs_one_json_line_a_record_from_its_level(level: str, logged_levels: list[str]) -> None:
    """Outside pytest, whose own log handler keeps Flask from adding its plain-text one: each record is one
    JSON line on standard error, and ``GIN_LOG_LEVEL`` sets which are written."""
    script = """
from service import create_app
app = create_app()
app.logger.debug("a detail")
app.logger.error("a failure")
"""
    env = {**os.environ, "GIN_LOG_LEVEL": level}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert [json.loads(line)["level"] for line in run.stderr.splitlines()] == logged_levels, run.stderr


def test_an_exception_that_escapes_flask_is_counted_logged_and_leaves_nothing_in_progress(
    logged: LogReader,
) -> None:
    """With exceptions propagated (as in testing), the middleware still answers for the request:
    a 500 in the counts and the log, and the in-progress gauge back where it was. (Its route is
    "unmatched": Flask has dropped its request by then; served, Flask answers the 500 itself.)"""
    app = Flask("propagating")
    app.config["PROPAGATE_EXCEPTIONS"] = True
    observability.init_app(app)

    @app.get("/boom")
    def boom() -> str:
        raise RuntimeError("boom")

    client = app.test_client()
    labels = {"method": "GET", "endpoint": "unmatched", "status": "500"}
    before = sample(client, "http_requests_total", **labels)
    in_progress = sample(client, "http_requests_in_progress")
    logged()
    with pytest.raises(RuntimeError, match="boom"):
        client.get("/boom", headers={"X-Request-ID": "boom-1"})
    [line] = logged()
    assert (line["request_id"], line["status"], line["path"]) == ("boom-1", 500, "/boom")
    assert sample(client, "http_requests_total", **labels) == before + 1
    assert sample(client, "http_requests_in_progress") == in_progress


def test_a_request_log_that_cannot_be_written_costs_the_answer_nothing(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Standard output piped to a reader that is gone (or a full disk): the client still gets its
    answer, and the failure goes to standard error, naming the request."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    monkeypatch.setattr(observability, "request_log", observability.RequestLog(write_end))
    app = Flask("unlogged")
    observability.init_app(app)  # after capsys took standard error: the handler writes to the capture
    app.get("/ok")(lambda: "fine")
    try:
        answer = app.test_client().get("/ok", headers={"X-Request-ID": "lost-log-1"})
    finally:
        os.close(write_end)
    assert (answer.status_code, answer.get_data(as_text=True)) == (200, "fine")
    [line] = capsys.readouterr().err.splitlines()
    entry = json.loads(line)
    assert (entry["level"], entry["message"]) == ("ERROR", "request lost-log-1 was answered but not recorded")
    assert entry["exception"].endswith("BrokenPipeError: [Errno 32] Broken pipe")


def test_a_failure_is_logged_as_one_json_line_with_the_request_id(capsys: pytest.CaptureFixture[str]) -> None:
    """A served 500: the traceback goes to standard error inside one JSON line that names the
    request, so a log pipeline that reads JSON lines keeps it whole and can join it to the request."""
    app = Flask("failing")
    observability.init_app(app)  # after capsys took standard error: the handler writes to the capture

    @app.get("/boom")
    def boom() -> str:
        raise RuntimeError("boom at line\ntwo")

    assert app.test_client().get("/boom", headers={"X-Request-ID": "fail-7"}).status_code == 500
    [line] = capsys.readouterr().err.splitlines()
    entry = json.loads(line)
    assert (entry["level"], entry["request_id"], entry["method"], entry["path"]) == ("ERROR", "fail-7", "GET", "/boom")
    assert entry["message"] == "Exception on /boom [GET]"
    assert entry["exception"].startswith("Traceback") and entry["exception"].endswith("RuntimeError: boom at line\ntwo")


def test_a_long_failure_is_logged_within_what_a_pipe_writes_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    """Like the request log's lines: a long path, message or traceback would let the lines of several workers
    interleave. The path is cut as there, the message at its end, the traceback at its start."""
    app = Flask("failing")
    observability.init_app(app)

    @app.get("/<path:anything>")
    def boom(anything: str) -> str:
        raise RuntimeError("the cause " + "\x02" * 3000)

    path = "/" + "%01" * 3000  # 3,001 characters, each escaped to 6 bytes in JSON
    assert app.test_client().get(path).status_code == 500
    app.logger.warning("Invalid request line: %s", "\x03" * 8000)  # as gunicorn echoes one
    failure, refusal = capsys.readouterr().err.splitlines()
    for line in (failure, refusal):
        assert len(line.encode()) + 1 <= observability.LOG_LINE_BYTES == select.PIPE_BUF
    entry = json.loads(failure)
    assert (entry["path"], entry["path_length"]) == ("/" + "\x01" * (observability.LOGGED_PATH_LIMIT - 1), 3001)
    assert entry["exception"].endswith("\x02" * 10) and not entry["exception"].startswith("Traceback")
    assert entry["exception_length"] > len(entry["exception"]) and "message_length" in entry
    assert entry["message"].startswith("Exception on /\x01")
    entry = json.loads(refusal)
    assert entry["message"].startswith("Invalid request line: \x03") and entry["message_length"] == 8022
    assert "exception_length" not in entry


def test_records_outside_a_request_have_no_request_fields(capsys: pytest.CaptureFixture[str]) -> None:
    app = Flask("quiet")
    observability.init_app(app)
    app.logger.warning("starting %s", "up")
    entry = json.loads(capsys.readouterr().err)
    assert entry.keys() == {"time", "level", "logger", "message"}
    assert (entry["level"], entry["logger"], entry["message"]) == ("WARNING", "quiet", "starting up")


def _counter_file(directory: Path, owner: str, count: float) -> None:
    """A counter file as a worker ``owner`` (a pid, or the archive) leaves it: one sample of ``count``."""
    from prometheus_client.mmap_dict import MmapedDict, mmap_key

    written = MmapedDict(str(directory / f"counter_{owner}.db"))  # type: ignore[no-untyped-call]
    written.write_value(mmap_key("gin_hands_analyzed", "gin_hands_analyzed_total", [], [], "Hands."), count, 0.0)  # type: ignore[no-untyped-call]
    written.close()  # type: ignore[no-untyped-call]


def _archived_total(directory: Path) -> float:
    from prometheus_client.mmap_dict import MmapedDict

    [(_, total, _, _)] = MmapedDict.read_all_values_from_file(str(directory / "counter_archive.db"))  # type: ignore[no-untyped-call]
    return float(total)


def test_a_dead_workers_counts_are_added_to_the_archive(tmp_path: Path) -> None:
    """Every worker not living is archived, whenever it died; the living workers' files and the gauges stay."""
    for pid, count in ((101, 3.0), (102, 4.0), (103, 5.0)):
        _counter_file(tmp_path, str(pid), count)
    (tmp_path / "gauge_livesum_102.db").write_bytes(b"")  # mark_process_dead's to delete, not the archive's
    (tmp_path / "histogram_104.db").write_bytes(b"")  # a worker that died making its file
    observability.archive_counts(tmp_path, living={103})
    assert _archived_total(tmp_path) == 7.0
    assert sorted(path.name for path in tmp_path.glob("*.db")) == [
        "counter_103.db", "counter_archive.db", "gauge_livesum_102.db"]
    observability.archive_counts(tmp_path, living=set())
    assert _archived_total(tmp_path) == 12.0
    assert not list(tmp_path.glob("*.new"))


def test_the_archive_is_allocated_exactly_what_it_holds_however_many_workers_died(tmp_path: Path) -> None:
    """It was given the sizes of the files it merged, 64 KiB a dead worker's counter file (1 MiB a histogram's),
    so it grew by that at each exit (a soak test: 2.3 to 3.6 MB after six reloads, on a memory-backed volume).
    Given less than it holds, prometheus_client would grow it unallocated (a write past a full disk: SIGBUS)."""
    from prometheus_client.mmap_dict import MmapedDict, mmap_key

    for pid in range(100, 120):
        written = MmapedDict(str(tmp_path / f"counter_{pid}.db"))  # type: ignore[no-untyped-call]
        for label in range(pid % 7, 40, 3):  # keys of every length mod 8, some in several files
            key = mmap_key("gin_requests", "gin_requests_total", ["path"], ["/v" + "x" * label], "Requests.")
            written.write_value(key, 1.0, 0.0)  # type: ignore[no-untyped-call]
        written.close()  # type: ignore[no-untyped-call]
        observability.archive_counts(tmp_path, living=set())
        archive = tmp_path / "counter_archive.db"
        with open(archive, "rb") as file:
            held = int.from_bytes(file.read(4), sys.byteorder)
        assert archive.stat().st_size == held
    assert len(list(MmapedDict.read_all_values_from_file(str(archive)))) == 40  # type: ignore[no-untyped-call]


def test_a_worker_killed_before_its_file_held_anything_is_archived_with_the_rest(tmp_path: Path) -> None:
    """Killed between prometheus_client's sizing of its file and its first write, it leaves 64 KiB of zeros: a
    sum of what the sources held came to 0, and allocating 0 bytes failed, leaving every kind unarchived."""
    (tmp_path / "counter_5.db").write_bytes(bytes(65536))
    _counter_file(tmp_path, "6", 2.0)
    (tmp_path / "counter_6.db").rename(tmp_path / "histogram_6.db")  # another kind, archived after it
    observability.archive_counts(tmp_path, living=set())
    assert sorted(p.name for p in tmp_path.glob("*.db")) == ["counter_archive.db", "histogram_archive.db"]


def test_archiving_does_not_wait_for_a_scrape(tmp_path: Path) -> None:
    """A scrape holds the lock shared while it reads the files: the master neither archives under it (a dead
    worker counted twice, or a file deleted under the scrape) nor waits for it; the next exit archives."""
    _counter_file(tmp_path, "101", 3.0)
    with observability._metrics_files_locked(tmp_path, exclusive=False):
        observability.archive_counts(tmp_path, living=set())
        assert (tmp_path / "counter_101.db").exists() and not (tmp_path / "counter_archive.db").exists()
    observability.archive_counts(tmp_path, living=set())
    assert not (tmp_path / "counter_101.db").exists() and _archived_total(tmp_path) == 3.0


class _Master:
    """What child_exit reads of gunicorn's arbiter: its living workers and its log."""

    def __init__(self) -> None:
        self.WORKERS: dict[int, object] = {}
        self.logged: list[str] = []
        self.log = self

    def exception(self, message: str, *args: object) -> None:
        self.logged.append(message % args)


def test_a_failure_to_archive_is_logged_and_the_master_goes_on(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """It raised out of gunicorn's hook, and gunicorn 27 stops the master on that (a review made the lock file a
    directory); the files stay, and scrapes go on counting them."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    _counter_file(tmp_path, "101", 3.0)
    (tmp_path / "files.lock").mkdir()
    master = _Master()
    observability.child_exit(master, type("Worker", (), {"pid": 101})())
    assert master.logged == [f"could not archive the metrics of exited workers in {tmp_path}"]
    assert (tmp_path / "counter_101.db").exists()


def test_a_scrape_passes_over_a_file_a_worker_is_still_making(tmp_path: Path) -> None:
    """prometheus_client creates a worker's file empty and sizes it after: read then, it failed the whole scrape
    (struct.error, a 500), as a review saw while workers came and went."""
    _counter_file(tmp_path, "101", 3.0)
    (tmp_path / "counter_102.db").write_bytes(b"")
    [family] = observability.WorkerFilesCollector(tmp_path).collect()
    assert [(sample.name, sample.value) for sample in family.samples] == [("gin_hands_analyzed_total", 3.0)]
