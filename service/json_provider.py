"""JSON in and out with orjson: the request body and every answer, several times faster than ``json``.

Answers are compact UTF-8 with keys in the order they were built (the documented order). Bodies
that Python's ``json`` can hardly digest are refused early: nesting deeper than 1,024 levels is
invalid JSON (400).

A request body's numbers are read exactly (``load_request_body``). orjson reads every number with
a fraction or an exponent as a double, so ``4.9999999999999999`` would be 5 and ``1e-400`` 0, and
it refuses ``1e400``. A body that may hold such a number is read again with ``json``: a whole
number within 64 bits (``5.0``, ``5e0``) is then the ``int`` it is, as in JSON Schema, and any
other number (a fraction, or ``1e400``) a ``WrittenNumber``: a ``Decimal`` that shows itself as
written, for the fields to refuse or take. Each costs some 40 times the bytes it was written in, so a body
with more than ``WRITTEN_NUMBERS_LIMIT`` of them is refused (413) once the reading meets one more.
"""

from __future__ import annotations

import json
import re
import sys
from decimal import Decimal, InvalidOperation
from typing import Any

import orjson
from flask import Response, current_app
from flask.json.provider import JSONProvider

from .core.rules import is_whole
from .errors import TooManyWrittenNumbers

_INEXACT = re.compile(rb"\d(?:[.eE]|\d{18})")
"""Where a number may not be held exactly by orjson: a fraction, an exponent, or an integer of 19 digits or
more (past 64 bits, signed or not, orjson reads a double; text in a string may match too, which costs only the
second reading)."""
WRITTEN_NUMBERS_LIMIT = 10_000
"""The most numbers with a fraction or an exponent, or of 19 digits or more, that a body may hold (a batch of
1,000 hands, each with its rules' eight numbers written ``5.0``, needs 8,000; 2 MiB of ``1.5,`` held 500,000,
which took a worker's memory past 150 MB)."""
_LEAST_INT, _PAST_INT = -(2**63), 2**64
"""A whole number from the least signed 64-bit integer up to the greatest unsigned one is an ``int``."""
_NUMBER = re.compile(rb"((?:^|[\[:,])\s*)(-?\d[\d.eE+-]*)")
"""A number where a value may start (text in a string may match too: made 0, it stays a string)."""
if sys.version_info < (3, 12):  # json takes a level of Python's recursion for each level of nesting
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 2200))  # room for orjson's 1,024 levels, set once: lowered
    # again while another thread is deeper than the lower limit, Python 3.11 aborts the process


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
    """Parse a request body, its numbers exactly (a JSON error is a ``json.JSONDecodeError``; too many numbers to
    read exactly, ``TooManyWrittenNumbers``)."""
    if _INEXACT.search(data) is None:
        return orjson.loads(data)
    try:
        orjson.loads(data)  # checked (syntax, nesting) and let go before the exact reading
    except orjson.JSONDecodeError as error:
        if not error.msg.startswith("number is infinity"):
            raise
        # Past the number where orjson stopped, it checks the rest with every number made 0, at the same places.
        orjson.loads(_NUMBER.sub(lambda number: number[1] + b"0".ljust(len(number[2])), data))
    return _exact_loads(data)


class WrittenNumber(Decimal):
    """A JSON number that is no integer within 64 bits, exactly: it shows itself as it was written."""

    __slots__ = ("written",)
    written: str

    @classmethod
    def of(cls, value: Decimal, written: str) -> WrittenNumber:
        """``value``, read from the text ``written``."""
        number = cls(value)
        number.written = written
        return number

    def __str__(self) -> str:
        return self.written


def _exact_loads(data: bytes) -> Any:
    """Parse UTF-8 JSON that orjson has checked, with every number exact; ``TooManyWrittenNumbers`` past
    ``WRITTEN_NUMBERS_LIMIT`` numbers read as text (the reading stops there)."""
    read = 0

    def number(text: str) -> int | WrittenNumber:
        nonlocal read
        read += 1
        if read > WRITTEN_NUMBERS_LIMIT:
            raise TooManyWrittenNumbers(f"the request body holds more than {WRITTEN_NUMBERS_LIMIT:,} numbers with a "
                                        "fraction or an exponent (or of 19 digits or more), more than any request "
                                        "needs")
        return _number(text)

    def integer(text: str) -> int | WrittenNumber:
        """Without a fraction or an exponent: up to 18 digits, surely within 64 bits, at once."""
        return int(text) if len(text) < 19 else number(text)

    return json.loads(data.decode(), parse_float=number, parse_int=integer)


def _number(text: str) -> int | WrittenNumber:
    """A JSON number: an ``int`` where it is a whole number within 64 bits, else a ``WrittenNumber``."""
    try:
        number = Decimal(text)
    except InvalidOperation:  # an exponent of 19 digits or more, past what a Decimal holds
        number = _past_decimal(text)
    if is_whole(number) and _LEAST_INT <= number < _PAST_INT:
        return int(number)
    return WrittenNumber.of(number, text)


def _past_decimal(text: str) -> Decimal:
    """A number whose exponent a ``Decimal`` cannot hold: zero, or the Decimal furthest from zero (or nearest
    it) with its sign, which compares as the number does with anything a request may hold."""
    if not re.split("[eE]", text)[0].strip("-0."):
        return Decimal(0)
    sign = "-" if text.startswith("-") else ""
    return Decimal(f"{sign}1E{'-' if '-' in text[1:] else '+'}999999999999999999")  # the exponent's sign
