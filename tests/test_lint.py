"""The code passes the project's linters as configured in pyproject.toml: ruff, and mypy (strict)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "command",
    [["ruff", "check", "service", "tests", "benchmarks"], ["mypy"]],
    ids=["ruff", "mypy"],
)
def test_linter_is_clean(command: list[str]) -> None:
    run = subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
