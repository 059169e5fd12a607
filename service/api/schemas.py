"""Every request and response schema of the API.

Requests are loaded with these schemas (into core values: hands, cards, rules). Responses are
built as plain dicts by ``render`` for speed; their schemas here document them, and the test
suite checks every answer against the published spec.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, get_args

from marshmallow import RAISE, Schema, ValidationError, fields, post_load, pre_load, validate, validates_schema
from marshmallow.exceptions import SCHEMA

from ..core.cards import Card, CardError, Hand, format_card, hand_cards, lowest_card, parse_card
from ..core.errors import FieldError, may_not_be_null
from ..core.hints import (
    CLOSE_POINTS,
    CLOSE_STANDARD_ERRORS,
    DEFAULT_CONFIG,
    ERROR_SAMPLES,
    FULL_STOCK,
    HAND_SIZE,
    MIN_LAST_DRAWS,
    MIN_SAMPLES,
    PHASES,
    ActionType,
    GameState,
    TimeBudget,
)
from ..core.knocks import check_taken_card, knock_limit, report_hand, stock_end_rules
from ..core.layoffs import check_knocker_melds
from ..core.rules import RULE_PARAMETERS, RuleParameter, Rules, resolve_rules
from ..core.scoring import DRAWN_SCORES_NOTHING, EXTRA_BOXES, HandRecord, check_hand_record
from ..errors import MAX_LISTED_ERRORS, validation_messages
from .fields import (
    EXTRA_BOXES_REF,
    PLAYER_REF,
    PLAYERS,
    PRESET_REF,
    ROUND_WINNER_REF,
    ROUND_WINNERS,
    RULE_SET_REF,
    BooleanField,
    BoundedList,
    CardField,
    CardsField,
    IntegerField,
    Length,
    MeldsField,
    NumberField,
    OneOf,
    QueryBooleanField,
    QueryIntegerField,
    Range,
    RulesField,
    first_keys,
    hand_text_pattern,
    load_rules,
    parameter_json_schema,
    refer_to,
)

HAND_SIZES = (10, 11)
BATCH_LIMIT = 1000
HANDS_LIMIT = 500
DEALS_LIMIT = 250
OPPONENT_DISCARDS_LIMIT = 1000
CANONICAL_CARD = r"^[A2-9TJQK][shdc]$"
OKLAHOMA_UPCARD = ("Oklahoma: the first upcard, which sets the knock limit (a spade may also double the score). "
                   "Not used without Oklahoma.")
DRAWN_FROM_DISCARD = ("11 cards: the card just taken from the discard pile; unless the rules allow it "
                      "(`discard_pickup_allowed`, or at the stock end `stock_end_discard`: see "
                      "`taken_at_stock_end`), it may not be discarded this turn.")
TAKEN_AT_STOCK_END = ("`drawn_from_discard` is the discard that left the stock's end (`stock_end` cards), which rule "
                      "`stock_end_discard` lets the player take only to knock or go gin: the 50th-card rule "
                      "(`take_to_knock`) then forbids discarding it and Game Colony's form (`take_to_knock_any`) "
                      "allows it, whatever `discard_pickup_allowed` says. A hand that can then neither knock nor go "
                      "gin is refused. Default false.")


CARD = {"type": "string"}
"""In a condition (``given``): a card is given, not null (its own schema checks the rest)."""


def given(**properties: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema that holds where each of ``properties`` is present and matches its schema."""
    return {"properties": properties, "required": list(properties)}


def when(condition: dict[str, Any], then: dict[str, Any]) -> dict[str, Any]:
    """A rule between fields, for ``openapi_conditions``: where ``condition`` holds, ``then`` must too. The schemas
    check each in code; written in the spec too, a request valid by the spec is not refused for it."""
    return {"if": condition, "then": then}


def cards_of(size: int) -> dict[str, Any]:
    """Cards given as a list or a string, exactly ``size`` of them (the field's own schema checks the rest)."""
    return {"anyOf": [{"type": "array", "minItems": size, "maxItems": size},
                      {"type": "string", "pattern": hand_text_pattern(size, size)}]}


def on_field(check: Callable[[], object], field: str = SCHEMA) -> None:
    """Run a core check: its FieldError or CardError as a ValidationError of the field the error names, else of
    ``field``, and of the item it names, if any."""
    try:
        check()
    except (FieldError, CardError) as error:
        message = error.message if isinstance(error, FieldError) else str(error)
        raise ValidationError(message if error.index is None else {error.index: [message]},
                              error.field or field) from None


def faults_of(*checks: Callable[[], object]) -> dict[str, Any]:
    """Run every check: the faults of all that raise a ValidationError, by field."""
    faults: dict[str, Any] = {}
    for check in checks:
        try:
            check()
        except ValidationError as error:
            faults.update(validation_messages(error))
    return faults


def check_analysis(hand: Hand, rules: Rules, upcard: Card | None, taken: Card | None, at_stock_end: bool) -> None:
    """The upcard, the card just taken and the stock end's offer fit the hand and each other (a ValidationError
    listing each fault)."""
    if faults := faults_of(lambda: on_field(lambda: knock_limit(rules, upcard), "upcard"),
                           lambda: on_field(lambda: check_taken_card(hand, taken), "drawn_from_discard"),
                           lambda: on_field(lambda: stock_end_rules(rules, taken, at_stock_end, hand))):
        raise ValidationError(faults)
    if at_stock_end:  # the hand must then be able to knock or go gin: the core's analysis says
        on_field(lambda: report_hand(hand, rules, upcard, taken, at_stock_end))


def _in_both(field: str, given: object, shared: Hand, where: str) -> ValidationError:
    """A card of ``field`` that is also elsewhere (``where``): at its item when the field was given as a list."""
    if isinstance(given, list):
        index, card = next((i, card) for i, card in enumerate(map(parse_card, given)) if shared >> card & 1)
        return ValidationError({index: [f"{format_card(card)} is {where}"]}, field)
    return ValidationError(f"{format_card(lowest_card(shared))} is {where}", field)


# --- requests ------------------------------------------------------------------------------

class InputSchema(Schema):
    """Input read from a request: its unknown fields are named in the order they were given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.known_keys = frozenset(field.data_key or name for name, field in self.load_fields.items())

    def handle_error(self, error: ValidationError, data: Any, *, many: bool, **kwargs: Any) -> None:
        """Put the errors of unknown fields in the order of ``data``: marshmallow finds them in a set, whose
        order changes from one process to another (string hashes are seeded per process)."""
        messages = error.messages
        if isinstance(messages, dict) and isinstance(data, Mapping):
            for key in [key for key in data if key not in self.known_keys and key in messages]:
                messages[key] = messages.pop(key)


class RequestSchema(InputSchema):
    """A request, or a part of one, that is a JSON object. One with more unknown keys than a problem lists is
    refused by their count alone, in one fault at the object: marshmallow would make a fault of each (260,000 keys
    in a 2 MiB batch took 1.7 s and 170 MB)."""

    error_messages = {"type": "expected a JSON object"}  # noqa: RUF012 (marshmallow reads it from the class)
    count_unknown_keys = True
    """False for a query string, whose parameters gunicorn's request line bounds, and whose faults name parameters."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.expected_keys = f"expected only {', '.join(sorted(self.load_fields))}"
        self.error_messages = {**self.error_messages, "unknown": f"unknown field: {self.expected_keys}"}

    def load(self, data: Any, *, many: bool | None = None, partial: Any = None, unknown: Any = None) -> Any:
        """Load ``data``; an object of more than ``MAX_LISTED_ERRORS`` unknown keys (where they are refused) gets
        one fault at the object for them all, beside its known fields' own faults."""
        if (self.count_unknown_keys and isinstance(data, Mapping) and len(data) > MAX_LISTED_ERRORS
                and (unknown or self.unknown) == RAISE):
            unknown_keys = [key for key in data if key not in self.known_keys]
            if len(unknown_keys) > MAX_LISTED_ERRORS:
                fault = f"{len(unknown_keys):,} unknown fields ({first_keys(unknown_keys)}): {self.expected_keys}"
                try:
                    super().load({key: data[key] for key in data if key in self.known_keys}, partial=partial)
                except ValidationError as error:
                    messages = validation_messages(error)
                    raise ValidationError({SCHEMA: [fault, *messages.pop(SCHEMA, [])], **messages}) from None
                raise ValidationError(fault)
        return super().load(data, many=many, partial=partial, unknown=unknown)

    def on_bind_field(self, field_name: str, field_obj: fields.Field[Any]) -> None:
        """Say what is missing, null or of the wrong type in the service's own words."""
        messages = {"required": "required, but missing"}
        if isinstance(field_obj, fields.List):
            messages["invalid"] = "expected a list (a JSON array)"
            inner = field_obj.inner
            inner.error_messages = {**inner.error_messages, "null": _null_message(inner)}
        elif type(field_obj) is fields.String:
            messages["invalid"] = "expected a string"
        field_obj.error_messages = {**field_obj.error_messages, **messages}
        field_obj.error_messages["null"] = _null_message(field_obj)


def _null_message(field: fields.Field[Any]) -> str:
    """A null where a value is required: what is expected instead, as the field says for a value of the wrong
    type."""
    choices = next((validator.choices for validator in field.validators if isinstance(validator, OneOf)), None)
    expected = (f"expected one of {', '.join(map(str, choices))}" if choices is not None
                else "expected a JSON object" if isinstance(field, fields.Nested)
                else field.error_messages.get("invalid"))
    return may_not_be_null(expected) if isinstance(expected, str) and expected.startswith("expected") \
        else "may not be null"


class AnalyzeRequest(RequestSchema):
    """A hand of 10 cards, or 11 just after a draw."""

    error_messages = {"type": "expected a JSON object like {\"hand\": \"As 2s 3s ...\"}"}  # noqa: RUF012 (marshmallow reads it from the class)
    openapi_conditions = (
        when(given(taken_at_stock_end={"const": True}), given(drawn_from_discard=CARD)),
        when(given(drawn_from_discard=CARD), given(hand=cards_of(11))),
    )

    hand = CardsField(HAND_SIZES, required=True)
    rules = RulesField(load_default=resolve_rules)
    upcard = CardField(allow_none=True, metadata={"description": OKLAHOMA_UPCARD})
    drawn_from_discard = CardField(allow_none=True, metadata={"description": DRAWN_FROM_DISCARD})
    taken_at_stock_end = BooleanField(load_default=False, metadata={"description": TAKEN_AT_STOCK_END})

    @validates_schema(skip_on_field_errors=True)
    def _consistent(self, data: dict[str, Any], **kwargs: Any) -> None:
        check_analysis(data["hand"], data["rules"], data.get("upcard"), data.get("drawn_from_discard"),
                       data["taken_at_stock_end"])


class BatchItems(fields.List[Any]):
    """A list documented with its item schema but loaded raw: each item is then answered on its own."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> list[Any]:
        if not isinstance(value, list):
            raise self.make_error("invalid")
        return value


class BatchAnalyzeRequest(RequestSchema):
    """Up to 1,000 hands; ``rules`` applies to every hand that has none of its own."""

    hands = BatchItems(fields.Nested(AnalyzeRequest), required=True, validate=Length(1, BATCH_LIMIT), metadata={
        "description": "The hands, each answered on its own: one that is not valid gets its own problem in the "
        "results while the others are analyzed. The item schema says what a valid hand is; the service also takes "
        "items that fail it (null, unknown fields, a bad card), to answer each with its problem, so a client or "
        "gateway that validates requests against this spec refuses a batch that the service would answer."})
    rules = RulesField(load_default=resolve_rules, metadata={
        "description": "The rules of every hand that gives none of its own. A hand's own `rules` replace these "
        "whole: the two are not merged."})


class LayoffsRequest(RequestSchema):
    """The knocker's melds and the defender's ten cards."""

    knocker_melds = MeldsField(required=True, validate=Length(1, 3),
                                metadata={"description": "The melds the knocker laid out (layoffs name them "
                                          "by their index in this list)."})
    defender = CardsField((10,), required=True)
    rules = RulesField(load_default=resolve_rules,
                       metadata={"description": "Accepted for uniformity; no rule parameter changes layoffs."})

    @validates_schema(pass_original=True)
    def _melds_valid(self, data: dict[str, Any], original: dict[str, Any], **kwargs: Any) -> None:
        melds = data["knocker_melds"]
        on_field(lambda: check_knocker_melds(melds), "knocker_melds")
        shared = data["defender"] & sum(melds)
        if shared:
            raise _in_both("defender", original.get("defender"), shared,
                           "in both the defender's hand and a knocker meld")


class RoundScoreRequest(RequestSchema):
    """A knocked hand: both players' cards, and optionally how the knocker laid out."""

    openapi_conditions = (
        when(given(discard=CARD), given(knocker=cards_of(11))),
        when(given(taken_at_stock_end={"const": True}), given(drawn_from_discard=CARD)),
    )
    knocker = CardsField(HAND_SIZES, required=True, metadata={
        "description": "The knocker's 10 cards after the discard, or 11 with `discard`, or 11 melded for big gin."})
    defender = CardsField((10,), required=True)
    knocker_melds = MeldsField(validate=Length(0, 3), metadata={
        "description": "The knocker's laid-out melds, scored as given, even where another layout would score more "
        "(a knocker may lay out any legal melds: all ten melded is gin, fewer a knock); missing: the legal layout "
        "that scores best against this defender, which a knocker who cannot see its cards may not have chosen (to "
        "score a hand as it was played, give the melds laid out, such as a hint's `melds`)."})
    discard = CardField(allow_none=True, metadata={
        "description": "With an 11-card knocker: the card discarded face down."})
    upcard = CardField(allow_none=True, metadata={"description": OKLAHOMA_UPCARD})
    drawn_from_discard = CardField(allow_none=True, metadata={
        "description": "The card the knocker took from the discard pile this turn, if any: it may not be the "
        "discard unless `discard_pickup_allowed` (at the stock end, see `taken_at_stock_end`)."})
    taken_at_stock_end = BooleanField(load_default=False, metadata={"description": TAKEN_AT_STOCK_END})
    knocker_seat = IntegerField(allow_none=True, validate=OneOf(PLAYERS, error="expected 0 or 1, got {input}"),
                                metadata=refer_to(PLAYER_REF, "The knocker's player (or team) number in "
                                "`/v1/games/score`: given, the answer's `game_hand` is the hand's result as that "
                                "endpoint takes it."))
    rules = RulesField(load_default=resolve_rules)

    @validates_schema(pass_original=True)
    def _in_one_hand(self, data: dict[str, Any], original: dict[str, Any], **kwargs: Any) -> None:
        """A card in both hands, at its position in the defender's list (the core checks the rest of the
        round, naming the input at fault)."""
        shared = data["knocker"] & data["defender"]
        if shared:
            raise _in_both("defender", original.get("defender"), shared, "in both hands")

    @validates_schema(skip_on_field_errors=True)
    def _offered(self, data: dict[str, Any], **kwargs: Any) -> None:
        """The upcard Oklahoma needs, and the stock end's offer, each fault listed."""
        rules, taken, at_stock_end = data["rules"], data.get("drawn_from_discard"), data["taken_at_stock_end"]
        if faults := faults_of(lambda: on_field(lambda: knock_limit(rules, data.get("upcard")), "upcard"),
                               lambda: on_field(lambda: stock_end_rules(rules, taken, at_stock_end))):
            raise ValidationError(faults)


WINNER_EXPECTED = "expected 0 or 1 (the player or team that won the hand) or null (a drawn hand)"


class HandResult(RequestSchema):
    """One hand's result: who won it and how many points (after any doubling)."""

    openapi_conditions = (
        when(given(winner={"type": "null"}), {"properties": {"points": {"const": 0}, "extra_boxes": {"const": 0}}}),
    )
    winner = IntegerField(required=True, allow_none=True,
                          validate=OneOf(PLAYERS, error=WINNER_EXPECTED + ", got {input}"),
                          error_messages={"invalid": WINNER_EXPECTED},
                          metadata=refer_to(PLAYER_REF, "Player (or team) 0 or 1; null for a drawn hand."))
    points = IntegerField(required=True, validate=Range(0, 10000), metadata={
        "description": "Points the winner scored with the hand (a round's `points`, bonuses and doubling included); "
        "0 for a drawn hand. Points that some hand scores under the rules: a knock 1 to 97, an undercut its bonus "
        "and 0 to the knock limit (1 up when a tie is no undercut; neither with a knock limit of 0, and the limit is "
        "10 in Oklahoma), gin and big gin their bonus and 0 to 98, the most deadwood ten cards hold; each doubled "
        "where a spade upcard may double it (at most 129 under the default rules). Others are refused, and with "
        "`extra_boxes` the points must be what that undercut or gin scores (doubled with the boxes), without them "
        "what a knock scores."})
    extra_boxes = IntegerField(load_default=0, validate=OneOf(EXTRA_BOXES), metadata=refer_to(EXTRA_BOXES_REF,
        "Oklahoma extra boxes won with the hand (rule `oklahoma_extra_boxes`), as a round's score gives them; "
        "`points` must match them."))

    @validates_schema
    def _drawn_scores_nothing(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data["winner"] is None and (data["points"] or data["extra_boxes"]):
            raise ValidationError(DRAWN_SCORES_NOTHING)

    @post_load
    def _record(self, data: dict[str, Any], **kwargs: Any) -> HandRecord:
        return HandRecord(data["winner"], data["points"], data["extra_boxes"])


class Deal(RequestSchema):
    """A partnership deal: the two tables' results, winners given as teams 0 and 1."""

    tables = BoundedList(fields.Nested(HandResult), required=True, validate=Length(equal=2), metadata={
        "description": "The two tables' results of the deal, each won by a team (0 or 1) or drawn."})

    @post_load
    def _tables(self, data: dict[str, Any], **kwargs: Any) -> tuple[HandRecord, HandRecord]:
        first, second = data["tables"]
        return first, second


class GameScoreRequest(RequestSchema):
    """A game's hands in order: ``hands`` for two players, or ``deals`` for two partnerships."""

    # in the spec, one named schema for each kind of game, so that generated clients type both
    openapi_alternatives = {"GameScoreByHands": "hands", "GameScoreByDeals": "deals"}  # noqa: RUF012 (a constant)

    hands = BoundedList(fields.Nested(HandResult), validate=Length(0, HANDS_LIMIT), metadata={
        "description": "A two-player game's hands, in the order played."})
    deals = BoundedList(fields.Nested(Deal), validate=Length(0, DEALS_LIMIT), metadata={
        "description": "A partnership game's deals, in the order played."})
    rules = RulesField(load_default=resolve_rules)

    @validates_schema
    def _one_kind(self, data: dict[str, Any], **kwargs: Any) -> None:
        if ("hands" in data) == ("deals" in data):
            given = "not both" if "hands" in data else "neither was given"
            raise ValidationError(f"give either hands (two players) or deals (partnerships): {given}")

    @validates_schema(skip_on_field_errors=True)
    def _records_under_the_rules(self, data: dict[str, Any], **kwargs: Any) -> None:
        """Each hand, or each table of a deal, is one some hand under the rules has: every fault listed (the core
        names the first only)."""
        faults: dict[str, Any] = {}
        for index, record in enumerate(data.get("hands", ())):
            if problem := _record_problem(record, data["rules"]):
                faults.setdefault("hands", {})[index] = [problem]
        for index, tables in enumerate(data.get("deals", ())):
            for table, record in enumerate(tables):
                if problem := _record_problem(record, data["rules"]):
                    faults.setdefault("deals", {}).setdefault(index, {"tables": {}})["tables"][table] = [problem]
        if faults:
            raise ValidationError(faults)


def _record_problem(record: HandRecord, rules: Rules) -> str | None:
    """Why no hand under ``rules`` has ``record``, if none does."""
    try:
        check_hand_record(record, rules)
    except ValueError as error:
        return str(error)
    return None


def _query_field(parameter: RuleParameter) -> fields.Field[Any]:
    """A query-string field for one rule parameter (typed, bounded, documented), whose values are checked
    by the core in the words a JSON body gets."""
    schema = parameter_json_schema(parameter)
    metadata: dict[str, Any] = {key: schema[key] for key in ("description", "minimum", "maximum", "allOf")
                                if key in schema}

    def check(value: object) -> None:
        if problem := parameter.problem(value):
            raise ValidationError(problem)

    if parameter.kind == "boolean":
        return QueryBooleanField(metadata=metadata)
    if parameter.kind == "integer":
        return QueryIntegerField(validate=check, metadata=metadata)
    return fields.String(validate=check, metadata=metadata)


class _AnalyzeQueryBase(RequestSchema):
    """``GET /v1/hands/analyze?hand=As,2s,...``: the hand, a preset, and any rule overrides (but
    ``big_gin_bonus``, which changes no analysis and whose null a query string cannot say)."""

    count_unknown_keys = False

    hand = CardsField(HAND_SIZES, text_only=True, required=True)
    rules = fields.String(validate=lambda name: load_rules(name, {}, preset_at_root=True),  # worded as in a body
                          metadata=refer_to(PRESET_REF, "A preset name."))
    upcard = CardField(metadata={"description": OKLAHOMA_UPCARD})
    drawn_from_discard = CardField(metadata={"description": DRAWN_FROM_DISCARD})
    taken_at_stock_end = QueryBooleanField(metadata={"description": TAKEN_AT_STOCK_END})

    @pre_load
    def _no_big_gin_bonus(self, data: Mapping[str, Any], **kwargs: Any) -> Mapping[str, Any]:
        if "big_gin_bonus" in data:
            raise ValidationError({"big_gin_bonus": ["not taken in the query: it changes no analysis (a POST takes "
                                                     "it in rules)"]})
        return data

    @validates_schema(pass_original=True, skip_on_field_errors=False)
    def _rules_beside_other_faults(self, data: dict[str, Any], original: Mapping[str, Any], **kwargs: Any) -> None:
        """With a field other than the rules at fault, post_load (which resolves the rules) does not run: a fault
        of the rule parameters together is listed all the same, as POST lists its rules object's."""
        rule_keys = [key for key in original if key == "rules" or key in QUERY_RULE_PARAMETERS]
        if all(key in data for key in original) or not all(key in data for key in rule_keys):
            return  # every field loaded (post_load checks the rules), or a parameter is at fault already
        load_rules(data.get("rules"), {key: data[key] for key in rule_keys if key != "rules"}, preset_at_root=True)

    @post_load
    def _resolve(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        hand, upcard, taken = data.pop("hand"), data.pop("upcard", None), data.pop("drawn_from_discard", None)
        at_stock_end = data.pop("taken_at_stock_end", False)
        rules = load_rules(data.pop("rules", None), data, preset_at_root=True)
        check_analysis(hand, rules, upcard, taken, at_stock_end)
        return {"hand": hand, "rules": rules, "upcard": upcard, "drawn_from_discard": taken,
                "taken_at_stock_end": at_stock_end}


QUERY_RULE_PARAMETERS = {p.name: _query_field(p) for p in RULE_PARAMETERS if not p.nullable}
AnalyzeQuery = _AnalyzeQueryBase.from_dict(QUERY_RULE_PARAMETERS, name="AnalyzeQuery")


# The engine's own p99 in self-play is in the README ("The hint engine"); the budget trims the slow tail, and
# leaves room for the HTTP layer within the 50 ms a hint should take.
HINT_TIME_BUDGET_MS = 40


class HintRequest(RequestSchema):
    """A game state as the player asking for a hint sees it."""

    openapi_conditions = (
        when(given(phase={"const": "discard"}), given(hand=cards_of(11))),
        when(given(phase={"enum": [phase for phase in PHASES if phase != "discard"]}), given(hand=cards_of(10))),
        when(given(drawn_from_discard=CARD), given(phase={"const": "discard"})),
    )
    hand = CardsField((10, 11), required=True, metadata={
        "description": "Your cards: 10 in the draw phases, 11 in the discard phase."})
    phase = fields.String(required=True, validate=OneOf(PHASES), metadata={
        "description": "`first_upcard`: take the deal's first upcard or pass (the non-dealer is offered it first, "
        "then the dealer; the pile holds the upcard alone, or is left empty with `upcard` given); `draw`: take the "
        "pile's top card or draw from the stock (after both passed the first upcard, the non-dealer's first turn is "
        "a `draw` with the upcard alone on the pile and 31 cards in the stock; under rule `first_turn` `plain` "
        "nobody is offered the upcard and that first `draw` may take it; at the stock end, under rule "
        "`stock_end_discard`: take the last discard to knock, or pass and the hand is a draw); `discard`: discard, "
        "knock, gin or big gin."})
    upcard = CardField(allow_none=True, metadata={
        "description": "The deal's first upcard, wherever it went since (the pile, your hand, the opponent's): "
        "give it for the whole hand. It sets Oklahoma's knock limit, and the state's checks count the pile "
        "takes with it; outside Oklahoma it may be left out. None in an eleven-card deal (rule "
        "`eleven_card_deal`), whose first turn is the non-dealer's discard from 11 cards."})
    discard_pile = BoundedList(CardField(), load_default=list, validate=Length(0, 52), metadata={
        "uniqueItems": True, "description": "The discard pile, oldest first; its last card is the one that can be "
        "taken."})
    stock_count = IntegerField(required=True, validate=Range(0, FULL_STOCK), metadata={
        "description": "Cards left in the stock."})
    opponent_hand_known = BoundedList(CardField(), load_default=list, validate=Length(
        0, HAND_SIZE, error="expected at most {max} cards: the opponent holds " + str(HAND_SIZE)), metadata={
        "uniqueItems": True, "description": "Cards the opponent took from the pile and still holds."})
    opponent_discards = BoundedList(CardField(), load_default=list, validate=Length(0, OPPONENT_DISCARDS_LIMIT),
                                    metadata={
        "description": "Every card the opponent discarded, oldest first (a card may come back); empty only "
        f"before its first turn. At most {OPPONENT_DISCARDS_LIMIT:,}: players who keep taking each other's "
        "discards can make a deal last without end, but of 1,500 deals played at random taking the pile's card "
        "19 times in 20, the longest had 463."})
    drawn_from_discard = CardField(allow_none=True, metadata={
        "description": "Discard phase: the card you took from the pile this turn, if any."})
    returned_discard = BooleanField(load_default=False, metadata={
        "description": "The pile's top card (in the discard phase, the card you took) is one you discarded that "
        "the opponent took and threw straight back. Where that may be done (rule `discard_pickup_allowed`, as "
        "GRA plays) you may retake it only to knock or go gin."})
    rules = RulesField(load_default=resolve_rules)
    seed = IntegerField(load_default=0, validate=Range(0, 2**32 - 1), metadata={
        "description": "Seed of the opponent-hand sampling: the same state and seed give the same hint, unless "
        "the time budget runs out (`time_budget_reached`). Keep one seed for a turn: the discard phase after a "
        "take then ranks the discards as the take's `then_discard` did."})
    # The engine's settings carry no schema default (each description tells it): a release may retune them, and a
    # client generated with a default would keep sending the old value.
    knock_margin = NumberField(allow_nan=False, validate=Range(0, 200), metadata={
        "description": f"Default {DEFAULT_CONFIG.knock_margin:g}. Knock only when the knock's expected points "
        "exceed this (gin and big gin are always "
        "taken; on your last turn a knock is made when it beats every discard, and with one draw of yours left "
        "when it is worth at least what playing on is expected to bring). Above 0 the engine plays on for gin or "
        "an undercut instead of smaller knocks. In self-play the default lost nothing measurable against a "
        "player who knocks as soon as it may, and beat higher margins against one who waits (the engine "
        "itself), against whom 10 to 15 did better still. 0 knocks whenever a knock is expected to win."})
    time_budget_ms = IntegerField(allow_none=True, validate=Range(1, 1000), metadata={
        "description": f"Default {HINT_TIME_BUDGET_MS}. Milliseconds the engine may spend before it skips "
        "optional work (opponent samples beyond "
        f"the first {MIN_SAMPLES}, the second look at the closest discards, and on the last draw the stock cards "
        f"beyond the first {MIN_LAST_DRAWS} of a seeded random order). The rest of the evaluation "
        "always runs, so a hint can take longer (most in the draw phases); `time_budget_reached` in the answer "
        "says when the time ran out. `null`: no budget, so the same state and seed always give the same hint."})

    @post_load
    def _hint_arguments(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """The arguments of the core's ``hint``: the state, the rules, the seed, the engine's settings and its
        time budget, which starts now."""
        state = GameState(
            hand=tuple(hand_cards(data["hand"])),
            phase=data["phase"],
            upcard=data.get("upcard"),
            discard_pile=tuple(data["discard_pile"]),
            stock_count=data["stock_count"],
            opponent_hand_known=tuple(data["opponent_hand_known"]),
            opponent_discards=tuple(data["opponent_discards"]),
            drawn_from_discard=data.get("drawn_from_discard"),
            returned_discard=data["returned_discard"],
        )
        budget_ms = data.get("time_budget_ms", HINT_TIME_BUDGET_MS)
        return {"state": state, "rules": data["rules"], "seed": data["seed"],
                "config": replace(DEFAULT_CONFIG, knock_margin=data.get("knock_margin", DEFAULT_CONFIG.knock_margin)),
                "budget": None if budget_ms is None else TimeBudget(budget_ms / 1000)}


# --- responses (documentation: render.py builds them) --------------------------------------

def _card(description: str | None = None, required: bool = True) -> fields.String:
    return fields.String(required=required, validate=validate.Regexp(CANONICAL_CARD),
                         metadata={"description": description} if description else {})


def _cards(description: str) -> fields.List[Any]:
    return fields.List(_card(), required=True, metadata={"description": description})


def _melds(description: str = "Melds, each a list of cards by rank then suit.") -> fields.List[Any]:
    return fields.List(fields.List(_card()), required=True, metadata={"description": description})


class Arrangement(Schema):
    """Ten (or eleven) cards laid out: melds and the unmelded rest."""

    melds = _melds()
    deadwood_cards = _cards("Cards in no meld.")
    deadwood = fields.Integer(required=True, metadata={"description": "Value of the deadwood cards."})


class DiscardOption(Schema):
    """An 11-card hand after one discard."""

    card = _card("The card discarded.")
    deadwood = fields.Integer(required=True, metadata={"description": "Least deadwood of the other ten."})
    melds = _melds("The best melds of the other ten.")
    deadwood_cards = _cards("What stays unmelded.")
    legal = fields.Boolean(required=True, metadata={
        "description": "The card may be discarded (false for the card just taken, when the rules forbid it)."})
    can_knock = fields.Boolean(required=True, metadata={
        "description": "A legal discard leaving deadwood within the knock limit."})
    gin = fields.Boolean(required=True, metadata={"description": "A legal discard leaving no deadwood."})


class HandAnalysis(Schema):
    """The least deadwood and every optimal arrangement; for 11 cards, every discard."""

    hand = _cards("The hand, by rank then suit.")
    knock_limit = fields.Integer(required=True, metadata={"description": "The knock limit applied."})
    deadwood = fields.Integer(required=True, metadata={
        "description": "Least deadwood (11 cards: after the best discard)."})
    melds = _melds("The best arrangement's melds (11 cards: after `discard`).")
    deadwood_cards = _cards("The best arrangement's unmelded cards.")
    can_knock = fields.Boolean(required=True, metadata={"description": "`deadwood` is within the knock limit."})
    gin = fields.Boolean(required=True, metadata={"description": "`deadwood` is 0."})
    arrangements = fields.List(fields.Nested(Arrangement), required=True, metadata={
        "description": "Every distinct optimal arrangement (touching runs of a suit joined), best first "
        "(11 cards: after `discard`)."})
    discard = _card("11 cards: the legal discard that leaves the least deadwood (the first of `best_discards`). "
                    "When `big_gin` is true and the rules play big gin, going out with all 11 cards instead scores "
                    "`big_gin_bonus` in place of `gin_bonus` (more under every preset that plays it; `/v1/hint` "
                    "weighs both).", required=False)
    best_discards = fields.List(_card(), metadata={
        "description": "11 cards: every legal discard reaching `deadwood`."})
    big_gin = fields.Boolean(metadata={"description": "11 cards: all eleven meld (whether or not the rules "
                                       "score big gin)."})
    big_gin_melds = fields.List(fields.List(_card()), allow_none=True, metadata={
        "description": "11 cards: the eleven cards melded, or null (of several layouts, the one "
        "`/v1/rounds/score` and `/v1/hint` lay out)."})
    discards = fields.List(fields.Nested(DiscardOption), metadata={
        "description": "11 cards: one entry per card, the legal discards best first (the first is "
        "`discard`), then the card just taken when the rules forbid discarding it."})


class FieldErrorSchema(Schema):
    """What is wrong with one part of the request (the spec's ``FieldError``; not the core's exception)."""

    pointer = fields.String(metadata={"description": "JSON pointer (as a URI fragment) into the body."})
    parameter = fields.String(metadata={"description": "The query parameter at fault."})
    detail = fields.String(required=True, metadata={"description": "What is wrong there, and what was expected."})


class Problem(Schema):
    """An RFC 9457 problem detail (``application/problem+json``)."""

    type = fields.String(required=True, metadata={
        "description": "A URI naming the kind of problem: `tag:gin-service,2025:problems/invalid-input` (a 422 "
        "for input that is not valid: see `errors`), `tag:gin-service,2025:problems/illegal-knock` (a 422 for a "
        "knock the rules do not allow: see `deadwood` and `limit`), or `about:blank` for every other status, "
        "which `title` then names."})
    title = fields.String(required=True, metadata={"description": "The status's name (RFC 9110), e.g. "
                                                                  "`Unprocessable Content`."})
    status = fields.Integer(required=True, metadata={"description": "The HTTP status code."})
    detail = fields.String(required=True, metadata={
        "description": "What went wrong in this request, for people (for a 422: its first faults, from `errors`)."})
    errors = fields.List(fields.Nested(FieldErrorSchema), metadata={
        "description": f"Each invalid input, the first {MAX_LISTED_ERRORS} of them (`detail` names the first three "
        "and says how many more there are in all)."})
    deadwood = fields.Integer(metadata={"description": "Illegal knock: the knocker's deadwood."})
    limit = fields.Integer(metadata={
        "description": "Illegal knock: the most deadwood it may keep (the knock limit; 0 for gin and big gin)."})


class BatchAnswer(Schema):
    """One hand of a batch, answered."""

    status = fields.Integer(required=True, validate=OneOf([200]), metadata={
        "description": "200: the hand was analyzed."})
    analysis = fields.Nested(HandAnalysis, required=True, metadata={
        "description": "The hand's analysis, as `POST /v1/hands/analyze` gives it."})


class BatchError(Schema):
    """One hand of a batch that could not be answered, with its problem."""

    status = fields.Integer(required=True, validate=OneOf([422]), metadata={
        "description": "422: the hand could not be analyzed."})
    problem = fields.Nested(Problem, required=True, metadata={
        "description": "Why, with pointers from the request's root (`#/hands/3/hand`)."})


class BatchAnalysis(Schema):
    """The answers, in the order of the request's hands."""

    results = fields.List(fields.Raw(metadata={"oneOf": [{"$ref": "#/components/schemas/BatchAnswer"},
                                                         {"$ref": "#/components/schemas/BatchError"}]}),
                          required=True, metadata={"description": "One result for each of the request's hands, "
                                                                  "in order: an analysis or a problem."})


class Layoff(Schema):
    """A defender's card and the knocker meld it goes onto."""

    card = _card("The defender's card laid off.")
    meld_index = fields.Integer(required=True, metadata={
        "description": "Index into the knocker's melds as the same answer lists them: `knocker_melds` of a layoffs "
        "answer, `knocker.melds` of a round's score (the request's `knocker_melds` as given, else the best layout, "
        "where runs that touch are joined)."})


class LayoffsResult(Schema):
    """Every possible layoff, and the defender's best melds and layoffs chosen together."""

    knocker_melds = _melds("The knocker's melds, in the request's order.")
    gin = fields.Boolean(required=True, metadata={
        "description": "The knocker's melds hold ten cards or more: it went gin, and nothing may be laid off."})
    possible_layoffs = fields.List(fields.Nested(Layoff), required=True, metadata={
        "description": "Every card that could be laid off (alone or in a chain), onto which meld."})
    melds = _melds("The defender's own melds in its best result.")
    layoffs = fields.List(fields.Nested(Layoff), required=True, metadata={
        "description": "The defender's layoffs in its best result, in an order they can be played."})
    deadwood_cards = _cards("The defender's cards neither melded nor laid off.")
    deadwood = fields.Integer(required=True, metadata={"description": "The value of `deadwood_cards`: the "
                                                                      "defender's count."})


class Defender(LayoffsResult):
    """The defender's side of a round (no layoffs against gin)."""

    class Meta:
        exclude = ("knocker_melds", "gin", "possible_layoffs")


class RoundScore(Schema):
    """A scored round."""

    outcome = fields.String(required=True, validate=OneOf(["knock", "undercut", "gin", "big_gin", "tie"]),
                            metadata={"description": "`tie` only when ties are not undercuts."})
    winner = fields.String(required=True, allow_none=True, validate=OneOf(ROUND_WINNERS),
                           metadata=refer_to(ROUND_WINNER_REF, "Who scores; null for a tie."))
    points = fields.Integer(required=True, metadata={"description": "Points to the winner, doubling included."})
    knock_limit = fields.Integer(required=True, metadata={
        "description": "The most deadwood the knocker could keep in this round (Oklahoma: set by the upcard)."})
    doubled = fields.Boolean(required=True, metadata={"description": "Oklahoma: a spade upcard doubled it."})
    extra_boxes = fields.Integer(required=True, validate=OneOf(EXTRA_BOXES), metadata=refer_to(
        EXTRA_BOXES_REF, "Oklahoma extra boxes to the winner (0 unless rule `oklahoma_extra_boxes`)."))
    discard = fields.String(required=True, allow_none=True, validate=validate.Regexp(CANONICAL_CARD), metadata={
        "description": "The knocker's discard, as given with 11 cards; null for a 10-card knocker and for big "
        "gin."})
    knocker = fields.Nested(Arrangement, required=True, metadata={
        "description": "The knocker's melds as laid out (as given in `knocker_melds`, else the best layout with runs "
        "that touch joined) and its deadwood."})
    defender = fields.Nested(Defender, required=True, metadata={
        "description": "The defender's best melds and layoffs, and its deadwood."})
    game_hand = fields.Nested(lambda: HandResult(), metadata={
        "description": "Only with `knocker_seat`: the round as one of `/v1/games/score`'s `hands` (or a deal's "
        "`tables`), its winner given as that player's (or team's) number."})


class ScoredHand(Schema):
    """A hand as scored: for partnerships, a deal's team result."""

    winner = fields.Integer(required=True, allow_none=True, validate=OneOf(PLAYERS), metadata=refer_to(
        PLAYER_REF, "Player (or team) 0 or 1; null for a drawn hand (or a deal split evenly: a deal won for 0 "
        "points at one table, where a bonus is 0, the other drawn or won by the same team, is won)."))
    points = fields.Integer(required=True, metadata={
        "description": "Points to the winner (for a partnership deal: the net of its two tables)."})
    extra_boxes = fields.Integer(required=True, metadata={
        "description": "Oklahoma extra boxes won with it; for a partnership deal, those of the winning team's tables "
        "(both, if it won both; a split deal is one hand won by the team with more points, so the other team's "
        "extra boxes go with its table's points)."})


class GameScore(Schema):
    """Running totals, and the final result once a side reached the target."""

    hands = fields.List(fields.Nested(ScoredHand), required=True, metadata={
        "description": "The hands scored (for partnerships: each deal's team result)."})
    running_totals = fields.List(fields.List(fields.Integer()), required=True, metadata={
        "description": "Both sides' totals after each hand."})
    complete = fields.Boolean(required=True, metadata={"description": "A side reached the target."})
    winner = fields.Integer(required=True, allow_none=True, validate=OneOf(PLAYERS),
                            metadata=refer_to(PLAYER_REF, "0 or 1, null if not complete."))
    hands_won = fields.List(fields.Integer(), required=True, metadata={"description": "Hands won by each side."})
    boxes = fields.List(fields.Integer(), required=True,
                        metadata={"description": "Boxes (lines), extra boxes included."})
    box_points = fields.List(fields.Integer(), required=True, metadata={
        "description": "Each side's boxes times `box_bonus`."})
    game_bonus = fields.Integer(required=True, metadata={
        "description": "The winner's game bonus, doubled by a `double_bonus` shutout (0 before the game is complete)."})
    shutout = fields.Boolean(required=True, metadata={
        "description": "The game is complete, the loser won no hand, and the rules' `shutout` is not `none` (under "
        "`none` it is always false)."})
    final_scores = fields.List(fields.Integer(), required=True, metadata={
        "description": "The running totals with every bonus earned so far: the box points from the first hand on "
        "(so these can exceed the running totals before the game is complete), and the game bonus and any "
        "shutout once it is."})
    settlement = fields.Integer(required=True, validate=Range(0), metadata={
        "description": "What `payer` pays the other side once the game is complete: the difference between the "
        "final scores (0 before then)."})
    payer = fields.Integer(required=True, allow_none=True, validate=OneOf(PLAYERS), metadata=refer_to(
        PLAYER_REF, "The side with the lower final score, which pays `settlement` (with box bonuses this can be the "
        "game's winner); null while the game is not complete or when the final scores are equal."))


class RuleParameterInfo(Schema):
    """A rule parameter: its type, default and meaning."""

    name = fields.String(required=True, metadata={"description": "The parameter's name in `rules`."})
    type = fields.String(required=True, validate=OneOf(["integer", "boolean", "string"]), metadata={
        "description": "Its JSON type."})
    nullable = fields.Boolean(required=True, metadata={"description": "It may also be null."})
    default = fields.Raw(required=True, allow_none=True, metadata={
        "type": ["integer", "boolean", "string"], "description": "Its value in the default rules (no preset)."})
    minimum = fields.Integer(allow_none=True, required=True, metadata={
        "description": "Integers: the least value allowed; null for other types."})
    maximum = fields.Integer(allow_none=True, required=True, metadata={
        "description": "Integers: the greatest value allowed; null for other types."})
    choices = fields.List(fields.String(), required=True, metadata={
        "description": "Strings: the values allowed; empty for other types."})
    description = fields.String(required=True, metadata={"description": "What it means."})


class PresetInfo(Schema):
    """A named rule set, its source, and every parameter's value in it."""

    name = fields.String(required=True, metadata={"description": "The preset's name, as `rules` or `preset` take it."})
    source = fields.String(required=True, metadata={
        "description": "The rule document it follows (seeds 000 to 003, as the README lists them)."})
    description = fields.String(required=True, metadata={"description": "Its rules in brief."})
    rules = fields.Raw(required=True, metadata=refer_to(RULE_SET_REF, "Every rule parameter's value."))


class RulesCatalog(Schema):
    """The rule parameters and the presets."""

    default = fields.Raw(required=True, metadata=refer_to(RULE_SET_REF, "The default rules (no preset)."))
    parameters = fields.List(fields.Nested(RuleParameterInfo), required=True, metadata={
        "description": "Every rule parameter a request's `rules` may set."})
    presets = fields.List(fields.Nested(PresetInfo), required=True, metadata={
        "description": "Every preset, with its parameters' values."})


class RulesResolveRequest(RequestSchema):
    """Rules as any request gives them."""

    rules = RulesField(load_default=resolve_rules)

    @post_load(pass_original=True)
    def _given(self, data: dict[str, Any], original: Any, **kwargs: Any) -> dict[str, Any]:
        """The parameters the request set itself (not through a preset or the defaults)."""
        given = original.get("rules") if isinstance(original, Mapping) else None
        data["given"] = frozenset(given) - {"preset"} if isinstance(given, Mapping) else frozenset()
        return data


class UnusedParameter(Schema):
    """A rule parameter that changes nothing under the rules resolved."""

    parameter = fields.String(required=True, validate=OneOf([p.name for p in RULE_PARAMETERS]), metadata={
        "description": "The parameter's name."})
    why = fields.String(required=True, metadata={"description": "Why it changes nothing under these rules."})
    given = fields.Boolean(required=True, metadata={
        "description": "Whether the request set this parameter itself (not through a preset or the defaults): "
        "a setting it made that does nothing here."})


class ResolvedRules(Schema):
    """The rules a request's `rules` stands for."""

    rules = fields.Raw(required=True, metadata=refer_to(RULE_SET_REF, "Every rule parameter's value under them."))
    presets = fields.List(fields.String(metadata=refer_to(PRESET_REF, "A preset name.")), required=True, metadata={
        "description": "The presets that play as these rules: equal to them in every parameter that changes "
        "something under them (`unused` aside). Empty if none does."})
    unused = fields.List(fields.Nested(UnusedParameter), required=True, metadata={
        "description": "The parameters that change nothing under these rules, whatever their value: "
        "`knock_limit` in Oklahoma (the first upcard sets the limit), the Oklahoma parameters elsewhere, "
        "`undercut_bonus` and `undercut_on_tie` with a knock limit of 0 (no undercut), `first_turn` with an "
        "eleven-card deal (no upcard)."})


class Health(Schema):
    """Liveness or readiness."""

    status = fields.String(required=True, validate=OneOf(["ok", "ready"]), metadata={
        "description": "`ok` from `/healthz` (the process answers), `ready` from `/readyz` (an analysis ran)."})


class HintAction(Schema):
    """A move."""

    type = fields.String(required=True, validate=OneOf(get_args(ActionType)), metadata={
        "description": "`take_upcard`: take the pile's top card (in the `first_upcard` phase, or on a plain first "
        "turn under rule `first_turn`, the deal's first upcard; otherwise the last discard, not the request's "
        "`upcard`), then the best discard is "
        "`then_discard` of the first alternative (null when the take allows big gin); `pass`: refuse the first "
        "upcard, or at the stock's end the last "
        "discard offered to knock with (rule `stock_end_discard`), so that the hand is a draw; `draw_stock`: draw "
        "from the stock; `discard`: throw `card`; `knock`: throw `card` face down and lay out `melds`; `gin`: the same "
        "with no deadwood; `big_gin`: lay out all 11 cards, no discard."})
    card = fields.String(required=True, allow_none=True, validate=validate.Regexp(CANONICAL_CARD), metadata={
        "description": "The card discarded (discard, knock, gin), else null."})


class HintAlternative(Schema):
    """A legal move and how the engine rates it."""

    action = fields.Nested(HintAction, required=True, metadata={"description": "The move this alternative makes."})
    evaluation = fields.Float(required=True, metadata={
        "description": "Higher is better: expected points (unit `points`) or minus the expected deadwood after "
        "the next draw (after the next two for the discards that come close to the best, and at least the best "
        "two; they rank first), less the penalties for feeding the opponent and for its knock on the next turn "
        "(unit `deadwood`). A deadwood d "
        "counts as 2d - L below the knock limit L (so a hand in knocking range can score above 0) and as "
        "30 + (d - 30) / 2 above 30. A take whose best discard would be the card taken (GRA), which only passes "
        "the turn, is never advised, and in the `draw` phase is shown at most at the stock draw's value."})
    unit = fields.String(required=True, validate=OneOf(["points", "deadwood"]), metadata={
        "description": "`points` for knocks, gin and big gin, for a take the engine would follow at once with a "
        "knock or gin, for a stock draw when the ten cards held already knock (or go gin) after it, throwing the "
        "card drawn, with a knock worth making (its value is then that knock's: at least what the draw brings), "
        "and for every move of the last turn (one card above "
        "the stock's end, when no draw of yours follows: a discard is then worth what the opponent's last turn "
        "costs you); `deadwood` otherwise."})
    deadwood = fields.Integer(required=True, allow_none=True, metadata={
        "description": "Deadwood of the ten cards kept."})
    expected_points = fields.Float(required=True, allow_none=True, metadata={
        "description": "Knocks, takes followed at once by a knock or gin, a stock draw valued at the knock held, "
        "and every move of the last turn: the expected score of the hand."})
    undercut_risk = fields.Float(required=True, allow_none=True, metadata={
        "description": "Knocks, and takes followed at once by a knock: the chance of being undercut."})
    standard_error = fields.Float(required=True, allow_none=True, metadata={
        "description": "Where `expected_points` are a knock's (knocks, gin, big gin, takes followed at once by "
        "one, a stock draw valued at the knock held): their standard error, from how the points spread over the "
        "sampled opponent hands and `effective_samples` (0 when every sample scores alike): from `seed` to `seed` "
        f"they move with a standard deviation of about this much. It is itself an estimate, and with few "
        "`effective_samples` varies from seed to seed too. Null there too with fewer than "
        f"{ERROR_SAMPLES:g} effective samples (a spent time budget can leave so few), when the points rest on about "
        "one hand."})
    outs = fields.List(_card(), required=True, metadata={
        "description": "The live outs of the ten cards kept: the unseen cards (not in your hand, the pile or "
        "`opponent_hand_known`) that, drawn next, would lower their least deadwood (after the best discard) or "
        "form a meld with two or more of them. None for a discard on the last turn, when no draw follows. A knock "
        "gives those of the same discard without the knock, for comparison; gin and big gin give none; a take gives "
        "those of the ten cards kept after `then_discard`."})
    safety = fields.Float(required=True, allow_none=True, metadata={
        "description": "Discards: the chance the opponent cannot meld the card (a knock gives the same discard's, "
        "for comparison: the card it throws face down cannot be taken; a take gives that of `then_discard`)."})
    then_discard = fields.String(required=True, allow_none=True, validate=validate.Regexp(CANONICAL_CARD), metadata={
        "description": "Taking the upcard: the discard planned after it; null when the take allows big gin (all 11 "
        "cards laid out), and for every other move."})


class HintAnswer(Schema):
    """The advised move, every legal alternative ranked best first, and why."""

    action = fields.Nested(HintAction, required=True, metadata={"description": "The move advised."})
    alternatives = fields.List(fields.Nested(HintAlternative), required=True, metadata={
        "description": "Every legal move: the advised one, then the others of its `unit` in the engine's order of "
        "preference, then those of the other unit in theirs. Evaluations in points and in deadwood are not "
        "comparable, so when the engine plays on, a knock worth +18 points comes after a discard evaluated at "
        "-33 (the reason says why it does not knock)."})
    close_call = fields.Boolean(required=True, metadata={
        "description": "The top choices are too close to call. In unit `deadwood`: the take and the draw (or the "
        f"pass) within {DEFAULT_CONFIG.close_margin:g} of each other's `evaluation`, two discards within "
        f"{DEFAULT_CONFIG.discard_close_margin:g} (another `seed` samples the opponent's hands afresh, which moves "
        "their gap by about half a point typically, and the reason then names the next discard). In expected "
        f"points: two moves (knocks, the last turn's moves) within {CLOSE_POINTS:g}; in the discard phase before the "
        f"last turn also the best knock short of gin (not after a card taken only to knock), its expected points "
        f"within {CLOSE_STANDARD_ERRORS:g} times their `standard_error` (at least {CLOSE_POINTS:g}; always, where it "
        "is null) of what they must exceed to be made (`knock_margin`, or near the stock's end what playing on is "
        "expected to bring), whether it is advised or not; the reason then says why. Within is strict, to a "
        "billionth (sums over samples carry noise below it); a tie is close, unless every move is alike (then "
        "there is nothing to call)."})
    reason = fields.String(required=True, metadata={
        "description": "The advice in a sentence or two, for people: the melds kept, and why this move (its "
        "numbers are estimates from the sampled opponent hands); for a close call between two discards, the "
        "next one and how far below it is evaluated; for a knock too close to call against what it must exceed, its "
        "standard error (or that it is within a point, or rests on too few samples)."})
    melds = _melds("The melds of the cards the advised move keeps (after taking the upcard, those kept after "
                   "`then_discard`; after a stock draw or a pass, the hand as it is); for a knock, the layout to lay "
                   "down (of several with the least deadwood, the one expected to leave the opponent the least to "
                   "lay off).")
    deadwood_cards = _cards("The cards kept outside `melds`: for a knock, the deadwood laid down beside them.")
    knock_limit = fields.Integer(required=True, metadata={
        "description": "The most deadwood a knock may keep this hand (Oklahoma: set by the upcard), as "
        "`/v1/hands/analyze` answers it."})
    samples = fields.Integer(required=True, metadata={
        "description": "Opponent hands the evaluation used, evenly weighted: 24, fewer (at least 8) when the time "
        "budget ran out while they were being drawn. Hands are drawn until they are worth that many evenly "
        "weighted ones (at most 240 drawn), then resampled by how well each fits what the opponent did; where its "
        "play fits few hands, even 240 are worth fewer, and some of the 24 repeat (`effective_samples`)."})
    effective_samples = fields.Float(required=True, metadata={
        "description": "What the drawn opponent hands were worth as evenly weighted ones, at most `samples` (to "
        "one decimal): well below it, few hands fit what the opponent did, and the estimates (expected points, "
        "safety) lean on those few and may change with `seed`. 0 without an opponent model."})
    time_budget_reached = fields.Boolean(required=True, metadata={
        "description": "The time budget ran out before the hint was ready; optional work from then on was "
        "skipped (see `time_budget_ms`)."})
