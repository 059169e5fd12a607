"""The README's curl examples give the answers it shows.

Each ``$ curl`` in the README's console block is replayed against the app: the status line and
the headers shown (with ``-i``) must match, and the body must equal what the README prints. Where the
README shortens a body with ``…``, the text up to the first ``…`` must start the real body.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask.testing import FlaskClient

README = Path(__file__).resolve().parents[2] / "README.md"
ELLIPSIS = "…"


@dataclass(frozen=True)
class Example:
    """One curl command and the output the README shows for it."""

    command: str
    method: str
    path: str
    headers: dict[str, str]
    body: str | None
    shown: list[str]


def _examples() -> list[Example]:
    block = README.read_text(encoding="utf-8").split("```console\n", 1)[1].split("```", 1)[0]
    examples = []
    for chunk in re.split(r"\n(?=\$ curl)", block.strip()):
        lines = chunk.splitlines()
        command_lines = [lines[0]]
        while command_lines[-1].endswith("\\"):
            command_lines.append(lines[len(command_lines)])
        command = " ".join(line.rstrip("\\").strip() for line in command_lines).removeprefix("$ ")
        words = shlex.split(command)
        method, headers, body, url = "GET", {}, None, ""
        for index, word in enumerate(words):
            following = words[index + 1] if index + 1 < len(words) else ""
            if word == "-X":
                method = following
            elif word == "-H":
                name, value = following.split(": ", 1)
                headers[name] = value
            elif word == "-d":
                body = following
            elif word.startswith("localhost:8000"):
                url = word.removeprefix("localhost:8000")
        if body is not None:  # as curl does for -d
            method = "POST" if method == "GET" else method
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        shown = [line for line in lines[len(command_lines):] if line.strip()]
        examples.append(Example(command, method, url, headers, body, shown))
    return examples


EXAMPLES = _examples()


def test_the_readme_has_its_examples() -> None:
    assert len(EXAMPLES) >= 10 and all(example.shown for example in EXAMPLES)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.command[:70] for e in EXAMPLES])
def test_a_readme_example_answers_as_shown(client: FlaskClient, example: Example) -> None:
    body = example.body
    if example.path == "/v1/hint" and body is not None:
        # The README shows the engine's full answer; a slow moment of the test machine must not cut it.
        body = json.dumps({"time_budget_ms": None, **json.loads(body)})
    response = client.open(example.path, method=example.method, headers=example.headers, data=body)
    *head, shown_body = example.shown
    if head:  # -i: the status line, then headers
        assert head[0].split()[1] == str(response.status_code)
        for line in head[1:]:
            name, value = line.split(": ", 1)
            assert response.headers.get(name) == value, name
    real_body = response.get_data(as_text=True)
    if ELLIPSIS in shown_body:
        assert real_body.startswith(shown_body.split(ELLIPSIS, 1)[0])
    else:
        assert json.loads(real_body) == json.loads(shown_body)
