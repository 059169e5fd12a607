"""Where a request's time goes, in CPU instructions counted by valgrind's callgrind.

Instruction counts do not move with the machine's load, so on a shared machine they compare code
far better than timings do. Each figure is the count for N calls minus the count for none (the
interpreter's start, imports and a warm-up), divided by N. Python's hash seed is fixed, so a
figure repeats to within about 1%. Callgrind counts the process's own instructions only, not the
kernel's work for its system calls (the sockets, mostly), so the ratios of these counts are not
the ratios of CPU time.

    python -m benchmarks.instructions                 # every part, 100 calls each
    python -m benchmarks.instructions --calls 200 --parts bare service gunicorn-bare gunicorn-service

Parts, each on the load test's 11-card hand (``benchmarks/load.py``):

* ``bare`` / ``service``: one ``POST /v1/hands/analyze`` through the WSGI app, in process: the bare
  Flask echo against the whole service (Prometheus in multiprocess mode, as under gunicorn);
* ``no-observability``: the service without its metrics, request log and request id;
* ``no-analysis``: the service with the analysis taken out (``benchmarks/no_analysis_app.py``);
* ``analysis``: ``analyze_drawn_hand`` alone; ``answer``: the analysis and its JSON-ready answer;
  ``validation``: loading the request with its schema;
* ``gunicorn-bare`` / ``gunicorn-service`` / ``gunicorn-no-analysis``: the request over loopback to
  a one-worker gunicorn (the project's settings), counted in the worker process.

Needs valgrind (Debian: ``apt-get install valgrind``); each part takes 10-60 s.
"""

from __future__ import annotations

import argparse
import gc
import http.client
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load import BARE_APP, BODY, HAND, NO_ANALYSIS_APP, PATH, SERVICE_APP  # noqa: E402

IN_PROCESS = ("bare", "service", "no-observability", "no-analysis", "analysis", "answer", "validation")
SERVED = ("gunicorn-bare", "gunicorn-service", "gunicorn-no-analysis")
WARM_UP = 20


def _environ() -> dict[str, Any]:
    body = BODY.encode()
    return {
        "REQUEST_METHOD": "POST", "PATH_INFO": PATH, "SERVER_NAME": "bench", "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_HOST": "bench", "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr, "wsgi.multithread": False,
        "wsgi.multiprocess": True, "wsgi.run_once": False,
    }


def _through(app: Any) -> Callable[[], object]:
    def call() -> object:
        return b"".join(app(_environ(), lambda status, headers, exc_info=None: None))

    return call


def _part(name: str) -> Callable[[], object]:
    """The call that one in-process part repeats (run inside the counted process)."""
    if name == "bare":
        from benchmarks.bare_app import app

        return _through(app)
    from service import observability

    observability.request_log = observability.RequestLog(os.open(os.devnull, os.O_WRONLY))
    if name in ("service", "no-observability"):
        if name == "no-observability":
            observability.init_app = lambda app: None  # type: ignore[assignment]
            observability.count_hands_analyzed = lambda hands=1: None  # type: ignore[assignment]
        from service import create_app

        return _through(create_app())
    if name == "no-analysis":
        from benchmarks.no_analysis_app import create_app as create_app_without_analysis

        return _through(create_app_without_analysis())
    from service.api.hands import analyze
    from service.api.schemas import AnalyzeRequest
    from service.core.cards import parse_hand
    from service.core.melds import analyze_drawn_hand
    from service.core.rules import resolve_rules

    hand, rules, schema = parse_hand(HAND), resolve_rules(), AnalyzeRequest()
    return {
        "analysis": lambda: analyze_drawn_hand(hand),
        "answer": lambda: analyze(hand, rules),
        "validation": lambda: schema.load({"hand": HAND}),
    }[name]


def _run_part(name: str, calls: int) -> None:
    """Inside the counted process: warm up, then make ``calls`` calls.

    The objects made so far are frozen out of the garbage collector's reach, so that a full
    collection (its cost grows with every object the process holds) does not land in one run's
    count and not in the other's. (gunicorn's workers do not freeze: freezing in the master before
    each fork changed neither req/s nor the workers' memory under load, measured 2026-11-24.)
    """
    call = _part(name)
    for _ in range(WARM_UP):
        call()
    gc.collect()
    gc.freeze()
    for _ in range(calls):
        call()


def _callgrind(command: list[str], out: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--trace-children=yes", f"--callgrind-out-file={out}", *command],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def _total(out_file: Path) -> int:
    match = re.search(r"^summary: (\d+)", out_file.read_text(), re.MULTILINE)
    assert match, f"no summary in {out_file}"
    return int(match.group(1))


def _count_in_process(name: str, calls: int, scratch: Path, env: dict[str, str]) -> int:
    out = scratch / f"{name}-{calls}.out"
    command = [sys.executable, "-m", "benchmarks.instructions", "--inside", name, "--calls", str(calls)]
    if _callgrind(command, str(out), env).wait() != 0:
        sys.exit(f"{name}: the counted run failed")
    return _total(out)


def _count_served(name: str, calls: int, scratch: Path, env: dict[str, str]) -> int:
    """Instructions of a one-worker gunicorn's worker after ``calls`` requests (plus the warm-up)."""
    app = {"gunicorn-bare": BARE_APP, "gunicorn-service": SERVICE_APP, "gunicorn-no-analysis": NO_ANALYSIS_APP}[name]
    runs = scratch / f"{name}-{calls}"
    runs.mkdir()
    port = 8000 + os.getpid() % 1000
    command = [str(Path(sys.executable).with_name("gunicorn")), "-c", "service/gunicorn_conf.py", "-w", "1",
               "-b", f"127.0.0.1:{port}", app]
    server = _callgrind(command, str(runs / "cg.%p"), env)
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                _post(port)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    sys.exit(f"{name}: gunicorn did not start under valgrind")
                time.sleep(0.5)
        for _ in range(WARM_UP - 1 + calls):
            _post(port)
    finally:
        server.terminate()
        server.wait(timeout=300)
    # The worker is the process started last: its file has the highest pid.
    worker = max(runs.glob("cg.*"), key=lambda path: int(path.suffix[1:]))
    return _total(worker)


def _post(port: int) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("POST", PATH, BODY, {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        assert response.status == 200, response.status
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=100, help="calls counted per part (default 100)")
    parser.add_argument("--parts", nargs="+", choices=IN_PROCESS + SERVED, default=list(IN_PROCESS + SERVED))
    parser.add_argument("--inside", choices=IN_PROCESS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        _run_part(args.inside, args.calls)
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as directory:
        scratch = Path(directory)
        metrics = scratch / "metrics"
        metrics.mkdir()
        env = {**os.environ, "PYTHONHASHSEED": "0", "PROMETHEUS_MULTIPROC_DIR": str(metrics)}
        for name in args.parts:
            count = _count_served if name in SERVED else _count_in_process
            figures = [count(name, calls, scratch, env) for calls in (0, args.calls)]
            print(f"{name:18} {(figures[1] - figures[0]) / args.calls / 1000:8.0f} k instructions per call",
                  flush=True)


if __name__ == "__main__":
    main()
