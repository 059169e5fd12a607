"""The core's errors: the base every one of them shares, those that name the part of the input at fault, and
how they show a value given."""

from __future__ import annotations

import json
from decimal import Decimal


class GinError(ValueError):
    """Input the engine refuses: every error that ``service.core`` raises on purpose is one (catch this one to
    catch them all; each is a ValueError too). ``field`` names the input at fault where it is known."""

    field: str | None = None

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle and copy as the message and attributes: the subclasses' constructors take other arguments than
        ``args`` holds, so the default (calling the class with ``args``) would fail, and a process pool with it."""
        return _restore_error, (type(self), self.args), self.__dict__


def _restore_error(kind: type[GinError], args: tuple[object, ...]) -> GinError:
    """An error of ``kind`` with ``args``, made without its constructor (``__reduce__`` adds its attributes)."""
    error = kind.__new__(kind)
    error.args = args
    return error


class FieldError(GinError):
    """Invalid input; ``field`` names the part at fault, ``index`` the item of it (if a list) and ``message``
    says what is wrong."""

    field: str

    def __init__(self, field: str, message: str, index: int | None = None) -> None:
        super().__init__(f"{field}{'' if index is None else f'/{index}'}: {message}")
        self.field = field
        self.message = message
        self.index = index


def may_not_be_null(expected: str) -> str:
    """The fault of a null given where a value is required: ``expected`` says what is wanted instead."""
    return f"may not be null: {expected}"


def one_line(text: str) -> str:
    """``text`` with every character that does not print (a line or paragraph separator, say) escaped."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else char.encode("unicode_escape").decode() for char in text)


def describe_value(value: object) -> str:
    """A short, bounded description of a value given for a parameter (it may be anything a client
    sent, so never its full ``repr``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        sign = "negative " if value < 0 else ""
        return repr(value) if value.bit_length() <= 64 else f"a {sign}{value.bit_length()}-bit integer"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Decimal):  # a number read exactly (a JSON body's shows itself as written)
        text = str(value)
        return text if len(text) <= 40 else f"a number written with {len(text):,} characters"
    if isinstance(value, str):
        return one_line(json.dumps(value if len(value) <= 40 else value[:40] + "...", ensure_ascii=False))
    if isinstance(value, list | tuple):
        return "a list"
    return "an object" if isinstance(value, dict) else f"a {type(value).__name__}"
