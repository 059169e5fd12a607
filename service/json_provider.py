"""JSON in and out with orjson: the request body and every answer, several times faster than ``json``.

Answers are compact UTF-8 with keys in the order they were built (the documented order). Bodies
that Python's ``json`` can hardly digest are refused early: nesting deeper than 1,024 levels is
invalid JSON (400).

A request body's numbers are read exactly (``load_request_body``). orjson reads every number with
a fraction or an exponent as a double, so ``4.9999999999999999`` would be 5 and ``1e-400`` 0, and
it refuses ``1e400``. A body that may hold such a number is read again with ``json``: a number
with a fraction is then a ``Decimal`` (which an integer field refuses, showing it as written), and
a whole one (``5.0``, ``1e400``) the ``int`` it is, as in JSON Schema. A whole number of more than
4,300 digits, which Python will not convert, is invalid JSON.
"""

from __future__ import annotations

import json
import re
import sys
from decimal import Decimal
from typing import Any

import orjson
from flask import Response, current_app
from flask.json.provider import JSONProvider

MOST_DIGITS = sys.int_info.default_max_str_digits
"""The most digits of a whole number read (Python's own limit on converting text to ``int``)."""

_INEXACT = re.compile(rb"\d(?:[.eE]|\d{18})")
"""Where a number may not be held exactly by orjson: a fraction, an exponent, or an integer of 19 digits or
more (past 64 bits, signed or not, orjson reads a double; text in a string may match too, which costs only the
second reading)."""


class OrjsonProvider(JSONProvider):
    """Flask's JSON provider on orjson (``app.json``)."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        """Serialize ``obj``; ``json.dumps`` options are not supported, and none are needed."""
        return orjson.dumps(obj).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        """Parse JSON text or UTF-8 bytes (a JSON error is a ``json.JSONDecodeError``)."""
        return orjson.loads(s)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        """``jsonify``: the arguments as an ``application/json`` answer."""
        body = orjson.dumps(self._prepare_response_obj(args, kwargs))
        return current_app.response_class(body, mimetype="application/json")


def load_request_body(data: bytes) -> Any:
    """Parse a request body, its numbers exactly (a JSON error is a ``json.JSONDecodeError``)."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        if not error.msg.startswith("number is infinity"):
            raise
        return _exact_loads(data)
    return _exact_loads(data) if _INEXACT.search(data) else value


def _exact_loads(data: bytes) -> Any:
    """Parse UTF-8 JSON with every number exact: a whole number an ``int``, another a ``Decimal``. As strict as
    orjson: no NaN or Infinity, no lone surrogate, no nesting Python cannot follow."""
    text = data.decode()  # orjson has checked the UTF-8 before any number
    try:
        return _exact(json.loads(text, parse_float=Decimal, parse_int=Decimal, parse_constant=_no_constant))
    except RecursionError:
        raise json.JSONDecodeError("the body is nested too deeply", text, 0) from None
    except _Refused as refused:
        raise json.JSONDecodeError(str(refused), text, 0) from None


class _Refused(ValueError):
    """What JSON text orjson refuses but ``json`` reads."""


def _no_constant(name: str) -> None:
    raise _Refused(f"{name} is not a JSON number")


def _exact(value: Any) -> Any:
    """``value`` as read by ``json`` with ``Decimal`` numbers, whole numbers made ``int``."""
    if isinstance(value, Decimal):
        if value != value.to_integral_value():
            return value
        if value.adjusted() >= MOST_DIGITS:
            raise _Refused(f"a whole number of more than {MOST_DIGITS:,} digits")
        return int(value)
    if isinstance(value, str):
        _check_text(value)
        return value
    if isinstance(value, list):
        return [_exact(item) for item in value]
    if isinstance(value, dict):
        for key in value:
            _check_text(key)
        return {key: _exact(item) for key, item in value.items()}
    return value


def _check_text(text: str) -> None:
    try:
        text.encode()
    except UnicodeEncodeError:
        raise _Refused("a string holds a lone surrogate (\\ud800 to \\udfff without its pair)") from None
