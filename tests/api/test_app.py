"""The factory, the configuration, and every HTTP error as RFC 9457 problem+json."""

from __future__ import annotations

import io
import json
import logging
import re
import sys
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from marshmallow import EXCLUDE
from werkzeug.exceptions import MethodNotAllowed
from werkzeug.routing import MapAdapter
from werkzeug.test import EnvironBuilder, run_wsgi_app

from service import __version__, create_app
from service.api.schemas import AnalyzeRequest
from service.config import load_config
from service.core.cards import CardError
from service.core.errors import GinError
from service.core.rules import RULE_PARAMETERS, RulesError
from service.core.scoring import GameError
from service.errors import PROBLEM_MEDIA_TYPE, handle_http_exception

from .conftest import Call, check_problem_type

TEN = "As 2s 3s 7h 7d 7c Kd Qd Jd 5c"
QUERY = f"/v1/hands/analyze?hand={TEN.replace(' ', ',')}"
DIGIT_LIMIT = sys.get_int_max_str_digits() or 4300  # the most digits int() reads (0: no limit)
EVERY_RULE = {"preset": "standard", **{parameter.name: parameter.default for parameter in RULE_PARAMETERS}}


def test_factory_applies_overrides_over_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIN_MAX_BODY_BYTES", "1234")
    assert create_app().config["MAX_CONTENT_LENGTH"] == 1234
    assert create_app({"MAX_CONTENT_LENGTH": 99}).config["MAX_CONTENT_LENGTH"] == 99


def test_config_defaults_and_errors() -> None:
    config = load_config({})
    assert config["MAX_CONTENT_LENGTH"] == 64 * 1024
    assert config["BATCH_MAX_CONTENT_LENGTH"] == 2 * 1024 * 1024
    assert config["API_VERSION"] == __version__
    for written in ("lots", "64_000", "+5", "\u0663", "6 4"):  # int() reads the middle three
        with pytest.raises(ValueError, match="GIN_MAX_BODY_BYTES must be an integer written with the digits 0-9"):
            load_config({"GIN_MAX_BODY_BYTES": written})
    assert load_config({"GIN_MAX_BODY_BYTES": " 1234\n"})["MAX_CONTENT_LENGTH"] == 1234  # as an env file may leave it
    with pytest.raises(ValueError, match=r"^GIN_BATCH_MAX_BODY_BYTES must be at least 1, got 0$"):
        load_config({"GIN_BATCH_MAX_BODY_BYTES": "0"})  # was taken: every batch a 413 'limit of 0 bytes'
    assert (config["LOG_LEVEL"], load_config({"GIN_LOG_LEVEL": "debug"})["LOG_LEVEL"]) == ("INFO", "DEBUG")
    assert load_config({"GIN_LOG_LEVEL": " warning\n"})["LOG_LEVEL"] == "WARNING"  # as an env file may leave it
    empty = load_config({"GIN_LOG_LEVEL": "", "GIN_MAX_BODY_BYTES": "", "GIN_CORS_ORIGINS": ""})  # set but empty
    assert (empty["LOG_LEVEL"], empty["MAX_CONTENT_LENGTH"], empty["CORS_ORIGINS"]) == ("INFO", 64 * 1024, "")
    with pytest.raises(ValueError, match=r"^GIN_LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL "
                                         r"\(in any case\), got 'verbose'$"):
        load_config({"GIN_LOG_LEVEL": "verbose"})  # was a traceback from logging at the first create_app


# The reason phrases of RFC 9110, section 15: a problem's title is its status's phrase.
TITLES = {400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 412: "Precondition Failed",
          413: "Content Too Large", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
          422: "Unprocessable Content", 500: "Internal Server Error"}


ROUND_TEXT = '{"knocker": "As 2s 3s 4s 7h 7d 7c Jd Qd Kd", "defender": "5s 6s 8h 9h 2h 4d 4c 9c Tc Qc"'
"""A knocked hand, as JSON text without its closing brace."""
HINT_TEXT = '{"hand": "As 2s 3s 7h 7d 7c Kd Qd Jd 5c", "phase": "draw", "discard_pile": ["4d"], "stock_count": 31'
"""A hint's first draw, as JSON text without its closing brace."""

def _problem(response, status: int) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    assert response.status_code == status
    assert response.mimetype == PROBLEM_MEDIA_TYPE
    body = response.get_json()
    assert {"type", "title", "status", "detail"} <= body.keys()
    assert body["status"] == status and body["title"] == TITLES[status]
    check_problem_type(body)
    assert response.status == f"{status} {TITLES[status]}"  # the status line says what the title says
    return body  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("method", "url", "kwargs", "status", "detail"),
    [
        ("POST", "/v1/hands/analyze", {"data": "{", "content_type": "application/json"}, 400, "not valid JSON"),
        ("POST", "/v1/hands/analyze", {"data": "", "content_type": "application/json"}, 400,
         "not valid JSON: the body is empty: expected a JSON object (line 1, column 1)"),
        ("POST", "/v1/hands/analyze", {"data": " \n", "content_type": "application/json"}, 400,
         "not valid JSON: the body is empty: expected a JSON object (line 1, column 1)"),
        ("POST", "/v1/hands/analyze", {"data": '{"hand": ["As",\n "2s"', "content_type": "application/json"}, 400,
         "(line 2, column "),
        ("POST", "/v1/games/score", {"data": '{"hands": [], "rules": {"target": 1e400}, "x": NaN}',
                                     "content_type": "application/json"}, 400,
         "unexpected character, expected a JSON value (line 1, column 48)"),  # past a number orjson stopped at
        ("POST", "/v1/games/score", {"data": '{"hands": [], "rules": {"target": 1e400}, "x": "\\ud800"}',
                                     "content_type": "application/json"}, 400,
         "no low surrogate in string (line 1, column 49)"),
        ("POST", "/v1/hands/analyze", {"data": b"\xff\xfe", "content_type": "application/json"}, 400,
         "not valid JSON: byte 0xff is not UTF-8 (line 1, column 1)"),
        ("POST", "/v1/hands/analyze", {"data": '{"hand": "As"}', "content_type": "application/json; charset=latin-1"},
         415, "declared charset=latin-1; JSON is read as UTF-8"),
        ("POST", "/v1/hands/analyze", {"data": b"\x1f\x8b", "content_type": "application/json",
                                       "headers": {"Content-Encoding": "gzip"}}, 415, "Content-Encoding: gzip"),
        ("GET", "/v2/nothing", {}, 404, "no resource at /v2/nothing"),
        ("POST", "/v1/hands/analyze", {"json": {"hand": TEN, "pad": "x" * 70_000}}, 413, "limit of 65536 bytes"),
        ("POST", "/v1/hands/analyze", {"data": TEN, "content_type": "text/plain"}, 415, "application/json"),
        ("POST", "/v1/hands/analyze", {"data": "hand=As"}, 415, "application/json"),
        ("POST", "/v1/hands/analyze", {"json": {"hand": "As 2s"}}, 422, "10 or 11 cards, got 2"),
        ("POST", "/v1/hands/analyze", {"json": ["As", "2s"]}, 422, 'expected a JSON object like {"hand"'),
        ("POST", "/v1/games/score", {"json": {"hands": [5]}}, 422, "hands/0: expected a JSON object"),
        ("POST", "/v1/hands/analyze", {"json": {"hand": [*TEN.split()[1:], "9h" + " " * 15]}}, 422,
         "hand/9: expected a card as a string of at most 16 characters"),  # the item at fault, not the list
        ("POST", "/v1/hands/analyze", {"json": {"hand": {"As": 1}}}, 422, "hand: expected a list of cards"),
    ],
)
def test_http_errors_are_problems(call: Call, method: str, url: str, kwargs: dict, status: int,  # type: ignore[type-arg]
                                  detail: str) -> None:
    assert detail in _problem(call(method, url, **kwargs), status)["detail"]


@pytest.mark.parametrize(("name", "method", "kwargs"), [
    ("BadRequest", "POST", {"data": "{", "content_type": "application/json"}),
    ("ContentTooLarge", "POST", {"json": {"hand": TEN, "pad": "x" * 70_000}}),
    ("UnsupportedMediaType", "POST", {"data": TEN, "content_type": "text/plain"}),
    ("UnprocessableContent", "POST", {"json": {"hand": "Zz"}}),
    ("Error", "DELETE", {}),
])
def test_each_shared_error_example_is_a_real_answer(call: Call, spec: dict[str, Any], name: str, method: str,
                                                    kwargs: dict[str, Any]) -> None:
    """The spec's example of each shared error is what the service answers to such a request."""
    example = spec["components"]["responses"][name]["content"][PROBLEM_MEDIA_TYPE]["example"]
    url = "/v1/layoffs" if name == "Error" else "/v1/hands/analyze"
    assert call(method, url, **kwargs).get_json() == example


HINT = {"hand": TEN, "phase": "draw", "upcard": "4d", "discard_pile": ["4d", "Tc"], "stock_count": 29,
        "opponent_discards": ["Tc"]}


@pytest.mark.parametrize(("method", "url", "body", "detail"), [
    ("POST", "/v1/hint", {**HINT, "stock_count": "29"}, 'stock_count: expected an integer, like 10, got "29"'),
    ("POST", "/v1/hint", {**HINT, "knock_margin": "20"}, 'knock_margin: expected a number, like 20, got "20"'),
    ("POST", "/v1/hint", {**HINT, "returned_discard": "false"},
     'returned_discard: expected true or false, got "false"'),
    ("POST", "/v1/games/score", {"hands": [{"winner": "0", "points": 3}]}, "hands/0/winner: expected 0 or 1 (the "
     'player or team that won the hand) or null (a drawn hand), got "0"'),
    ("POST", "/v1/games/score", {"hands": [{"winner": 0, "points": 2.5}]},
     "hands/0/points: expected an integer, like 10, got 2.5"),
    ("POST", "/v1/hands/analyze/batch", {"hands": []}, "hands: expected 1 to 1,000 items, got 0"),
    ("GET", f"{QUERY}&oklahoma=1", None,
     'oklahoma: expected true or false, got "1"'),
    ("GET", f"{QUERY}&knock_limit=x5", None,
     'knock_limit: expected an integer written with the digits 0-9, like 10, got "x5"'),
    ("GET", f"{QUERY}&knock_limit=-{'9' * 5000}", None,
     "knock_limit: expected an integer of at most 4,300 digits, got 5,000"),  # it said "written with the digits"
    # a null item of a list is worded as a null field is, wherever the list is, and says what is expected
    ("POST", "/v1/games/score", {"hands": [None]}, "hands/0: may not be null: expected a JSON object"),
    ("POST", "/v1/hands/analyze", {"hand": [None, "As"]},
     "hand/0: may not be null: expected a card as a string of at most 16 characters, like 'As'"),
    # a card or cards of the wrong type are shown, as any other value is
    ("POST", "/v1/hands/analyze", {"hand": [5, "As"]},
     "hand/0: expected a card as a string of at most 16 characters, like 'As', got 5"),
    ("POST", "/v1/hands/analyze", {"hand": {"As": 1}},
     'hand: expected a list of cards like ["As", "2s"] or a string like "As 2s", got an object'),
    ("POST", "/v1/layoffs", {"knocker_melds": [None], "defender": TEN},
     'knocker_melds/0: may not be null: expected a list of cards like ["As", "2s"] or a string like "As 2s"'),
    ("POST", "/v1/hint", {**HINT, "opponent_discards": ["Tc", None]},
     "opponent_discards/1: may not be null: expected a card as a string of at most 16 characters, like 'As'"),
    ("POST", "/v1/hint", {**HINT, "phase": None},
     "phase: may not be null: expected one of first_upcard, draw, discard"),
    ("POST", "/v1/hint", {**HINT, "knock_margin": None}, "knock_margin: may not be null: expected a number, like 20"),
    ("POST", "/v1/rounds/score", {"knocker": None, "defender": TEN},
     'knocker: may not be null: expected a list of cards like ["As", "2s"] or a string like "As 2s"'),
    ("POST", "/v1/hands/analyze", {"hand": TEN, "rules": None},
     "rules: may not be null: expected a preset name or an object of rule parameters"),
    ("POST", "/v1/hands/analyze", {"hand": TEN, "rules": {"knock_limit": None}},
     "rules/knock_limit: may not be null: expected an integer from 0 to 10"),
    ("POST", "/v1/hands/analyze", {"hand": TEN, "rules": {"shutout": None}},
     "rules/shutout: may not be null: expected one of double_bonus, double_score, none"),
    # from a mutation run over the HTTP edge: a bounded list given as no list is refused as no list
    ("POST", "/v1/games/score", {"hands": 5}, "hands: expected a list (a JSON array)"),
    # a string of one card is no list of melds (not "a list of single cards")
    ("POST", "/v1/layoffs", {"knocker_melds": "Qs", "defender": TEN}, "knocker_melds: expected a list (a JSON array)"),
    # a list of the wrong length is refused for its count only once its items read: the faulty item is named
    ("POST", "/v1/games/score", {"deals": [{"tables": [{"winner": 5, "points": 1}]}]},
     "deals/0/tables/0/winner: expected 0 or 1 (the player or team that won the hand) or null (a drawn hand), got 5"),
    # the note on a leading space only where the rest is an integer
    ("GET", f"{QUERY}&knock_limit=%20abc", None,
     'knock_limit: expected an integer written with the digits 0-9, like 10, got " abc"'),
    # exactly Python's digit limit is read (and then refused by the range)
    ("GET", f"{QUERY}&knock_limit={'1' * DIGIT_LIMIT}", None,
     f"knock_limit: expected at most 10, got a {int('1' * DIGIT_LIMIT).bit_length()}-bit integer"),
    # unknown rule keys: three are named, a fourth is counted
    ("POST", "/v1/hands/analyze", {"hand": TEN, "rules": {**EVERY_RULE, "x": 1, "y": 2, "z": 3}},
     f"rules: expected at most {len(EVERY_RULE)} keys (`preset` and the {len(RULE_PARAMETERS)} rule parameters GET "
     f'/v1/rules lists), got {len(EVERY_RULE) + 3}; not rule parameters: "x", "y", "z"'),
    ("POST", "/v1/hands/analyze", {"hand": TEN, "rules": {**EVERY_RULE, "w": 0, "x": 1, "y": 2, "z": 3}},
     f"rules: expected at most {len(EVERY_RULE)} keys (`preset` and the {len(RULE_PARAMETERS)} rule parameters GET "
     f'/v1/rules lists), got {len(EVERY_RULE) + 4}; not rule parameters: "w", "x", "y" and 1 more'),
    # with the preset at fault, the other parameters are not judged against the default rules
    ("GET", "/v1/hands/analyze?hand=As,2s,3s&rules=tournament&oklahoma=true&eleven_card_deal=true", None,
     'hand: a hand here has 10 or 11 cards, got 3; rules: unknown preset "tournament"; expected one of standard, '
     "hoyle, online, traditional, gra, oklahoma, partnership"),
])
def test_a_value_of_the_wrong_kind_is_shown_beside_what_was_expected(
        call: Call, method: str, url: str, body: dict[str, Any] | None, detail: str) -> None:
    assert _problem(call(method, url, json=body), 422)["detail"] == detail


def test_query_integers_are_read_where_python_sets_no_digit_limit(call: Call) -> None:
    most = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert call("GET", f"{QUERY}&knock_limit=5").status_code == 200
    finally:
        sys.set_int_max_str_digits(most)


@pytest.mark.parametrize("media_type", ["application/json", "application/vnd.example+json", "APPLICATION/JSON"])
def test_a_body_is_read_under_any_json_media_type(call: Call, media_type: str) -> None:
    """As the README says: ``application/json`` or any ``+json`` type."""
    assert call("POST", "/v1/hands/analyze", data=f'{{"hand": "{TEN}"}}', content_type=media_type).status_code == 200


def test_a_compressed_body_is_refused_with_the_encoding_the_service_reads(call: Call) -> None:
    response = call("POST", "/v1/hands/analyze", data=b"\x1f\x8b", content_type="application/json",
                    headers={"Content-Encoding": "br"})
    assert _problem(response, 415)["detail"].startswith("the request body is sent with Content-Encoding: br")
    assert response.headers["Accept-Encoding"] == "identity"
    for encoding in ("identity", "", "IDENTITY", "Identity"):  # empty names no coding; codings ignore case
        plain = {"content_type": "application/json; charset=UTF-8", "headers": {"Content-Encoding": encoding}}
        assert call("POST", "/v1/hands/analyze", data=f'{{"hand": "{TEN}"}}', **plain).status_code == 200


@pytest.mark.parametrize("parameters", ["charset=utf-8", "charset=UTF-8", "charset=utf8", "charset=UTF8", "foo=bar"])
def test_a_body_declared_utf_8_in_either_spelling_or_not_at_all_is_read(call: Call, parameters: str) -> None:
    response = call("POST", "/v1/hands/analyze", data=f'{{"hand": "{TEN}"}}',
                    content_type=f"application/json; {parameters}")
    assert response.status_code == 200 and response.get_json()["deadwood"] == 5


def test_answers_and_problems_are_compact_utf_8(call: Call) -> None:
    """As documented: no blanks between members, and non-ASCII characters as they are, not escaped."""
    problem = call("POST", "/v1/hands/analyze", json={"hand": "Zz"}).get_data()
    assert problem.startswith(b'{"type":"') and b'"status":422' in problem and "♠ ♥ ♦ ♣".encode() in problem
    answer = call("POST", "/v1/hands/analyze", json={"hand": "A♠ 2♠ 3♠ 7h 7d 7c Kd Qd Jd 5c"}).get_data()
    assert answer.startswith(b'{"hand":["As","2s","3s",') and b'"deadwood":5' in answer


def test_options_lists_the_methods_without_content(client: FlaskClient) -> None:
    response = client.options("/v1/layoffs")
    assert response.status_code == 204 and response.headers["Allow"] == "OPTIONS, POST"
    assert "Content-Type" not in response.headers and response.data == b""


PAGE = "https://play.example.com"
CORS_ANSWER = ("Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "Access-Control-Allow-Methods")


def test_no_cross_origin_access_unless_configured(client: FlaskClient) -> None:
    response = client.post("/v1/hands/analyze", json={"hand": TEN}, headers={"Origin": PAGE})
    assert response.status_code == 200 and not set(CORS_ANSWER) & set(response.headers.keys())


def test_a_configured_origin_may_call_the_api_from_a_browser() -> None:
    client = create_app({"CORS_ORIGINS": f"{PAGE}, http://localhost:3000"}).test_client()
    preflight = client.options("/v1/hands/analyze", headers={
        "Origin": PAGE, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type, x-request-id"})
    assert preflight.status_code == 204 and preflight.headers["Access-Control-Allow-Origin"] == PAGE
    assert preflight.headers["Access-Control-Allow-Methods"] == "GET, POST"
    assert preflight.headers["Access-Control-Allow-Headers"] == "content-type, x-request-id"
    assert preflight.headers["Access-Control-Max-Age"] == "600"
    for body, status in (({"hand": TEN}, 200), ({"hand": "As"}, 422)):
        answer = client.post("/v1/hands/analyze", json=body, headers={"Origin": "http://localhost:3000"})
        assert answer.status_code == status
        assert answer.headers["Access-Control-Allow-Origin"] == "http://localhost:3000"
        assert answer.headers["Access-Control-Expose-Headers"] == "ETag, X-Request-ID"  # the page can read them
    for document in ("/openapi.json", "/openapi.yaml"):
        assert client.get(document, headers={"Origin": PAGE}).headers["Access-Control-Allow-Origin"] == PAGE
    assert "Access-Control-Allow-Origin" not in client.get("/openapi.json").headers  # no Origin: no CORS answer
    for other in (client.post("/v1/hands/analyze", json={"hand": TEN}, headers={"Origin": "https://evil.example"}),
                  client.get("/openapi.json", headers={"Origin": f"{PAGE}.evil.example"}),
                  client.get("/openapi.json", headers={"Origin": PAGE.replace(".", "x", 1)}),  # no pattern
                  client.get("/metrics", headers={"Origin": PAGE}), client.get("/healthz", headers={"Origin": PAGE})):
        assert not set(CORS_ANSWER) & set(other.headers.keys())


def test_a_page_reads_the_404_of_a_mistyped_path(client: FlaskClient) -> None:
    """A refused preflight would show the page only "Failed to fetch" (found by a browser-game audit)."""
    preflight = {"Origin": PAGE, "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type"}
    allowing = create_app({"CORS_ORIGINS": PAGE}).test_client()
    answer = allowing.options("/v1/hints", headers=preflight)
    assert answer.status_code == 204 and answer.headers["Access-Control-Allow-Origin"] == PAGE
    assert "Content-Type" not in answer.headers  # no body, so no type (it said text/html)
    missing = allowing.post("/v1/hints", json={}, headers={"Origin": PAGE})
    assert missing.status_code == 404 and missing.headers["Access-Control-Allow-Origin"] == PAGE
    assert missing.get_json()["detail"] == "no resource at /v1/hints; see /docs/"
    assert allowing.options("/v1/hints").status_code == 404  # not a preflight
    assert client.options("/v1/hints", headers=preflight).status_code == 404  # no CORS configured


def test_an_ipv6_origin_is_matched_exactly() -> None:
    """flask-cors reads a string with brackets as a regular expression; the origin must still match only itself."""
    client = create_app({"CORS_ORIGINS": "http://[::1]:3000"}).test_client()
    for origin in ("http://[::1]:3000", "HTTP://[::1]:3000"):
        answer = client.get(f"/v1/hands/analyze?hand={TEN}", headers={"Origin": origin})
        assert answer.headers["Access-Control-Allow-Origin"] == origin
    for other in ("http://[::1]:30000", "http://1:3000", "http://[::2]:3000", "http://x[::1]:3000"):
        answer = client.get(f"/v1/hands/analyze?hand={TEN}", headers={"Origin": other})
        assert "Access-Control-Allow-Origin" not in answer.headers, other
    upper = create_app({"CORS_ORIGINS": "http://[::ABCD]:3000"}).test_client()  # browsers send it in lower case
    answer = upper.get(f"/v1/hands/analyze?hand={TEN}", headers={"Origin": "http://[::abcd]:3000"})
    assert answer.headers["Access-Control-Allow-Origin"] == "http://[::abcd]:3000"


def test_any_origin_may_be_allowed() -> None:
    client = create_app({"CORS_ORIGINS": "*"}).test_client()
    answer = client.get(f"/v1/hands/analyze?hand={TEN}", headers={"Origin": "https://anywhere.example"})
    assert answer.status_code == 200 and answer.headers["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize("setting", ["play.example.com", "https://play.example.com/", "https://x.example/app",
                                     "ftp://x.example", "https://a.example https://b.example", "http://[::1:8080",
                                     "http://[fe80::1%eth0]:8080", "http://[:]", "http://[1::2::3]:3000"])
def test_a_cors_setting_that_is_no_origin_stops_the_start(setting: str) -> None:
    with pytest.raises(ValueError, match=r"GIN_CORS_ORIGINS: .* is not an origin"):
        create_app({"CORS_ORIGINS": setting})


@pytest.mark.parametrize(("setting", "problem"), [
    ("http://[0:0:0:0:0:0:0:1]:3000", "is not written as browsers send it: http://[::1]:3000"),
    ("https://play.example.com:443", "is not written as browsers send it, without the default port: "
                                     "https://play.example.com"),
    ("http://localhost:03000", "is not written as browsers send it: http://localhost:3000"),
    ("http://localhost:65536", "has no valid port: 65536"),
    ("http://localhost:0", "has no valid port: 0"),
    ("http://[::ffff:7f00:1]", "is an IPv4-mapped address: give the IPv4 origin"),
])
def test_a_cors_origin_no_browser_would_send_stops_the_start(setting: str, problem: str) -> None:
    """An origin that browsers always write otherwise would silently never match (found by a review)."""
    with pytest.raises(ValueError, match=re.escape(f"GIN_CORS_ORIGINS: {setting!r} {problem}")):
        create_app({"CORS_ORIGINS": f"https://ok.example, {setting}"})


def test_method_not_allowed_keeps_allow_header(call: Call) -> None:
    response = call("DELETE", "/v1/layoffs")
    body = _problem(response, 405)
    assert response.headers["Allow"] == "OPTIONS, POST"  # sorted, the same in every process
    assert "DELETE is not allowed" in body["detail"]


def test_an_options_answer_sorts_the_allowed_methods_whatever_order_werkzeug_gives(
        app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MapAdapter, "allowed_methods", lambda self, path_info=None: ["POST", "OPTIONS"])
    with app.test_request_context("/v1/layoffs", method="OPTIONS"):
        answer = app.make_default_options_response()
    assert answer.status_code == 204 and answer.headers["Allow"] == "OPTIONS, POST"


def test_a_preflight_to_a_real_path_keeps_its_allow_header() -> None:
    allowing = create_app({"CORS_ORIGINS": PAGE}).test_client()
    answer = allowing.options("/v1/layoffs", headers={"Origin": PAGE, "Access-Control-Request-Method": "POST"})
    assert answer.status_code == 204 and answer.headers["Allow"] == "OPTIONS, POST"
    assert answer.headers["Access-Control-Allow-Origin"] == PAGE


def test_a_405_sorts_the_allowed_methods_whatever_order_werkzeug_gives(app: Flask) -> None:
    """Werkzeug's order comes from a set and changes between processes; the answer's must not."""
    with app.test_request_context("/v1/layoffs", method="DELETE"):
        response = handle_http_exception(MethodNotAllowed(valid_methods=["POST", "OPTIONS"]))
    assert response.status_code == 405 and response.headers["Allow"] == "OPTIONS, POST"


def test_batch_has_its_own_body_limit(call: Call) -> None:
    hands = [{"hand": TEN}] * 1000
    response = call("POST", "/v1/hands/analyze/batch", json={"hands": hands})
    assert response.status_code == 200
    assert len(response.get_data()) > 64 * 1024
    too_big = call("POST", "/v1/hands/analyze/batch", json={"hands": hands, "pad": "x" * 2_100_000})
    assert "limit of 2097152 bytes" in _problem(too_big, 413)["detail"]


@pytest.mark.parametrize(("past", "status"), [(0, 200), (1, 413), (10_000, 413)])
def test_a_chunked_body_is_held_to_the_limit(app: Flask, past: int, status: int) -> None:
    """Without a Content-Length (chunked) Werkzeug cuts the body at the limit, where padded JSON would still
    parse: a body that goes on past the limit is a 413, one that ends there is read."""
    start = json.dumps({"hand": TEN}).encode()
    body = start + b" " * (64 * 1024 - len(start) + past)
    environ = EnvironBuilder(path="/v1/hands/analyze", method="POST", input_stream=io.BytesIO(body),
                             content_type="application/json").get_environ()
    del environ["CONTENT_LENGTH"]
    environ["wsgi.input_terminated"] = True  # as gunicorn sets it for a chunked body
    answer, status_line, _ = run_wsgi_app(app, environ, buffered=True)
    assert int(status_line.split()[0]) == status
    if status == 413:
        assert "limit of 65536 bytes" in json.loads(b"".join(answer))["detail"]


@pytest.mark.parametrize("terminated", [False, True])
@pytest.mark.parametrize("sent", [b'{"hand": "As 2s', json.dumps({"hand": TEN}).encode()])
def test_a_body_shorter_than_its_content_length_is_named(app: Flask, terminated: bool, sent: bytes) -> None:
    """Whether the server leaves the body open-ended or ends it at what arrived, as gunicorn does: then a whole
    JSON object short of its length was answered as if complete (found by an integrator's audit)."""
    environ = EnvironBuilder(path="/v1/hands/analyze", method="POST", input_stream=io.BytesIO(sent),
                             content_type="application/json").get_environ()
    environ["CONTENT_LENGTH"] = str(len(sent) + 10)
    if terminated:
        environ["wsgi.input_terminated"] = True
    answer, status_line, _ = run_wsgi_app(app, environ, buffered=True)
    assert status_line == "400 Bad Request"
    assert json.loads(b"".join(answer))["detail"] == (
        "the request body ended before the length its Content-Length header gave")


def test_unexpected_error_is_a_500_that_leaks_nothing(caplog: pytest.LogCaptureFixture) -> None:
    app = create_app()  # not TESTING: exceptions are handled, as in production

    @app.get("/boom")
    def boom() -> str:
        raise RuntimeError("secret internals /etc/passwd")

    with caplog.at_level(logging.ERROR):
        response = app.test_client().get("/boom")
    body = _problem(response, 500)
    assert "secret" not in response.get_data(as_text=True)
    assert body["detail"] == "the server could not answer this request; the failure has been logged"
    assert "secret internals" in caplog.text


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (CardError("duplicate card As", card="As"), {"detail": "duplicate card As"}),
        (RulesError({"knock_limit": "must be 0 to 10", "target": "must be 1 or more"}),
         {"detail": "rules/knock_limit: must be 0 to 10; rules/target: must be 1 or more",
          "errors": [{"pointer": "#/rules/knock_limit", "detail": "must be 0 to 10"},
                     {"pointer": "#/rules/target", "detail": "must be 1 or more"}]}),
        (GameError("hands", "the knocker has 12 deadwood", 3),
         {"detail": "hands/3: the knocker has 12 deadwood",
          "errors": [{"pointer": "#/hands/3", "detail": "the knocker has 12 deadwood"}]}),
        (GameError("deals", "a hand won scores at least 1 point", 2, 1),
         {"detail": "deals/2/tables/1: a hand won scores at least 1 point",
          "errors": [{"pointer": "#/deals/2/tables/1", "detail": "a hand won scores at least 1 point"}]}),
        (GinError("the state cannot be played on"), {"detail": "the state cannot be played on"}),  # any core error
    ],
)
def test_a_core_error_that_escapes_a_view_is_a_422_not_a_500(error: Exception, expected: dict[str, Any]) -> None:
    # The views validate before they call the core; this is the net under them.
    app = create_app()

    @app.get("/escaped")
    def escaped() -> str:
        raise error

    body = _problem(app.test_client().get("/escaped"), 422)
    assert {key: body[key] for key in expected} == expected


def test_a_json_number_without_a_fraction_is_an_integer(call: Call) -> None:
    """As in JSON Schema: 5.0 and 5e0 are the integer 5; 2.5 is not an integer, and a number beyond 64 bits is
    out of range, not "not an integer"."""
    round_ = {"knocker": "As 2s 3s 4s 7h 7d 7c Jd Qd Kd", "defender": "5s 6s 8h 9h 2h 4d 4c 9c Tc Qc"}
    plain = call("POST", "/v1/rounds/score", json={**round_, "rules": {"knock_limit": 5}}).get_json()
    for written in ("5.0", "5e0", "0.5e1", "500e-2"):
        response = call("POST", "/v1/rounds/score", data=f'{{"knocker": "{round_["knocker"]}", "defender": '
                        f'"{round_["defender"]}", "rules": {{"knock_limit": {written}}}}}',
                        content_type="application/json")
        assert response.status_code == 200 and response.get_json() == plain
    for value, detail in ((2.5, "expected an integer from 0 to 10, got 2.5"), (1e30, "expected at most 10, got 1e+30")):
        problem = _problem(call("POST", "/v1/rounds/score", json={**round_, "rules": {"knock_limit": value}}), 422)
        assert problem["errors"] == [{"pointer": "#/rules/knock_limit", "detail": detail}]
    game = call("POST", "/v1/games/score", json={"hands": [{"winner": 0.0, "points": 25.0}]}).get_json()
    assert game["hands"] == [{"winner": 0, "points": 25, "extra_boxes": 0}]


@pytest.mark.parametrize(("url", "body", "pointer", "detail"), [
    # a double would read these as whole numbers: 5, 0 and 1
    ("/v1/rounds/score", ROUND_TEXT + ', "rules": {"knock_limit": 4.9999999999999999}}', "#/rules/knock_limit",
     "expected an integer from 0 to 10, got 4.9999999999999999"),
    ("/v1/rounds/score", ROUND_TEXT + ', "rules": {"knock_limit": 1e-400}}', "#/rules/knock_limit",
     "expected an integer from 0 to 10, got 1e-400"),
    ("/v1/rounds/score", ROUND_TEXT + ', "rules": {"knock_limit": 1e-9999999999999999999}}', "#/rules/knock_limit",
     "expected an integer from 0 to 10, got 1e-9999999999999999999"),  # an exponent past a Decimal's
    ("/v1/games/score", '{"hands": [{"winner": 0.99999999999999999, "points": 25}]}', "#/hands/0/winner",
     "expected 0 or 1 (the player or team that won the hand) or null (a drawn hand), got 0.99999999999999999"),
    ("/v1/hint", HINT_TEXT + ', "seed": 7.0000000000000001}', "#/seed", "expected an integer, like 10, got "
     "7.0000000000000001"),
    # past a double's range: a fault of the field, not of the JSON, shown as written
    ("/v1/rounds/score", ROUND_TEXT + ', "rules": {"knock_limit": 1e400}}', "#/rules/knock_limit",
     "expected at most 10, got 1e400"),
    ("/v1/rounds/score", ROUND_TEXT + ', "rules": {"knock_limit": 1e1000000000000000000}}', "#/rules/knock_limit",
     "expected at most 10, got 1e1000000000000000000"),  # was a 500
    ("/v1/games/score", '{"hands": [], "rules": {"target": ' + "9" * 4301 + "}}", "#/rules/target",
     "expected at most 10,000, got a number written with 4,301 characters"),
    ("/v1/hint", HINT_TEXT + ', "knock_margin": -1e400}', "#/knock_margin", "expected at least 0, got -1e400"),
    ("/v1/hint", HINT_TEXT + ', "knock_margin": 200.00000000000000001}', "#/knock_margin",
     "expected at most 200, got 200.00000000000000001"),
    ("/v1/hint", HINT_TEXT + ', "knock_margin": 201}', "#/knock_margin", "expected at most 200, got 201"),
    ("/v1/hint", HINT_TEXT + ', "stock_count": 0.0000001}', "#/stock_count",
     "expected an integer, like 10, got 0.0000001"),
    ("/v1/hint", HINT_TEXT + ', "stock_count": -9223372036854775809}', "#/stock_count",
     "expected at least 0, got -9223372036854775809"),  # one past the signed 64-bit integers: a double to orjson
    ("/v1/hint", HINT_TEXT + ', "stock_count": ' + "9" * 400 + ".5}", "#/stock_count",
     "expected an integer, like 10, got a number written with 402 characters"),
    # any depth orjson reads, whatever number the body holds
    ("/v1/hands/analyze", '{"hand": "As 2s 3s 7h 7d 7c Kd Qd Jd 5c", "rules": {"knock_limit": 5.0}, "x": '
     + "[" * 1023 + "]" * 1023 + "}", "#/x", "unknown field: expected only drawn_from_discard, hand, rules, "
     "taken_at_stock_end, upcard"),
])
def test_a_json_number_is_read_exactly(call: Call, url: str, body: str, pointer: str, detail: str) -> None:
    """A number that is not an integer was read as a double, which may hold a whole number, and one past a
    double's range was called invalid JSON."""
    problem = _problem(call("POST", url, data=body, content_type="application/json"), 422)
    assert problem["errors"] == [{"pointer": pointer, "detail": detail}]


def test_an_optional_card_may_be_null(call: Call) -> None:
    """``null`` is the same as leaving an optional card out, on every endpoint that takes one."""
    analyzed = call("POST", "/v1/hands/analyze", json={"hand": TEN}).get_json()
    assert call("POST", "/v1/hands/analyze", json={"hand": TEN, "upcard": None, "drawn_from_discard": None}
                ).get_json() == analyzed
    round_ = {"knocker": "As 2s 3s 4s 7h 7d 7c Jd Qd Kd", "defender": "5s 6s 8h 9h 2h 4d 4c 9c Tc Qc"}
    scored = call("POST", "/v1/rounds/score", json=round_).get_json()
    nulls = {"upcard": None, "discard": None, "drawn_from_discard": None}
    assert call("POST", "/v1/rounds/score", json={**round_, **nulls}).get_json() == scored


def test_unknown_body_field_is_named(call: Call) -> None:
    body = _problem(call("POST", "/v1/hands/analyze", json={"hand": TEN, "colour": "red"}), 422)
    assert body["errors"] == [{"pointer": "#/colour",
                               "detail": "unknown field: expected only drawn_from_discard, hand, rules, "
                                         "taken_at_stock_end, upcard"}]


@pytest.mark.parametrize("names", ["abcdefgh", "hgfedcba"])
def test_unknown_fields_are_named_in_the_order_given(call: Call, names: str) -> None:
    """The same request gets the same answer from every process: marshmallow finds unknown fields in a set,
    whose order follows the process's string hashes (one of the two orders here fails without the fix)."""
    body = _problem(call("POST", "/v1/layoffs", json=dict.fromkeys(names, 1)), 422)
    assert [error["pointer"] for error in body["errors"]] == ["#/knocker_melds", "#/defender",
                                                               *(f"#/{name}" for name in names)]
    nested = _problem(call("POST", "/v1/games/score", json={"hands": [{"winner": 0, "points": 5,
                                                                        **dict.fromkeys(names, 1)}]}), 422)
    assert [error["pointer"] for error in nested["errors"]] == [f"#/hands/0/{name}" for name in names]
    query = _problem(call("GET", "/v1/rules?" + "&".join(f"{name}=1" for name in names)), 422)
    assert [error["parameter"] for error in query["errors"]] == list(names)


def test_a_field_name_is_escaped_in_its_pointer(call: Call) -> None:
    """JSON Pointer (RFC 6901) in a URI fragment: ~ as ~0 and / as ~1 (in that order), then percent-encoding."""
    body = _problem(call("POST", "/v1/hands/analyze", json={"hand": TEN, "a/b~c d": 1}), 422)
    assert [error["pointer"] for error in body["errors"]] == ["#/a~1b~0c%20d"]
    colon = _problem(call("POST", "/v1/hands/analyze", json={"hand": TEN, "a:b": 1}), 422)
    assert [error["pointer"] for error in colon["errors"]] == ["#/a:b"]  # ':' is allowed in a fragment
    nameless = _problem(call("POST", "/v1/hands/analyze", json={"hand": TEN, "": 1}), 422)
    assert [error["pointer"] for error in nameless["errors"]] == ["#/"]
    assert nameless["detail"].startswith('"": unknown field')  # the nameless field is shown as ""


CARD_EXPECTED = "expected a card as a string of at most 16 characters, like 'As'"
UNKNOWN_CARD = "unknown card 'Zz': expected a rank (A 2-9 T/10 J Q K) and a suit (s h d c or ♠ ♥ ♦ ♣)"


@pytest.mark.parametrize(("url", "body", "errors"), [
    ("/v1/hands/analyze", {"hand": TEN, "upcard": 5}, [{"pointer": "#/upcard", "detail": CARD_EXPECTED + ", got 5"}]),
    ("/v1/hands/analyze", {"hand": TEN, "rules": {"oklahoma": 1.5, "shutout": 0.0}},  # 0.0 is the integer 0
     [{"pointer": "#/rules/oklahoma", "detail": "expected true or false, got 1.5"},
      {"pointer": "#/rules/shutout", "detail": "expected one of double_bonus, double_score, none, got 0"}]),
    ("/v1/hands/analyze", {"hand": TEN, "rules": 5},
     [{"pointer": "#/rules", "detail": "expected a preset name or an object of rule parameters"}]),
    ("/v1/hands/analyze", {"hand": TEN, "rules": {"target": 2.0**53}},  # a whole number still exact in a float
     [{"pointer": "#/rules/target", "detail": "expected at most 10,000, got 9007199254740992"}]),
    ("/v1/hands/analyze", {"upcard": "Zz", "hand": "As 2s"},  # in the schema's order, not the request's
     [{"pointer": "#/hand", "detail": "a hand here has 10 or 11 cards, got 2"},
      {"pointer": "#/upcard", "detail": UNKNOWN_CARD}]),
    ("/v1/hands/analyze/batch", {"hands": {"a": {"hand": TEN}}},
     [{"pointer": "#/hands", "detail": "expected a list (a JSON array)"}]),
])
def test_body_faults_are_named_with_what_was_expected(call: Call, url: str, body: dict[str, Any],
                                                      errors: list[dict[str, str]]) -> None:
    """Found by a mutation audit of the schemas: each message and pointer as it should be."""
    assert _problem(call("POST", url, json=body), 422)["errors"] == errors


@pytest.mark.parametrize(("query", "errors"), [
    ("&knock_limit=-1", [{"parameter": "knock_limit", "detail": "expected at least 0, got -1"}]),
    ("&oklahoma=Yes&upcard=3d", [{"parameter": "oklahoma", "detail": 'expected true or false, got "Yes"'}]),
    ("&oklahoma=1&upcard=3d", [{"parameter": "oklahoma", "detail": 'expected true or false, got "1"'}]),
    ("&oklahoma=true&upcard=3d&eleven_card_deal=true", [{"parameter": "eleven_card_deal", "detail":
     "Oklahoma needs a first upcard to set the knock limit; this deal turns none up"}]),
    ("&rules=oklahoma", [{"parameter": "upcard", "detail": "Oklahoma rules need the first upcard to set the knock "
                                                          "limit"}]),
])
def test_query_faults_name_their_parameter(call: Call, query: str, errors: list[dict[str, str]]) -> None:
    """Found by a mutation audit of the schemas: a rule's fault in a query names its parameter, as in a body."""
    answer = call("GET", f"{QUERY}{query}", template="/v1/hands/analyze")
    assert _problem(answer, 422)["errors"] == errors


@pytest.mark.parametrize(("written", "knock_limit"), [("true", 3), ("True", 3), ("TRUE", 3), ("false", 10),
                                                    ("False", 10)])
def test_a_query_boolean_is_read_in_any_letter_case(call: Call, written: str, knock_limit: int) -> None:
    """Python's requests writes ``True`` for a query's True."""
    answer = call("GET", f"{QUERY}&upcard=3d&oklahoma={written}",
                  template="/v1/hands/analyze")
    assert answer.status_code == 200 and answer.get_json()["knock_limit"] == knock_limit


def test_unknown_query_parameter_is_named(call: Call) -> None:
    body = _problem(call("GET", f"/v1/hands/analyze?hand={TEN}&knocklimit=5"), 422)
    [error] = body["errors"]
    assert error["parameter"] == "knocklimit" and error["detail"].startswith("unknown field: expected only ")
    assert "knock_limit" in error["detail"] and "big_gin_bonus" not in error["detail"]  # a query cannot say null
    nameless = _problem(call("GET", "/v1/hands/analyze?=false"), 422)  # found by the fuzzer
    assert any(e["parameter"] == "" and e["detail"].startswith("unknown field") for e in nameless["errors"])
    assert '"": unknown field' in nameless["detail"]  # the nameless parameter is shown as ""
    signed = _problem(call("GET", f"/v1/hands/analyze?hand={TEN}&knock_limit=%2B5"), 422)  # '+' would be a space
    assert signed["errors"] == [{"parameter": "knock_limit",
                                 "detail": 'expected an integer written with the digits 0-9, like 10, got "+5"'}]
    big_gin = _problem(call("GET", f"/v1/hands/analyze?hand={TEN}&big_gin_bonus=5"), 422)
    assert big_gin["errors"] == [{"parameter": "big_gin_bonus", "detail": "not taken in the query: it changes no "
                                                                         "analysis (a POST takes it in rules)"}]


@pytest.mark.parametrize(("faults", "rest"), [(3, ""), (4, " (and 1 more)"), (5, " (and 2 more)")])
def test_the_detail_names_the_first_three_faults_and_counts_the_rest(call: Call, faults: int, rest: str) -> None:
    wrong = ["knock_limit=11", "gin_bonus=-1", "undercut_on_tie=maybe", "shutout=never", "target=x"][:faults]
    body = _problem(call("GET", f"/v1/hands/analyze?hand={TEN}&{'&'.join(wrong)}"), 422)
    assert len(body["errors"]) == faults
    named = "; ".join(f"{error['parameter']}: {error['detail']}" for error in body["errors"][:3])
    assert body["detail"] == named + rest


DEEP_LIST = "[" * 1000 + "]" * 1000  # within the JSON parser's depth limit, past Python's recursion limit


@pytest.mark.parametrize("path", ["/v1/hands/analyze", "/v1/hands/analyze/batch", "/v1/layoffs",
                                  "/v1/rounds/score", "/v1/games/score", "/v1/hint"])
def test_a_rule_value_nested_1000_deep_is_a_422_on_every_operation(call: Call, path: str) -> None:
    """Found by a hostile-input audit: the rule's message printed the value and overflowed the stack (a 500)."""
    response = call("POST", path, data=f'{{"rules": {{"knock_limit": {DEEP_LIST}}}}}', content_type="application/json")
    errors = _problem(response, 422)["errors"]
    assert {"pointer": "#/rules/knock_limit", "detail": "expected an integer from 0 to 10, got a list"} in errors


def test_a_batch_item_with_a_deeply_nested_rule_gets_its_own_problem(call: Call) -> None:
    item = f'{{"hand": "{TEN}", "rules": {{"shutout": {DEEP_LIST}}}}}'
    response = call("POST", "/v1/hands/analyze/batch", data=f'{{"hands": [{{"hand": "{TEN}"}}, {item}]}}',
                    content_type="application/json")
    fine, bad = response.get_json()["results"]
    assert fine["status"] == 200 and bad["status"] == 422
    assert bad["problem"]["errors"] == [{"pointer": "#/hands/1/rules/shutout",
                                         "detail": "expected one of double_bonus, double_score, none, got a list"}]


def test_every_bad_rule_parameter_is_named_at_once(call: Call) -> None:
    rules = {"shutout": "bad", "knock_limit": 10.5, "target": 0}
    body = _problem(call("POST", "/v1/hands/analyze", json={"hand": TEN, "rules": rules}), 422)
    assert body["errors"] == [
        {"pointer": "#/rules/knock_limit", "detail": "expected an integer from 0 to 10, got 10.5"},
        {"pointer": "#/rules/target", "detail": "expected at least 1, got 0"},
        {"pointer": "#/rules/shutout", "detail": 'expected one of double_bonus, double_score, none, got "bad"'},
    ]


def test_a_fault_of_the_whole_body_is_called_the_request_body(call: Call) -> None:
    assert _problem(call("POST", "/v1/hands/analyze", json=[]), 422)["detail"].startswith("request body: ")


def test_a_query_string_beside_a_json_body_is_refused_not_ignored(call: Call) -> None:
    """Rules in the query of a POST would otherwise be dropped silently (the knock limit stayed 10)."""
    response = call("POST", "/v1/hands/analyze?knock_limit=3", json={"hand": TEN}, template="/v1/hands/analyze")
    assert _problem(response, 422)["errors"] == [
        {"parameter": "knock_limit", "detail": "not read here: this operation takes its input as a JSON body"}]


@pytest.mark.parametrize(("method", "path"), [("GET", "/v1/hands/analyze"), ("GET", "/v1/rules"),
                                             ("POST", "/v1/hint")])
def test_a_query_string_that_is_not_utf8_is_a_bad_request(call: Call, method: str, path: str) -> None:
    """Raw bytes reach the app from servers other than gunicorn (which refuses them): Werkzeug failed on them with
    a 500, and a POST was told its body was not JSON."""
    body = {"hand": TEN} if method == "POST" else None
    # WSGI hands the query string over as latin-1 text of its bytes: here one byte 0xe9.
    response = call(method, path, environ_overrides={"QUERY_STRING": "hand=A\xe9s"}, json=body)
    assert _problem(response, 400)["detail"].startswith("byte 0xe9 of the query string is not UTF-8")


@pytest.mark.parametrize(("method", "path", "query"), [
    ("GET", "/v1/hands/analyze", "hand=%FFs,2s,3s,7h,7d,7c,Kd,Qd,Jd,5c"), ("GET", "/v1/rules", "%FF"),
    ("POST", "/v1/hint", "x=%C3%28"), ("GET", "/v1/hands/analyze", "hand=%E9s,2s,3s,7h,7d,7c,Kd,Qd,Jd,5c")])
def test_a_query_string_escaping_bytes_that_are_not_utf8_is_a_bad_request(call: Call, method: str, path: str,
                                                                            query: str) -> None:
    """Werkzeug keeps such an escape as text: it was read as a card, or as a parameter's name."""
    response = call(method, path + "?" + query, json={"hand": TEN} if method == "POST" else None)
    escape = query[query.index("%"):][:3]
    assert _problem(response, 400)["detail"].startswith(f"the escape {escape} of the query string does not decode")


def test_a_query_string_of_raw_utf8_is_read(call: Call) -> None:
    query = "hand=" + TEN.replace("s", "♠").replace(" ", ",").encode().decode("latin-1")
    response = call("GET", "/v1/hands/analyze", environ_overrides={"QUERY_STRING": query})
    assert response.status_code == 200


@pytest.mark.parametrize("url", ["/v1/hands/analyze", QUERY, "/v1/rules"])
def test_a_body_beside_a_query_is_refused_not_ignored(call: Call, url: str) -> None:
    """The mirror of a query beside a body: a GET with a JSON body is told where its input goes."""
    problem = _problem(call("GET", url, json={"hand": TEN}), 422)
    assert problem["errors"] == [{"pointer": "#", "detail": "a GET takes its input in the query string and reads "
                                                            "no body; a JSON body goes with POST"}]


@pytest.mark.parametrize(("method", "chunked"), [("HEAD", False), ("GET", True)])
def test_a_head_or_a_chunked_body_beside_a_query_is_refused_too(app: Flask, method: str, chunked: bool) -> None:
    body = json.dumps({"hand": TEN}).encode()
    environ = EnvironBuilder(path="/v1/hands/analyze", method=method, query_string={"hand": TEN.replace(" ", ",")},
                             input_stream=io.BytesIO(body), content_type="application/json").get_environ()
    if chunked:
        del environ["CONTENT_LENGTH"]
        environ["HTTP_TRANSFER_ENCODING"] = "chunked"
        environ["wsgi.input_terminated"] = True
    _, status_line, _ = run_wsgi_app(app, environ, buffered=True)
    assert status_line.startswith("422")


def test_every_bad_card_of_a_list_is_named_at_once(call: Call) -> None:
    hand = ["Xs", "2s", "3s", "7h", "7d", "7c", "Kd", "Qd", "2S", "1c"]
    errors = _problem(call("POST", "/v1/hands/analyze", json={"hand": hand}), 422)["errors"]
    assert [(error["pointer"], error["detail"].split(":")[0]) for error in errors] == [
        ("#/hand/0", "unknown card 'Xs'"), ("#/hand/8", "duplicate card 2s"), ("#/hand/9", "unknown card '1c'")]
    not_text = _problem(call("POST", "/v1/hands/analyze", json={"hand": [1, "2s", None, *hand[3:]]}), 422)
    assert [error["pointer"] for error in not_text["errors"]] == ["#/hand/0", "#/hand/2"]


def test_every_bad_card_of_a_string_is_named_at_once(call: Call) -> None:
    problem = _problem(call("POST", "/v1/hands/analyze", json={"hand": "Xs 2s 3s 7h 7d 7c Kd Qd 2S 1c"}), 422)
    [error] = problem["errors"]
    assert error["pointer"] == "#/hand"
    assert error["detail"] == ("unknown cards 'Xs', '1c': expected a rank (A 2-9 T/10 J Q K) and a suit (s h d c or "
                               "♠ ♥ ♦ ♣); duplicate card 2s (given 2 times)")


def test_a_card_repeated_in_a_string_is_named_once_with_its_count(call: Call) -> None:
    """Eleven aces of spades were answered "duplicate card As" ten times over."""
    problem = _problem(call("POST", "/v1/hands/analyze", json={"hand": " ".join(["As"] * 11)}), 422)
    assert problem["errors"] == [{"pointer": "#/hand", "detail": "duplicate card As (given 11 times)"}]


FAULTY = "Zz"
"""An item that is no card (and no object of any request): each one alone is a fault of its own."""


@pytest.mark.parametrize(("url", "body", "pointer", "detail"), [
    ("/v1/hands/analyze", {"hand": [FAULTY] * 5000}, "#/hand", "a hand here has 10 or 11 cards, got 5000"),
    ("/v1/hands/analyze", {"hand": " ".join([FAULTY] * 80)}, "#/hand", "a hand here has 10 or 11 cards, got 80"),
    ("/v1/hands/analyze", {"hand": [FAULTY] * 12}, "#/hand", "a hand here has 10 or 11 cards, got 12"),
    ("/v1/hands/analyze/batch", {"hands": [{"hand": [FAULTY] * 5000}]}, "#/hands/0/hand",
     "a hand here has 10 or 11 cards, got 5000"),
    ("/v1/layoffs", {"defender": TEN, "knocker_melds": [[FAULTY]] * 4000}, "#/knocker_melds",
     "expected 1 to 3 items, got 4,000"),
    ("/v1/layoffs", {"defender": TEN, "knocker_melds": [[FAULTY] * 4000]}, "#/knocker_melds/0",
     "a meld here has 3 to 11 cards, got 4000"),
    ("/v1/rounds/score", {"knocker": TEN, "defender": [FAULTY] * 4000}, "#/defender",
     "a hand here has 10 cards, got 4000"),
    ("/v1/games/score", {"hands": [{}] * 4000}, "#/hands", "expected 0 to 500 items, got 4,000"),
    ("/v1/games/score", {"deals": [{}] * 4000}, "#/deals", "expected 0 to 250 items, got 4,000"),
    ("/v1/games/score", {"deals": [{"tables": [{}] * 4000}]}, "#/deals/0/tables",
     "expected exactly 2 items, got 4,000"),
    ("/v1/hint", {"discard_pile": [FAULTY] * 4000}, "#/discard_pile", "expected 0 to 52 items, got 4,000"),
    ("/v1/hint", {"opponent_discards": [FAULTY] * 4000}, "#/opponent_discards", "expected 0 to 1,000 items, got 4,000"),
    ("/v1/hint", {"opponent_hand_known": [FAULTY] * 4000}, "#/opponent_hand_known",
     "expected at most 10 cards: the opponent holds 10"),
])
def test_a_list_too_long_is_refused_by_its_count_alone(call: Call, url: str, body: dict[str, Any], pointer: str,
                                                        detail: str) -> None:
    """A list longer than allowed gets one fault, its count, not one for each faulty item in it: the problem stays
    a fraction of the request's size."""
    if url == "/v1/hint":
        body = {"hand": TEN, "phase": "draw", "stock_count": 20, **body}
    response = call("POST", url, json=body)
    problem = response.get_json()["results"][0]["problem"] if url.endswith("batch") else _problem(response, 422)
    assert problem["errors"] == [{"pointer": pointer, "detail": detail}]
    assert len(response.get_data()) < 500


@pytest.mark.parametrize("url", ["/v1/hands/analyze", "/v1/hands/analyze/batch"])
def test_rules_with_more_keys_than_there_are_parameters_are_refused_by_their_count(call: Call, url: str) -> None:
    """Each unknown name would get its own fault, listing every parameter: 6,000 of them made a 2.7 MB problem."""
    rules = {f"p{i}": 0 for i in range(6000)}
    body = {"hands": [{"hand": TEN, "rules": rules}]} if url.endswith("batch") else {"hand": TEN, "rules": rules}
    response = call("POST", url, json=body)
    problem = response.get_json()["results"][0]["problem"] if url.endswith("batch") else _problem(response, 422)
    pointer = "#/hands/0/rules" if url.endswith("batch") else "#/rules"
    count = len(RULE_PARAMETERS)
    assert problem["errors"] == [{"pointer": pointer, "detail": f"expected at most {count + 1} keys (`preset` and the "
                                  f"{count} rule parameters GET /v1/rules lists), got 6,000; not rule parameters: "
                                  '"p0", "p1", "p2" and 5,997 more'}]
    assert len(response.get_data()) < 600


def test_rules_with_one_key_too_many_name_the_key_that_is_no_parameter(call: Call) -> None:
    every = {**call("GET", "/v1/rules").get_json()["default"], "preset": "standard", "knock_limt": 5}
    problem = _problem(call("POST", "/v1/hands/analyze", json={"hand": TEN, "rules": every}), 422)
    assert problem["errors"][0]["detail"].endswith(f'got {len(RULE_PARAMETERS) + 2}; not rule parameters: "knock_limt"')


@pytest.mark.parametrize(("body", "pointer", "then"), [
    ({"hand": TEN, "k" * 60_000: 1}, "#", "unknown field"),
    ({"hand": TEN, "rules": {"k" * 60_000: 1}}, "#/rules", "unknown rule parameter"),
    ({"hands": [{"hand": TEN, "k" * 60_000: 1}]}, "#/hands/0", "unknown field"),
])
def test_a_long_unknown_key_is_named_cut_short_at_the_object_that_holds_it(call: Call, body: dict[str, Any],
                                                                          pointer: str, then: str) -> None:
    """Echoed whole, a 60,000-character key came back in the pointer and again in the detail."""
    url = "/v1/hands/analyze/batch" if "hands" in body else "/v1/hands/analyze"
    response = call("POST", url, json=body)
    problem = response.get_json()["results"][0]["problem"] if "hands" in body else _problem(response, 422)
    [error] = problem["errors"]
    assert error["pointer"] == pointer
    assert error["detail"].startswith(f'the key "{"k" * 40}..." (60,000 characters): {then}')
    assert len(response.get_data()) < 2000
    short = _problem(call("POST", "/v1/hands/analyze", json={"hand": TEN, "k" * 64: 1}), 422)
    assert short["errors"][0]["pointer"] == "#/" + "k" * 64  # a key of 64 characters is echoed whole
    over = _problem(call("POST", "/v1/hands/analyze", json={"hand": TEN, "k" * 65: 1}), 422)
    assert over["errors"][0]["pointer"] == "#" and "(65 characters)" in over["errors"][0]["detail"]


def test_a_batch_of_unknown_rule_names_is_answered_with_the_names_once_an_item(call: Call) -> None:
    """Each unknown name carried the list of all 17 parameters: 1,000 items of 18 short names (216 KB) were answered
    with 7.2 MB. The list now comes once an item, at its first name that no parameter's is near."""
    rules = {f"q{j:02d}": 1 for j in range(18)}
    response = call("POST", "/v1/hands/analyze/batch", json={"hands": [{"hand": TEN, "rules": rules}] * 50})
    problems = [result["problem"] for result in response.get_json()["results"]]
    assert all(len(problem["errors"]) == 18 for problem in problems)
    assert sum("expected one of knock_limit" in error["detail"] for error in problems[0]["errors"]) == 1
    assert len(response.get_data()) < 50 * 3500


def test_rules_with_every_parameter_and_a_preset_are_not_too_many(call: Call) -> None:
    every = {**call("GET", "/v1/rules").get_json()["default"], "preset": "standard"}
    assert call("POST", "/v1/hands/analyze", json={"hand": TEN, "rules": every}).status_code == 200


def test_a_problem_lists_its_first_twenty_faults_and_counts_the_rest(call: Call) -> None:
    response = call("POST", "/v1/games/score", json={"hands": [{"winner": 2, "points": 10}] * 100})
    problem = _problem(response, 422)
    assert [error["pointer"] for error in problem["errors"]] == [f"#/hands/{i}/winner" for i in range(20)]
    assert problem["detail"].endswith("(and 97 more)")
    assert len(response.get_data()) < 4000
    unknown = "&".join(f"field{i}" for i in range(100))
    in_query = _problem(call("GET", f"/v1/hands/analyze?hand={TEN}&{unknown}"), 422)
    assert len(in_query["errors"]) == 20 and in_query["detail"].endswith("(and 97 more)")


@pytest.mark.parametrize("where", ["body", "batch item"])
def test_an_object_of_more_unknown_keys_than_a_problem_lists_is_refused_by_their_count(call: Call, where: str
                                                                                        ) -> None:
    """Twenty unknown keys get a fault each; more are one fault at the object, however many (a 2 MiB batch of
    260,000 keys took 1.7 s and 170 MB while each got its own), beside the faults of the object's known fields."""
    def answer(keys: int, hand: str = TEN) -> dict[str, Any]:
        item = {"hand": hand, **{f"k{i}": 0 for i in range(keys)}}
        if where == "body":
            return _problem(call("POST", "/v1/hands/analyze", json=item), 422)
        results = call("POST", "/v1/hands/analyze/batch", json={"hands": [{"hand": TEN}, item]}).get_json()
        assert results["results"][0]["status"] == 200
        problem: dict[str, Any] = results["results"][1]["problem"]
        return problem

    pointer = "#" if where == "body" else "#/hands/1"
    listed = answer(20)
    assert [error["pointer"] for error in listed["errors"]] == [f"{pointer}/k{i}" for i in range(20)]
    expected = "expected only drawn_from_discard, hand, rules, taken_at_stock_end, upcard"
    assert answer(21)["errors"] == [{"pointer": pointer, "detail": f'21 unknown fields ("k0", "k1", "k2" and 18 more): '
                                     f"{expected}"}]
    counted = answer(5_000, hand="As 2s")
    assert counted["errors"] == [
        {"pointer": pointer, "detail": f'5,000 unknown fields ("k0", "k1", "k2" and 4,997 more): {expected}'},
        {"pointer": f"{pointer}/hand", "detail": "a hand here has 10 or 11 cards, got 2"}]


@pytest.mark.parametrize(("url", "body", "detail"), [
    ("/v1/layoffs", {"knocker_melds": [["6h", "7h", "8H"]]}, "8h is in both the defender's hand and a knocker meld"),
    ("/v1/rounds/score", {"knocker": "As 2s 3s 7h 7d 7c Kd Qd Jd 8h"}, "8h is in both hands"),
])
def test_a_card_in_both_places_is_pointed_at_in_the_defenders_list(call: Call, url: str, body: dict[str, Any],
                                                                    detail: str) -> None:
    listed = ["9h", "Th", "2c", "3c", "4c", "Qh", "5s", "5d", "Ks", "8h"]
    as_list = _problem(call("POST", url, json={**body, "defender": listed}), 422)
    assert as_list["errors"] == [{"pointer": "#/defender/9", "detail": detail}]
    as_text = _problem(call("POST", url, json={**body, "defender": " ".join(listed)}), 422)
    assert as_text["errors"] == [{"pointer": "#/defender", "detail": detail}]


def test_a_key_given_twice_is_read_with_its_last_value(call: Call) -> None:
    """As the README documents (and JavaScript's JSON.parse reads it), whichever order they come in."""
    short, full = '"As 2s"', f'"{TEN}"'
    last_full = call("POST", "/v1/hands/analyze", data=f'{{"hand": {short}, "hand": {full}}}',
                     content_type="application/json")
    assert last_full.status_code == 200 and len(last_full.get_json()["hand"]) == 10
    last_short = call("POST", "/v1/hands/analyze", data=f'{{"hand": {full}, "hand": {short}}}',
                      content_type="application/json")
    assert _problem(last_short, 422)["errors"][0]["pointer"] == "#/hand"


def test_health_and_readiness(call: Call) -> None:
    """A probe reads no query string and is answered whatever a checker adds to it (documented in the spec)."""
    for query in ("", "?x=1"):
        assert call("GET", f"/healthz{query}").get_json() == {"status": "ok"}
        assert call("GET", f"/readyz{query}").get_json() == {"status": "ready"}


def test_docs_are_served_from_package_files(client) -> None:  # type: ignore[no-untyped-def]
    page = client.get("/docs/", headers={"Host": "elsewhere.example"})
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert '"url": "/openapi.json"' in html
    assert '"oauth2RedirectUrl": "/docs/oauth2-redirect.html"' in html and "elsewhere" not in html
    assert all(link.startswith("/docs/") for link in re.findall(r'(?:src|href)="([^"]*)"', html))
    assert '"validatorUrl": null' in html
    bundle = client.get("/docs/swagger-ui-bundle.js")
    assert bundle.status_code == 200 and len(bundle.get_data()) > 100_000
    assert client.get("/docs").status_code == 308


@pytest.mark.parametrize(("method", "path", "location"), [
    ("GET", "/docs", "/docs/"), ("HEAD", "/docs?x=1&y=%C3%A9", "/docs/?x=1&y=%C3%A9"),
    ("GET", "/v1//rules", "/v1/rules"), ("POST", "/v1//hint", "/v1/hint"),
    ("GET", "/docs//index.html", "/docs/index.html")])
def test_a_routing_redirect_names_the_path_not_the_host_a_client_gave(client, method: str, path: str,  # type: ignore[no-untyped-def]
                                                                       location: str) -> None:
    """Werkzeug adds a missing slash and merges doubled ones by a 308 built on the ``Host`` header's host."""
    moved = client.open(path, method=method, headers={"Host": "elsewhere.example"})
    assert (moved.status_code, moved.headers["Location"]) == (308, location)


@pytest.mark.parametrize(("headers", "status"), [({"If-Match": '"not-this-file"'}, 412),
                                                ({"Range": "bytes=99999999-"}, 416)])
def test_a_docs_file_whose_condition_or_range_fails_is_a_problem(client, headers: dict[str, str],  # type: ignore[no-untyped-def]
                                                                 status: int) -> None:
    """Found by a mutation audit: the 412 carried the whole file as text/css, the 416 was titled "Error"."""
    _problem(client.get("/docs/swagger-ui.css", headers=headers), status)


@pytest.mark.parametrize(("if_match", "if_none_match", "status"), [("*", None, 200), ('"other"', None, 412),
                                                                    ("*", "this", 304), ("*", "*", 304)])
def test_a_docs_file_matches_if_match_star(client, if_match: str, if_none_match: str | None,  # type: ignore[no-untyped-def]
                                           status: int) -> None:
    """Any file that exists matches ``If-Match: *`` (RFC 9110, 13.1.1); Werkzeug's file answers failed it with 412."""
    tag = client.get("/docs/swagger-ui.css").headers["ETag"]
    headers = {"If-Match": if_match} | ({"If-None-Match": tag if if_none_match == "this" else if_none_match}
                                        if if_none_match else {})
    assert client.get("/docs/swagger-ui.css", headers=headers).status_code == status


def test_spec_is_served_as_json_and_yaml(app: Flask, client) -> None:  # type: ignore[no-untyped-def]
    as_json = client.get("/openapi.json")
    as_yaml = client.get("/openapi.yaml")
    assert as_json.mimetype == "application/json" and as_yaml.mimetype == "application/yaml"
    assert as_json.get_json()["info"]["version"] == __version__
    assert as_yaml.get_data(as_text=True) == app.extensions["openapi"]["yaml"]


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_the_spec_refuses_a_parameter_rather_than_ignoring_it(call: Call, fmt: str) -> None:
    """``?format=yaml`` does not turn the JSON document into YAML: it is refused, as by ``/v1/rules`` (found by a
    code review: the documents ignored a query string)."""
    problem = _problem(call("GET", f"/openapi.{fmt}?format=yaml"), 422)
    assert problem["errors"] == [{"parameter": "format", "detail": "not read: this operation takes no parameters"}]


def test_the_detail_names_keys_as_written_and_the_pointers_encode_them(call: Call) -> None:
    """A URI fragment encodes "é" and a space; the one-line detail shows them as the body wrote them, quoted (so that
    a trailing space shows) and escaped where they would break the line (found by a docs audit: "%C3%A9: unknown
    field"; a review: "hand ")."""
    body = {"hand": TEN, "é": 1, "a b": 2, "x\ny": 3, "hand ": 4, "u\u2028": 5}
    problem = _problem(call("POST", "/v1/hands/analyze", json=body), 422)
    assert [error["pointer"] for error in problem["errors"]] == ["#/%C3%A9", "#/a%20b", "#/x%0Ay", "#/hand%20",
                                                                 "#/u%E2%80%A8"]
    assert problem["detail"].startswith('"é": unknown field: expected only drawn_from_discard, hand, rules, '
                                        'taken_at_stock_end, upcard; "a b": unknown field')
    assert problem["detail"].endswith("(and 2 more)")
    rules = _problem(call("POST", "/v1/hands/analyze", json={"hand": TEN, "rules": {"knock_limit ": 5}}), 422)
    assert rules["detail"] == '"rules/knock_limit ": unknown rule parameter; did you mean knock_limit?'
    counted = _problem(call("POST", "/v1/hands/analyze", json={"hand": TEN, **{f"k\u2028{i}": 0 for i in range(21)}}),
                       422)
    assert counted["detail"].isprintable() and "\\u2028" in counted["detail"]


def test_unknown_keys_are_counted_only_where_they_are_refused() -> None:
    """A schema loaded with ``unknown=EXCLUDE`` drops any number of them, as marshmallow does (a review)."""
    loaded = AnalyzeRequest().load({"hand": TEN, **{f"k{i}": 0 for i in range(21)}}, unknown=EXCLUDE)
    assert set(loaded) == {"hand", "rules", "taken_at_stock_end"}
