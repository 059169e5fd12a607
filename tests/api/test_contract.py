"""The contract: the committed openapi.yaml is the code's, valid, complete, with working examples.

Also the deployment files: the Dockerfile passes hadolint, gunicorn's settings come from the
environment, and ``python -m service`` really serves.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient
from gunicorn.util import parse_address
from hypothesis import example, given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from referencing import Registry

from service.api.fields import CARD_PATTERN, hand_text_pattern
from service.api.schemas import HINT_TIME_BUDGET_MS
from service.config import DEFAULTS
from service.core.cards import CardError, parse_card, parse_hand
from service.core.hints import DEFAULT_CONFIG
from service.core.rules import RULE_PARAMETERS
from service.core.scoring import EXTRA_BOXES
from service.observability import MULTIPROC_ENV
from service.spec import COMMITTED
from service.spec import main as spec_main

from .conftest import SPEC_URI

DEFAULT_RULES = {parameter.name: parameter.default for parameter in RULE_PARAMETERS}

ROOT = Path(__file__).resolve().parents[2]


def test_committed_spec_is_what_the_server_serves(app: Flask) -> None:
    assert COMMITTED.read_text(encoding="utf-8") == app.extensions["openapi"]["yaml"], (
        "openapi.yaml is out of date: run python -m service.spec")
    assert yaml.safe_load(app.extensions["openapi"]["yaml"]) == json.loads(app.extensions["openapi"]["json"])


def test_spec_check_command_detects_drift(tmp_path: Path) -> None:
    stale = tmp_path / "openapi.yaml"
    stale.write_text("openapi: 3.1.0\n", encoding="utf-8")
    assert spec_main(["--check", "--output", str(stale)]) == 1
    assert spec_main(["--output", str(stale)]) == 0
    assert spec_main(["--check", "--output", str(stale)]) == 0


def test_spec_command_refuses_to_write_beside_an_installed_package(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Installed without -e, the package's parent is site-packages: nothing is written or compared there."""
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.setattr("service.spec.COMMITTED", site / "openapi.yaml")
    assert spec_main([]) == 2 and spec_main(["--check"]) == 2
    assert not any(site.iterdir()) and "not a source checkout" in capsys.readouterr().err


def test_spec_is_valid_openapi(spec: dict[str, Any]) -> None:
    validate(spec)
    assert spec["openapi"] == "3.1.0"


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, operation) for path, item in spec["paths"].items() for method, operation in item.items()]


@given(st.text(alphabet="10A2TtKkshSH♠♣♤\ufe0e\ufe0f ,\t", max_size=8))
@example("A♠\ufe0f")  # a suit may carry one variation selector...
@example("10s\ufe0e")
@example("K♣\ufe0f\ufe0f")  # ...not two
def test_the_spec_card_pattern_accepts_what_the_parser_accepts(text: str) -> None:
    try:
        parse_card(text)
        parsed = True
    except CardError:
        parsed = False
    assert (re.fullmatch(CARD_PATTERN, text) is not None) == parsed, repr(text)


# ECMAScript's \s (ECMA-262: WhiteSpace and LineTerminator), the regular-expression dialect of the spec's
# patterns; Python's \s also matches U+001C-U+001F and U+0085, and not U+FEFF.
ECMASCRIPT_SPACE = "\t\n\v\f\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + (
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
SPACES = sorted({c for c in map(chr, range(0x10000)) if c.isspace()} | set(ECMASCRIPT_SPACE))


def _parses(parse: Any, text: str) -> bool:
    try:
        parse(text)
    except CardError:
        return False
    return True


@pytest.mark.parametrize("space", SPACES, ids=lambda space: f"U+{ord(space):04X}")
def test_cards_take_the_white_space_of_the_spec_patterns_and_no_other(space: str) -> None:
    """A space the spec allows is accepted (not a 422), and one it refuses is not answered (200)."""
    card, hand = f"{space}A{space}s{space}", space.join(["As", "2s", "3s", "7h", "7d", "7c", "Kd", "Qd", "Jd", "5c"])
    allowed = space in ECMASCRIPT_SPACE
    assert (re.fullmatch(CARD_PATTERN, card) is not None) == allowed
    assert (re.fullmatch(hand_text_pattern(10, 11), hand) is not None) == allowed
    assert _parses(parse_card, card) == allowed
    assert _parses(lambda text: parse_hand(text, (10,)), hand) == allowed


def test_every_route_but_the_documentation_pages_is_in_the_spec(app: Flask, spec: dict[str, Any]) -> None:
    """``/metrics`` too, though it is served outside the API's blueprints; ``/docs`` is the spec's own viewer."""
    served = {rule.rule for rule in app.url_map.iter_rules() if not rule.endpoint.startswith("swagger_ui.")}
    assert served == set(spec["paths"])
    assert spec["paths"]["/metrics"]["get"]["responses"]["200"]["content"].keys() == {"text/plain"}


def test_every_operation_has_its_own_operation_id(spec: dict[str, Any]) -> None:
    """Client generators name their methods by it."""
    ids = [operation.get("operationId") for _, _, operation in _operations(spec)]
    assert None not in ids and len(set(ids)) == len(ids), ids


def test_every_operation_documents_its_answers_and_errors(spec: dict[str, Any]) -> None:
    for path, method, operation in _operations(spec):
        responses = operation["responses"]
        assert "200" in responses and "default" in responses and "431" in responses, (method, path)
        if "requestBody" in operation:
            assert {"400", "413", "415", "422"} <= responses.keys(), (method, path)
        if any(parameter.get("in") == "query" for parameter in operation.get("parameters", [])):
            assert {"414", "422"} <= responses.keys(), (method, path)
        if path.startswith("/v1/"):
            assert _examples(responses["200"]["content"]["application/json"]), (method, path)
            if "requestBody" in operation:
                assert _examples(operation["requestBody"]["content"]["application/json"]), (method, path)
    for name, response in spec["components"]["responses"].items():
        # Every error is problem+json, gunicorn's own refusals too.
        assert list(response["content"]) == ["application/problem+json"], name
        assert all(_examples(media) for media in response["content"].values()), name


def _inline_schemas(node: Any, where: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every schema object under ``node`` but the components themselves, examples skipped."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        if where.count("/") > 3 or not where.startswith("/components/schemas/"):
            found.append((where, node))
        for key, value in node.items():
            if key not in ("example", "examples"):
                found += _inline_schemas(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _inline_schemas(value, f"{where}/{index}")
    return found


def test_enums_that_are_shared_or_nullable_are_named_components(spec: dict[str, Any]) -> None:
    """Client generators make a type of each inline enum, named after the place it is in, and split an
    enum with null into several such types; so an enum used in more than one place, or with null, is a
    component, and a field that refers to one has no type or choices of its own beside it."""
    enums = [(where, schema) for where, schema in _inline_schemas(spec) if "enum" in schema]
    assert len(enums) >= 5
    for where, schema in enums:
        assert None not in schema["enum"], where
        assert "null" not in schema.get("type", []), where
    named = [schema for schema in spec["components"]["schemas"].values() if "enum" in schema]
    values = [tuple(schema["enum"]) for schema in named + [schema for _, schema in enums]]
    assert len(set(values)) == len(values), sorted(values)
    for where, schema in _inline_schemas(spec):
        if any("$ref" in part for part in schema.get("allOf", schema.get("anyOf", []))):
            assert not {"type", "enum"} & schema.keys(), where
    named_enums = {"PresetName", "OklahomaAce", "Shutout", "StockEndDiscard", "FirstTurn", "Player", "RoundWinner",
                   "ExtraBoxes"}
    assert named_enums <= spec["components"]["schemas"].keys()


def test_rule_parameters_tell_their_default_rules_value_but_give_no_schema_default(spec: dict[str, Any]) -> None:
    """A rule parameter left out takes its preset's value, so no schema gives it a ``default``: generated clients
    (openapi-python-client) send every default they are given, which undid a preset sent beside them."""
    in_query = [p for _, _, op in _operations(spec) for p in op.get("parameters", []) if p.get("name") in DEFAULT_RULES]
    schemas = spec["components"]["schemas"]
    documented = [*in_query, *(schemas[name]["properties"][parameter] for name in ("RuleParameters", "RuleSet")
                               for parameter in DEFAULT_RULES)]
    assert len(in_query) == len(DEFAULT_RULES) - 1  # all but big_gin_bonus, which changes no analysis
    for schema in documented:
        assert "default" not in schema and "default" not in schema.get("schema", {})
    descriptions = [*({p["name"]: p["description"] for p in in_query}.items()),
                    *((name, schemas[kind]["properties"][name]["description"]) for kind in ("RuleParameters", "RuleSet")
                      for name in DEFAULT_RULES)]
    assert len(descriptions) == 3 * len(DEFAULT_RULES) - 1
    for name, description in descriptions:
        assert f"Default rules: `{json.dumps(DEFAULT_RULES[name])}`" in description, name


def test_the_engine_settings_tell_their_default_but_give_no_schema_default(spec: dict[str, Any]) -> None:
    """A generated client sent ``knock_margin`` 20 and ``time_budget_ms`` 40 with every hint, as their schema
    defaults: it would have gone on sending them after a release retuned them (``knock_margin`` was 30 until
    2026-11-24). Left out, the engine's own setting applies (the API tests of each check that)."""
    properties = spec["components"]["schemas"]["HintRequest"]["properties"]
    for name, default in (("knock_margin", DEFAULT_CONFIG.knock_margin), ("time_budget_ms", HINT_TIME_BUDGET_MS)):
        assert "default" not in properties[name]
        assert properties[name]["description"].startswith(f"Default {default:g}. ")


def test_a_rounds_extra_boxes_are_the_type_a_game_hand_takes(spec: dict[str, Any]) -> None:
    """A generated client typed a round's ``extra_boxes`` as an int and a game hand's as an enum of its own, so
    passing one to the other, as the README says to, did not type-check."""
    schemas = spec["components"]["schemas"]
    for schema in ("RoundScore", "HandResult"):
        assert schemas[schema]["properties"]["extra_boxes"]["allOf"] == [{"$ref": "#/components/schemas/ExtraBoxes"}]
    assert schemas["ExtraBoxes"]["enum"] == list(EXTRA_BOXES)


def test_every_property_of_every_schema_is_described(spec: dict[str, Any]) -> None:
    """Client generators turn descriptions into the docs of each field."""
    undescribed = [f"{name}.{prop}" for name, schema in spec["components"]["schemas"].items()
                   for prop, value in schema.get("properties", {}).items() if not value.get("description")]
    assert undescribed == []


def _examples(media: dict[str, Any]) -> list[Any]:
    if "example" in media:
        return [media["example"]]
    return [example["value"] for example in media.get("examples", {}).values()]


TEN, ELEVEN = "As 2s 3s 7h 7d 7c Kd Qd Jd 5c", "As 2s 3s 7h 7d 7c Kd Qd Jd 5c 9c"
DEFENDER = "4s 5s 8h 9h Th 4d 4c 9c Tc Qc"
DRAWING = {"phase": "draw", "discard_pile": ["Kh"], "stock_count": 31}
TOOK_THE_UPCARD = {"phase": "discard", "discard_pile": [], "stock_count": 31}


@pytest.mark.parametrize(("path", "body", "status"), [
    ("/v1/hands/analyze", {"hand": ELEVEN, "taken_at_stock_end": True, "rules": "hoyle"}, 422),
    ("/v1/hands/analyze", {"hand": ELEVEN, "taken_at_stock_end": True, "drawn_from_discard": "9c", "rules": "hoyle"},
     200),
    ("/v1/hands/analyze", {"hand": TEN, "drawn_from_discard": "5c"}, 422),
    ("/v1/hands/analyze", {"hand": ELEVEN.split(), "drawn_from_discard": "9c"}, 200),
    ("/v1/rounds/score", {"knocker": TEN, "defender": DEFENDER, "discard": "5c"}, 422),
    ("/v1/rounds/score", {"knocker": ELEVEN.replace("9c", "Jh"), "defender": DEFENDER, "discard": "5c"}, 200),
    ("/v1/rounds/score", {"knocker": TEN, "defender": DEFENDER, "taken_at_stock_end": True, "rules": "hoyle"}, 422),
    ("/v1/hint", {"hand": TEN, **TOOK_THE_UPCARD}, 422),
    ("/v1/hint", {"hand": ELEVEN, **TOOK_THE_UPCARD, "drawn_from_discard": "9c"}, 200),
    ("/v1/hint", {"hand": ELEVEN.split(), **DRAWING}, 422),
    ("/v1/hint", {"hand": TEN.split(), **DRAWING}, 200),
    ("/v1/hint", {"hand": TEN, **DRAWING, "drawn_from_discard": "5c"}, 422),
    ("/v1/games/score", {"hands": [{"winner": None, "points": 5}]}, 422),
    ("/v1/games/score", {"hands": [{"winner": None, "points": 0, "extra_boxes": 2}]}, 422),
    ("/v1/games/score", {"hands": [{"winner": None, "points": 0}]}, 200),
    # Oklahoma's knock limit needs the upcard an eleven-card deal does not turn, also under its preset
    ("/v1/rules/resolve", {"rules": {"oklahoma": True, "eleven_card_deal": True}}, 422),
    ("/v1/rules/resolve", {"rules": {"preset": "oklahoma", "eleven_card_deal": True}}, 422),
    ("/v1/rules/resolve", {"rules": {"preset": "oklahoma", "eleven_card_deal": True, "oklahoma": False}}, 200),
    ("/v1/rules/resolve", {"rules": {"preset": "gra", "eleven_card_deal": True}}, 200),
    ("/v1/rules/resolve", {"rules": {"oklahoma": True, "eleven_card_deal": False}}, 200),
])
def test_a_rule_between_fields_is_in_the_spec_too(spec: dict[str, Any], registry: Registry, client: FlaskClient,
                                                  path: str, body: dict[str, Any], status: int) -> None:
    """A request valid by the spec is not refused for how its fields go together (JSON Schema's if and then say
    it): a fuzzer or a client that validates before sending finds what the service would refuse."""
    schema = spec["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    valid = Draft202012Validator({"$ref": SPEC_URI + schema["$ref"]}, registry=registry).is_valid(body)
    assert client.post(path, json=body).status_code == status
    assert valid == (status == 200)


def test_every_example_fits_its_schema(spec: dict[str, Any], registry: Registry) -> None:
    checked = 0
    media_types = [op["requestBody"]["content"] for _, _, op in _operations(spec) if "requestBody" in op]
    media_types += [r["content"] for _, _, op in _operations(spec) for r in op["responses"].values() if "content" in r]
    media_types += [r["content"] for r in spec["components"]["responses"].values()]
    for content in media_types:
        for media in content.values():
            schema = media["schema"]
            if "$ref" in schema:
                schema = {"$ref": SPEC_URI + schema["$ref"]}
            for sample in _examples(media):
                Draft202012Validator(schema, registry=registry).validate(sample)
                checked += 1
    assert checked >= 15


def test_dockerfile_passes_hadolint() -> None:
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    result = subprocess.run([hadolint, str(ROOT / "Dockerfile")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def _locked() -> dict[str, str]:
    """The lock's pins, by normalized name."""
    lines = (ROOT / "service" / "deploy" / "requirements.lock").read_text(encoding="utf-8").splitlines()
    pins = [line for line in lines if line and not line.startswith("#")]
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][A-Za-z0-9.]*", pin) for pin in pins), pins
    return {canonicalize_name(name): version for name, version in (pin.split("==") for pin in pins)}


def test_the_lock_pins_each_runtime_dependency_within_its_range_and_the_tests_run_on_it() -> None:
    """The image installs the lock; the two commands install with it as constraints. So each dependency in
    pyproject.toml is pinned, within its range, with everything it needs, and this environment has those
    very versions (else the tests ran on other versions than the image ships)."""
    locked = _locked()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for line in project["dependencies"]:
        requirement = Requirement(line)
        assert requirement.specifier.contains(locked[canonicalize_name(requirement.name)]), line
    for name, version in locked.items():
        assert metadata.version(name) == version, name
        for needed in map(Requirement, metadata.requires(name) or []):
            if needed.marker is None or needed.marker.evaluate({"extra": ""}):
                assert canonicalize_name(needed.name) in locked, f"{name} needs {needed.name}, not in the lock"


def test_the_readme_lists_every_setting_read_from_the_environment_with_its_default() -> None:
    """The README's "Configuration" is the one list of the settings: each variable the app or gunicorn's settings
    read is in it, with the default the code falls back to."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Configuration"):]
    listed = dict(re.findall(r"^\| `([A-Z_]+)` \| ([^|]+?) \|", table, re.MULTILINE))
    settings = (ROOT / "service" / "gunicorn_conf.py").read_text(encoding="utf-8")
    read = dict(re.findall(r'environment_integer\("([A-Z_]+)", (\d+)', settings))
    read |= {name: listed.get(name, "") for name in re.findall(r'os\.environ\.get\("([A-Z_]+)"', settings)}
    read |= {name: str(default or "(none)") for name, default in DEFAULTS.values()}
    read["WEB_CONCURRENCY"] = "CPUs available"  # the default is computed
    read[MULTIPROC_ENV] = "(a new temporary directory)"  # read by the metrics, at start
    assert listed == read


def test_gunicorn_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"PORT": "9123", "WEB_CONCURRENCY": "3", "GUNICORN_TIMEOUT": "7",
                        "GUNICORN_ACCESS_LOG": ""}.items():
        monkeypatch.setenv(name, value)
    import service.gunicorn_conf as conf

    conf = importlib.reload(conf)
    assert (conf.bind, conf.workers, conf.timeout, conf.accesslog) == ("0.0.0.0:9123", 3, 7, None)
    assert conf.wsgi_app == "service:create_app()" and conf.control_socket_disable
    for host, address in {"::": ("::", 9123), "[::1]": ("::1", 9123), "127.0.0.1": ("127.0.0.1", 9123)}.items():
        monkeypatch.setenv("HOST", host)  # an IPv6 address as is ('::' was ':::9123', which gunicorn refused)
        assert parse_address(importlib.reload(conf).bind) == address
    monkeypatch.setenv("GUNICORN_TIMEOUT", "30s")
    with pytest.raises(ValueError, match=r"^GUNICORN_TIMEOUT must be an integer written with the digits 0-9, "
                                         r"got '30s'$"):
        importlib.reload(conf)
    for setting, refusal in {"GUNICORN_TIMEOUT": "-1", "PORT": "-5", "GUNICORN_THREADS": "0"}.items():
        monkeypatch.setenv(setting, refusal)
        with pytest.raises(ValueError, match=rf"^{setting} must be at least [01], got {refusal}$"):
            importlib.reload(conf)
        monkeypatch.delenv(setting)
    monkeypatch.setenv("GUNICORN_TIMEOUT", "7")
    monkeypatch.setenv("LOG_LEVEL", " Warning")
    assert importlib.reload(conf).loglevel == "warning"
    monkeypatch.setenv("LOG_LEVEL", "loud")  # gunicorn took it as info, silently
    with pytest.raises(ValueError, match=r"^LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL "):
        importlib.reload(conf)
    monkeypatch.setenv("LOG_LEVEL", "")
    monkeypatch.setenv("PORT", "99999")  # was an OverflowError from bind(), naming no variable
    with pytest.raises(ValueError, match=r"^PORT must be at most 65535, got 99999$"):
        importlib.reload(conf)
    monkeypatch.setenv("PORT", "9123")
    for host in ("192.0.2.1", "fe80::1", "ü" * 70):  # no address here; link-local with no scope; too long a name
        monkeypatch.setenv("HOST", host)
        with pytest.raises(ValueError, match=rf"^HOST {re.escape(repr(host))} cannot be listened on here: "):
            importlib.reload(conf)
    monkeypatch.setenv("HOST", " 127.0.0.1 ")  # blanks, as an env file may leave, are dropped
    assert importlib.reload(conf).bind == "127.0.0.1:9123"
    monkeypatch.delenv("HOST")
    monkeypatch.setenv("WEB_CONCURRENCY", "0")
    with pytest.raises(ValueError, match=r"^WEB_CONCURRENCY must be at least 1, got 0$"):
        importlib.reload(conf)
    monkeypatch.undo()
    for name in ("HOST", "PORT", "GUNICORN_THREADS", "GUNICORN_TIMEOUT", "GUNICORN_GRACEFUL_TIMEOUT",
                 "GUNICORN_KEEPALIVE", "GUNICORN_ACCESS_LOG", "LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    conf = importlib.reload(conf)
    assert (conf.bind, conf.threads, conf.timeout, conf.graceful_timeout, conf.keepalive, conf.loglevel) == (
        "0.0.0.0:8000", 1, 30, 30, 5, "info")  # the documented defaults
    monkeypatch.undo()
    importlib.reload(conf)  # the defaults again, for the tests that read them


@pytest.mark.parametrize(("cpu_max", "expected"), [
    ("200000 100000\n", 2), ("150000 100000\n", 2), ("50000 100000\n", 1), ("max 100000\n", None),
    ("6400000 100000\n", None), ("", None), (None, None)])
def test_the_default_worker_count_follows_the_container_cpu_limit(
        tmp_path: Path, cpu_max: str | None, expected: int | None) -> None:
    """One worker per CPU the container may use: a 2-CPU limit on a larger host is 2 workers, not one per host
    core (None: the CPUs the process may run on, as without a limit or a readable one)."""
    import service.gunicorn_conf as conf

    limit = tmp_path / "cpu.max"
    if cpu_max is not None:
        limit.write_text(cpu_max, encoding="ascii")
    cpus = len(os.sched_getaffinity(0))
    assert conf.available_cpus(limit) == (cpus if expected is None else min(expected, cpus))


def test_an_access_log_on_standard_output_makes_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mutation audit of these checks: ``-`` is standard output, as gunicorn takes it, so no file named ``-`` is
    made in the working directory (which, read-only as in a pod, would stop the server)."""
    import service.gunicorn_conf as conf  # imported here: its settings are read on import

    monkeypatch.chdir(tmp_path)
    assert conf.access_log("-") == "-"
    assert not (tmp_path / "-").exists()


def test_a_missing_access_log_is_made(tmp_path: Path) -> None:
    """A file that is not there yet is made (appended to), not refused as unreadable."""
    import service.gunicorn_conf as conf  # imported here: its settings are read on import

    path = tmp_path / "access.log"
    assert conf.access_log(str(path)) == str(path) and path.is_file()


def test_a_dangling_symlink_as_the_metrics_directory_is_no_directory(tmp_path: Path) -> None:
    """A symlink to nothing is named as no directory (not a mkdir's 'File exists')."""
    import service.gunicorn_conf as conf  # imported here: its settings are read on import

    link = tmp_path / "metrics"
    link.symlink_to(tmp_path / "gone")
    with pytest.raises(ValueError, match=r"^PROMETHEUS_MULTIPROC_DIR '.*/metrics' is not a directory$"):
        conf.check_metrics_directory(str(link))


def test_a_metrics_directory_that_takes_no_file_is_refused(tmp_path: Path) -> None:
    """A directory that exists but cannot hold a file stops the server at start (not once listening). As root,
    whom file modes do not stop, sysfs stands in (it takes no new files from anyone)."""
    import service.gunicorn_conf as conf  # imported here: its settings are read on import

    if os.geteuid() != 0:
        directory = tmp_path / "read-only"
        directory.mkdir(mode=0o500)
    else:
        directory = Path("/sys")
        if not directory.is_dir():
            pytest.skip("no sysfs here")
    with pytest.raises(ValueError, match=r"^PROMETHEUS_MULTIPROC_DIR '.*' cannot hold the metrics: "):
        conf.check_metrics_directory(str(directory))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(("name", "value", "message"), [
    ("GIN_LOG_LEVEL", "loud", "GIN_LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL (in any case), "
                              "got 'loud'"),
    ("GIN_MAX_BODY_BYTES", "1k", "GIN_MAX_BODY_BYTES must be an integer written with the digits 0-9, got '1k'"),
    ("GIN_CORS_ORIGINS", "https://x.com:443", "GIN_CORS_ORIGINS: 'https://x.com:443' is not written as browsers send "
                                              "it, without the default port: https://x.com"),
    ("PORT", "99999", "PORT must be at most 65535, got 99999"),
    ("GUNICORN_TIMEOUT", "0", "GUNICORN_TIMEOUT must be at least 1, got 0"),  # 0: no bound on a request
    ("HOST", "192.0.2.1", "HOST '192.0.2.1' cannot be listened on here: Cannot assign requested address"),
    # These two were a traceback once the server listened, and gunicorn's "Error: Error: '...' isn't writable".
    ("PROMETHEUS_MULTIPROC_DIR", "/dev/null/metrics",
     "PROMETHEUS_MULTIPROC_DIR '/dev/null/metrics' cannot hold the metrics: Not a directory"),
    ("PROMETHEUS_MULTIPROC_DIR", "/dev/null", "PROMETHEUS_MULTIPROC_DIR '/dev/null' is not a directory"),
    ("GUNICORN_ACCESS_LOG", "/dev/null/access.log",
     "GUNICORN_ACCESS_LOG '/dev/null/access.log' cannot be written: Not a directory"),
])
def test_a_wrong_setting_stops_the_server_with_one_line_naming_it(name: str, value: str, message: str) -> None:
    """The app's own settings were read only when gunicorn loaded the app: a wrong one stopped it with a
    30-line traceback (and a port above 65535 with bind()'s OverflowError, naming no variable; a host that is no
    address of this machine, a documentation address here, after some 5 s with gunicorn's lines naming the
    address)."""
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(_free_port()), "WEB_CONCURRENCY": "1", name: value}
    server = subprocess.run([sys.executable, "-m", "service"], env=env, cwd=ROOT, capture_output=True, text=True,
                            timeout=30)
    assert server.returncode != 0
    assert server.stderr.strip() == f"Error: {message}" and not server.stdout


def test_python_m_service_serves_with_gunicorn() -> None:
    port = _free_port()
    env = {**os.environ, "PORT": str(port), "HOST": "127.0.0.1", "WEB_CONCURRENCY": "1"}
    server = subprocess.Popen([sys.executable, "-m", "service"], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as answer:
                    assert json.load(answer) == {"status": "ready"}
                    break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/hands/analyze", method="POST",
                                         data=b'{"hand": "As 2s 3s 7h 7d 7c Kd Qd Jd 5c"}',
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as answer:
            assert json.load(answer)["deadwood"] == 5
    finally:
        server.terminate()
        output = server.communicate(timeout=20)[0].decode()
    assert "Using worker: sync" in output
