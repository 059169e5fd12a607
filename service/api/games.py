"""``/v1/games``: running totals and the final result of a game."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify
from flask.views import MethodView

from ..core.rules import resolve_rules
from ..core.scoring import HandRecord, score_game, score_partnership_game
from . import Blueprint, render
from .schemas import GameScore, GameScoreRequest

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Game scores with every bonus.")

HANDS: list[dict[str, Any]] = [{"winner": 0, "points": 31}, {"winner": 1, "points": 12}, {"winner": None, "points": 0},
         {"winner": 0, "points": 45}, {"winner": 0, "points": 27}]
EXAMPLES = {
    "players": {"summary": "Two players", "value": {"hands": HANDS, "rules": "standard"}},
    "partnership": {"summary": "Two partnerships: each deal's two tables", "value": {
        "deals": [{"tables": [{"winner": 0, "points": 40}, {"winner": 1, "points": 15}]},
                  {"tables": [{"winner": 0, "points": 70}, {"winner": 0, "points": 22}]}],
        "rules": "partnership"}},
}
RECORDS = [HandRecord(h["winner"], h["points"]) for h in HANDS]
ANSWERS = {"players": {"summary": "A finished game",
                       "value": render.game_score(RECORDS, score_game(RECORDS, resolve_rules("standard")))}}


@blp.route("/score")
class ScoreGame(MethodView):
    """Game scoring."""

    @blp.arguments(GameScoreRequest(), examples=EXAMPLES)
    @blp.doc(operationId="scoreGame")
    @blp.response(200, GameScore, examples=ANSWERS)
    def post(self, args: dict[str, Any]) -> Response:
        """Running totals, and once a side reaches the target: game, box and shutout bonuses.

        Give `hands` (two players, winner 0 or 1) or `deals` (two partnerships: each deal's two
        tables, winners as teams 0 and 1; a team winning both scores the sum, otherwise the
        difference).
        """
        if "deals" in args:
            return jsonify(render.game_score(*score_partnership_game(args["deals"], args["rules"])))
        return jsonify(render.game_score(args["hands"], score_game(args["hands"], args["rules"])))
