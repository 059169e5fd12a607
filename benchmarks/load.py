"""Load test: ``POST /v1/hands/analyze`` against a bare Flask echo of the same request.

Both apps run under the same gunicorn settings (``service/gunicorn_conf.py`` plus any
``--gunicorn`` options) on loopback. wrk drives them in turn, bare then service (then each
``--variant``: the service with other gunicorn options, for tuning), round after round, so that
all see the same machine load. For each run: requests per second, errors, latency percentiles, and
the CPU time the server's processes spent per request. The CPU figure is the steadier one when other
work shares the machine; its bare/service ratio is the throughput ratio a dedicated machine would
see, as long as the server is what saturates it.

Needs wrk (Debian: ``apt-get install wrk``) and Linux (/proc). From the repository root::

    python -m benchmarks.load --duration 10 --rounds 5
    python -m benchmarks.load --variant="--workers 3" --variant="--threads 2"
    python -m benchmarks.load --no-analysis    # also the service's HTTP layer alone: the floor
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import urllib.request
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.ops.live_server import GUNICORN_CONF, GunicornServer

PATH = "/v1/hands/analyze"
# A typical hand just after the draw: a run, a set, two near-melds and loose high cards.
HAND = ["As", "2s", "3s", "7h", "7d", "7c", "9h", "Th", "Jd", "Kc", "5d"]
BODY = json.dumps({"hand": HAND})
BARE_APP = "benchmarks.bare_app:app"
SERVICE_APP = "service:create_app()"
NO_ANALYSIS_APP = "benchmarks.no_analysis_app:create_app()"

# wrk's Lua: POST the body; at the end print one line of JSON (times in microseconds).
WRK_SCRIPT = (
    f"wrk.method = 'POST'\nwrk.body = [[{BODY}]]\nwrk.headers['Content-Type'] = 'application/json'\n"
    """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,' ..
    '"timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
"""
)


@dataclass(frozen=True)
class Run:
    """One wrk run's figures, and the CPU time the server's processes spent meanwhile."""

    rps: float
    errors: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    cpu_us: float  # server CPU time per request, microseconds

    def line(self) -> str:
        return (f"{self.rps:7.0f} req/s  errors {self.errors}  p50 {self.p50_ms:6.2f}  p99 {self.p99_ms:6.2f}  "
                f"max {self.max_ms:7.2f} ms  server CPU {self.cpu_us:5.0f} us/request")


def wrk(url: str, script: Path, seconds: int, connections: int, threads: int) -> dict[str, int]:
    """Run wrk with the POST script; its summary as numbers (times in microseconds)."""
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "5s", "-s", str(script), url]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    line = next(line for line in output.splitlines() if line.startswith("WRK_JSON "))
    figures: dict[str, int] = json.loads(line.removeprefix("WRK_JSON "))
    return figures


def cpu_seconds(server: GunicornServer) -> float:
    """User + system CPU time of the master and its workers so far (Linux /proc)."""
    ticks = 0
    for pid in (server.pid, *server.worker_pids()):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def measure(server: GunicornServer, script: Path, args: argparse.Namespace) -> Run:
    cpu_before = cpu_seconds(server)
    figures = wrk(server.url + PATH, script, args.duration, args.connections, args.threads)
    cpu = cpu_seconds(server) - cpu_before
    return Run(
        rps=figures["requests"] / figures["duration_us"] * 1e6,
        errors=sum(figures[kind] for kind in ("connect", "read", "write", "status", "timeout")),
        p50_ms=figures["p50_us"] / 1000,
        p99_ms=figures["p99_us"] / 1000,
        max_ms=figures["max_us"] / 1000,
        cpu_us=cpu / max(figures["requests"], 1) * 1e6,
    )


def check_answer(name: str, server: GunicornServer) -> None:
    """The endpoint answers the benchmark's request correctly before it is timed."""
    request = urllib.request.Request(server.url + PATH, BODY.encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.load(response)
    if name == "bare":
        assert answer == {"cards": len(HAND)}, answer
    else:
        assert sorted(answer["hand"]) == sorted(HAND) and "deadwood" in answer, answer


def spread(values: list[float], digits: int = 0) -> str:
    return f"median {statistics.median(values):.{digits}f} (min {min(values):.{digits}f}, max {max(values):.{digits}f})"


def report(runs: dict[str, list[Run]]) -> None:
    print(f"--- summary; load average now {os.getloadavg()[0]:.1f}")
    for name, own in runs.items():
        print(f"{name}: req/s {spread([r.rps for r in own])}; p99 ms {spread([r.p99_ms for r in own], 1)}; "
              f"CPU us/request {spread([r.cpu_us for r in own])}; errors {sum(r.errors for r in own)}")
    bare = runs["bare"]
    for name, own in runs.items():
        if name != "bare":
            print(f"{name}/bare per round: req/s {spread([s.rps / b.rps for b, s in zip(bare, own, strict=True)], 2)}"
                  f"; by CPU per request {spread([b.cpu_us / s.cpu_us for b, s in zip(bare, own, strict=True)], 2)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run (default 10)")
    parser.add_argument("--warmup", type=int, default=2, help="seconds of untimed load per server first")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over every target (default 3)")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections (default 16)")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads (default 1)")
    parser.add_argument("--config", type=Path, default=GUNICORN_CONF, help="gunicorn config file")
    parser.add_argument("--gunicorn", default="", help="extra gunicorn options for every server, as one string")
    parser.add_argument("--app", default=SERVICE_APP, help="the service's app, as gunicorn names it")
    parser.add_argument("--variant", action="append", default=[], help="also the service with these options")
    parser.add_argument("--no-analysis", action="store_true",
                        help="also the service with its analysis taken out (benchmarks/no_analysis_app.py)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (Debian: apt-get install wrk)")
    common = shlex.split(args.gunicorn)
    targets = {"bare": (BARE_APP, common), "service": (args.app, common)}
    targets |= {f"service {variant}": (args.app, [*common, *shlex.split(variant)]) for variant in args.variant}
    if args.no_analysis:
        targets["service without analysis"] = (NO_ANALYSIS_APP, common)
    print(f"gunicorn -c {args.config} {shlex.join(common)}; wrk -t{args.threads} -c{args.connections} "
          f"-d{args.duration}s; {args.rounds} rounds; {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}; body {BODY}")
    with tempfile.TemporaryDirectory() as scratch, ExitStack() as stack:
        script = Path(scratch) / "post.lua"
        script.write_text(WRK_SCRIPT)
        servers = {name: stack.enter_context(GunicornServer(app, options, args.config))
                   for name, (app, options) in targets.items()}
        for name, server in servers.items():
            check_answer(name, server)
            wrk(server.url + PATH, script, args.warmup, args.connections, args.threads)
        runs: dict[str, list[Run]] = {name: [] for name in servers}
        for round_number in range(1, args.rounds + 1):
            for name, server in servers.items():
                runs[name].append(measure(server, script, args))
                print(f"round {round_number} {name:24} {runs[name][-1].line()}", flush=True)
    report(runs)


if __name__ == "__main__":
    main()
