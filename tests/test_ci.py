"""CI's script runs the README's test command, word for word, as its last line."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_test_command() -> str:
    """The command in the README's block after "Set up and run the tests"."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"Set up and run the tests.*?```sh\n(.+?)\n```", text, re.DOTALL)
    assert match is not None, "the README no longer has its test command"
    return match.group(1)


def test_ci_ends_with_the_readme_test_command() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert script.rstrip("\n").splitlines()[-1] == readme_test_command()


def test_ci_script_parses() -> None:
    run = subprocess.run(["bash", "-n", str(ROOT / ".ci" / "run")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
