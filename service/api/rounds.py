"""``/v1/rounds``: score a knocked hand."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify
from flask.views import MethodView

from ..core.cards import parse_hand
from ..core.rules import resolve_rules
from ..core.scoring import score_round
from . import Blueprint, render
from .schemas import RoundScore, RoundScoreRequest

blp = Blueprint("rounds", __name__, url_prefix="/v1/rounds", description="Round scores.")

KNOCKER = "As 2s 3s 7h 7d 7c Kd Qd Jd 2c"
DEFENDER = "4s 5s 8h 9h Th 4d 4c 9c Tc Qc"
EXAMPLES = {
    "best": {"summary": "The knocker's best legal layout is chosen",
             "value": {"knocker": KNOCKER, "defender": DEFENDER}},
    "melds": {"summary": "The knocker lays out given melds, traditional rules",
              "value": {"knocker": KNOCKER, "defender": DEFENDER,
                        "knocker_melds": [["As", "2s", "3s"], ["7h", "7d", "7c"], ["Jd", "Qd", "Kd"]],
                        "rules": "traditional"}},
    "seat": {"summary": "The knocker sits in seat 1 of the game: the answer's game_hand is ready for /v1/games/score",
             "value": {"knocker": KNOCKER, "defender": DEFENDER, "knocker_seat": 1}},
}
ANSWERS = {"best": {"summary": "A knock", "value": render.round_score(
    score_round(parse_hand(KNOCKER), parse_hand(DEFENDER), resolve_rules()))}}


@blp.route("/score")
class ScoreRound(MethodView):
    """Round scoring."""

    @blp.arguments(RoundScoreRequest(), examples=EXAMPLES)
    @blp.doc(operationId="scoreRound")
    @blp.response(200, RoundScore, examples=ANSWERS)
    def post(self, args: dict[str, Any]) -> Response:
        """Score a knock, gin or big gin: outcome, winner, points, both sides laid out.

        Without `knocker_melds` the knocker's legal layout that scores best after the defender's
        best reply is chosen. A knock above the limit is a 422 with `deadwood` and `limit`.
        """
        return jsonify(render.round_score(score_round(
            args["knocker"], args["defender"], args["rules"], knocker_melds=args.get("knocker_melds"),
            upcard=args.get("upcard"), discard=args.get("discard"),
            drawn_from_discard=args.get("drawn_from_discard"), taken_at_stock_end=args["taken_at_stock_end"]),
            knocker_seat=args.get("knocker_seat")))
