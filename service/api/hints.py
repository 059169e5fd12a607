"""``/v1/hint``: the next move for a player, from what that player can see."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify
from flask.views import MethodView

from ..core.hints import hint
from . import Blueprint, render
from .schemas import HintAnswer, HintRequest

blp = Blueprint("hints", __name__, url_prefix="/v1/hint", description="Advice for the player to move.")


def advise(args: dict[str, Any]) -> render.JSON:
    """The hint for a loaded request (``HintRequest`` gives ``hint``'s arguments)."""
    return render.hint(hint(**args))


EXAMPLE = {
    "hand": "As 2s 3s 7h 7d Kd Qd Jd 5c 9h", "phase": "draw", "upcard": "4d",
    "discard_pile": ["4d", "Tc", "7c"], "stock_count": 29, "opponent_discards": ["7c"],
}
ANSWER = advise(HintRequest().load({**EXAMPLE, "time_budget_ms": None}))  # no budget: the same answer every time


@blp.route("")
class HintResource(MethodView):
    """Hints."""

    @blp.arguments(HintRequest(), example=EXAMPLE)
    @blp.doc(operationId="adviseMove")
    @blp.response(200, HintAnswer, example=ANSWER)
    def post(self, args: dict[str, Any]) -> Response:
        """Advise the next move: take the upcard or pass, draw, discard, knock, gin or big gin.

        The alternatives are every legal move, ranked, with an evaluation each; discards come with
        their `outs` and `safety`. An impossible state (a card seen twice, counts that do not add
        up to 52, the wrong hand size for the phase, a turn order that cannot happen, more cards taken
        by the opponent or discarded by you than its discards leave turns for) is a 422 naming the
        field at fault. The state does not carry when each card was taken or in what order you
        discarded, so a history that only that order makes impossible is not refused.
        `opponent_discards` is the opponent's whole history: its last card is on top of the pile
        until taken, and the card you took from the pile (`drawn_from_discard`, required while
        nobody has drawn from the stock) was its last discard, or the upcard before it has discarded.
        """
        return jsonify(advise(args))
