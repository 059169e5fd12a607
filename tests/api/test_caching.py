"""GET answers depend on the request alone: any cache may keep them for ``GIN_CACHE_MAX_AGE`` seconds, and a
client that holds one revalidates it by its ETag (a 304 without a body while it is unchanged)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from service import create_app
from service.config import load_config

from .conftest import Call

HAND = "As,2s,3s,7h,7d,7c,Kd,Qd,Jd,5c"
CACHED = [f"/v1/hands/analyze?hand={HAND}", "/v1/rules", "/openapi.json", "/openapi.yaml"]
VARY = "X-Request-ID, Accept-Encoding"


def _template(url: str) -> str:
    return url.split("?", 1)[0]


@pytest.mark.parametrize("url", CACHED)
def test_an_answer_held_is_revalidated_by_its_etag(call: Call, url: str) -> None:
    fresh = call("GET", url)
    etag = fresh.headers["ETag"]
    assert fresh.status_code == 200 and fresh.headers["Cache-Control"] == "public, max-age=300"
    assert re.fullmatch(r'W/"[0-9a-f]{40}"', etag) and fresh.headers["Vary"] == VARY  # a SHA-1 of the body
    for held in (etag, etag.removeprefix("W/"), f'"other", {etag}', "*"):
        again = call("GET", url, headers={"If-None-Match": held})
        assert again.status_code == 304 and again.status == "304 Not Modified" and again.data == b""
        assert (again.headers["ETag"], again.headers["Cache-Control"]) == (etag, "public, max-age=300")
        assert again.headers["Vary"] == VARY  # a 304 says what the 200 would (RFC 9110, 15.4.5)
        assert "X-Request-ID" in again.headers
    assert call("HEAD", url, headers={"If-None-Match": etag}).status_code == 304
    changed = call("GET", url, headers={"If-None-Match": '"an older answer"'})
    assert changed.status_code == 200 and changed.data == fresh.data and changed.headers["ETag"] == etag


def test_the_etag_is_the_answer_s() -> None:
    """Two hands, two tags; the same hand in another app, the same tag (it hashes the body, nothing of the process)."""
    first, second = create_app().test_client(), create_app().test_client()
    tags = {client.get(f"/v1/hands/analyze?hand={hand}").headers["ETag"]
            for client in (first, second) for hand in (HAND, HAND.replace("5c", "6c"))}
    assert len(tags) == 2
    rules = first.get("/v1/hands/analyze", query_string={"hand": HAND, "knock_limit": 5})
    assert rules.headers["ETag"] not in tags  # the same hand under other rules: another answer


def test_preconditions_are_taken_in_the_order_of_rfc_9110(call: Call) -> None:
    """If-Match first: a weak tag never matches it, so anything but * fails; then If-None-Match. Werkzeug's
    make_conditional refused If-Match: * and let If-Match beside a matching If-None-Match answer 200."""
    url = CACHED[0]
    etag = call("GET", url).headers["ETag"]
    assert call("GET", url, headers={"If-Match": "*"}).status_code == 200
    assert call("GET", url, headers={"If-Match": "*", "If-None-Match": etag}).status_code == 304
    for held in (etag, etag.removeprefix("W/"), '"other"'):
        refused = call("GET", url, headers={"If-Match": held, "If-None-Match": etag})
        assert refused.status_code == 412 and refused.get_json()["detail"] == (
            f"If-Match names no tag of this answer: its ETag, {etag}, is weak, and If-Match matches only a strong "
            "tag (or *)")
    for ignored in ("If-Modified-Since", "If-Unmodified-Since"):  # no Last-Modified to compare with
        assert call("GET", url, headers={ignored: "Sat, 01 Jan 2000 00:00:00 GMT"}).status_code == 200


@pytest.mark.parametrize(("origins", "vary"), [("", VARY), ("*", VARY), ("https://a.example", f"{VARY}, Origin")])
def test_an_answer_varies_with_the_origin_where_only_some_may_read_it(origins: str, vary: str) -> None:
    """With origins named, the answer to a request without an Origin carries no Access-Control-Allow-Origin: a shared
    cache that served it to an allowed page would have the browser block it. So does every answer of a path open to
    pages (404, 422 and 405 answers may be kept too, and a preflight is), in one Vary header."""
    client = create_app({"CORS_ORIGINS": origins}).test_client()
    named = origins.startswith("https")
    for headers in ({}, {"Origin": "https://a.example"}):
        assert client.get("/v1/rules", headers=headers).headers.getlist("Vary") == [vary]
        for other in (client.get("/v1/nope", headers=headers), client.get("/v1/hands/analyze?hand=As", headers=headers),
                      client.delete("/v1/rules", headers=headers)):
            assert other.headers.getlist("Vary") == (["Origin"] if named else []), other.status
        assert "Vary" not in client.get("/healthz", headers=headers).headers  # closed to pages
    preflight = client.options("/v1/rules", headers={"Origin": "https://a.example",
                                                     "Access-Control-Request-Method": "GET"})
    assert preflight.headers.getlist("Vary") == (["Origin"] if named else [])


def test_only_successful_gets_are_cacheable(call: Call) -> None:
    """A POST's answer, a GET's problem and the probes carry neither header: no cache keeps them."""
    answers = [call("POST", "/v1/hands/analyze", json={"hand": HAND}),
               call("GET", "/v1/hands/analyze?hand=As,2s"), call("GET", "/healthz"), call("GET", "/readyz")]
    assert [answer.status_code for answer in answers] == [200, 422, 200, 200]
    for answer in answers:
        assert "ETag" not in answer.headers and "Cache-Control" not in answer.headers


def test_the_spec_documents_exactly_the_cached_operations(spec: dict[str, Any]) -> None:
    documented = {path for path, item in spec["paths"].items() for operation in item.values()
                  if "304" in operation["responses"]}
    assert documented == {_template(url) for url in CACHED}
    for path in documented:
        operation = spec["paths"][path]["get"]
        assert {"ETag", "Cache-Control", "Vary"} <= set(operation["responses"]["200"]["headers"])
        assert operation["responses"]["412"] == {"$ref": "#/components/responses/PreconditionFailed"}
        assert {"$ref": "#/components/parameters/IfNoneMatch"} in operation["parameters"]
        # A generated client: the 412 was listed, but no typed call could send the If-Match that gets it.
        assert {"$ref": "#/components/parameters/IfMatch"} in operation["parameters"]


def test_the_time_a_cache_may_keep_an_answer_is_a_setting() -> None:
    assert load_config({})["CACHE_MAX_AGE"] == 300
    assert load_config({"GIN_CACHE_MAX_AGE": "86400"})["CACHE_MAX_AGE"] == 86400
    longer = create_app({"CACHE_MAX_AGE": 86400}).test_client().get("/v1/rules")
    assert longer.headers["Cache-Control"] == "public, max-age=86400"
    revalidated = create_app({"CACHE_MAX_AGE": 0}).test_client().get("/v1/rules")
    assert revalidated.headers["Cache-Control"] == "no-cache" and "ETag" in revalidated.headers
    for written, fault in (("-1", "must be at least 0, got -1"), ("31536001", "must be at most 31536000"),
                           ("5m", "must be an integer written with the digits 0-9")):
        with pytest.raises(ValueError, match=f"^GIN_CACHE_MAX_AGE {fault}"):
            load_config({"GIN_CACHE_MAX_AGE": written})
