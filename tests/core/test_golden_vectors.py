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

VECTORS = json.loads((Path(__file__).parents[1] / "data" / "deadwood_histograms.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("vector", VECTORS["histograms"], ids=lambda v: v["pool"])
def test_every_hand_of_a_pool_has_the_reference_deadwood(vector: dict[str, Any]) -> None:
    low, high = vector["ranks"]
    bits = [1 << card for card in ALL_CARDS if low <= card_rank(card) + 1 <= high]
    counted = Counter(map(min_deadwood, map(sum, combinations(bits, vector["size"]))))
    assert sum(counted.values()) == vector["hands"]
    assert {str(deadwood): count for deadwood, count in sorted(counted.items())} == vector["by_deadwood"]
