"""A request body's numbers, read exactly (``service.json_provider.load_request_body``)."""

from __future__ import annotations

import json
import sys
from decimal import Decimal, InvalidOperation

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from marshmallow import ValidationError

from service.api.fields import IntegerField, NumberField, Range
from service.errors import TooManyWrittenNumbers
from service.json_provider import WRITTEN_NUMBERS_LIMIT, WrittenNumber, load_request_body

from .conftest import Call


@pytest.mark.parametrize(("text", "number"), [
    ("18446744073709551615", 2**64 - 1), ("-9223372036854775808", -(2**63)), ("5.0", 5), ("500e-2", 5),
    ("-0.0", 0), ("0e99999999999999999999", 0),
])
def test_a_whole_number_within_64_bits_is_an_int(text: str, number: int) -> None:
    read = load_request_body(f"[{text}]".encode())[0]
    assert type(read) is int and read == number


@pytest.mark.parametrize(("text", "number"), [
    ("18446744073709551616", Decimal(2**64)), ("-9223372036854775809", Decimal(-(2**63) - 1)),
    ("99999999999999999999", Decimal(10**20 - 1)),  # 20 digits, past 64 bits: was an int, shown by its bits
    ("0.0000001", Decimal("1e-7")), ("4.9999999999999999", Decimal("4.9999999999999999")),
    ("1e400", Decimal("1e400")),
])
def test_any_other_number_is_a_written_number_shown_as_written(text: str, number: Decimal) -> None:
    read = load_request_body(f"[{text}]".encode())[0]
    assert isinstance(read, WrittenNumber) and read == number and str(read) == text


def test_a_deep_body_with_a_fraction_is_read_without_changing_the_recursion_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Lowered again while another thread was deeper than the lower limit, Python 3.11 aborted the process (a
    gthread worker reading two such bodies at once): the limit is set once, when the module is imported."""
    def refuse(limit: int) -> None:
        raise AssertionError(f"the recursion limit was set to {limit} while reading a body")

    monkeypatch.setattr(sys, "setrecursionlimit", refuse)
    body = b"[1.5, " + b"[" * 1023 + b"]" * 1023 + b"]"  # orjson's 1,024 levels
    assert load_request_body(body)[0] == Decimal("1.5")


def test_a_number_field_takes_a_fraction_as_the_float_nearest_it() -> None:
    field = NumberField(validate=Range(0, 200))
    for text in ("2.5", "25e-1", "0.25e1"):
        number = field.deserialize(load_request_body(text.encode()))
        assert type(number) is float and number == 2.5


def test_an_integer_field_checks_a_whole_number_past_64_bits_against_its_range_as_written() -> None:
    with pytest.raises(ValidationError, match="expected at most 31, got 1e400"):
        IntegerField(validate=Range(0, 31)).deserialize(load_request_body(b"1e400"))


_DIGITS = st.text("0123456789", min_size=1, max_size=25)
BOUNDARIES = ["18446744073709551615", "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
              "99999999999999999999", "1.8446744073709551616e19", "18446744073709551615.0", "-0", "0e-5"]
"""Numbers at the edges of 64 bits, where an int ends and a WrittenNumber begins."""
NUMBER_TEXT = st.builds(
    lambda sign, whole, fraction, exponent: f"{sign}{whole.lstrip('0') or '0'}{fraction}{exponent}",
    st.sampled_from(["", "-"]), _DIGITS,
    st.one_of(st.just(""), _DIGITS.map(lambda digits: "." + digits)),
    st.one_of(st.just(""), st.builds(lambda e, sign, digits: f"{e}{sign}{digits}", st.sampled_from("eE"),
                                     st.sampled_from(["", "+", "-"]), st.text("0123456789", min_size=1, max_size=4)),
              st.sampled_from(["e400", "e-400", "e99999999999999999999", "E-99999999999999999999"])),
)
"""JSON numbers written every way the grammar allows: long digits, fractions, exponents small and past a Decimal's."""
NUMBERS = st.one_of(NUMBER_TEXT, st.sampled_from(BOUNDARIES))


@given(st.lists(NUMBERS, min_size=1, max_size=8), st.sampled_from(["", '"x,1.5", ']))
@example(["1e5"], "")  # each alone in its body: nothing else to make the body read again
@example(["4e-400"], "")
@example(["18446744073709551616"], "")
@example(["-9223372036854775809"], "")
def test_every_number_is_read_as_the_number_written(numbers: list[str], padding: str) -> None:
    """Against ``json`` with every number a ``Decimal``: an ``int`` exactly where the number is whole and within
    64 bits, else a WrittenNumber that shows the text; a string that looks like a number stays a string."""
    read = load_request_body(f"[{padding}{', '.join(numbers)}]".encode())
    assert read[:len(read) - len(numbers)] == (["x,1.5"] if padding else [])
    for text, number in zip(numbers, read[len(read) - len(numbers):], strict=True):
        try:
            exact = Decimal(text)
        except InvalidOperation:  # an exponent past a Decimal's: only its sign and the mantissa's zeros matter
            assert isinstance(number, WrittenNumber | int) and str(number) == (text if number else "0")
            continue
        whole = exact == exact.to_integral_value() if exact.adjusted() < 100 else True
        if whole and -(2**63) <= exact < 2**64:
            assert type(number) is int and number == exact
        else:
            assert isinstance(number, WrittenNumber) and number == exact and str(number) == text


def test_a_body_with_more_numbers_to_read_exactly_than_any_request_needs_is_refused(call: Call) -> None:
    """A security audit: 2 MiB of ``1.5,`` (500,000 numbers, each read again as a WrittenNumber) cost 0.77 s and
    took a worker past 150 MB of memory, which it kept, for a 422."""
    def body(fractions: int) -> str:
        return '{"hands": [], "x": [' + ",".join(["1.5"] * fractions) + "]}"

    assert len(load_request_body(body(WRITTEN_NUMBERS_LIMIT).encode())["x"]) == WRITTEN_NUMBERS_LIMIT
    # Each number counts once, however written (a count of the places a regex matched took 5.0e0 for two).
    assert load_request_body(("[" + ",".join(["5.0e0"] * WRITTEN_NUMBERS_LIMIT) + "]").encode())[0] == 5
    with pytest.raises(TooManyWrittenNumbers):
        load_request_body(body(WRITTEN_NUMBERS_LIMIT + 1).encode())
    with pytest.raises(TooManyWrittenNumbers):  # integers past 64 bits are read again too
        load_request_body(("[" + ",".join(["1" * 19] * (WRITTEN_NUMBERS_LIMIT + 1)) + "]").encode())
    response = call("POST", "/v1/hands/analyze/batch", data=body(WRITTEN_NUMBERS_LIMIT + 1),
                    content_type="application/json")
    assert response.status_code == 413 and response.get_json()["detail"] == (
        "the request body holds more than 10,000 numbers with a fraction or an exponent (or of 19 digits or more), "
        "more than any request needs")
    rules = dict.fromkeys(("knock_limit", "gin_bonus", "undercut_bonus", "target", "game_bonus", "box_bonus",
                           "stock_end", "big_gin_bonus"), 5.0)  # every integer rule parameter written as 5.0
    batch = {"hands": [{"hand": "As 2s 3s 7h 7d 7c Kd Qd Jd 5c", "rules": rules}] * 1000}
    assert call("POST", "/v1/hands/analyze/batch", json=batch).status_code == 200


@pytest.mark.parametrize(("body", "message"), [
    (b'{"hand": [1.]}', "no digit after decimal point"), (b'{"hand": 1e}', "no digit after exponent sign"),
])
def test_a_malformed_number_is_refused_with_orjsons_own_words(body: bytes, message: str) -> None:
    """A mutation audit: only orjson's "number is infinity" sends a body to the second, exact reading; any other
    syntax error is reported as orjson found it (Python's json said "Expecting ',' delimiter", a column early)."""
    with pytest.raises(json.JSONDecodeError, match=message):
        load_request_body(body)
