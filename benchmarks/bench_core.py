"""Speed of the exact core solvers, run by hand: ``python benchmarks/bench_core.py``.

Reports microseconds per hand (best of ``--repeat`` timed passes over the same seeded hands) for
least deadwood, 11-card analysis with every discard, and the defender's joint layoff optimum,
plus the slowest single dense 11-card hand seen. If open_spiel is importable (it is not a project
dependency), its C++ ``GinRummyUtils.min_deadwood`` is timed on the same hands and its answers
compared with ours; every disagreement is printed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

# The core is standard library only and ``service`` imports Flask lazily, so any Python 3.11+ runs
# this from a checkout (e.g. one that has open_spiel installed); tests/core holds the reference.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service.core.cards import ALL_CARDS, Hand, card_rank, format_card, format_hand, hand_from_cards  # noqa: E402
from service.core.layoffs import best_defence  # noqa: E402
from service.core.melds import analyze_drawn_hand, best_arrangement, min_deadwood  # noqa: E402
from tests.core import reference  # noqa: E402

DENSE = [c for c in ALL_CARDS if card_rank(c) <= 4]  # the twenty A-5 cards
T = TypeVar("T")


def deal(rng: random.Random, pool: Sequence[int], size: int, count: int) -> list[Hand]:
    return [hand_from_cards(rng.sample(pool, size)) for _ in range(count)]


def knock_deals(rng: random.Random, pool: Sequence[int], count: int) -> list[tuple[tuple[int, ...], Hand]]:
    """(knocker melds, defender) pairs: a knocker within 10 deadwood laid out at its best, a random defender."""
    deals: list[tuple[tuple[int, ...], Hand]] = []
    while len(deals) < count:
        knocker = hand_from_cards(rng.sample(pool, 10))
        if min_deadwood(knocker) > 10:
            continue
        rest = [c for c in ALL_CARDS if not knocker >> c & 1]
        deals.append((best_arrangement(knocker).melds, hand_from_cards(rng.sample(rest, 10))))
    return deals


def least_after_discard(hand: Hand) -> int:
    """Least deadwood of an 11-card hand after its best discard."""
    return min(min_deadwood(hand & ~(1 << card)) for card in ALL_CARDS if hand >> card & 1)


def per_call_us(call: Callable[[T], object], inputs: Sequence[T], repeat: int) -> float:
    """Best over ``repeat`` passes of the mean time per input, in microseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter_ns()
        for item in inputs:
            call(item)
        best = min(best, (time.perf_counter_ns() - start) / len(inputs) / 1000)
    return best


def slowest(call: Callable[[Hand], object], hands: Sequence[Hand], repeat: int) -> tuple[float, Hand]:
    """The slowest single hand (each timed ``repeat`` times, keeping its best) in microseconds."""
    worst, worst_hand = 0.0, 0
    for hand in hands:
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter_ns()
            call(hand)
            best = min(best, (time.perf_counter_ns() - start) / 1000)
        if best > worst:
            worst, worst_hand = best, hand
    return worst, worst_hand


def open_spiel_utils() -> Any:
    """open_spiel's C++ gin rummy utilities, or None where open_spiel is not installed."""
    try:
        from pyspiel import gin_rummy  # type: ignore[import-not-found]
    except ImportError:
        return None
    return gin_rummy.GinRummyUtils(13, 4, 10)


def compare_open_spiel(
    utils: Any, label: str, hands: Sequence[Hand], ours: Callable[[Hand], int], ours_us: float, repeat: int
) -> None:
    to_ints = utils.card_strings_to_card_ints
    theirs = utils.min_deadwood
    converted = [to_ints([format_card(c) for c in ALL_CARDS if hand >> c & 1]) for hand in hands]
    their_us = per_call_us(theirs, converted, repeat)
    print(f"  open_spiel min_deadwood, {label}: {their_us:8.2f} us/hand  (ours / theirs = {ours_us / their_us:.2f})")
    disagreements = [
        (hand, ours(hand), theirs(cards))
        for hand, cards in zip(hands, converted, strict=True)
        if ours(hand) != theirs(cards)
    ]
    settled = [
        (hand, our_answer, their_answer, reference_least(hand)) for hand, our_answer, their_answer in disagreements
    ]
    ours_right = sum(our_answer == truth for _, our_answer, _, truth in settled)
    print(
        f"  answers differ on {len(disagreements)} of {len(hands)} hands; "
        f"the brute-force reference agrees with ours on {ours_right} of them"
    )
    for hand, our_answer, their_answer, truth in settled[:5]:
        print(f"    {' '.join(format_hand(hand))}: ours {our_answer}, open_spiel {their_answer}, reference {truth}")


def reference_least(hand: Hand) -> int:
    """The brute-force answer: least deadwood of a 10-card hand, or after the best discard of 11."""
    cards = reference.from_bits(hand)
    if len(cards) == 11:
        return min(least for least, _ in reference.drawn_hand(cards).values())
    return reference.least_deadwood(cards)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per family (default 2000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes; the best is kept (default 3)")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    n, repeat = args.hands, args.repeat
    families = {
        "random 10-card": deal(rng, ALL_CARDS, 10, n),
        "dense 10-card (A-5)": deal(rng, DENSE, 10, n),
        "random 11-card": deal(rng, ALL_CARDS, 11, n),
        "dense 11-card (A-5)": deal(rng, DENSE, 11, n),
    }
    print(f"Python {sys.version.split()[0]}, {n} hands per family, best of {repeat} passes")
    print("min_deadwood (least deadwood of a 10-card hand)")
    spiel = open_spiel_utils()
    for label in ("random 10-card", "dense 10-card (A-5)"):
        us = per_call_us(min_deadwood, families[label], repeat)
        print(f"  ours, {label}: {us:8.2f} us/hand")
        if spiel is not None:
            compare_open_spiel(spiel, label, families[label], min_deadwood, us, repeat)
    print("analyze_drawn_hand (11 cards: least deadwood and every optimal layout for each discard)")
    for label in ("random 11-card", "dense 11-card (A-5)"):
        us = per_call_us(analyze_drawn_hand, families[label], repeat)
        print(f"  ours, {label}: {us:8.2f} us/hand")
        # The same question open_spiel's 11-card min_deadwood answers: least deadwood after the best discard.
        least_us = per_call_us(least_after_discard, families[label], repeat)
        print(f"  ours, least deadwood only (min_deadwood of each discard), {label}: {least_us:8.2f} us/hand")
        if spiel is not None:
            compare_open_spiel(spiel, label, families[label], least_after_discard, least_us, repeat)
    if spiel is None:
        print("open_spiel is not importable here: its comparison is skipped (pip install open_spiel to add it)")
    print("best_defence (defender's joint optimum of own melds and layoffs)")
    for label, pool in (("random", ALL_CARDS), ("dense (A-5)", DENSE)):
        deals = knock_deals(rng, pool, n)
        us = per_call_us(lambda deal: best_defence(*deal), deals, repeat)
        print(f"  ours, {label} knocker within 10, random defender: {us:8.2f} us/deal")
    print("slowest single dense 11-card hand (each timed alone, best of its passes)")
    solvers: tuple[tuple[str, Callable[[Hand], object]], ...] = (
        ("analyze_drawn_hand", analyze_drawn_hand),
        ("min_deadwood", min_deadwood),
    )
    for name, call in solvers:
        worst, hand = slowest(call, families["dense 11-card (A-5)"], repeat)
        print(f"  {name}: {worst:8.1f} us on {' '.join(format_hand(hand))}")


if __name__ == "__main__":
    main()
