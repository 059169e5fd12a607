"""``/v1/layoffs``: what the defender can lay off, and its best melds and layoffs together."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify
from flask.views import MethodView

from ..core.cards import Hand, parse_hand
from ..core.layoffs import report_layoffs
from ..core.melds import Meld
from . import Blueprint, render
from .schemas import LayoffsRequest, LayoffsResult

blp = Blueprint("layoffs", __name__, url_prefix="/v1/layoffs",
                description="The defender's layoffs onto the knocker's melds.")


def layoffs(knocker_melds: list[Meld], defender: Hand) -> render.JSON:
    """Every possible layoff, and the defender's best result."""
    return render.layoffs(knocker_melds, report_layoffs(knocker_melds, defender))


EXAMPLE = {"knocker_melds": [["6h", "7h", "8h"], "Qs Qd Qc"], "defender": "9h Th Jh 2c 3c 4c Qh 5s 5d Ks"}


@blp.route("")
class Layoffs(MethodView):
    """Layoffs."""

    @blp.doc(operationId="findLayoffs")
    @blp.arguments(LayoffsRequest(), example=EXAMPLE)
    @blp.response(200, LayoffsResult, example=layoffs(
        [parse_hand(m) for m in EXAMPLE["knocker_melds"]], parse_hand(str(EXAMPLE["defender"]))))
    def post(self, args: dict[str, Any]) -> Response:
        """Every card the defender could lay off, and its best result.

        The best result chooses the defender's own melds and its layoffs together, for the least
        deadwood; layoffs are listed in an order they can be played (chains outward from the meld).
        Melds of ten cards or more are gin: nothing may be laid off (`gin` says so).
        """
        return jsonify(layoffs(args["knocker_melds"], args["defender"]))
