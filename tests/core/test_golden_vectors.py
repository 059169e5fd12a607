"""Golden vectors (tests/data): the engine over every 10-card hand of a 20-card pool, as the reference counted."""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from service.core.cards import ALL_CARDS, card_rank
from service.core.melds import min_deadwood

from . import reference as ref

VECTORS_FILE = Path(__file__).parents[1] / "data" / "deadwood_histograms.json"
VECTORS = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("vector", VECTORS["histograms"], ids=lambda v: v["pool"])
def test_every_hand_of_a_pool_has_the_reference_deadwood(vector: dict[str, Any]) -> None:
    low, high = vector["ranks"]
    bits = [1 << card for card in ALL_CARDS if low <= card_rank(card) + 1 <= high]
    counted = Counter(map(min_deadwood, map(sum, combinations(bits, vector["size"]))))
    assert sum(counted.values()) == vector["hands"]
    assert {str(deadwood): count for deadwood, count in sorted(counted.items())} == vector["by_deadwood"]


def regenerate() -> None:
    """Count the pools again with the reference and rewrite the file (``python -m tests.core.test_golden_vectors``,
    some minutes): it should come out byte for byte the same."""
    for vector in VECTORS["histograms"]:
        low, high = vector["ranks"]
        pool = [card for card in ref.DECK if low <= card[0] <= high]
        counts = ref.deadwood_histogram(pool, vector["size"])
        vector["hands"] = sum(counts.values())
        vector["by_deadwood"] = {str(deadwood): count for deadwood, count in counts.items()}
    VECTORS_FILE.write_text(json.dumps(VECTORS, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    regenerate()
