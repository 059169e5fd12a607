"""Rule parameters, their meanings, and named presets for each source rule set."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from decimal import Decimal
from difflib import get_close_matches
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Literal, get_args

from .cards import Card
from .errors import FieldError, describe_value, may_not_be_null

OklahomaAce = Literal["gin_only", "one"]
Shutout = Literal["double_bonus", "double_score", "none"]
StockEndDiscard = Literal["draw", "take_to_knock", "take_to_knock_any"]
FirstTurn = Literal["upcard_offer", "plain"]


class RulesError(FieldError):
    """Rules values that are unknown or out of range: ``problems`` maps each parameter at fault to
    what is wrong with it; ``field`` and ``message`` are the first of them."""

    def __init__(self, problems: Mapping[str, str]) -> None:
        field, message = next(iter(problems.items()))
        super().__init__(field, message)
        self.problems = dict(problems)
        self.args = ("; ".join(f"{name}: {problem}" for name, problem in self.problems.items()),)


@dataclass(frozen=True, kw_only=True)
class Rules:
    """Every rule that changes an answer, each given by its name. Immutable, and checked when made; build
    variants with ``resolve_rules``."""

    knock_limit: int = 10
    gin_bonus: int = 25
    big_gin_bonus: int | None = 31
    undercut_bonus: int = 25
    undercut_on_tie: bool = True
    oklahoma: bool = False
    oklahoma_ace: OklahomaAce = "one"
    oklahoma_spades_double: bool = True
    oklahoma_extra_boxes: bool = False
    target: int = 100
    game_bonus: int = 100
    box_bonus: int = 25
    shutout: Shutout = "double_bonus"
    discard_pickup_allowed: bool = False
    stock_end: int = 2
    stock_end_discard: StockEndDiscard = "draw"
    first_turn: FirstTurn = "upcard_offer"
    eleven_card_deal: bool = False

    def __post_init__(self) -> None:
        """Every value within its parameter's type and range, and the parameters together (``RulesError``
        naming each that is not)."""
        problems = {p.name: problem for p in RULE_PARAMETERS if (problem := p.problem(getattr(self, p.name)))}
        if not problems and self.oklahoma and self.eleven_card_deal:
            problems["eleven_card_deal"] = ("Oklahoma needs a first upcard to set the knock limit; this deal "
                                            "turns none up")
        if problems:
            raise RulesError(problems)

    def banned_discard(self, taken: Card | None) -> Card | None:
        """The card that may not be discarded this turn: ``taken``, just taken from the pile, unless
        ``discard_pickup_allowed``."""
        return None if self.discard_pickup_allowed else taken

    def stock_end_knock(self) -> Rules:
        """The rules of a knock with the discard taken at the stock end (``stock_end_discard``): the 50th-card
        rule forbids discarding that card and Game Colony's form allows it, whatever ``discard_pickup_allowed``
        says."""
        return replace(self, discard_pickup_allowed=self.stock_end_discard == "take_to_knock_any")


_DEFAULTS = {f.name: f.default for f in fields(Rules)}


@dataclass(frozen=True)
class RuleParameter:
    """What a rule parameter means, and the values it takes."""

    name: str
    description: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    nullable: bool = False

    @property
    def default(self) -> object:
        """The parameter's value in the default rules."""
        return _DEFAULTS[self.name]

    @property
    def kind(self) -> str:
        """JSON type of the parameter: integer, boolean or string."""
        value = self.default if self.default is not None else 0
        return {bool: "boolean", int: "integer", str: "string"}[type(value)]

    @property
    def expected(self) -> str:
        """What a value of this parameter is, as its errors say."""
        if self.kind == "boolean":
            return "expected true or false"
        if self.kind == "integer":
            return f"expected an integer from {self.minimum:,} to {self.maximum:,}{' or null' if self.nullable else ''}"
        return f"expected one of {', '.join(self.choices)}"

    def problem(self, value: object) -> str | None:
        """What is wrong with a value for this parameter, or None when it is within its type and range."""
        if value is None:
            return None if self.nullable else may_not_be_null(self.expected)
        wrong = f"{self.expected}, got {describe_value(value)}"
        if self.kind == "boolean":
            return None if isinstance(value, bool) else wrong
        if self.kind == "integer":
            if isinstance(value, bool) or not isinstance(value, int | float | Decimal) or (
                    not isinstance(value, int) and not is_whole(value)):
                return wrong
            if self.minimum is not None and value < self.minimum:
                return f"expected at least {self.minimum:,}, got {describe_value(value)}"
            if self.maximum is not None and value > self.maximum:
                return f"expected at most {self.maximum:,}, got {describe_value(value)}"
            return None if isinstance(value, int) else wrong
        return None if value in self.choices else wrong


def is_whole(number: float | Decimal) -> bool:
    """Whether a number is finite with no fraction (a ``Decimal`` exactly, however far past its context's
    exponents: ``to_integral_value`` does not round to the context)."""
    if isinstance(number, float):
        return number.is_integer()
    return number.is_finite() and number == number.to_integral_value()


RULE_PARAMETERS: tuple[RuleParameter, ...] = (
    RuleParameter("knock_limit", "Most deadwood a knocker may hold (ignored when oklahoma is on).", 0, 10),
    RuleParameter("gin_bonus", "Bonus for going gin, on top of the defender's deadwood.", 0, 1000),
    RuleParameter(
        "big_gin_bonus",
        "Bonus for big gin (all 11 cards melded, no discard); null: not played.",
        0,
        1000,
        nullable=True,
    ),
    RuleParameter("undercut_bonus", "Bonus to the defender for an undercut, on top of the difference.", 0, 1000),
    RuleParameter("undercut_on_tie", "An equal count is an undercut; if false a tie scores nothing."),
    RuleParameter("oklahoma", "Oklahoma gin: the first upcard's value sets the knock limit."),
    RuleParameter(
        "oklahoma_ace",
        "Oklahoma with an Ace upcard: knock with 1 (its value), or gin only (as some play).",
        choices=get_args(OklahomaAce),
    ),
    RuleParameter("oklahoma_spades_double", "Oklahoma: a spade first upcard doubles the hand's score."),
    RuleParameter("oklahoma_extra_boxes",
                  "Oklahoma: 1 extra box for an undercut, 2 for gin or big gin (doubled with the score on a spade "
                  "upcard)."),
    RuleParameter("target", "Running total that ends the game.", 1, 10000),
    RuleParameter("game_bonus", "Bonus to the player who reaches the target.", 0, 10000),
    RuleParameter("box_bonus", "Line or box bonus per hand won (and per extra box), added at the end.", 0, 1000),
    RuleParameter(
        "shutout",
        "When the loser won no hand: double the game bonus, double the winner's whole score, or nothing.",
        choices=get_args(Shutout),
    ),
    RuleParameter("discard_pickup_allowed", "A card taken from the discard pile may be discarded in the same turn "
                  "(GRA; then the player who first discarded it may retake it only to knock or go gin)."),
    RuleParameter("stock_end", "Cards left in the stock at which a hand without a knock is a draw.", 0, 10),
    RuleParameter(
        "stock_end_discard",
        "The discard that leaves stock_end cards: the hand is a draw at once; or the other player may take it "
        "only to knock or go gin, with another card as the discard (the 50th-card rule), or with any card, "
        "that one included (Game Colony).",
        choices=get_args(StockEndDiscard),
    ),
    RuleParameter(
        "first_turn",
        "The non-dealer's first turn (it guides hints): upcard_offer, the first upcard is offered to the "
        "non-dealer, then to the dealer, and if both pass the non-dealer draws from the stock; or plain, an "
        "ordinary turn that takes the upcard or draws from the stock, as seed 000 words it.",
        choices=get_args(FirstTurn),
    ),
    RuleParameter("eleven_card_deal", "No upcard: the non-dealer is dealt 11 cards and its first turn is a discard "
                  "(not with Oklahoma, whose knock limit the upcard sets)."),
)

_PARAMETERS_BY_NAME = {p.name: p for p in RULE_PARAMETERS}
assert set(_PARAMETERS_BY_NAME) == {f.name for f in fields(Rules)}
_LONGEST_NAME = max(map(len, _PARAMETERS_BY_NAME))


DEFAULT_RULES = Rules()


@dataclass(frozen=True)
class Preset:
    """A named rule set and the source document it follows."""

    name: str
    rules: Rules
    source: str
    description: str


TRADITIONAL_SCORING = Rules(gin_bonus=20, undercut_bonus=10, big_gin_bonus=None, box_bonus=20)
"""Seed 003's scoring, which its Oklahoma and four-player games keep."""

PRESETS: Mapping[str, Preset] = MappingProxyType({
    p.name: p
    for p in (
        Preset(
            "standard",
            Rules(box_bonus=20, big_gin_bonus=None, shutout="none"),
            "seed 000",
            "Gin 25, undercut 25 (ties undercut), game 100 to 100, box 20, no big gin, no shutout. The first upcard "
            "is offered to both players; the seed words the first turn as an ordinary draw (first_turn plain).",
        ),
        Preset(
            "hoyle",
            Rules(big_gin_bonus=None, shutout="double_score", stock_end_discard="take_to_knock"),
            "seed 001",
            "As standard with box 25, and a shutout doubles the winner's whole score. The discard that leaves "
            "the last two cards may be taken, only to knock or go gin ('his opponent may refuse the discard "
            "and the hand is a draw'; the last two cards may not be drawn).",
        ),
        Preset(
            "online",
            Rules(game_bonus=0, box_bonus=0, shutout="none"),
            "seed 002",
            "Big gin 31, no game or box bonus, the card taken from the pile may not be discarded (undercut 25 and "
            "big gin 31 are our picks among the seed's room options).",
        ),
        Preset(
            "traditional",
            TRADITIONAL_SCORING,
            "seed 003 main text",
            "Gin 20, undercut 10, box 20, game 100 (200 after a shutout).",
        ),
        Preset(
            "gra",
            Rules(big_gin_bonus=None, discard_pickup_allowed=True, shutout="double_score"),
            "seed 003 variations",
            "Gin, undercut and box 25; the card taken from the pile may be discarded at once (the Gin Rummy "
            "Association's rule); a shutout doubles the winner's whole score (the 25s and the shutout are "
            "variations seed 003 says some play).",
        ),
        Preset(
            "oklahoma",
            replace(TRADITIONAL_SCORING, oklahoma=True, target=150),
            "seed 003 Oklahoma gin",
            "Traditional scoring; the first upcard sets the knock limit, spades double, game to 150.",
        ),
        Preset(
            "partnership",
            replace(TRADITIONAL_SCORING, target=125),
            "seed 003 four players",
            "Traditional scoring for two teams of two; first team to 125.",
        ),
    )
})
"""The named rule sets, read-only."""


def check_rules(rules: Rules) -> Rules:
    """``rules`` if it is a ``Rules``; a RulesError at ``rules`` for anything else (a preset's name is turned
    into rules by ``resolve_rules``)."""
    if not isinstance(rules, Rules):
        raise RulesError({"rules": f"expected a Rules (resolve_rules(preset, overrides) makes one), got "
                                   f"{describe_value(rules)}"})
    return rules


OKLAHOMA_PARAMETERS = ("oklahoma_ace", "oklahoma_spades_double", "oklahoma_extra_boxes")
"""The parameters that apply only in Oklahoma gin."""


def unused_parameters(rules: Rules) -> dict[str, str]:
    """The parameters that change nothing under ``rules``, each with why: in Oklahoma the first upcard sets the
    knock limit; elsewhere the Oklahoma parameters do not apply, nor the undercut's with a knock limit of 0; an
    eleven-card deal has no first upcard."""
    unused = {"first_turn": "an eleven-card deal turns no card up"} if check_rules(rules).eleven_card_deal else {}
    if rules.oklahoma:
        return {"knock_limit": "in Oklahoma the first upcard sets the knock limit", **unused}
    if rules.knock_limit == 0:
        unused = {name: "with a knock limit of 0 only gin ends a hand: there is no undercut"
                  for name in ("undercut_bonus", "undercut_on_tie")} | unused
    return {**{name: "it applies only in Oklahoma (oklahoma: true)" for name in OKLAHOMA_PARAMETERS}, **unused}


def presets_played(rules: Rules) -> list[str]:
    """The presets that play as ``rules``: equal in every parameter that changes something under them."""
    unused = unused_parameters(rules)
    return [preset.name for preset in PRESETS.values()
            if all(getattr(preset.rules, name) == getattr(rules, name) for name in _PARAMETERS_BY_NAME
                   if name not in unused)]


MAX_SUGGESTED = 3
"""A rules object's first unknown names that are each matched to the nearest parameter name (difflib's match
costs up to some 200 us for a name close to one: 18 in each item of a 1,000-hand batch took 1.2 s)."""


def _nearest_parameter(name: str) -> str | None:
    """The parameter name ``name`` most likely misspells, if any. A name over twice as long as every parameter
    name is none: difflib's ratio, 2 x matches / (both lengths), stays below its cutoff of 0.75."""
    return None if len(name) > 2 * _LONGEST_NAME else _near_name(name)


@lru_cache(maxsize=1024)
def _near_name(name: str) -> str | None:
    """Memoised (a batch repeats its items' typos; the length bound above bounds what it keeps)."""
    near = get_close_matches(name.lower(), _PARAMETERS_BY_NAME, n=1, cutoff=0.75)
    return near[0] if near else None


def _unknown_parameters(names: Iterable[str]) -> dict[str, str]:
    """The faults of parameter names that are not ones: each of the first ``MAX_SUGGESTED`` its nearest name,
    else the first lists every name (once, so that a rules object of unknown names is not answered with the
    list once for each)."""
    problems = {}
    listed = False
    for index, name in enumerate(names):
        near = _nearest_parameter(name) if index < MAX_SUGGESTED else None
        if near:
            problems[name] = f"unknown rule parameter; did you mean {near}?"
        elif listed:
            problems[name] = "unknown rule parameter (the names are listed at the first such key)"
        else:
            problems[name] = f"unknown rule parameter; expected one of {', '.join(_PARAMETERS_BY_NAME)}"
            listed = True
    return problems


def resolve_rules(preset: str | None = None, overrides: Mapping[str, object] | None = None) -> Rules:
    """The rules of a preset (default rules if none) with parameter overrides applied (a RulesError naming each
    fault)."""
    if preset is None:
        base = DEFAULT_RULES
    elif isinstance(preset, str) and preset in PRESETS:
        base = PRESETS[preset].rules
    else:
        raise RulesError({"preset": f"unknown preset {describe_value(preset)}; expected one of {', '.join(PRESETS)}"
                                    + ("; the default rules are no preset: give none" if preset == "default" else "")})
    if not isinstance(overrides, Mapping | None):
        raise RulesError({"overrides": f"expected a mapping of parameter names to values, got "
                                       f"{describe_value(overrides)}"})
    changes: dict[str, Any] = dict(overrides or {})
    if not all(isinstance(name, str) for name in changes):
        name = next(name for name in changes if not isinstance(name, str))
        raise RulesError({"overrides": f"parameter names are strings, got {describe_value(name)}"})
    if any(name not in _PARAMETERS_BY_NAME for name in changes):  # else Rules itself names every fault
        unknown = _unknown_parameters(name for name in changes if name not in _PARAMETERS_BY_NAME)
        problems = {name: unknown[name] if name in unknown else _PARAMETERS_BY_NAME[name].problem(value)
                    for name, value in changes.items()}
        raise RulesError({name: problem for name, problem in problems.items() if problem})
    return replace(base, **changes) if changes else base
