"""``/v1/hands``: least deadwood, every optimal arrangement, every discard of a drawn hand."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify
from flask.views import MethodView
from marshmallow import RAISE, ValidationError

from .. import observability
from ..core.cards import Card, Hand, parse_hand
from ..core.errors import may_not_be_null
from ..core.knocks import report_hand
from ..core.rules import Rules, resolve_rules
from ..errors import invalid_input, validation_messages
from . import Blueprint, render
from .schemas import (
    AnalyzeQuery,
    AnalyzeRequest,
    BatchAnalysis,
    BatchAnalyzeRequest,
    HandAnalysis,
)

blp = Blueprint("hands", __name__, url_prefix="/v1/hands",
                description="Least deadwood, every optimal arrangement, and every discard of a drawn hand.")


def analyze(
    hand: Hand, rules: Rules, upcard: Card | None = None, drawn_from_discard: Card | None = None,
    taken_at_stock_end: bool = False,
) -> render.JSON:
    """The analysis of a 10-card hand, or of an 11-card hand over every discard."""
    return render.hand_report(report_hand(hand, rules, upcard, drawn_from_discard, taken_at_stock_end))


def analysis_response(args: dict[str, Any]) -> Response:
    """The answer to a request for one hand's analysis, counted among the hands analyzed."""
    answer = analyze(**args)
    observability.count_hands_analyzed()
    return jsonify(answer)


TEN = "As 2s 3s 7h 7d 7c Kd Qd Jd 5c"
ELEVEN = "As 2s 3s 4s 7h 7d 7c Kd Qd Jd 9c"
EXAMPLES = {
    "ten": {"summary": "Ten cards, as a list", "value": {"hand": TEN.split()}},
    "eleven": {"summary": "Eleven cards just after a draw, as a string", "value": {"hand": ELEVEN}},
    "rules": {"summary": "Oklahoma: the upcard sets the knock limit",
              "value": {"hand": TEN, "rules": "oklahoma", "upcard": "8c"}},
}
ANSWERS = {
    "ten": {"summary": "Ten cards", "value": analyze(parse_hand(TEN), resolve_rules())},
    "eleven": {"summary": "Eleven cards", "value": analyze(parse_hand(ELEVEN), resolve_rules())},
}


@blp.route("/analyze")
class Analyze(MethodView):
    """One hand."""

    @blp.cached
    @blp.arguments(AnalyzeQuery(), location="query", unknown=RAISE)
    @blp.doc(operationId="analyzeHandInQuery")
    @blp.response(200, HandAnalysis, examples=ANSWERS)
    def get(self, args: dict[str, Any]) -> Response:
        """Analyze a hand given in the query: `?hand=As,2s,3s,...`.

        Rules come as a preset (`rules=oklahoma`) and/or single parameters (`knock_limit=5`), every
        one but `big_gin_bonus` (it changes no analysis: big gin is reported whatever its bonus, and
        a query could not say its null). Integers are written with the digits 0-9. Each parameter is
        given once.
        """
        return analysis_response(args)

    @blp.arguments(AnalyzeRequest(), examples=EXAMPLES)
    @blp.doc(operationId="analyzeHand")
    @blp.response(200, HandAnalysis, examples=ANSWERS)
    def post(self, args: dict[str, Any]) -> Response:
        """Analyze a hand of 10 cards, or 11 just after a draw.

        For 11 cards the top level describes the best discard (`discard`), and `discards` lists
        every discard, best first.
        """
        return analysis_response(args)


BATCH_ITEM = AnalyzeRequest()


def batch_answer(index: int, item: Any, rules: Rules) -> render.JSON:
    """One hand of a batch: its analysis, or its own problem (pointers into the whole request)."""
    try:
        if item is None:
            raise ValidationError(may_not_be_null(BATCH_ITEM.error_messages["type"]))
        given_rules = not isinstance(item, dict) or "rules" in item
        args = BATCH_ITEM.load(item if given_rules else {**item, "rules": rules})
        return {"status": 200, "analysis": analyze(**args)}
    except ValidationError as error:
        return {"status": 422, "problem": invalid_input(validation_messages(error), ("hands", index))}


BATCH_EXAMPLE: dict[str, Any] = {
    "hands": [{"hand": TEN}, {"hand": ELEVEN, "rules": "standard"}, {"hand": TEN, "rules": "oklahoma"}],
    "rules": {"knock_limit": 7},
}


@blp.route("/analyze/batch")
class AnalyzeBatch(MethodView):
    """Many hands in one request."""

    max_body_config = "BATCH_MAX_CONTENT_LENGTH"

    @blp.doc(operationId="analyzeHands")
    @blp.arguments(BatchAnalyzeRequest(), example=BATCH_EXAMPLE)
    @blp.response(200, BatchAnalysis, example={"results": [
        batch_answer(i, item, resolve_rules(None, BATCH_EXAMPLE["rules"]))
        for i, item in enumerate(BATCH_EXAMPLE["hands"])]})
    def post(self, batch: dict[str, Any]) -> Response:
        """Analyze up to 1,000 hands; each is answered, or given its own problem, in order."""
        rules = batch["rules"]
        results = [batch_answer(i, item, rules) for i, item in enumerate(batch["hands"])]
        observability.count_hands_analyzed(sum(result["status"] == 200 for result in results))
        return jsonify({"results": results})
