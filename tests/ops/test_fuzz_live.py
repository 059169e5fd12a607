"""Schemathesis against a real gunicorn: every phase that applies, every check, bounded in time.

Unlike tests/api/test_fuzz.py (in process, a few examples per operation) this goes over the
network to the server as deployed, for ``FUZZ_SECONDS``, including negative data (each must be a
documented 4xx) and a bound on every response time.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .live_server import GunicornServer

FUZZ_SECONDS = 40
# No generated request may hold a worker: the slowest valid one (a 1,000-hand batch) takes
# about 0.75 s on a loaded 2-core machine.
MAX_RESPONSE_SECONDS = 5
CONFIG = Path(__file__).with_name("schemathesis.toml")


BATCH = "/v1/hands/analyze/batch"
# A batch answers a bad hand in its own result (200 with a 422 inside) instead of rejecting the
# whole request, so the batch is fuzzed without the negative-data-rejection check (in process,
# tests/api/test_fuzz.py checks that such a batch has a 422 result).
RUNS = {
    "every operation but the batch": ["--exclude-path", BATCH],
    "the batch": ["--include-path", BATCH, "--exclude-checks", "negative_data_rejection"],
}


@pytest.mark.parametrize("selection", RUNS.values(), ids=RUNS.keys())
def test_schemathesis_finds_nothing(shared_server: GunicornServer, selection: list[str]) -> None:
    seconds = FUZZ_SECONDS // len(RUNS)
    command = [
        str(Path(sys.executable).with_name("schemathesis")), "--config-file", str(CONFIG), "--no-color",
        "run", f"{shared_server.url}/openapi.json",
        "--checks", "all", *selection,
        "--phases", "examples,coverage,fuzzing,stateful",
        "--max-time", str(seconds),
        "--max-response-time", str(MAX_RESPONSE_SECONDS),
        "--seed", "1",
        "--workers", "2",
    ]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-2000:]
    generated = re.search(r"(\d+) generated", run.stdout)
    assert generated and int(generated.group(1)) >= 100, run.stdout[-2000:]
