"""The gin rummy engine: standard library only, fully typed, no I/O.

>>> from service.core import parse_hand, min_deadwood
>>> min_deadwood(parse_hand("As 2s 3s 7h 7d 7c Kd Qd Jd 5c"))
5
"""

from .cards import (
    ALL_CARDS,
    FULL_DECK,
    Card,
    CardError,
    Hand,
    card_rank,
    card_suit,
    card_value,
    format_card,
    format_hand,
    hand_cards,
    hand_from_cards,
    hand_size,
    hand_value,
    make_card,
    parse_card,
    parse_cards,
    parse_hand,
)
from .knocks import KnockOption, check_discard, knock_limit, knock_options
from .layoffs import DefenderResult, Layoff, best_defence, check_knocker_melds, possible_layoffs
from .melds import (
    Arrangement,
    DiscardOption,
    DrawnHandAnalysis,
    Meld,
    analyze_drawn_hand,
    arrangements_within,
    best_arrangement,
    find_melds,
    is_run,
    is_valid_meld,
    min_deadwood,
    optimal_arrangements,
)
from .rules import PRESETS, RULE_PARAMETERS, Preset, RuleParameter, Rules, RulesError, resolve_rules
from .scoring import (
    GameError,
    GameResult,
    HandRecord,
    IllegalKnockError,
    RoundResult,
    knocker_choice,
    partnership_deal,
    score_game,
    score_round,
)

__all__ = [
    "ALL_CARDS", "FULL_DECK", "Card", "CardError", "Hand", "card_rank", "card_suit", "card_value",
    "format_card", "format_hand", "hand_cards", "hand_from_cards", "hand_size", "hand_value", "make_card",
    "parse_card", "parse_cards", "parse_hand",
    "KnockOption", "check_discard", "knock_limit", "knock_options",
    "DefenderResult", "Layoff", "best_defence", "check_knocker_melds", "possible_layoffs",
    "Arrangement", "DiscardOption", "DrawnHandAnalysis", "Meld", "analyze_drawn_hand", "arrangements_within",
    "best_arrangement", "find_melds", "is_run", "is_valid_meld", "min_deadwood", "optimal_arrangements",
    "PRESETS", "RULE_PARAMETERS", "Preset", "RuleParameter", "Rules", "RulesError", "resolve_rules",
    "GameError", "GameResult", "HandRecord", "IllegalKnockError", "RoundResult", "knocker_choice",
    "partnership_deal", "score_game", "score_round",
]
