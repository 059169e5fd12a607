"""The core's input errors that name the part of the input at fault."""

from __future__ import annotations


class FieldError(ValueError):
    """Invalid input; ``field`` names the part at fault and ``message`` says what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
