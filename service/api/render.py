"""Core results as JSON-ready dicts, built by hand (several times faster than a schema dump).

``schemas.py`` documents each shape; the tests check every answer against the published spec.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import asdict
from typing import Any

from ..core.cards import CARD_NAMES, FULL_DECK, Card, Hand, format_card, format_hand
from ..core.hints import Action, Hint
from ..core.knocks import HandReport
from ..core.layoffs import DefenderResult, Layoff, LayoffReport
from ..core.melds import Arrangement, DrawnHandAnalysis, Meld, find_melds
from ..core.rules import PRESETS, RULE_PARAMETERS, Rules, presets_played, unused_parameters
from ..core.scoring import GameResult, HandRecord, RoundResult

JSON = dict[str, Any]


# Every meld there is (329) with its cards by rank then suit: answers name the same melds over and over.
_MELD_NAMES = {meld: tuple(format_hand(meld)) for meld in find_melds(FULL_DECK)}


def melds(groups: Iterable[Meld]) -> list[tuple[str, ...]]:
    """Melds as lists of cards, each by rank then suit."""
    names = _MELD_NAMES
    return [names[meld] for meld in groups]


def arrangement(laid: Arrangement) -> JSON:
    """Melds, unmelded cards and their value."""
    return {"melds": melds(laid.melds), "deadwood_cards": format_hand(laid.deadwood_cards),
            "deadwood": laid.deadwood}


def hand_analysis(hand: Hand, arrangements: Sequence[Arrangement], limit: int) -> JSON:
    """A 10-card hand: least deadwood and every optimal arrangement."""
    best = arrangements[0]
    return {
        "hand": format_hand(hand),
        "knock_limit": limit,
        "deadwood": best.deadwood,
        "melds": melds(best.melds),
        "deadwood_cards": format_hand(best.deadwood_cards),
        "can_knock": best.deadwood <= limit,
        "gin": best.deadwood == 0,
        "arrangements": [arrangement(a) for a in arrangements],
    }


def hand_report(report: HandReport) -> JSON:
    """A hand of 10 cards, or of 11 over every discard."""
    if report.drawn is None:
        return hand_analysis(report.hand, report.arrangements, report.knock_limit)
    return drawn_hand_analysis(report.drawn, report)


def drawn_hand_analysis(analysis: DrawnHandAnalysis, report: HandReport) -> JSON:
    """An 11-card hand (``report.drawn``): the best legal discard's analysis, big gin, and every discard, the
    legal ones best first and then the card that may not be discarded."""
    forbidden, limit, legal = report.banned_discard, report.knock_limit, report.legal_discards
    illegal = [option for option in analysis.options if option.card == forbidden]
    best = legal[0]
    answer = hand_analysis(analysis.hand, best.arrangements, limit)
    answer["discard"] = format_card(best.card)
    answer["best_discards"] = [CARD_NAMES[card] for card in report.best_discards]
    answer["big_gin"] = analysis.big_gin is not None
    answer["big_gin_melds"] = None if analysis.big_gin is None else melds(analysis.big_gin.melds)
    meld_names = _MELD_NAMES
    answer["discards"] = [
        {
            "card": CARD_NAMES[option.card],
            "deadwood": option.deadwood,
            "melds": [meld_names[meld] for meld in option.arrangements[0].melds],
            "deadwood_cards": format_hand(option.arrangements[0].deadwood_cards),
            "legal": option.card != forbidden,
            "can_knock": option.card != forbidden and option.deadwood <= limit,
            "gin": option.card != forbidden and option.deadwood == 0,
        }
        for option in (*legal, *illegal)
    ]
    return answer


def layoff_list(layoffs: Iterable[Layoff]) -> list[JSON]:
    """Layoffs as card and knocker-meld index."""
    return [{"card": format_card(layoff.card), "meld_index": layoff.meld_index} for layoff in layoffs]


def defender(result: DefenderResult) -> JSON:
    """The defender's own melds, layoffs in playable order, and deadwood."""
    return {"melds": melds(result.melds), "layoffs": layoff_list(result.layoffs),
            "deadwood_cards": format_hand(result.deadwood_cards), "deadwood": result.deadwood}


def layoffs(knocker_melds: Sequence[Meld], report: LayoffReport) -> JSON:
    """Every possible layoff and the defender's best result."""
    return {"knocker_melds": melds(knocker_melds), "gin": report.gin, "possible_layoffs": layoff_list(report.possible),
            **defender(report.best)}


def round_score(result: RoundResult, knocker_seat: int | None = None) -> JSON:
    """A scored round, both sides laid out; with the knocker's seat, also as a game's hand record."""
    answer: JSON = {
        "outcome": result.outcome,
        "winner": result.winner,
        "points": result.points,
        "knock_limit": result.knock_limit,
        "doubled": result.doubled,
        "extra_boxes": result.extra_boxes,
        "discard": _card_or_none(result.discard),
        "knocker": arrangement(result.knocker),
        "defender": defender(result.defender),
    }
    if knocker_seat is not None:
        seats = {"knocker": knocker_seat, "defender": 1 - knocker_seat, None: None}
        answer["game_hand"] = {"winner": seats[result.winner], "points": result.points,
                               "extra_boxes": result.extra_boxes}
    return answer


def game_score(hands: Sequence[HandRecord], result: GameResult) -> JSON:
    """Running totals and the final result."""
    return {
        "hands": [asdict(hand) for hand in hands],
        "running_totals": [list(totals) for totals in result.running_totals],
        "complete": result.complete,
        "winner": result.winner,
        "hands_won": list(result.hands_won),
        "boxes": list(result.boxes),
        "box_points": list(result.box_points),
        "game_bonus": result.game_bonus,
        "shutout": result.shutout,
        "final_scores": list(result.final_scores),
        "settlement": result.settlement,
        "payer": result.payer,
    }


def rules_catalog(default: Rules) -> JSON:
    """Every rule parameter with its default and meaning, and every preset's values."""
    return {
        "default": asdict(default),
        "parameters": [
            {"name": p.name, "type": p.kind, "nullable": p.nullable, "default": p.default, "minimum": p.minimum,
             "maximum": p.maximum, "choices": list(p.choices), "description": p.description}
            for p in RULE_PARAMETERS
        ],
        "presets": [
            {"name": p.name, "source": p.source, "description": p.description, "rules": asdict(p.rules)}
            for p in PRESETS.values()
        ],
    }


def resolved_rules(rules: Rules, given: Collection[str]) -> JSON:
    """Every parameter's value, the presets that play as these rules, and the parameters that change nothing,
    each marked if it is one of those ``given`` by the request."""
    return {
        "rules": asdict(rules),
        "presets": presets_played(rules),
        "unused": [{"parameter": name, "why": why, "given": name in given}
                   for name, why in unused_parameters(rules).items()],
    }


def _card_or_none(card: Card | None) -> str | None:
    return None if card is None else format_card(card)


def _three_places(value: float) -> float:
    """``value`` to three decimals, a nought that was a small negative written 0.0 (not -0.0)."""
    return round(value, 3) + 0.0


def _rounded(value: float | None) -> float | None:
    return None if value is None else _three_places(value)


def hint_action(action: Action) -> JSON:
    """A move: its type and card."""
    return {"type": action.type, "card": _card_or_none(action.card)}


def hint(advice: Hint) -> JSON:
    """The advised move, the ranked alternatives and the reason."""
    return {
        "action": hint_action(advice.action),
        "alternatives": [
            {
                "action": hint_action(option.action),
                "evaluation": _three_places(option.evaluation),
                "unit": option.unit,
                "deadwood": option.deadwood,
                "expected_points": _rounded(option.expected_points),
                "undercut_risk": _rounded(option.undercut_risk),
                "standard_error": _rounded(option.standard_error),
                "outs": [format_card(card) for card in option.outs],
                "safety": _rounded(option.safety),
                "then_discard": _card_or_none(option.then_discard),
            }
            for option in advice.alternatives
        ],
        "close_call": advice.close_call,
        "reason": advice.reason,
        "melds": melds(advice.layout.melds),
        "deadwood_cards": format_hand(advice.layout.deadwood_cards),
        "knock_limit": advice.knock_limit,
        "samples": advice.samples,
        "effective_samples": round(advice.effective_samples, 1),
        "time_budget_reached": advice.time_budget_reached,
    }
