"""Request fields that load straight into core values: cards, hands and rules.

Each field converts with the core parser (so the HTTP layer accepts what the core accepts, within
the documented length limits of a card and a hand string) and documents itself in OpenAPI with the
same constraints: patterns, sizes, uniqueness.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, TypeVar, get_args

from marshmallow import ValidationError, fields, validate

from ..config import INTEGER
from ..core.cards import (
    CARD_SPELLING,
    SPACE,
    Card,
    CardError,
    Hand,
    allowed_counts,
    card_count_error,
    format_card,
    parse_card,
    parse_hand,
    split_hand_text,
)
from ..core.errors import describe_value, may_not_be_null
from ..core.rules import PRESETS, RULE_PARAMETERS, RuleParameter, Rules, RulesError, is_whole, resolve_rules
from ..core.scoring import EXTRA_BOXES, Side

_RANKS = "(10|[2-9ATJQKatjqk])"
_SUITS = r"[shdcSHDC♠♥♦♣♤♡♢♧][\uFE0E\uFE0F]?"
_SPACE = f"[{SPACE}]"  # ECMAScript's \s, spelt out: Python's differs, and the parser and its validators use both
CARD_PATTERN = rf"^{_SPACE}*{_RANKS}{_SPACE}*{_SUITS}{_SPACE}*$"
"""One card as the core parses it: rank A 2-9 T/10 J Q K (any case), suit s h d c or a symbol."""

CARD_MAX_LENGTH = 16
CARDS_TEXT_MAX_LENGTH = 256
T = TypeVar("T")


def component_ref(name: str) -> dict[str, str]:
    """A reference to the OpenAPI component schema ``name``."""
    return {"$ref": f"#/components/schemas/{name}"}


def refer_to(ref: dict[str, str], description: str) -> dict[str, Any]:
    """A field's metadata: described by the component ``ref`` alone (``SpecExtras`` drops the type and
    choices apispec derives beside it), and ``description``."""
    return {"allOf": [ref], "description": description}


CARD_REF = component_ref("Card")
RULES_REF = component_ref("RuleParameters")
RULE_SET_REF = component_ref("RuleSet")
PRESET_REF = component_ref("PresetName")
PLAYERS = (0, 1)
"""The two players (or teams) of a game, by number."""
PLAYER_REF = component_ref("Player")
ROUND_WINNERS = get_args(Side)
ROUND_WINNER_REF = component_ref("RoundWinner")
EXTRA_BOXES_REF = component_ref("ExtraBoxes")


def hand_text_pattern(least: int, most: int) -> str:
    """Pattern of a string of ``least``-``most`` cards separated by spaces and/or commas."""
    card = f"{_RANKS}{_SUITS}"
    separators = f"[{SPACE},]"
    return rf"^{separators}*{card}({separators}+{card}){{{least - 1},{most - 1}}}{separators}*$"


_CARD_EXPECTED = f"expected a card as a string of at most {CARD_MAX_LENGTH} characters, like 'As'"


class ShowsInvalidValue(fields.Field[Any]):
    """Mixed in before a marshmallow field: its ``invalid`` message also shows the value given, as the
    core shows one (``describe_value``: quoted, and cut short if long)."""

    def make_error(self, key: str, **kwargs: Any) -> ValidationError:
        if key == "invalid" and "input" in kwargs:
            return ValidationError(f"{self.error_messages['invalid']}, got {describe_value(kwargs['input'])}")
        return super().make_error(key, **kwargs)


class CardField(ShowsInvalidValue, fields.Field[Card]):
    """One card, as a string like ``As``, ``10h`` or ``T♥``."""

    default_error_messages = {"invalid": _CARD_EXPECTED}  # noqa: RUF012 (marshmallow reads it from the class)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(metadata={"allOf": [CARD_REF], **kwargs.pop("metadata", {})}, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Card:
        if not isinstance(value, str) or len(value) > CARD_MAX_LENGTH:
            raise self.make_error("invalid", input=value)
        try:
            return parse_card(value)
        except CardError as error:
            raise ValidationError(str(error)) from None


def _not_a_card(given: object) -> str:
    """The fault of a list item that is no card's name."""
    return may_not_be_null(_CARD_EXPECTED) if given is None else f"{_CARD_EXPECTED}, got {describe_value(given)}"


class CardsField(ShowsInvalidValue, fields.Field[Hand]):
    """Distinct cards as a list (``["As", "2s"]``) or one string (``"As 2s"``), loaded as a hand."""

    default_error_messages = {"invalid": 'expected a list of cards like ["As", "2s"] or a string like "As 2s"'}  # noqa: RUF012 (marshmallow reads it from the class)

    def __init__(self, sizes: range | tuple[int, ...], text_only: bool = False, noun: str = "hand",
                 **kwargs: Any) -> None:
        self.sizes = tuple(sizes)
        self.noun = noun
        least, most = self.sizes[0], self.sizes[-1]
        text = {"type": "string", "pattern": hand_text_pattern(least, most), "maxLength": CARDS_TEXT_MAX_LENGTH}
        listed = {"type": "array", "items": CARD_REF, "minItems": least, "maxItems": most, "uniqueItems": True}
        schema: dict[str, Any] = text if text_only else {"oneOf": [listed, text]}
        schema["description"] = (f"{allowed_counts(self.sizes)} distinct cards: " + (
            "one string of cards separated by commas or spaces." if text_only
            else "a list of cards, or one string of cards separated by spaces or commas."))
        super().__init__(metadata={**schema, **kwargs.pop("metadata", {})}, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Hand:
        if isinstance(value, str):
            if len(value) > CARDS_TEXT_MAX_LENGTH:
                raise ValidationError(f"expected at most {CARDS_TEXT_MAX_LENGTH} characters")
            items = split_hand_text(value)
        elif isinstance(value, list):
            items = value
        else:
            raise self.make_error("invalid", input=value)
        if len(items) > self.sizes[-1]:  # refused by its count alone, however many of its items are faulty
            raise ValidationError(str(card_count_error(len(items), self.sizes, self.noun)))
        if isinstance(value, list) and (not_text := {i: [_not_a_card(card)] for i, card in enumerate(value)
                                                     if not isinstance(card, str) or len(card) > CARD_MAX_LENGTH}):
            raise ValidationError(not_text)
        try:
            return parse_hand(items, self.sizes, self.noun)
        except CardError as error:
            if isinstance(value, str):
                raise ValidationError(_text_faults(items) or str(error)) from None
            raise ValidationError(_card_faults(items) or str(error)) from None


class BoundedList(fields.List[T]):
    """A list refused whole, before its items are loaded, when it is longer than its ``Length`` allows: a long
    list of faulty items would otherwise be answered with a fault for each, a problem many times the request."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> list[T | None]:
        for validator in self.validators:
            if isinstance(validator, validate.Length) and isinstance(value, list):
                most = validator.max if validator.equal is None else validator.equal
                if most is not None and len(value) > most:
                    validator(value)
        return super()._deserialize(value, attr, data, **kwargs)


class MeldsField(BoundedList[Hand]):
    """Melds laid out: a list of melds, each a list of cards or one string."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(CardsField(range(3, 12), noun="meld"), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> list[Hand | None]:
        if isinstance(value, list) and value and all(
                isinstance(item, str) and len(split_hand_text(item)) == 1 for item in value):
            raise ValidationError('expected a list of melds, each a list of cards or one string, like '
                                  '[["6h", "7h", "8h"], "Qs Qd Qc"]; got a list of single cards')
        return super()._deserialize(value, attr, data, **kwargs)


def _card_faults(cards: list[str]) -> dict[int, list[str]]:
    """Every item of ``cards`` that is not a card or repeats one, by position, with what is wrong."""
    seen: set[Card] = set()
    faults: dict[int, list[str]] = {}
    for index, text in enumerate(cards):
        try:
            card = parse_card(text)
        except CardError as error:
            faults[index] = [str(error)]
            continue
        if card in seen:
            faults[index] = [f"duplicate card {format_card(card)}"]
        seen.add(card)
    return faults


def _text_faults(cards: list[str]) -> str:
    """The faults of cards given as one string, in one message (a string has no items to point at): its unknown
    cards named together, and each duplicate once, with how often it is given."""
    unknown: dict[str, None] = {}
    given: Counter[Card] = Counter()
    for text in cards:
        try:
            given[parse_card(text)] += 1
        except CardError:
            unknown[repr(text)] = None
    faults = [f"unknown card{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}: expected {CARD_SPELLING}"
              ] if unknown else []
    faults += [f"duplicate card {format_card(card)} (given {count} times)"
               for card, count in given.items() if count > 1]
    return "; ".join(faults)


class Range(validate.Range):
    """marshmallow's inclusive Range, worded as the core words its ranges: the bound crossed, and the value."""

    def __call__(self, value: Any) -> Any:
        if self.min is not None and value < self.min:
            raise ValidationError(f"expected at least {self.min:,}, got {describe_value(value)}")
        if self.max is not None and value > self.max:
            raise ValidationError(f"expected at most {self.max:,}, got {describe_value(value)}")
        return value


class OneOf(validate.OneOf):
    """marshmallow's OneOf, worded as the core words its choices: the value given is shown as the core shows
    one (``describe_value``: quoted, and cut short if long)."""

    default_message = "expected one of {choices}, got {input}"

    def _format_error(self, value: Any) -> str:
        return super()._format_error(describe_value(value))


class Length(validate.Length):
    """marshmallow's Length, worded as the rest of the service's messages, with the count given."""

    message_min = "expected at least {min:,} items, got {length:,}"
    message_max = "expected at most {max:,} items, got {length:,}"
    message_all = "expected {min:,} to {max:,} items, got {length:,}"
    message_equal = "expected exactly {equal:,} items, got {length:,}"

    def _format_error(self, value: Any, message: str) -> str:
        return (self.error or message).format(input=value, length=len(value), min=self.min, max=self.max,
                                              equal=self.equal)


class BooleanField(ShowsInvalidValue, fields.Boolean):
    """A JSON true or false (marshmallow's Boolean also reads 1, "yes" and the like)."""

    default_error_messages = {"invalid": "expected true or false"}  # noqa: RUF012 (marshmallow reads it from the class)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def _validate_as_read(field: fields.Field[Any], number: int | Decimal) -> None:
    """Run ``field``'s validators (which raise) on a number as read, before it is made a float or refused as no
    integer: a range then shows the number as written."""
    for validator in field.validators:
        validator(number)


class NumberField(ShowsInvalidValue, fields.Float):
    """A JSON number (read exactly: an ``int``, or a ``WrittenNumber``), as a float: unlike marshmallow's Float,
    a string of digits is refused. The validators see the number as written (200.00000000000000001 is above
    200, and 1e400 is shown as such), before it is rounded to a double."""

    default_error_messages = {"invalid": "expected a number, like 20"}  # noqa: RUF012 (marshmallow reads it from the class)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | Decimal):
            raise self.make_error("invalid", input=value)
        _validate_as_read(self, value)
        return super()._deserialize(value, attr, data, **kwargs)


class IntegerField(ShowsInvalidValue, fields.Integer):
    """A JSON integer. As in JSON Schema, a number without a fraction (``5.0``, ``1e1``) is one too: the JSON
    provider reads one within 64 bits as an ``int``, and any other number as a ``WrittenNumber``, which is
    refused here (a whole one by the field's range, as the number it is); a string or a boolean is not."""

    default_error_messages = {"invalid": "expected an integer, like 10"}  # noqa: RUF012 (marshmallow reads it from the class)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> int:
        if isinstance(value, Decimal) and is_whole(value):
            _validate_as_read(self, value)
        return super()._deserialize(value, attr, data, **kwargs)


class QueryIntegerField(ShowsInvalidValue, fields.Integer):
    """An integer in a query string: ASCII digits, optionally signed (Python's ``int`` would also read
    spaces around it, underscores, and digits of other scripts)."""

    default_error_messages = {"invalid": "expected an integer written with the digits 0-9, like 10"}  # noqa: RUF012 (marshmallow reads it from the class)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> int:
        if not isinstance(value, str) or not INTEGER.fullmatch(value):
            error = self.make_error("invalid", input=value)
            if isinstance(value, str) and value.startswith(" ") and INTEGER.fullmatch(value.lstrip(" ")):
                raise ValidationError(f"{error.messages[0]} (no space before it, and a \"+\" in a query string is "
                                      "one: write the number without a sign)")
            raise error
        most = sys.get_int_max_str_digits()  # Python's own limit on converting text to int (0: none)
        if most and (digits := len(value.lstrip("-"))) > most:
            raise ValidationError(f"expected an integer of at most {most:,} digits, got {digits:,}")
        return super()._deserialize(value, attr, data, **kwargs)


class QueryBooleanField(ShowsInvalidValue, fields.Boolean):
    """A boolean in a query string: ``true`` or ``false``, in any letter case (Python writes ``True``)."""

    default_error_messages = {"invalid": "expected true or false"}  # noqa: RUF012 (marshmallow reads it from the class)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> bool:
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise self.make_error("invalid", input=value)


def first_keys(keys: list[Any]) -> str:
    """The first three of ``keys``, described, and how many more there are."""
    named = ", ".join(describe_value(key) for key in keys[:3])
    return f"{named} and {len(keys) - 3:,} more" if len(keys) > 3 else named


class RulesField(fields.Field[Rules]):
    """Rules as a preset name, an object of parameters, or both (``{"preset": ..., **overrides}``)."""

    default_error_messages = {"invalid": "expected a preset name or an object of rule parameters"}  # noqa: RUF012 (marshmallow reads it from the class)

    def __init__(self, **kwargs: Any) -> None:
        schema = {
            "oneOf": [PRESET_REF, RULES_REF],
            "description": "A preset name, or an object of rule parameters with an optional `preset` "
            "they override. Missing: the default rules.",
        }
        super().__init__(metadata={**schema, **kwargs.pop("metadata", {})}, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Rules:
        if isinstance(value, Rules):  # resolved already: a batch's rules passed on to its hands (never from JSON)
            return value
        if isinstance(value, str):
            return load_rules(value, {}, preset_at_root=True)
        if isinstance(value, dict):
            if len(value) > len(RULE_PARAMETERS) + 1:  # refused by its count alone, however many names are unknown
                unknown = [key for key in value if key != "preset" and key not in _PARAMETER_NAMES]
                raise ValidationError(f"expected at most {len(RULE_PARAMETERS) + 1} keys (`preset` and the "
                                      f"{len(RULE_PARAMETERS)} rule parameters GET /v1/rules lists), got "
                                      f"{len(value):,}; not rule parameters: {first_keys(unknown)}")
            overrides = dict(value)
            preset = overrides.pop("preset", None)
            if "preset" in value and not isinstance(preset, str):
                presets = f"expected one of {', '.join(PRESETS)}"
                raise ValidationError({"preset": [may_not_be_null(presets) if preset is None
                                                  else f"{presets}, got {describe_value(preset)}"]})
            return load_rules(preset, overrides)
        raise self.make_error("invalid")


_PARAMETER_NAMES = frozenset(p.name for p in RULE_PARAMETERS)


def load_rules(preset: str | None, overrides: Mapping[str, object], preset_at_root: bool = False) -> Rules:
    """The core's rules, with a rules error turned into a validation error on its parameter."""
    try:
        return resolve_rules(preset, overrides)
    except RulesError as error:
        if preset_at_root and error.field == "preset":
            raise ValidationError(error.message) from None
        raise ValidationError({field: [problem] for field, problem in error.problems.items()}) from None


def parameter_json_schema(parameter: RuleParameter) -> dict[str, Any]:
    """OpenAPI schema of one rule parameter, from its core description. Choices refer to a component of
    their own, so that generated clients share one enum between the body and the query string.

    The default rules' value is told, not given as the schema's ``default``: a parameter left out takes the
    preset's value, and clients generated with defaults would send them all, undoing the preset."""
    schema: dict[str, Any] = (
        {"allOf": [component_ref(choices_component(parameter))]} if parameter.choices
        else {"type": [parameter.kind, "null"] if parameter.nullable else parameter.kind})
    default = json.dumps(parameter.default)
    schema["description"] = f"{parameter.description} Default rules: `{default}`; a preset may set another value."
    if parameter.minimum is not None:
        schema["minimum"] = parameter.minimum
    if parameter.maximum is not None:
        schema["maximum"] = parameter.maximum
    return schema


def choices_component(parameter: RuleParameter) -> str:
    """The name of the component schema listing a rule parameter's choices: ``stock_end_discard`` ->
    ``StockEndDiscard``, as the core's type is named."""
    return "".join(word.capitalize() for word in parameter.name.split("_"))


ELEVEN_CARD_DEAL = {"properties": {"eleven_card_deal": {"const": True}}, "required": ["eleven_card_deal"]}
OKLAHOMA_HAS_AN_UPCARD = [
    {"not": {"properties": {"oklahoma": {"const": True}}, "required": ["oklahoma"], "allOf": [ELEVEN_CARD_DEAL]}},
    {"if": {"properties": {"preset": {"enum": [name for name, preset in PRESETS.items() if preset.rules.oklahoma]}},
            "required": ["preset"], "allOf": [ELEVEN_CARD_DEAL]},
     "then": {"properties": {"oklahoma": {"const": False}}, "required": ["oklahoma"]}},
]
"""Rules that Rules itself checks, in the spec too: Oklahoma's knock limit needs the upcard an eleven-card deal
does not turn (given with the deal, ``oklahoma`` is false, also over a preset that plays it)."""


def component_schemas() -> dict[str, dict[str, Any]]:
    """The shared OpenAPI components the fields refer to: Card, PresetName, RuleParameters (as requests give
    rules: any of them) and RuleSet (as answers give them: all of them), the parameters' choices, Player and
    RoundWinner."""
    return {
        "Card": {
            "type": "string",
            "pattern": CARD_PATTERN,
            "maxLength": CARD_MAX_LENGTH,
            "description": "A card: rank A 2-9 T (or 10) J Q K, then suit s h d c (or ♠ ♥ ♦ ♣); any case.",
            "examples": ["As", "10h", "Td", "K♣"],
        },
        "PresetName": {
            "type": "string",
            "enum": list(PRESETS),
            "description": "A named rule set; GET /v1/rules lists them.",
        },
        "RuleParameters": {
            "type": "object",
            "description": "Rule parameters over the default rules, or over `preset` when given.",
            "properties": {
                "preset": {**PRESET_REF, "description": "The preset these parameters override."},
                **{p.name: parameter_json_schema(p) for p in RULE_PARAMETERS},
            },
            "additionalProperties": False,
            "allOf": OKLAHOMA_HAS_AN_UPCARD,
            "examples": [{"preset": "oklahoma", "oklahoma_ace": "gin_only"}, {"knock_limit": 5}],
        },
        "RuleSet": {
            "type": "object",
            "description": "Every rule parameter's value, as answers give rules.",
            "properties": {p.name: parameter_json_schema(p) for p in RULE_PARAMETERS},
            "required": [p.name for p in RULE_PARAMETERS],
            "additionalProperties": False,
        },
        **{choices_component(p): {"type": "string", "enum": list(p.choices)} for p in RULE_PARAMETERS if p.choices},
        "Player": {"type": "integer", "enum": list(PLAYERS), "description": "A player (or team): 0 or 1."},
        "RoundWinner": {"type": "string", "enum": list(ROUND_WINNERS), "description": "Who scores a round."},
        "ExtraBoxes": {"type": "integer", "enum": list(EXTRA_BOXES),
                       "description": "Oklahoma extra boxes won with one hand: 1 for an undercut, 2 for gin or big "
                       "gin, doubled when a spade upcard doubles the score."},
    }
