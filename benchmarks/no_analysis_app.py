"""The service with the analysis taken out: what its HTTP layer costs by itself.

``POST /v1/hands/analyze`` goes through everything the service does (flask-smorest, webargs, the
request schema, metrics, the request log) but answers only the hand, with no analysis. Beside the
bare Flask endpoint it is the floor under any core: ``benchmarks/load.py --no-analysis`` serves it
as ``benchmarks.no_analysis_app:create_app()``, ``benchmarks/instructions.py`` counts it as the part
``no-analysis``.
"""

from __future__ import annotations

from typing import Any

from flask import Flask

import service
from service.api import hands
from service.core.cards import Card, Hand, format_hand
from service.core.rules import Rules


def _hand_only(hand: Hand, rules: Rules, upcard: Card | None = None, drawn_from_discard: Card | None = None,
               taken_at_stock_end: bool = False) -> dict[str, Any]:
    return {"hand": format_hand(hand), "deadwood": 0}


def create_app() -> Flask:
    """The service's app, with the analysis of ``/v1/hands/analyze`` replaced by the hand alone."""
    hands.analyze = _hand_only
    return service.create_app()
