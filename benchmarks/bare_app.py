"""The baseline for benchmarks/load.py: a bare Flask endpoint at the service's analyze path.

It reads the same JSON body and answers only the hand's length, so served with the same gunicorn
settings it measures what Flask and gunicorn cost by themselves:
``gunicorn -c service/gunicorn_conf.py benchmarks.bare_app:app``.
"""

from __future__ import annotations

from flask import Flask, request

app = Flask(__name__)


@app.post("/v1/hands/analyze")
def analyze() -> dict[str, int]:
    """Echo the number of cards in ``hand`` (a list or a string of cards)."""
    hand = request.get_json()["hand"]
    return {"cards": len(hand.replace(",", " ").split() if isinstance(hand, str) else hand)}
