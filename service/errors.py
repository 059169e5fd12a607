"""Every error as an RFC 9457 problem (``application/problem+json``), from one place.

A problem has ``type``, ``title``, ``status`` and ``detail``; invalid input adds ``errors``, one
entry per fault: ``pointer`` (a JSON pointer into the body, as a URI fragment) or ``parameter``
(a query parameter), and ``detail``. Werkzeug's headers (``Allow`` on a 405) are kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from flask import Flask, Response, current_app, request
from marshmallow import ValidationError
from werkzeug.exceptions import (
    ClientDisconnected,
    HTTPException,
    InternalServerError,
    RequestEntityTooLarge,
    UnsupportedMediaType,
)

from .core.cards import CardError
from .core.errors import FieldError, GinError, describe_value, one_line
from .core.rules import RulesError
from .core.scoring import GameError, IllegalKnockError

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIEnvironment

PROBLEM_MEDIA_TYPE = "application/problem+json"
PROBLEM_BASE = "tag:gin-service,2025:problems/"
INVALID_INPUT = PROBLEM_BASE + "invalid-input"
ILLEGAL_KNOCK = PROBLEM_BASE + "illegal-knock"

TITLES = {
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    412: "Precondition Failed",
    413: "Content Too Large",
    414: "URI Too Long",
    415: "Unsupported Media Type",
    416: "Range Not Satisfiable",
    417: "Expectation Failed",
    422: "Unprocessable Content",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    501: "Not Implemented",
}


MAX_LISTED_ERRORS = 20
"""A problem's ``errors`` lists at most this many faults (its ``detail`` counts them all), so that a request full of
faults is not answered with a problem many times its size."""


def problem_body(status: int, detail: str, *, type_: str = "about:blank", **extensions: Any) -> dict[str, Any]:
    """The JSON members of a problem (``errors`` cut to the first ``MAX_LISTED_ERRORS``)."""
    if "errors" in extensions:
        extensions["errors"] = extensions["errors"][:MAX_LISTED_ERRORS]
    return {"type": type_, "title": TITLES.get(status, "Error"), "status": status, "detail": detail, **extensions}


def problem(status: int, detail: str, *, headers: Mapping[str, str] | None = None, **members: Any) -> Response:
    """A problem+json response, its status line in the words of its title (RFC 9110's, not Werkzeug's older
    "UNPROCESSABLE ENTITY")."""
    body = current_app.json.dumps(problem_body(status, detail, **members))
    line = f"{status} {TITLES[status]}" if status in TITLES else status
    return current_app.response_class(body, line, headers, mimetype=PROBLEM_MEDIA_TYPE)


def _pointer(path: tuple[str | int, ...]) -> str:
    escaped = (str(part).replace("~", "~0").replace("/", "~1") for part in path)
    return "#" + quote("".join("/" + part for part in escaped), safe="/~!$&'()*+,;=:@")


def _leaves(messages: object, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Flatten marshmallow's nested messages; ``_schema`` names the object itself."""
    if isinstance(messages, Mapping):
        for key, value in messages.items():
            yield from _leaves(value, path if key == "_schema" else (*path, key))
    elif isinstance(messages, list):
        for message in messages:
            yield from _leaves(message, path)
    else:
        yield path, str(messages)


def field_errors(messages: object, location: str = "json", prefix: tuple[str | int, ...] = ()) -> list[dict[str, str]]:
    """Marshmallow messages as problem ``errors`` entries."""
    entries = []
    for path, message in _leaves(messages, prefix):
        if location == "query" and path:
            entries.append({"parameter": str(path[0]), "detail": message})
        else:
            pointer, detail = _long_key_named(path, message)
            entries.append({"pointer": pointer, "detail": detail})
    return entries


MAX_KEY_ECHOED = 64
"""A key longer than this is not echoed whole (a body's 2 MB key would come back three times its size,
percent-encoded in the pointer and again in the detail)."""


def _long_key_named(path: tuple[str | int, ...], message: str) -> tuple[str, str]:
    """The pointer and detail of a fault; past a key too long to echo, the pointer stops at the object that holds
    it, and the detail names the key cut short."""
    for depth, key in enumerate(path):
        if isinstance(key, str) and len(key) > MAX_KEY_ECHOED:
            return _pointer(path[:depth]), f"the key {describe_value(key)} ({len(key):,} characters): {message}"
    return _pointer(path), message


PLAIN_PATH = re.compile(r"[\w/-]*", re.ASCII)


def _readable(path: str) -> str:
    """A pointer's path with its keys as the body wrote them, quoted unless they are plain names (``"a b"``, not
    ``a%20b``; ``"hand "`` shows its space), escaped where they would not print on one line."""
    keys = unquote(path)
    return keys if PLAIN_PATH.fullmatch(keys) else one_line(json.dumps(keys, ensure_ascii=False))


def summary(errors: list[dict[str, str]]) -> str:
    """A one-line detail naming the first faults."""
    parts = []
    for entry in errors[:3]:
        if "parameter" in entry:
            where = entry["parameter"] or '""'
        else:
            pointer = entry["pointer"]
            where = "request body" if pointer == "#" else _readable(pointer.removeprefix("#/")) or '""'
        parts.append(f"{where}: {entry['detail']}")
    more = f" (and {len(errors) - 3:,} more)" if len(errors) > 3 else ""
    return "; ".join(parts) + more


def invalid_input(messages: object, prefix: tuple[str | int, ...] = ()) -> dict[str, Any]:
    """The 422 problem body for marshmallow validation messages about the JSON body."""
    errors = field_errors(messages, "json", prefix)
    return problem_body(422, summary(errors), type_=INVALID_INPUT, errors=errors)


def _allowed(error: HTTPException) -> str:
    """A 405's allowed methods, sorted (Werkzeug's order varies from one process to another)."""
    return ", ".join(sorted(getattr(error, "valid_methods", None) or ()))


class TooManyWrittenNumbers(RequestEntityTooLarge):
    """A 413 for a body within the size limit that holds more numbers to read exactly than any request needs."""


class UnsupportedBodyEncoding(UnsupportedMediaType):
    """A JSON body compressed, or in a charset other than UTF-8: a 415 that says which, and that the
    service reads bodies uncompressed (``Accept-Encoding: identity``, RFC 9110)."""

    def get_headers(self, environ: WSGIEnvironment | None = None, scope: dict[str, Any] | None = None
                    ) -> list[tuple[str, str]]:
        """The usual headers, and ``Accept-Encoding: identity``."""
        return [*super().get_headers(environ, scope), ("Accept-Encoding", "identity")]


def _http_detail(error: HTTPException) -> str:
    if error.code == 405:
        return f"{request.method} is not allowed on {request.path}; allowed: {_allowed(error)}"
    if error.code == 404:
        return f"no resource at {request.path}; see /docs/"
    if error.code == 413 and not isinstance(error, TooManyWrittenNumbers):
        return f"the request body is larger than the limit of {request.max_content_length} bytes"
    if error.code == 415 and not isinstance(error, UnsupportedBodyEncoding):
        return "the request body must be JSON, sent with Content-Type: application/json"
    if error.code == 500:
        return "the server could not answer this request; the failure has been logged"
    if isinstance(error, ClientDisconnected):  # where the server does not end the body itself, as gunicorn does
        if "CONTENT_LENGTH" not in request.environ:
            return "the chunked request body ended before its last chunk (of size 0)"
        return "the request body ended before the length its Content-Length header gave"
    return error.description or TITLES.get(error.code or 500, "Error")


def _invalid_json_detail(error: object) -> str:
    """Why the body could not be read as JSON, and where (the parser's own words)."""
    detail = "the request body is not valid JSON"
    if isinstance(error, json.JSONDecodeError):
        return f"{detail}: {error.msg} (line {error.lineno}, column {error.colno})"
    return detail


def handle_http_exception(error: HTTPException) -> Response:
    """Any Werkzeug error (404, 405, 413, ... and webargs' 400/422) as a problem, its headers kept."""
    status = error.code or 500
    headers = {k: v for k, v in error.get_headers() if k.lower() not in ("content-type", "content-length")}
    if status == 405:
        headers["Allow"] = _allowed(error)
    data = getattr(error, "data", None) or {}
    messages = data.get("messages")
    if status == 422 and isinstance(messages, Mapping):
        errors = [entry for location, inner in messages.items() for entry in field_errors(inner, location)]
        return problem(422, summary(errors), headers=headers, type_=INVALID_INPUT, errors=errors)
    if status == 400 and messages is not None:
        return problem(400, _invalid_json_detail(getattr(error, "exc", None)), headers=headers)
    return problem(status, _http_detail(error), headers=headers)


def validation_messages(error: ValidationError) -> dict[str, Any]:
    """Marshmallow's messages keyed by field (its own method is untyped)."""
    return error.normalized_messages()  # type: ignore[no-untyped-call,no-any-return]


def handle_validation_error(error: ValidationError) -> Response:
    """A validation error raised by a view (after loading) as a 422."""
    body = invalid_input(validation_messages(error))
    return problem(422, body["detail"], type_=INVALID_INPUT, errors=body["errors"])


def handle_domain_error(error: ValueError) -> Response:
    """A core error on valid-looking input (cards, rules, game record) as a 422."""
    if isinstance(error, RulesError):
        return handle_validation_error(ValidationError({"rules": {f: [p] for f, p in error.problems.items()}}))
    if isinstance(error, FieldError | CardError) and error.field is not None:
        message = error.message if isinstance(error, FieldError) else str(error)
        at: object = [message] if error.index is None else {error.index: [message]}
        if isinstance(error, GameError) and error.table is not None:
            at = {error.index: {"tables": {error.table: [message]}}}
        return handle_validation_error(ValidationError({error.field: at}))
    return problem(422, str(error), type_=INVALID_INPUT)


def handle_illegal_knock(error: IllegalKnockError) -> Response:
    """A knock the rules do not allow: the deadwood and the limit."""
    return problem(422, str(error), type_=ILLEGAL_KNOCK, deadwood=error.deadwood, limit=error.limit,
                   errors=[{"pointer": f"#/{error.field}", "detail": str(error)}])


def handle_internal_error(error: InternalServerError) -> Response:
    """Anything unexpected: logged by Flask with its traceback, answered without a detail of it."""
    return problem(500, _http_detail(error))


def register_error_handlers(app: Flask) -> None:
    """Route every error of the app to a problem response."""
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(InternalServerError, handle_internal_error)
    app.register_error_handler(ValidationError, handle_validation_error)
    app.register_error_handler(IllegalKnockError, handle_illegal_knock)
    app.register_error_handler(GinError, handle_domain_error)
