"""Hints: the next move for the player to move, from what that player can see.

How a move is evaluated
-----------------------
*Unseen cards* are the 52 minus the player's hand, the discard pile and the cards the
opponent is known to hold (taken from the pile). The opponent holds the rest of its ten
cards among them; the stock is the remainder.

*Opponent model.* ``EngineConfig.samples`` opponent hands are sampled with
``random.Random(seed)``: the known cards, each with the unseen cards that complete a random
three-card meld with it unless it already melds (a player takes a pile card to meld it), plus
random unseen cards improved the way a player improves a hand - one more random card for each
stock draw the opponent made (its discards minus its known pickups, at most as many as have left
the stock), each time keeping the ten cards with the least deadwood, except that a draw which
would have let it knock is skipped (it did not knock). A sample is down-weighted for every card
the opponent threw away that would meld with it (players keep such cards), again if it could
knock now, and (``ceiling_evidence``) for every unmatched card worth more than the opponent's last
discard (players throw their highest unmatched card). These weights can be very uneven (a low last
discard leaves few hands likely), so hands are drawn until their effective sample size (the squared
sum of the weights over the sum of their squares) reaches ``samples``, or ``sample_pool`` hands have
been drawn, and ``samples`` of them are then kept with equal weights by systematic resampling: the
rest of the engine costs what it did, and its answer depends far less on the seed (on the README's
example, the knock's expected points went from 6 to 32 with the seed; now from 8.5 to 19.1).
The samples give, per unseen card, the chance the opponent holds it (so the chance it is
still in the stock), per discard its *safety* (the chance the opponent cannot meld it), its
*threat* and the knock outcomes below. 24 samples, from at most 240 drawn, keep the 99th percentile
latency well inside 50 ms (``benchmarks/README.md``).
``model_opponent`` returns these beliefs for a state (``benchmarks/opponent_model.py`` scores them
against the hands really held).

*Time budget.* A hint given a ``TimeBudget`` stops sampling once the time is up (keeping at
least ``MIN_SAMPLES``), scores no more discards after two draws, and on our last draw (or valuing
it with one draw left) values no more stock cards (keeping at least ``MIN_LAST_DRAWS``, taken in an
order drawn from the seed, so those valued estimate the stock's mean); the rest of the evaluation
always runs, so a hint can overrun its budget by that much (most in the draw phases, where the stock
draw and the take are scored in full). ``Hint.time_budget_reached`` says whether the time ran out
before the hint was ready. Without a budget, or when it is not reached, the same state,
rules, seed and config always give the same hint.

*Ten-card hands* (after a discard) are scored by the expected *worth* of their least deadwood after
one more stock draw and the best discard (``_Context.lookahead``): every unseen card is weighed by
its chance to be in the stock, so cards with many live *outs* (unseen cards that would lower the
deadwood) score better than dead ones. The worth of a deadwood (``deadwood_worth``) is the deadwood
itself, except that each point below the knock limit counts ``knock_range_slope`` times (2) and each
point above ``high_deadwood_from`` (30) only ``high_deadwood_slope`` times (0.5): in self-play a
hand's result changes far faster per point of deadwood kept below the knock limit than between it
and 30, and slower above that, so a draw that brings the hand into knocking range is worth more
than the same drop higher up (``benchmarks/README.md``). In the discard phase the discards that
score within ``second_draw_margin`` of the best, and at least the best two, are scored again after two
draws (``_Context.two_draws``), which values cards that need two more to meld; they rank before the
rest. A discard's score adds ``feed_penalty`` times the chance the opponent can meld the card,
and ``defence_weight`` times the points we expect to lose to a knock by the opponent on its very
next turn (below). Lower is better; the alternatives report it negated (``unit="deadwood"``).

*Threat* (``_find_threats``). Each sample is asked how it could knock on its next turn: which
stock cards would let it, and with what deadwood, and which of our discards it would take from
the pile (they meld and lower its deadwood) and knock with. For a discard and the ten cards kept
this gives the chance the opponent knocks next and our expected points if it does: an undercut
(the difference plus the bonus) when our deadwood is not above its knock (layoffs are not
counted); otherwise we pay the difference (against gin: our deadwood plus the gin bonus). The
chance is near nought early in a hand and grows as the opponent's hand improves, so late in a
hand the engine keeps less deadwood, which both loses less to a knock and turns more of them
into undercuts.

*Draws* compare taking the pile's top card (the best discard after it) with the expectation over
the stock card, each scored the same way, so both sides are looked at to the same depth. A pile
card that allows a knock is taken when the discard phase after it would knock (a knock worth more
than ``knock_margin``, or gin; with one draw left, one worth what playing on brings), unless, in the
draw phase, the ten cards held allow as good a knock anyway, after a stock draw thrown back. Where
they allow a knock worth making, the stock draw is valued in points at that knock, as the take is
at its own. A take whose best discard throws the card straight back (GRA) is not advised, and in the
draw phase it is shown valued at most at the stock draw (in play-outs from 412 such states met in
self-play, where the look-ahead rated it higher, it did worse than the stock draw, ``benchmarks/README.md``).
In the ``first_upcard`` phase "pass" is scored like a stock draw.

*Knocks, gin, big gin* are scored in expected points (``unit="points"``) against the sampled
opponent hands: the defender's best melds and layoffs (``layoffs.best_defence``), the undercut
rule, bonuses and Oklahoma's doubling. Where the cards kept have several least-deadwood layouts,
the knock lays out the one expected to score most (the one that leaves the least to lay off).
Big gin and gin are always taken (gin cannot be undercut; the bigger bonus wins). A knock is made
when its expected points exceed ``knock_margin``; their standard error over the samples
(``_Knock.standard_error``) says when that is too close to call (``CLOSE_STANDARD_ERRORS``).
The default margin (20 points) comes from self-play (``benchmarks/selfplay.py``): against an
opponent that knocks as soon as it may, margins of 20 and 30 score alike (playing on for gin or an
undercut beats knocks expected to win less), 15 a little less and 10 clearly less; against the
engine itself, which waits, lower margins win (20 beats 30, 15 beats 20) down to 10, which is level
with 15.

*The last turn* (``_Context.last_turn``): one card above the stock's end no draw of ours follows
(after a stock draw the stock is at its end, after a take the opponent makes the last draw), so
playing on is over and every move is valued in expected points: a knock against the samples, a
discard by what the opponent's last turn costs us (``_Context.end_value``: its knock, counted only
where it would not be undercut; at the stock's end nothing, or its knock with our discard under
``stock_end_discard``), a stock draw by the mean over the stock of the best of these. With one draw of ours
left (``_Context.one_draw_left``), a knock below ``knock_margin`` is still made when it is worth at least what
playing on is expected to bring (``_play_on_points``): the opponent's knock on its turn, else that last draw.

*Suits.* The state is analysed with its suits renamed by the part their cards play in it
(``_suit_frame``), and the hint's cards are named back: the samples, and every tie broken by card
(so by suit order), are then the same for a state and for that state with its suits renamed, and
the two get the same hint, renamed. (Oklahoma's doubling is read from the upcard as given.)

Advice is always one of ``legal_actions``. The same state, rules, seed and config always give
the same hint, unless a time budget runs out (above).
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields, replace
from itertools import combinations
from operator import attrgetter
from typing import Literal

from .cards import (
    FULL_DECK,
    RANK_COLUMN,
    RANK_MASK,
    Card,
    CardError,
    Hand,
    card_bit,
    card_rank,
    card_value,
    check_card,
    check_hand,
    format_card,
    format_hand,
    hand_from_cards,
    iter_cards,
)
from .errors import FieldError, describe_value
from .knocks import KnockOption, can_finish, is_big_gin, knock_limit, knock_options, score_doubled
from .layoffs import best_defence
from .melds import Arrangement, Meld, best_arrangement, meld_sort_key, min_deadwood, optimal_arrangements
from .rules import Rules, check_rules
from .scoring import MOST_DEADWOOD, knock_net, knock_outcome, outcome_points
from .suits import IDENTITY, SuitFrame, canonical_frame

Phase = Literal["first_upcard", "draw", "discard"]
ActionType = Literal["take_upcard", "pass", "draw_stock", "discard", "knock", "gin", "big_gin"]
Unit = Literal["points", "deadwood"]

PHASES: tuple[Phase, ...] = ("first_upcard", "draw", "discard")
HAND_SIZE = 10
MIN_SAMPLES = 8
"""Opponent hands sampled even when the time budget has run out (unless ``EngineConfig.samples`` is lower)."""
MIN_LAST_DRAWS = 8
"""Stock cards valued for our last draw (``_last_stock_draw``) even when the time budget has run out."""
FULL_STOCK = 52 - 2 * HAND_SIZE - 1
CLOSE_POINTS = 1.0
"""Moves valued in expected points (knocks, our last turn's moves) this close are too close to call."""
CLOSE_STANDARD_ERRORS = 2.5
"""A knock's expected points within this many of their standard errors (``_Knock.standard_error``; at least
``CLOSE_POINTS``) of what they must exceed (the knock margin, or with one draw left what playing on is expected to
bring) make knocking or not too close to call, whichever is advised: from seed to seed they move with a standard
deviation of about one standard error."""
ERROR_SAMPLES = 2.0
"""Effective samples below which a knock's standard error is not estimated: the points then rest on about one
hand (a spent time budget can leave so few), and knocking or not is too close to call (unless the knock margin
is infinite)."""


class HintStateError(FieldError):
    """A game state that cannot happen; ``field`` names the part at fault, ``index`` the card in it (if one)."""


@dataclass(frozen=True)
class GameState:
    """What the player to move sees. Lists of cards keep their order; the pile is oldest first.

    ``upcard`` is the deal's first upcard (it sets Oklahoma's knock limit); in the
    ``first_upcard`` phase it is the pile's only card. ``opponent_hand_known`` are the cards the
    opponent took from the pile and still holds; ``drawn_from_discard`` is the card this player
    took from the pile this turn (discard phase only). ``returned_discard``: the pile's top card
    (in the discard phase, the card taken) is one this player discarded and the opponent took and
    threw straight back, which GRA's rules (``discard_pickup_allowed``) let it retake only to knock.
    """

    hand: tuple[Card, ...]
    phase: Phase
    upcard: Card | None
    discard_pile: tuple[Card, ...]
    stock_count: int
    opponent_hand_known: tuple[Card, ...] = ()
    opponent_discards: tuple[Card, ...] = ()
    drawn_from_discard: Card | None = None
    returned_discard: bool = False

    def __post_init__(self) -> None:
        """Cards given as lists (``parse_cards`` makes them) are kept as tuples, as the checks compare them."""
        for name in ("hand", "discard_pile", "opponent_hand_known", "opponent_discards"):
            if isinstance(cards := getattr(self, name), list):
                object.__setattr__(self, name, tuple(cards))


@dataclass(frozen=True)
class Action:
    """A move: ``card`` is the discard for discard, knock and gin, else None."""

    type: ActionType
    card: Card | None = None

    def __str__(self) -> str:
        return self.type if self.card is None else f"{self.type} {format_card(self.card)}"


@dataclass(frozen=True)
class Alternative:
    """A legal move and how the engine rates it.

    ``evaluation``: higher is better. In ``points`` it is the expected score of the hand for the
    player (knock, gin, big gin); in ``deadwood`` it is minus the expected worth of the least deadwood
    (``deadwood_worth``) after the next stock draw (the next two for the discards close to the best, and at
    least the best two),
    minus the penalty for feeding the opponent a meld card and the defence term (see the module
    docstring); a draw-phase take that would only throw the card straight back, at most the stock draw's.
    ``deadwood`` is the deadwood of the ten cards kept (for ``take_upcard``: after ``then_discard``).
    ``outs`` are the unseen cards that, drawn next, would lower that deadwood (after the best discard)
    or form a meld with two or more of the cards kept; ``safety`` is the chance the
    opponent cannot meld the discarded card; ``undercut_risk`` the chance a knock is undercut;
    ``layout`` the melds a knock lays down (on a take to knock, of the ten cards kept after it);
    ``standard_error`` that of ``expected_points`` where they are a knock's (``_Knock.standard_error``; None
    there too when too few effective samples carry them).
    """

    action: Action
    evaluation: float
    unit: Unit
    deadwood: int | None = None
    expected_points: float | None = None
    undercut_risk: float | None = None
    outs: tuple[Card, ...] = ()
    safety: float | None = None
    then_discard: Card | None = None
    layout: Arrangement | None = None
    standard_error: float | None = None


@dataclass(frozen=True)
class Hint:
    """The advised move, every alternative ranked best first, and why; ``layout`` lays out the cards the move
    keeps (after a take, those kept after its planned discard; for a knock, the melds to lay down)."""

    action: Action
    alternatives: tuple[Alternative, ...]
    close_call: bool
    reason: str
    layout: Arrangement
    samples: int
    time_budget_reached: bool = False
    effective_samples: float = 0.0
    """What the drawn hands were worth as evenly weighted ones, at most ``samples``: below it, the evidence fits
    few hands, and the estimates lean on them."""
    knock_limit: int | None = None
    """The most deadwood a knock may keep this hand (Oklahoma: set by the upcard); ``hint`` sets it."""


@dataclass(frozen=True)
class EngineConfig:
    """The engine's knobs. ``samples`` = 0 turns the opponent model off (knock whenever legal); opponent hands
    are drawn until they are worth ``samples`` evenly weighted ones, or ``sample_pool`` have been drawn; a
    negative ``second_draw_margin`` scores every discard after one draw only. ``close_margin`` is the close call
    between a take and the stock draw (or a pass), ``discard_close_margin`` between two discards: another seed
    moves the gap between the top two discards by about half a point (a standard deviation, at the median of
    self-play states), the take's gap far less."""

    samples: int = 24
    sample_pool: int = 240
    feed_penalty: float = 6.0
    knock_margin: float = 20.0
    discard_evidence: float = 0.5
    knock_evidence: float = 0.1
    ceiling_evidence: float = 0.05
    close_margin: float = 0.5
    discard_close_margin: float = 1.5
    defence_weight: float = 0.25
    second_draw_margin: float = 2.0
    knock_range_slope: float = 2.0
    high_deadwood_from: int = 30
    high_deadwood_slope: float = 0.5

    def __post_init__(self) -> None:
        """Every knob within its range, ``KNOB_RANGES`` (FieldError naming the first that is not: a NaN, or a
        negative weight, would quietly change the advice)."""
        for knob in fields(self):
            value, (least, most) = getattr(self, knob.name), KNOB_RANGES[knob.name]
            whole = type(knob.default) is int
            kind = "a whole number" if whole else "a number"
            if isinstance(value, bool) or not isinstance(value, int if whole else int | float) or not (
                    least <= value <= most):
                raise FieldError(knob.name, f"expected {kind} from {_bound(least)} to {_bound(most)}, got "
                                            f"{describe_value(value)}")


MOST_WEIGHT = 1_000_000
"""The largest penalty, weight or slope a knob takes (its products with points stay finite)."""
KNOB_RANGES: dict[str, tuple[float, float]] = {
    "samples": (0, 10_000), "sample_pool": (0, 100_000), "feed_penalty": (0, MOST_WEIGHT),
    "knock_margin": (0, math.inf), "discard_evidence": (0, 1), "knock_evidence": (0, 1), "ceiling_evidence": (0, 1),
    "close_margin": (0, math.inf), "discard_close_margin": (0, math.inf), "defence_weight": (0, MOST_WEIGHT),
    "second_draw_margin": (-math.inf, math.inf), "knock_range_slope": (0, MOST_WEIGHT),
    "high_deadwood_from": (0, MOST_DEADWOOD), "high_deadwood_slope": (0, MOST_WEIGHT)}
"""Each knob's values: the evidence knobs weigh a sampled hand by a factor per fact; an infinite margin never
knocks on points (``knock_margin``), calls every choice close (the close margins) or looks at every discard twice
(``second_draw_margin``)."""


def _bound(value: float) -> str:
    """A knob's range end as its errors say it."""
    return ("" if value > 0 else "-") + "infinity" if math.isinf(value) else f"{value:,}"


DEFAULT_CONFIG = EngineConfig()


class TimeBudget:
    """A time limit on a hint's optional work (see the module docstring), read from ``clock``."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.perf_counter) -> None:
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds != seconds:  # NaN
            raise FieldError("budget", f"expected a number of seconds, got {describe_value(seconds)}")
        self._clock = clock
        self._deadline = clock() + seconds
        self.reached = False

    def spent(self) -> bool:
        """Whether the time is up (``reached``; once up, it stays up)."""
        if not self.reached and self._clock() >= self._deadline:
            self.reached = True
        return self.reached


# --- validation and legal moves -------------------------------------------------------------


@dataclass(frozen=True)
class _Checked:
    """A validated state as bitmasks."""

    hand: Hand
    pile: Hand
    known: Hand
    unseen: Hand
    refused_upcard: bool


def _check_cards(field_name: str, cards: Sequence[Card], repeats: bool = False) -> Hand:
    """The cards of a list as a hand; HintStateError at the first that is no card or (unless ``repeats``) is
    listed twice, or for cards given other than as a list or tuple (a hand's bitmask, say)."""
    if not isinstance(cards, tuple):
        raise HintStateError(field_name, f"expected the cards as a list or tuple of card ints (parse_cards makes "
                                         f"one), got {describe_value(cards)}")
    mask = 0
    for index, card in enumerate(cards):
        try:
            check_card(card)
        except CardError:
            raise HintStateError(field_name, f"{describe_value(card)} is not a card", index) from None
        if mask >> card & 1 and not repeats:
            raise HintStateError(field_name, f"{format_card(card)} is listed twice", index)
        mask |= card_bit(card)
    return mask


def check_state(state: GameState, rules: Rules) -> _Checked:
    """Raise HintStateError unless the state can happen in a hand under ``rules`` (RulesError for rules that are
    no Rules)."""
    check_rules(rules)
    if not isinstance(state, GameState):
        raise HintStateError("state", f"expected a GameState, got {describe_value(state)}")
    if not isinstance(state.returned_discard, bool):
        raise HintStateError("returned_discard", f"expected true or false, got "
                                                 f"{describe_value(state.returned_discard)}")
    if state.phase not in PHASES:
        raise HintStateError("phase", f"expected one of {', '.join(PHASES)}, got {state.phase!r}")
    hand = _check_cards("hand", state.hand)
    wanted = HAND_SIZE + 1 if state.phase == "discard" else HAND_SIZE
    if len(state.hand) != wanted:
        raise HintStateError("hand", f"the {state.phase} phase needs {wanted} cards in hand, got {len(state.hand)}")
    if state.drawn_from_discard is not None:
        if state.phase != "discard":
            raise HintStateError("drawn_from_discard", "a card is taken from the pile only in the discard phase")
        _check_cards("drawn_from_discard", (state.drawn_from_discard,))
        if not hand >> state.drawn_from_discard & 1:
            raise HintStateError("drawn_from_discard", f"{format_card(state.drawn_from_discard)} is not in hand")
    pile_cards = state.discard_pile
    if rules.eleven_card_deal and state.phase == "first_upcard":
        raise HintStateError("phase", "an eleven-card deal turns no card up: the non-dealer's first turn is a discard")
    if rules.eleven_card_deal and state.upcard is not None:
        raise HintStateError("upcard", "an eleven-card deal turns no card up")
    if rules.first_turn == "plain" and state.phase == "first_upcard":
        raise HintStateError("phase", "under first_turn plain nobody is offered the first upcard: the non-dealer's "
                             "first turn is a draw phase, with the upcard alone on the pile")
    if state.phase == "first_upcard":
        upcard = state.upcard if state.upcard is not None or len(pile_cards) != 1 else pile_cards[0]
        if upcard is None:
            raise HintStateError("upcard", "the first_upcard phase needs the upcard (here or as the pile's one card)")
        if _check_cards("upcard", (upcard,)) & hand:
            raise HintStateError("upcard", f"{format_card(upcard)} is also in hand")
        if pile_cards not in ((), (upcard,)):
            raise HintStateError("discard_pile", "in the first_upcard phase the pile holds only the upcard")
        pile_cards = (upcard,)
    pile = _check_cards("discard_pile", pile_cards)
    known = _check_cards("opponent_hand_known", state.opponent_hand_known)
    for name, listed, mask, other_name, other in (
            ("discard_pile", pile_cards, pile, "hand", hand),
            ("opponent_hand_known", state.opponent_hand_known, known, "hand", hand),
            ("opponent_hand_known", state.opponent_hand_known, known, "discard_pile", pile)):
        if mask & other:
            index = next(i for i, card in enumerate(listed) if other >> card & 1)
            raise HintStateError(name, f"{format_card(listed[index])} is also in {other_name}", index)
    if len(state.opponent_hand_known) > HAND_SIZE:
        raise HintStateError("opponent_hand_known", f"the opponent holds {HAND_SIZE} cards, got "
                             f"{len(state.opponent_hand_known)} known")
    seen = hand | pile | known
    thrown = _check_cards("opponent_discards", state.opponent_discards, repeats=True)  # a card may come back
    if thrown & ~seen:
        index = next(i for i, card in enumerate(state.opponent_discards) if not seen >> card & 1)
        raise HintStateError("opponent_discards", f"{format_card(state.opponent_discards[index])} was discarded "
                             "face up, so it must be in the pile, in hand or among the opponent's known cards", index)
    _check_stock(state, rules, len(state.hand) + len(pile_cards))
    if state.upcard is not None:
        _check_cards("upcard", (state.upcard,))
        if not seen >> state.upcard & 1:
            raise HintStateError("upcard", f"the upcard {format_card(state.upcard)} was dealt face up, so it must "
                                 "be in the pile, in hand or among the opponent's known cards")
    elif rules.oklahoma:
        raise HintStateError("upcard", "Oklahoma rules need the first upcard to set the knock limit")
    _check_turn_order(state, rules)
    if state.returned_discard:
        _check_returned(state, rules)
    taken = state.drawn_from_discard
    if (taken is not None and take_only_to_knock(state, rules)
            and not can_finish(hand, knock_rules(state, rules), state.upcard, taken)):
        why = "at the stock end" if stock_end_offer(state, rules) else "thrown straight back"
        raise HintStateError("drawn_from_discard", f"{format_card(taken)} is taken only to knock or go gin ({why}), "
                             "and this hand cannot")
    return _Checked(hand, pile, known, FULL_DECK & ~seen, upcard_refused(state, rules))


def _check_returned(state: GameState, rules: Rules) -> None:
    """A card thrown straight back came from the opponent's last turn, under rules that allow it."""
    if not rules.discard_pickup_allowed:
        raise HintStateError("returned_discard", "a card is thrown straight back only where the card taken from "
                             "the pile may be discarded at once (rule discard_pickup_allowed)")
    card = state.drawn_from_discard if state.phase == "discard" else state.discard_pile[-1] if state.discard_pile \
        else None
    if state.phase == "first_upcard" or card is None or state.opponent_discards[-1:] != (card,):
        raise HintStateError("returned_discard", "the card thrown straight back is the opponent's last discard, on "
                             "top of the pile (in the discard phase: taken from it this turn)")
    if stock_end_offer(state, rules):
        raise HintStateError("returned_discard", "the card offered at the stock end is taken only to knock, so it "
                             "is never thrown back")


def upcard_refused(state: GameState, rules: Rules) -> bool:
    """Whether both players passed the first upcard, so that the player to draw must take the stock:
    the draw phase with the upcard alone on the pile, before anyone has drawn from the stock or discarded
    (then the pile's one card is the upcard, given or not), where the first upcard is offered."""
    pile = state.discard_pile
    return (rules.first_turn == "upcard_offer" and state.phase == "draw" and state.stock_count == FULL_STOCK
            and len(pile) == 1 and state.upcard in (None, pile[0]) and not state.opponent_discards)


OLDEST_FIRST = "; opponent_discards too lists every discard of the opponent, oldest first"
"""Added where a wrong or incomplete list of the opponent's discards is as likely a fault as the pile."""


def _check_turn_order(state: GameState, rules: Rules) -> None:
    """The pile's top card against the turns: the opponent's last discard stays on top until this
    player takes it, before any stock draw a card in hand beyond ten came from the pile, and past
    the player's first turn the opponent has discarded."""
    thrown, taken = state.opponent_discards, state.drawn_from_discard
    if state.phase == "first_upcard":
        if thrown:
            raise HintStateError("opponent_discards", "nobody has discarded before the first upcard is decided")
        if state.opponent_hand_known:
            raise HintStateError("opponent_hand_known", "nobody has taken a card before the first upcard is decided")
        return
    if state.phase == "discard":
        if state.stock_count == FULL_STOCK and taken is None and not _first_turn(state, rules):
            dealt_eleven = state.upcard is None and not state.discard_pile  # as in an eleven-card deal
            raise HintStateError("drawn_from_discard", "nobody has drawn from the stock yet, so the eleventh card "
                                 "was taken from the pile: name it here" + (
                                     " (or, if the deal gave you 11 cards and turned no card up, set the rule "
                                     "eleven_card_deal)" if dealt_eleven else ""))
        if taken is not None and not thrown and rules.eleven_card_deal:
            raise HintStateError("drawn_from_discard", "an eleven-card deal turns no card up, so until the opponent "
                                 "discards there is no card to take from the pile")
        if taken is not None:
            was_on_top, which = (thrown[-1], "the opponent's last discard") if thrown else (state.upcard, "the upcard")
            if was_on_top is not None and taken != was_on_top:
                raise HintStateError("drawn_from_discard", f"the pile's top card was {format_card(was_on_top)} "
                                     f"({which}), not {format_card(taken)}" + (OLDEST_FIRST if thrown else ""))
    if not thrown and not _first_turn(state, rules):
        raise HintStateError("opponent_discards", "the opponent has discarded since the hand began: "
                             "give its discards, oldest first")
    if taken is None and thrown and state.discard_pile[-1:] != thrown[-1:]:
        last = format_card(thrown[-1])
        if state.phase == "discard" and thrown[-1] in state.hand:
            raise HintStateError("drawn_from_discard", f"{last}, the opponent's last discard, is in hand, so it was "
                                 "taken from the pile this turn: give it here")
        top = f"ends with {format_card(state.discard_pile[-1])}" if state.discard_pile else "is empty"
        raise HintStateError("discard_pile", f"the opponent's last discard, {last}, is on top of the pile until it "
                             f"is taken, but the pile (listed oldest first, so its top card last) {top}"
                             + OLDEST_FIRST)
    _check_turn_count(state, rules)


def _check_turn_count(state: GameState, rules: Rules) -> None:
    """The opponent's discards against what went on in its turns and ours. Turns alternate and each
    ends with one discard, so the opponent has had as many turns as it discarded, and we as many or
    one fewer. It takes at most one card from the pile a turn (those it holds, the upcard if it threw
    it, and each card it threw again), and a card that was neither the upcard nor its discard reached
    the pile as ours. A card it threw comes back to it only when we take it, throw it again and it
    takes it: three of its turns at least, or two where the card taken may be thrown at once (thrown
    straight back, it may be retaken only to knock, which ends the hand). (The stock count follows:
    the cards add up to 52.)"""
    thrown, known = state.opponent_discards, state.opponent_hand_known
    turns = len(thrown)
    least_gap = 2 if rules.discard_pickup_allowed else 3
    last_thrown: dict[Card, int] = {}
    for turn, card in enumerate(thrown, 1):
        if turn - last_thrown.get(card, -least_gap) < least_gap:
            raise HintStateError("opponent_discards", f"{format_card(card)} is discarded in the opponent's turns "
                                 f"{last_thrown[card]} and {turn}; it can have it back only after you take it and "
                                 f"throw it again, so at least {least_gap} turns apart under these rules")
        last_thrown[card] = turn
    retaken = _taken_and_thrown(state, rules)
    if len(known) + len(retaken) > turns:
        took = f"{_count(len(known), 'card')} taken from the pile, but the opponent" if not retaken else (
            f"the opponent took {len(known) + len(retaken)} cards from the pile (the {len(known)} it holds, "
            f"{' and '.join(retaken)}, which it then discarded) but")
        raise HintStateError("opponent_hand_known", f"{took} has had {_count(turns, 'turn')} (one a discard) and "
                             "takes at most one card from the pile a turn" + _upcard_doubt(state))
    upcard = None if rules.eleven_card_deal else _dealt_upcard(state)
    not_ours = hand_from_cards(thrown) | (0 if upcard is None else card_bit(upcard))
    in_pile = hand_from_cards(state.discard_pile) & ~not_ours
    # Each card the opponent took counts as one of ours: its own discards come back to it only through us, and
    # the upcard, if not through us, it took on the hand's first move, a turn ahead of us.
    taken = hand_from_cards(known)
    ours = in_pile.bit_count() + taken.bit_count()
    if ours > turns:
        if in_pile.bit_count() <= turns:  # the known cards tip it over: they are the likelier fault
            ahead = (f" (or it took the upcard {format_card(upcard)} on the first move, a turn ahead of you)"
                     if upcard is not None and taken >> upcard & 1 else "")
            raise HintStateError("opponent_hand_known", f"the opponent takes from the pile only the upcard or your "
                                 f"discards, so you would have discarded {' '.join(format_hand(taken))} too{ahead}: "
                                 f"{_count(ours, 'discard')} of yours in all, but you have had at most as many "
                                 f"turns as the opponent, {turns}")
        raise HintStateError("discard_pile", f"{_count(ours, 'card')} in the pile or taken from it were neither "
                             "the upcard nor the opponent's discards, so they are your discards; but you have had "
                             f"at most as many turns as the opponent, {turns}: give all its discards"
                             + _upcard_doubt(state))


def _taken_and_thrown(state: GameState, rules: Rules) -> list[str]:
    """The opponent's discards that it must have taken from the pile, each named: the upcard given (no one is
    dealt it), and a card it discards again (it had it back from the pile)."""
    thrown, upcard = state.opponent_discards, None if rules.eleven_card_deal else state.upcard
    taken = [f"the upcard {format_card(upcard)}"] if upcard in thrown else []
    seen: set[Card] = set()
    for card in thrown:
        if card in seen:
            taken.append(f"{format_card(card)} again")
        seen.add(card)
    return taken


def _upcard_doubt(state: GameState) -> str:
    """When the upcard given lies in the pile above its bottom card: the likelier fault may be the upcard (the
    pile's top card given as the deal's first upcard)."""
    upcard, pile = state.upcard, state.discard_pile
    if upcard is None or upcard not in pile[1:]:
        return ""
    return (f". Or is the upcard wrong? It is the deal's first face-up card, at the bottom of the pile until taken: "
            f"the pile's bottom card is {format_card(pile[0])}, not {format_card(upcard)}")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _dealt_upcard(state: GameState) -> Card | None:
    """The upcard where it can lie without having been thrown again: at the bottom of the pile, or taken
    (in hand or the opponent's). Not given, the pile's bottom card may be it."""
    upcard, pile = state.upcard, state.discard_pile
    if upcard is None:
        return pile[0] if pile else None
    return upcard if pile[:1] == (upcard,) or upcard not in pile else None


def _first_turn(state: GameState, rules: Rules) -> bool:
    """Whether the player to move may be on the hand's first turn, before the opponent has had one:
    taking the first upcard (stock untouched, pile empty), or the first draw with the upcard alone on the
    pile (after both players passed it, or on a plain first turn); in an eleven-card deal, the non-dealer's
    first discard (stock untouched, pile empty)."""
    pile, count = state.discard_pile, state.stock_count
    if rules.eleven_card_deal:
        return state.phase == "discard" and state.drawn_from_discard is None and count == FULL_STOCK and not pile
    lone_upcard = len(pile) == 1 and state.upcard in (None, pile[0])
    if state.phase == "draw":
        return count == FULL_STOCK and lone_upcard
    if state.drawn_from_discard is not None:
        return count == FULL_STOCK and not pile
    return count == FULL_STOCK - 1 and lone_upcard


def _check_stock(state: GameState, rules: Rules, face_up: int) -> None:
    """The stock count adds up to 52 with the ``face_up`` cards we see, and the hand is not over by it."""
    count = state.stock_count
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise HintStateError("stock_count", f"expected a whole number of cards, got {count!r}")
    total = face_up + HAND_SIZE + count
    if total != 52:
        raise HintStateError("stock_count", f"the cards do not add up to 52: {len(state.hand)} in hand + "
                             f"{HAND_SIZE} held by the opponent + {face_up - len(state.hand)} in the pile + "
                             f"{count} in the stock = {total}")
    drew_from_stock = state.phase == "discard" and state.drawn_from_discard is None
    offered = rules.stock_end_discard != "draw"  # the discard that left stock_end may be taken to knock
    least = rules.stock_end if drew_from_stock or offered else rules.stock_end + 1  # else that discard ended it
    if count < least:
        raise HintStateError("stock_count", f"with {_count(count, 'card')} left the hand is already over "
                             f"(it ends when {rules.stock_end} are left)")
    if state.phase == "draw" and not state.discard_pile:
        raise HintStateError("discard_pile", "in the draw phase the pile holds at least the last discard")


def legal_actions(state: GameState, rules: Rules) -> list[Action]:
    """Every legal move in ``state``: knocks and gins are listed once per allowed discard."""
    checked = check_state(state, rules)
    return _legal_actions(state, rules, checked)


def _legal_actions(state: GameState, rules: Rules, checked: _Checked) -> list[Action]:
    """``legal_actions`` of a state already checked."""
    if state.phase == "first_upcard":
        return [Action("take_upcard"), Action("pass")]
    only_to_knock = take_only_to_knock(state, rules)
    if state.phase == "draw":
        if checked.refused_upcard:
            return [Action("draw_stock")]
        top = state.discard_pile[-1]
        taken_hand = checked.hand | card_bit(top)
        may_take = not only_to_knock or can_finish(taken_hand, knock_rules(state, rules), state.upcard, top)
        other = Action("pass") if stock_end_offer(state, rules) else Action("draw_stock")
        return [Action("take_upcard"), other] if may_take else [other]
    forbidden = rules.banned_discard(state.drawn_from_discard)
    discards = [] if only_to_knock else [Action("discard", c) for c in iter_cards(checked.hand) if c != forbidden]
    return discards + _finishing_moves(checked.hand, state, rules, state.drawn_from_discard)


def take_only_to_knock(state: GameState, rules: Rules) -> bool:
    """Whether the pile's top card (in the discard phase, the card taken) may be taken only to knock or go
    gin: offered at the stock end, or thrown straight back to the player who first discarded it (GRA)."""
    returned = (state.returned_discard and rules.discard_pickup_allowed
                and (state.phase == "draw" or state.drawn_from_discard is not None))
    return returned or stock_end_offer(state, rules)


def stock_end_offer(state: GameState, rules: Rules) -> bool:
    """Whether the player to move has been offered the discard that left ``stock_end`` cards (rule
    ``stock_end_discard``): it may take that card only to knock or go gin, else the hand is a draw."""
    return (rules.stock_end_discard != "draw" and state.stock_count == rules.stock_end
            and (state.phase == "draw" or state.drawn_from_discard is not None))


def knock_rules(state: GameState, rules: Rules) -> Rules:
    """The rules a knock is made under: taking the card offered at the stock end, the 50th-card rule forbids
    discarding it and Game Colony's form allows it, whatever ``discard_pickup_allowed`` says."""
    return rules.stock_end_knock() if stock_end_offer(state, rules) else rules


def _finish_action(option: KnockOption) -> Action:
    """The move that makes a knock option: gin or a knock, with its discard."""
    return Action("gin" if option.gin else "knock", option.card)


def _finishing_moves(hand: Hand, state: GameState, rules: Rules, taken: Card | None) -> list[Action]:
    """The knocks, gins (one per allowed discard) and big gin of an eleven-card ``hand``, ``taken`` being the
    card it took from the pile (which Game Colony's stock-end offer lets it knock with)."""
    actions = [_finish_action(option) for option in knock_options(hand, knock_rules(state, rules), state.upcard, taken)]
    if is_big_gin(hand, rules):
        actions.append(Action("big_gin"))
    return actions


# --- the engine -----------------------------------------------------------------------------


def _by_value(hand: Hand) -> Iterator[Card]:
    """The cards of a hand, highest rank (so highest deadwood value) first."""
    for rank in range(12, -1, -1):
        column = hand >> rank & RANK_COLUMN
        while column:
            low = column & -column
            yield rank + low.bit_length() - 1
            column ^= low


_VALUES = tuple(card_value(c) if c & 15 < 13 else 0 for c in range(64))


def meld_partners(hand: Hand) -> Hand:
    """Cards outside ``hand`` that would form a meld with two or more of its cards."""
    runs = (hand << 1 & hand << 2) | (hand << 1 & hand >> 1) | (hand >> 1 & hand >> 2)
    a, b = hand & RANK_MASK, hand >> 16 & RANK_MASK
    c, d = hand >> 32 & RANK_MASK, hand >> 48 & RANK_MASK
    pairs = (a & (b | c | d)) | (b & (c | d)) | (c & d)
    return (runs | pairs * RANK_COLUMN) & FULL_DECK & ~hand


@dataclass(frozen=True)
class _Knock:
    """A knock, gin or big gin scored against the opponent samples."""

    action: Action
    deadwood: int
    arrangement: Arrangement
    expected_points: float
    undercut_risk: float
    standard_error: float | None
    """Of ``expected_points``: the spread of the points over the samples, over the root of one less than the
    effective samples; None below ``ERROR_SAMPLES`` of them."""

    def near(self, bound: float) -> bool:
        """Whether the expected points are too close to ``bound`` (``CLOSE_STANDARD_ERRORS``) to tell which side
        of it the knock falls (never an infinite bound: no knock is made on points then)."""
        if math.isinf(bound):
            return False
        return self.standard_error is None or abs(_points_apart(self.expected_points, bound)) < max(
            CLOSE_POINTS, CLOSE_STANDARD_ERRORS * self.standard_error)


@dataclass(frozen=True)
class _Continue:
    """A discard that keeps the hand going, scored by look-ahead and feeding risk."""

    card: Card
    deadwood: int
    score: float
    outs: Hand
    safety: float
    open_melds: int  # the three-card melds the card could still make with the cards kept and unseen


@dataclass(frozen=True)
class _Threat:
    """How one opponent sample can knock on its next turn.

    ``stock`` lists the knock deadwood of each stock card that would let it knock, out of
    ``stock_size`` cards it may draw; ``pile`` maps each card of our hand (and, in a draw phase,
    the pile's top card) that it would take from the pile (it melds and lowers the deadwood) to its
    knock deadwood, None if it could not knock even then; ``own`` is its deadwood where that is
    within the knock limit (at the stock's end under ``take_to_knock_any`` it knocks with it by
    taking any card and throwing it back).
    """

    weight: float
    stock: tuple[int, ...]
    stock_size: int
    pile: dict[Card, int | None]
    own: int | None


@dataclass
class _Context:
    """Everything the engine derives from one validated state."""

    state: GameState
    rules: Rules
    checked: _Checked
    config: EngineConfig
    samples: list[tuple[Hand, float]] = field(default_factory=list)
    effective_samples: float = 0.0
    draw_weights: list[tuple[Card, float]] = field(default_factory=list)
    meld_chance: dict[Card, float] = field(default_factory=dict)
    held: dict[Card, float] = field(default_factory=dict)
    cache: dict[Hand, int] = field(default_factory=dict)
    drops: dict[int, tuple[int, Card]] = field(default_factory=dict)
    threats: list[_Threat] = field(default_factory=list)
    defences: dict[int, tuple[float, float]] = field(default_factory=dict)
    defenders: dict[tuple[tuple[Meld, ...], Hand], int] = field(default_factory=dict)
    limit: int = 0
    worth: tuple[float, ...] = ()
    doubling: int = 1
    against_knocks: tuple[tuple[int, ...], ...] = ()
    """``_points_against_knocks`` of the rules."""
    budget: TimeBudget | None = None
    seed: int = 0
    frame: SuitFrame = IDENTITY
    """The suits' names in the state analysed (``_suit_frame``): ``frame.name`` names a card as the caller does."""

    def out_of_time(self) -> bool:
        """Whether the hint's time budget (if any) is spent: optional work is skipped from then on."""
        return self.budget is not None and self.budget.spent()

    def deadwood(self, hand: Hand) -> int:
        """Least deadwood, memoised for this hint."""
        found = self.cache.get(hand)
        if found is None:
            found = self.cache[hand] = min_deadwood(hand)
        return found

    def best_drop(self, hand: Hand, keep: Hand = 0) -> tuple[int, Card]:
        """The least deadwood after removing one card (not in ``keep``), and that card (highest on ties).

        Removing a card lowers the deadwood by at most its value, so cards are tried from the
        highest value down and the search stops once no lower card can do better.
        """
        key = hand | keep << 64
        found = self.drops.get(key)
        if found is not None:
            return found
        deadwood = self.deadwood
        whole = deadwood(hand)
        best, best_card = 1 << 30, -1
        values = _VALUES
        for card in _by_value(hand & ~keep):
            if whole - values[card] >= best:
                break
            value = deadwood(hand & ~(1 << card))
            if value < best:
                best, best_card = value, card
        self.drops[key] = best, best_card
        return best, best_card

    def lookahead(self, hand: Hand) -> tuple[float, Hand]:
        """Expected worth of the least deadwood of a 10-card hand after one stock draw and the best
        discard; its outs.

        A drawn card that melds with nothing in the hand is either thrown back or kept in place of
        the card whose removal lowers the deadwood most, so it needs no search.
        """
        base = self.deadwood(hand)
        drop, _ = self.best_drop(hand)
        partners = meld_partners(hand)
        total = drawable = 0.0
        outs = 0
        values, worth = _VALUES, self.worth
        for card, weight in self.draw_weights:
            if hand >> card & 1:  # drawn before: the next draw is one of the other cards
                continue
            if partners >> card & 1:
                after = min(base, self.best_drop(hand | 1 << card)[0])
            else:
                after = min(base, drop + values[card])
            if after < base:
                outs |= 1 << card
            total += weight * worth[after]
            drawable += weight
        return total / (drawable or 1.0), outs

    def two_draws(self, hand: Hand) -> float:
        """Expected worth of the least deadwood of a 10-card hand after two stock draws, each followed
        by a discard.

        After the first draw the hand keeps the better, by ``lookahead``, of throwing the card back
        and keeping it in place of the card whose removal leaves the least deadwood; a card that
        neither melds nor lowers the deadwood is thrown back.
        """
        hold = self.lookahead(hand)[0]
        total = 0.0
        for card, weight, out in self.replaced_by_draws(hand):
            after = hold if out is None else min(hold, self.lookahead((hand | 1 << card) & ~(1 << out))[0])
            total += weight * after
        return total

    def replaced_by_draws(self, hand: Hand) -> Iterator[tuple[Card, float, Card | None]]:
        """Each stock card that may be drawn to the ten cards ``hand``, its weight, and the card of the hand
        whose removal then leaves the least deadwood; None where that is the drawn card, or where the drawn card
        neither melds with two cards of the hand nor lowers its deadwood (it is thrown back)."""
        base = self.deadwood(hand)
        drop, _ = self.best_drop(hand)
        partners = meld_partners(hand)
        for card, weight in self.draw_weights:
            out = None
            if partners >> card & 1 or drop + _VALUES[card] < base:
                _, best = self.best_drop(hand | 1 << card)
                out = None if best == card else best
            yield card, weight, out

    def danger(self, card: Card) -> float:
        """Chance (over the samples) that the opponent can meld ``card``."""
        return min(1.0, self.meld_chance.get(card, 0.0))

    def points_against_knock(self, mine: int, theirs: int) -> int:
        """Our points when the opponent knocks with ``theirs`` deadwood and we hold ``mine`` (layoffs
        are not counted)."""
        return self.against_knocks[theirs][mine]

    def cautious_points_against_knock(self, mine: int, theirs: int) -> int:
        """``points_against_knock`` where the opponent does not knock into an undercut (we score nothing then)."""
        return min(0, self.against_knocks[theirs][mine])

    def defence(self, kept: Hand, card: Card, pile_only: bool = False, cautious: bool = False) -> tuple[float, float]:
        """After discarding ``card`` and keeping ``kept``: the chance the opponent knocks on its next
        turn, and our expected points from that knock (over the samples' draws); with ``pile_only``, a
        knock only by taking ``card`` (the stock is at its end: under ``take_to_knock_any`` any card
        lets an opponent whose own deadwood is within the limit knock); with ``cautious``, an opponent
        that would be undercut does not knock (so an undercut is not counted on)."""
        key = (kept << 6 | card) << 2 | pile_only << 1 | cautious
        found = self.defences.get(key)
        if found is not None:
            return found
        mine = self.deadwood(kept)
        outcome = self.cautious_points_against_knock if cautious else self.points_against_knock
        any_card = pile_only and self.rules.stock_end_discard == "take_to_knock_any"
        chance = points = 0.0
        for threat in self.threats:
            if any_card and threat.own is not None:  # it takes our card and throws it back to knock
                with_card = threat.pile.get(card)
                knocked = threat.own if with_card is None else min(threat.own, with_card)
                chance += threat.weight
                points += threat.weight * outcome(mine, knocked)
            elif card in threat.pile:
                theirs = threat.pile[card]
                if theirs is not None:
                    chance += threat.weight
                    points += threat.weight * outcome(mine, theirs)
            elif threat.stock and not pile_only:
                share = threat.weight / threat.stock_size
                chance += share * len(threat.stock)
                points += share * sum(outcome(mine, theirs) for theirs in threat.stock)
        found = self.defences[key] = chance, points * self.doubling
        return found

    def discard_cost(self, kept: Hand, card: Card) -> float:
        """What discarding ``card`` (keeping ``kept``) adds to a continuation's score:
        feeding the opponent a meld card, and the points it would take from us by knocking next."""
        cost = self.config.feed_penalty * self.danger(card)
        if self.config.defence_weight:
            cost -= self.config.defence_weight * self.defence(kept, card)[1]
        return cost

    def continuation(self, hand11: Hand, card: Card, draws: int = 1) -> _Continue:
        """Discard ``card`` from an 11-card hand and keep playing, scored after one or two draws."""
        kept = hand11 & ~card_bit(card)
        expected, lowering = self.lookahead(kept)
        if draws == 2:
            expected = self.two_draws(kept)
        deadwood = self.deadwood(kept)
        return _Continue(card, deadwood, expected + self.discard_cost(kept, card), self.outs(kept, lowering),
                         1 - self.danger(card), len(meld_completions(card, kept | self.checked.unseen)))

    def outs(self, kept: Hand, lowering: Hand) -> Hand:
        """The live outs of the ten cards ``kept``: the unseen cards that, drawn next, would lower their least
        deadwood (``lowering``, from ``lookahead``) or form a meld with two or more of them; none on our last
        turn, when no draw of ours follows."""
        return 0 if self.last_turn() else lowering | meld_partners(kept) & self.checked.unseen

    def ranked_continuations(self, hand11: Hand, forbidden: Card | None, second_draw: bool = False
                             ) -> list[_Continue]:
        """Every allowed discard of an 11-card hand, best first. With ``second_draw`` the discards within
        ``second_draw_margin`` of the best, and at least the two best, are scored again after two draws, and rank
        first: a second look scores about 3 deadwood lower, so the best two always compare alike (the time budget
        stops the second looks before the first or after the second)."""
        options = sorted((self.continuation(hand11, c) for c in iter_cards(hand11) if c != forbidden),
                         key=_continue_order)
        margin = self.config.second_draw_margin
        if second_draw and margin >= 0:
            rescored: list[_Continue] = []
            close = sum(1 for o in options if o.score <= options[0].score + margin)
            for option in options[:max(close, 2)]:
                if len(rescored) != 1 and self.out_of_time():  # the best two are looked at together
                    break
                rescored.append(self.continuation(hand11, option.card, draws=2))
            options[:len(rescored)] = sorted(rescored, key=_continue_order)
        return options

    def last_turn(self) -> bool:
        """Whether no draw of ours follows this turn: after it the opponent makes the hand's last draw, or
        none is left (the stock is at its end), so playing on for gin or an undercut is over."""
        return self.state.phase != "first_upcard" and self.state.stock_count <= self.rules.stock_end + 1

    def end_value(self, kept: Hand, card: Card, stock_count: int) -> float:
        """Our expected points from discarding ``card`` (keeping ``kept``) without knocking on our last turn,
        ``stock_count`` cards left: what the opponent's knock on its last turn costs us. An opponent that would
        be undercut is taken not to knock: the hint does not count on a careless opponent."""
        if stock_count > self.rules.stock_end:  # it draws the last card, or takes ours
            return self.defence(kept, card, cautious=True)[1]
        if self.rules.stock_end_discard == "draw":
            return 0.0  # the hand is a draw
        return self.defence(kept, card, pile_only=True, cautious=True)[1]  # it may take our card only to knock

    def worth_knocking(self, knock: _Knock) -> bool:
        """Whether to make ``knock`` (gin always) rather than play on: its expected points exceed ``knock_margin``
        (our last turn weighs a knock against the discards instead: ``_knock_beats``)."""
        return (knock.deadwood == 0 or not self.samples
                or _points_apart(knock.expected_points, self.config.knock_margin) > 0)

    def one_draw_left(self) -> bool:
        """Whether one draw of ours is left after this turn's discard (in the draw phase: the discard after a take,
        which leaves the stock as it is): the opponent draws next, then we make the hand's last draw of ours."""
        return self.state.phase in ("draw", "discard") and 2 <= self.state.stock_count - self.rules.stock_end <= 3

    def defender_deadwood(self, melds: tuple[Meld, ...], hand: Hand) -> int:
        """The defender's least deadwood against a knock with ``melds`` (after its layoffs), memoised:
        the knocks that discard different unmelded cards share their melds."""
        key = melds, hand
        found = self.defenders.get(key)
        if found is None:
            found = self.defenders[key] = best_defence(melds, hand).deadwood
        return found

    def score_knock(self, action: Action, arrangement: Arrangement) -> _Knock:
        """Expected points of a knock (or gin) laid out as ``arrangement`` over the samples."""
        rules = self.rules
        mine = arrangement.deadwood
        total = squares = risk = 0.0
        for hand, weight in self.samples:
            if mine == 0:
                points = outcome_points("big_gin" if action.type == "big_gin" else "gin", 0, self.deadwood(hand), rules)
            else:
                theirs = self.defender_deadwood(arrangement.melds, hand)
                outcome = knock_outcome(mine, theirs, rules)
                points = outcome_points(outcome, mine, theirs, rules)
                if outcome == "undercut":
                    risk += weight
            total += weight * points
            squares += weight * points * points
        error = None
        if self.effective_samples >= ERROR_SAMPLES:  # the weights sum to 1; a variance under 1e-9 is rounding
            variance = max(round(squares - total * total, 9), 0.0)
            error = math.sqrt(variance / (self.effective_samples - 1)) * self.doubling
        return _Knock(action, mine, arrangement, total * self.doubling, risk, error)


@functools.lru_cache(maxsize=64)
def _points_against_knocks(rules: Rules) -> tuple[tuple[int, ...], ...]:
    """``[theirs][mine]``: our points when the opponent knocks with ``theirs`` deadwood (0 to 10, 0 being gin)
    against our ``mine`` (0 to ``MOST_DEADWOOD``), by ``scoring.knock_net``; a table, since a hint looks up some
    1,700 of them."""
    return tuple(tuple(-knock_net(theirs, mine, rules) for mine in range(MOST_DEADWOOD + 1)) for theirs in range(11))


def _points_apart(better: float, worse: float) -> float:
    """How far apart two expected values (points, or a draw's deadwood estimates) are, without the rounding error
    of summing over samples: a tie is a tie, and two knocks a whole point apart are never a close call by a
    hair."""
    return round(better - worse, 9)


def _points(value: float, decimals: int = 1) -> str:
    """Expected points as a reason quotes them: signed, to ``decimals`` places, and a value that rounds to nought
    as +0.0 (not -0.0)."""
    text = f"{value:+.{decimals}f}"
    return text if float(text) else text.replace("-", "+")


def _decimals_below(value: float, bound: float) -> int:
    """The fewest decimals (1 to 9, as ``_points_apart`` tells values apart) at which ``value`` reads below
    ``bound`` where both are rounded alike, so that a reason never says "+8.0 ... less than 8"."""
    return next((places for places in range(1, 9) if round(value, places) < round(bound, places)), 9)


def _continue_order(option: _Continue) -> tuple[float, int, int, Card]:
    """Best score first; on ties the higher card goes, and of equal cards the one with fewer melds still open
    (a dead card before a live one, which the look-ahead's one or two draws may not tell apart)."""
    return option.score, -card_value(option.card), option.open_melds, option.card


def _sample_opponents(context: _Context, rng: random.Random) -> None:
    """Fill the opponent samples, the chance each unseen card is held, and the stock-draw weights."""
    state, checked = context.state, context.checked
    unseen = sorted(iter_cards(checked.unseen))
    draws = opponent_stock_draws(state)
    thrown = hand_from_cards(state.opponent_discards)
    ceiling = _VALUES[state.opponent_discards[-1]] if state.opponent_discards else 10
    weights: list[tuple[Hand, float]] = []
    wanted = context.config.samples
    total = squares = 0.0
    for index in range(max(wanted, context.config.sample_pool) if wanted > 0 else 0):
        if index >= MIN_SAMPLES and context.out_of_time():
            break
        if index >= wanted and total * total >= wanted * squares:  # effective sample size reached
            break
        base = _meld_known(checked.known, checked.unseen, rng)
        rest = [card for card in unseen if not base >> card & 1]
        fill = HAND_SIZE - base.bit_count()
        picked = rng.sample(rest, fill + min(draws, len(rest) - fill))
        hand = base | hand_from_cards(picked[:fill])
        for extra in picked[fill:]:
            value, card = context.best_drop(hand | card_bit(extra), keep=checked.known)
            if value > context.limit:  # a draw that would have let it knock did not happen
                hand = (hand | card_bit(extra)) & ~card_bit(card)
        against = (meld_partners(hand) & thrown).bit_count()
        weight = context.config.discard_evidence ** against
        if state.opponent_discards and context.deadwood(hand) <= context.limit:
            weight *= context.config.knock_evidence
        weight *= context.config.ceiling_evidence ** unmatched_above(hand, ceiling, context.deadwood)
        weights.append((hand, weight))
        total += weight
        squares += weight * weight
    context.samples = resample(weights, min(wanted, len(weights)), rng)
    context.effective_samples = min(total * total / squares, len(context.samples)) if squares else 0.0
    held = {card: 0.0 for card in unseen}
    for hand, weight in context.samples:
        for card in iter_cards(hand & checked.unseen):
            held[card] += weight
        for card in iter_cards(meld_partners(hand)):
            context.meld_chance[card] = context.meld_chance.get(card, 0.0) + weight
    if not context.samples:
        share = (HAND_SIZE - checked.known.bit_count()) / len(unseen) if unseen else 0.0
        held = {card: share for card in unseen}
    context.held = held
    in_stock = {card: max(0.0, 1 - held[card]) for card in unseen}  # a card surely held may sum past 1
    total_in_stock = sum(in_stock.values()) or 1.0
    context.draw_weights = [(card, in_stock[card] / total_in_stock) for card in unseen]


def resample(weighted: Sequence[tuple[Hand, float]], count: int, rng: random.Random) -> list[tuple[Hand, float]]:
    """``count`` of the ``weighted`` hands, each ``1 / count``, drawn by systematic resampling (a hand is kept
    about ``count`` times its share of the total weight, at least its whole part); when no hand has any weight
    (a knob set to 0), every hand, evenly."""
    total = sum(weight for _, weight in weighted)
    if count <= 0 or total <= 0:
        return [(hand, 1 / len(weighted)) for hand, _ in weighted]
    step = total / count
    point = rng.random() * step
    kept: list[tuple[Hand, float]] = []
    reached = 0.0
    for hand, weight in weighted:
        reached += weight
        while len(kept) < count and point + len(kept) * step < reached:
            kept.append((hand, 1 / count))
    kept += [(weighted[-1][0], 1 / count)] * (count - len(kept))  # rounding at the very end
    return kept


def opponent_stock_draws(state: GameState) -> int:
    """How many stock draws the sampler gives the opponent: a draw came before each of its discards,
    less the pile takes it still holds (its others are not known), and no more than have left the stock."""
    return max(0, min(len(state.opponent_discards) - len(state.opponent_hand_known), FULL_STOCK - state.stock_count))


def meld_completions(card: Card, cards: Hand) -> list[Hand]:
    """The pairs of ``cards`` that make a three-card set or run with ``card``."""
    rank, lane = card & 15, card & ~15
    column = (RANK_COLUMN << rank) & ~card_bit(card) & cards
    pairs = [card_bit(a) | card_bit(b) for a, b in combinations(iter_cards(column), 2)]
    for low in range(max(0, rank - 2), min(rank, 10) + 1):
        run = 0b111 << (lane + low) & ~card_bit(card)
        if run & cards == run:
            pairs.append(run)
    return pairs


def _meld_known(known: Hand, unseen: Hand, rng: random.Random) -> Hand:
    """``known`` plus, for each known card that melds with no two others, the unseen cards that
    complete a random three-card meld with it (the opponent took it from the pile to meld it),
    while the hand has room for them."""
    hand = known
    for card in iter_cards(known):
        others = hand & ~card_bit(card)
        if meld_completions(card, others):
            continue
        room = HAND_SIZE - hand.bit_count()
        options = [pair for pair in meld_completions(card, others | unseen) if (pair & ~hand).bit_count() <= room]
        if options:
            hand |= rng.choice(options)
    return hand


def _pile_top(state: GameState) -> Hand:
    """In a draw phase the pile's top card, which we may take and (where the rules allow) throw back."""
    return card_bit(state.discard_pile[-1]) if state.phase != "discard" and state.discard_pile else 0


def _find_threats(context: _Context) -> None:
    """How each opponent sample could knock on its next turn, by drawing or taking our discard.

    A card that melds is searched only if it could bring the deadwood within the limit: adding it
    melds away at most ``meld_reach``, and the discard after it saves at most 10.
    """
    unseen, ours, limit = context.checked.unseen, context.checked.hand | _pile_top(context.state), context.limit
    for hand, weight in context.samples:
        base = context.deadwood(hand)
        drop, _ = context.best_drop(hand)
        partners = meld_partners(hand)
        stock = unseen & ~hand
        knocks = []
        for card in iter_cards(stock & partners):
            if base - meld_reach(hand, card) - 10 <= limit:
                after = context.best_drop(hand | 1 << card)[0]
                if after <= limit:
                    knocks.append(after)
        if min(base, drop + 1) <= limit:  # a card that melds nothing is kept, or thrown back
            knocks += [after for card in iter_cards(stock & ~partners)
                       if (after := min(base, drop + _VALUES[card])) <= limit]
        pile: dict[Card, int | None] = {}
        for card in iter_cards(partners & ours):
            after = context.best_drop(hand | 1 << card)[0]
            if after < base:
                pile[card] = after if after <= limit else None
        context.threats.append(_Threat(weight, tuple(knocks), stock.bit_count() or 1, pile,
                                       base if base <= limit else None))


def meld_reach(hand: Hand, card: Card) -> int:
    """The most deadwood of ``hand`` that adding ``card`` can meld: the cards of its rank, or its
    suit's unbroken stretch of cards through it, whichever is worth more."""
    reach = (hand >> (card & 15) & RANK_COLUMN).bit_count() * _VALUES[card]
    stretch, lane = 0, card & ~15
    low, high = card - 1, card + 1
    while low >= lane and hand >> low & 1:
        stretch += _VALUES[low]
        low -= 1
    while high & 15 < 13 and hand >> high & 1:
        stretch += _VALUES[high]
        high += 1
    return max(reach, stretch)


def unmatched_above(hand: Hand, ceiling: int, deadwood: Callable[[Hand], int] = min_deadwood) -> int:
    """How many cards of ``hand`` worth more than ``ceiling`` are unmatched in a least-deadwood arrangement.

    Such a card is one whose removal lowers the least deadwood by its whole value.
    """
    whole = deadwood(hand)
    count = 0
    for card in _by_value(hand):
        value = _VALUES[card]
        if value <= ceiling:
            break
        if deadwood(hand & ~card_bit(card)) == whole - value:
            count += 1
    return count


def deadwood_worth(deadwood: int, limit: int, config: EngineConfig) -> float:
    """What a least deadwood counts for in the look-ahead: the deadwood, with each point below the knock
    ``limit`` counting ``knock_range_slope`` times and each above ``high_deadwood_from`` (or the limit,
    if higher) ``high_deadwood_slope`` times."""
    if deadwood < limit:
        return limit - config.knock_range_slope * (limit - deadwood)
    high = max(limit, config.high_deadwood_from)
    if deadwood > high:
        return high + config.high_deadwood_slope * (deadwood - high)
    return float(deadwood)


def _prepare(state: GameState, rules: Rules, seed: int, config: EngineConfig,
             budget: TimeBudget | None = None, revealed: Hand = 0) -> _Context:
    """Validate the state and sample the opponent and its next-turn threats (the defence term, and on our last
    turns the value of every discard and of playing on, need them)."""
    _check_engine_inputs(seed, config, budget)
    checked = _reveal(check_state(state, rules), revealed)
    frame = _suit_frame(state)
    upcard = state.upcard
    doubled = score_doubled(rules, upcard)
    limit = knock_limit(rules, upcard)
    worth = tuple(deadwood_worth(deadwood, limit, config) for deadwood in range(MOST_DEADWOOD + 1))
    context = _Context(_state_in_frame(state, frame), rules, _checked_in_frame(checked, frame), config, limit=limit,
                       worth=worth, doubling=2 if doubled else 1, against_knocks=_points_against_knocks(rules),
                       budget=budget, seed=seed, frame=frame)
    _sample_opponents(context, random.Random(seed))
    _find_threats(context)
    return context


def _suit_frame(state: GameState) -> SuitFrame:
    """The suits named by the part their cards play in ``state`` (``canonical_frame``: in the pile and the
    opponent's discards, their places too), so that a hint does not depend on the names of the suits. (A spade
    upcard's doubling is decided from the state as given.) A card taken from the pile this turn keeps its place
    on the pile: the hints before and after the take share their frame, so a take's plan and the discard phase
    after it sample the same hands."""
    roles: dict[Card, list[tuple[int, int]]] = {}
    taken = state.drawn_from_discard
    pile = state.discard_pile if taken is None else (*state.discard_pile, taken)
    parts = (tuple(card for card in state.hand if card != taken), state.opponent_hand_known, (state.upcard,))
    for part, cards in enumerate((*parts, pile, state.opponent_discards)):
        for place, card in enumerate(cards):
            if card is not None:
                roles.setdefault(card, []).append((part, place if part >= len(parts) else 0))
    return canonical_frame({card: tuple(role) for card, role in roles.items()})


def _state_in_frame(state: GameState, frame: SuitFrame) -> GameState:
    """``state`` with its cards as ``frame`` names them. Its ``upcard`` too: read Oklahoma's doubling from the
    state as given (``_prepare``)."""
    if frame == IDENTITY:
        return state

    def renamed(cards: Iterable[Card]) -> tuple[Card, ...]:
        return tuple(frame.card(card) for card in cards)

    return replace(state, hand=renamed(state.hand), upcard=_card_in_frame(state.upcard, frame),
                   discard_pile=renamed(state.discard_pile),
                   opponent_hand_known=renamed(state.opponent_hand_known),
                   opponent_discards=renamed(state.opponent_discards),
                   drawn_from_discard=_card_in_frame(state.drawn_from_discard, frame))


def _card_in_frame(card: Card | None, frame: SuitFrame) -> Card | None:
    """``card`` (if any) as ``frame`` names it."""
    return None if card is None else frame.card(card)


def _checked_in_frame(checked: _Checked, frame: SuitFrame) -> _Checked:
    return replace(checked, hand=frame.hand(checked.hand), pile=frame.hand(checked.pile),
                   known=frame.hand(checked.known), unseen=frame.hand(checked.unseen))


def _hint_back(advice: Hint, frame: SuitFrame) -> Hint:
    """``advice``, made in ``frame``, with its cards as the caller names them."""
    if frame == IDENTITY:
        return advice
    return replace(advice, action=_action_back(advice.action, frame),
                   alternatives=tuple(_alternative_back(option, frame) for option in advice.alternatives),
                   layout=_layout_back(advice.layout, frame))


def _action_back(action: Action, frame: SuitFrame) -> Action:
    return action if action.card is None else replace(action, card=frame.card_back(action.card))


def _alternative_back(option: Alternative, frame: SuitFrame) -> Alternative:
    return replace(option, action=_action_back(option.action, frame),
                   outs=tuple(iter_cards(frame.hand_back(hand_from_cards(option.outs)))),
                   then_discard=None if option.then_discard is None else frame.card_back(option.then_discard),
                   layout=None if option.layout is None else _layout_back(option.layout, frame))


def _layout_back(layout: Arrangement, frame: SuitFrame) -> Arrangement:
    return Arrangement(_melds_back(layout.melds, frame), frame.hand_back(layout.deadwood_cards))


def _melds_back(melds: Iterable[Meld], frame: SuitFrame) -> tuple[Meld, ...]:
    """Melds named in ``frame`` as the caller names them, in the order of a layout of those (``meld_sort_key``)."""
    return tuple(sorted(map(frame.hand_back, melds), key=meld_sort_key))


def _check_engine_inputs(seed: int, config: EngineConfig, budget: TimeBudget | None) -> None:
    """The engine's own inputs, as a library caller gives them (FieldError naming the one at fault): without an
    int seed the sampling would differ from call to call."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise FieldError("seed", f"expected an integer (the same state and seed give the same hint), got "
                                 f"{describe_value(seed)}")
    if not isinstance(config, EngineConfig):
        raise FieldError("config", f"expected an EngineConfig, got {describe_value(config)}")
    if budget is not None and not isinstance(budget, TimeBudget):
        raise FieldError("budget", f"expected a TimeBudget or None, got {describe_value(budget)}")


def _reveal(checked: _Checked, revealed: Hand) -> _Checked:
    """``checked`` with the cards of ``revealed`` known to be in the opponent's hand."""
    if not revealed:
        return checked
    try:
        check_hand(revealed)
    except CardError:
        raise HintStateError("revealed", f"expected a hand of cards as a bitmask, got {revealed!r}") from None
    for name, cards in (("hand", checked.hand), ("discard_pile", checked.pile)):
        if revealed & cards:
            raise HintStateError("revealed", f"{format_card((revealed & cards).bit_length() - 1)} is in {name}, "
                                 "not in the opponent's hand")
    known = checked.known | revealed
    if known.bit_count() > HAND_SIZE:
        raise HintStateError("revealed", f"the opponent holds {HAND_SIZE} cards, got {known.bit_count()} known")
    return replace(checked, known=known, unseen=checked.unseen & ~revealed)


def hint(state: GameState, rules: Rules, seed: int = 0, config: EngineConfig = DEFAULT_CONFIG,
         budget: TimeBudget | None = None, revealed: Hand = 0) -> Hint:
    """The advised move for the player to move (see the module docstring for the evaluation and
    the time budget).

    ``revealed`` are cards the caller knows the opponent holds other than by its pile takes (the
    benchmarks' oracle shows the engine the whole hand this way): the engine treats them as known
    cards, but they are not checked against the turns as ``opponent_hand_known`` is.
    """
    context = _prepare(state, rules, seed, config, budget=budget, revealed=revealed)
    advice = _discard_hint(context) if state.phase == "discard" else _draw_hint(context)
    return replace(_hint_back(advice, context.frame), time_budget_reached=budget is not None and budget.spent(),
                   effective_samples=context.effective_samples, knock_limit=context.limit)


@dataclass(frozen=True)
class OpponentModel:
    """What the engine believes of the opponent's hand: per unseen card the chance it is held, per
    card the chance the opponent can meld it, and the chance that its next stock draw lets it knock."""

    held: dict[Card, float]
    meld_chance: dict[Card, float]
    knock_next: float


def model_opponent(state: GameState, rules: Rules, seed: int = 0, config: EngineConfig = DEFAULT_CONFIG,
                   revealed: Hand = 0) -> OpponentModel:
    """The opponent model behind ``hint`` for the same state, rules, seed, config and ``revealed`` cards."""
    context = _prepare(state, rules, seed, config, revealed=revealed)
    knock_next = sum(threat.weight * len(threat.stock) / threat.stock_size for threat in context.threats)
    back = context.frame.card_back
    return OpponentModel({back(card): chance for card, chance in context.held.items()},
                         {back(card): context.danger(card) for card in context.meld_chance}, knock_next)


def _discard_hint(context: _Context) -> Hint:
    """The discard phase: the best knock if it is worth taking now, else the discard whose continuation scores
    best (on our last turn, ``_last_turn_discard_hint``)."""
    if context.last_turn() and context.samples:
        return _last_turn_discard_hint(context)
    state, rules, config = context.state, context.rules, context.config
    hand = context.checked.hand
    forbidden = rules.banned_discard(state.drawn_from_discard)
    knocks = _knocks(context, hand, state.drawn_from_discard)
    only_to_knock = take_only_to_knock(state, rules)  # the pile card was taken to knock: nothing else is legal
    continues = [] if only_to_knock else context.ranked_continuations(hand, forbidden, second_draw=True)
    continue_alternatives = [_continue_alternative(c) for c in continues]
    knock_alternatives = [_knock_alternative(k, context) for k in knocks]
    best_knock = knocks[0] if knocks else None
    stock_ends = state.stock_count <= rules.stock_end
    take_knock = best_knock is not None and (only_to_knock or context.worth_knocking(best_knock))
    play_on = None  # with one draw left, what playing on is expected to bring, where it decides the knock
    if best_knock is not None and not take_knock and continues and context.samples and context.one_draw_left():
        play_on = _play_on_points(context, hand & ~card_bit(continues[0].card), continues[0].card)
        # On a tie the knock: meanwhile the opponent's hand only improves, which the samples do not show.
        take_knock = _points_apart(best_knock.expected_points, play_on) >= 0
    threshold = config.knock_margin if play_on is None else min(config.knock_margin, play_on)
    if take_knock:
        assert best_knock is not None
        alternatives = knock_alternatives + continue_alternatives
        close = len(knocks) > 1 and _points_apart(knocks[0].expected_points, knocks[1].expected_points) < CLOSE_POINTS
        near_the_margin = best_knock.deadwood > 0 and bool(context.samples) and not only_to_knock and \
            best_knock.near(threshold)
        why = "the card was taken only to knock, so no plain discard is allowed" if only_to_knock else \
            _stock_end_knock_text(rules) if stock_ends else \
            "knocking now beats waiting while the opponent improves" if play_on is None else \
            f"with one draw left, playing on is expected to bring no more ({_points(play_on)} points)"
        reason = _knock_reason(best_knock, why, context.frame)
        reason += _near_text(best_knock, threshold) if near_the_margin else ""
        return Hint(best_knock.action, tuple(alternatives), close or near_the_margin, reason, best_knock.arrangement,
                    len(context.samples))
    best, runner_up = continues[0], continues[1] if len(continues) > 1 else None
    alternatives = continue_alternatives + knock_alternatives
    near = runner_up is not None and _points_apart(runner_up.score, best.score) < config.discard_close_margin
    knock_near = best_knock is not None and bool(context.samples) and best_knock.near(threshold)  # declined by a hair
    layout = best_arrangement(hand & ~card_bit(best.card))
    reason = _discard_reason(best, layout.melds, best_knock, stock_ends, config.knock_margin, play_on,
                             rules.stock_end_discard, context.frame, runner_up if near else None)
    if knock_near:
        assert best_knock is not None
        reason += _near_text(best_knock, threshold)
    return Hint(Action("discard", best.card), tuple(alternatives), near or knock_near, reason, layout,
                len(context.samples))


def _last_turn_discard_hint(context: _Context) -> Hint:
    """Our last turn (``_Context.last_turn``): no draw of ours follows, so a knock and a discard are both
    valued in expected points, a discard by what the opponent's last turn brings (``_Context.end_value``).
    Gin and big gin are always made."""
    state = context.state
    hand = context.checked.hand
    knocks = _knocks(context, hand, state.drawn_from_discard)
    ends = [] if take_only_to_knock(state, context.rules) else _end_discards(context, hand, state.stock_count,
                                                                               state.drawn_from_discard)
    best_knock = knocks[0] if knocks else None
    knock_first = best_knock is not None and _knock_beats(best_knock, ends)
    knock_alternatives = [_knock_alternative(k, context) for k in knocks]
    chosen, *others = knock_alternatives + ends if knock_first else ends + knock_alternatives
    others.sort(key=lambda a: -a.evaluation)  # stable: on ties the chosen kind (knocks or discards) first
    alternatives = (chosen, *others)
    close = bool(others) and _points_apart(chosen.evaluation, others[0].evaluation) < CLOSE_POINTS and (
        bool(knocks) or any(other.evaluation != chosen.evaluation for other in others))  # all alike: nothing to call
    if knock_first:
        assert best_knock is not None
        reason = _knock_reason(best_knock, _last_turn_text(context, ends[0] if ends else None), context.frame)
        return Hint(best_knock.action, alternatives, close, reason, best_knock.arrangement,
                    len(context.samples))
    card = chosen.action.card
    assert card is not None
    reason = _last_discard_reason(context, chosen, best_knock)
    return Hint(chosen.action, alternatives, close, reason, best_arrangement(hand & ~card_bit(card)),
                len(context.samples))


def _end_discards(context: _Context, hand: Hand, stock_count: int, taken: Card | None) -> list[Alternative]:
    """The discards of an eleven-card ``hand`` (``taken`` from the pile, if so) on our last turn, best first
    (on ties the one keeping the least deadwood, then the higher card), each valued by what the opponent's
    last turn brings with ``stock_count`` cards left; none has outs."""
    forbidden = context.rules.banned_discard(taken)
    ends = []
    for card in _by_value(hand):
        if card != forbidden:
            kept = hand & ~card_bit(card)
            value = context.end_value(kept, card, stock_count)
            ends.append(Alternative(Action("discard", card), value, "points", context.deadwood(kept), value,
                                    safety=1 - context.danger(card)))
    ends.sort(key=lambda a: (-a.evaluation, a.deadwood))  # on ties keep the least deadwood, then the higher card out
    return ends


def _knocks(context: _Context, hand: Hand, taken: Card | None) -> list[_Knock]:
    """Big gin, gin and knocks with an eleven-card ``hand`` (``taken`` from the pile, if so), best first."""
    rules = context.rules
    found = []
    if rules.big_gin_bonus is not None and context.deadwood(hand) == 0:
        found.append(context.score_knock(Action("big_gin"), best_arrangement(hand)))
    for option in knock_options(hand, knock_rules(context.state, rules), context.state.upcard, taken):
        action = _finish_action(option)
        # The layout expected to score most (the first of equals); nothing is laid off on gin.
        layouts = option.arrangements[:1] if option.gin else option.arrangements
        scored = (context.score_knock(action, layout) for layout in layouts)
        found.append(max(scored, key=attrgetter("expected_points")))
    bonus = {"big_gin": rules.big_gin_bonus or 0, "gin": rules.gin_bonus}
    found.sort(key=lambda k: (k.deadwood > 0, -k.expected_points, -bonus.get(k.action.type, 0), k.deadwood,
                              _rank_first(k.action.card or 0)))
    return found


def _rank_first(card: Card) -> tuple[int, Card]:
    """Equal knocks go out with the lowest rank first (then by the frame's suit order)."""
    return card_rank(card), card


def _continue_alternative(option: _Continue) -> Alternative:
    return Alternative(Action("discard", option.card), -option.score, "deadwood", option.deadwood,
                       outs=tuple(iter_cards(option.outs)), safety=option.safety)


def _knock_alternative(knock: _Knock, context: _Context) -> Alternative:
    """A knock as a ranked move: its expected points, and the outs of the ten cards it keeps (none for gin, nor on
    our last turn, where no draw follows) and its discard's safety, as a discard would have them."""
    card = knock.action.card
    safety = None if card is None else 1 - context.danger(card)
    outs: tuple[Card, ...] = ()
    if card is not None and knock.deadwood > 0 and not context.last_turn():
        kept = knock.arrangement.hand  # the ten laid out: with the card just taken, on a take to knock
        outs = tuple(iter_cards(context.outs(kept, context.lookahead(kept)[1])))
    return Alternative(knock.action, knock.expected_points, "points", knock.deadwood, knock.expected_points,
                       knock.undercut_risk, outs, safety, layout=knock.arrangement,
                       standard_error=knock.standard_error)


def _draw_hint(context: _Context) -> Hint:
    """The draw phases: take the pile's top card (or the first upcard) or not, by what each choice is expected
    to lead to (the stock-end offer and our last draw have their own rules)."""
    state, checked = context.state, context.checked
    hand = checked.hand
    if stock_end_offer(state, context.rules):
        return _stock_end_offer_hint(context, hand, state.discard_pile[-1])
    if context.last_turn() and context.samples:  # the draw phase: the pile holds at least the last discard
        return _last_draw_hint(context, hand, state.discard_pile[-1])
    if take_only_to_knock(state, context.rules):
        return _returned_card_hint(context, hand, state.discard_pile[-1])
    stock_action = Action("pass") if state.phase == "first_upcard" else Action("draw_stock")
    held = _held_knock_worth_making(context, hand)
    stock = _stock_alternative(context, hand, stock_action, held)
    if checked.refused_upcard:
        return Hint(stock_action, (stock,), False, "The refused first upcard may not be taken now: draw from the "
                    "stock.", best_arrangement(hand), len(context.samples))
    top = state.discard_pile[-1] if state.discard_pile else state.upcard
    assert top is not None
    take, outdone = _take_value(context, hand, top, knocks_held=held is not None)
    if outdone and take.unit == stock.unit == "deadwood" and state.phase == "draw":
        # A take thrown straight back only passes the turn, which the stock draw beats (the look-ahead charges the
        # stock card thrown back for feeding the opponent, and so can rate the take higher): shown at most at the
        # stock draw's value, below it in the ranking.
        take = replace(take, evaluation=min(take.evaluation, stock.evaluation))
    take_action = Action("take_upcard")
    if outdone:
        choice = stock_action
    elif take.unit != stock.unit:  # a knock in points beats playing on
        choice = take_action if take.unit == "points" else stock_action
    else:
        choice = take_action if _points_apart(take.evaluation, stock.evaluation) > 0 else stock_action
    alternatives = (take, stock) if choice == take_action else (stock, take)
    if outdone:
        close = False
    elif held is not None:  # both in points; the held knock is only the least the stock draw is worth
        close = choice == take_action and _points_apart(take.evaluation, stock.evaluation) < CLOSE_POINTS
    else:
        close = take.unit == stock.unit and \
            abs(_points_apart(take.evaluation, stock.evaluation)) < context.config.close_margin
    reason = _draw_reason(choice, top, take, stock, context.frame)
    card = context.frame.name(top)
    if outdone and take.unit != "points":
        instead = "Pass" if stock_action.type == "pass" else "Draw from the stock"
        reason = f"{instead}: after taking {card} the best discard would be {card} itself, which only passes the turn."
    elif choice == stock_action and (held is not None or outdone):
        taking = (f"allows {_finish_name(take.then_discard is None, take.deadwood or 0)}, expected "
                  f"{_points(take.evaluation)} points") if take.unit == "points" else "allows no knock"
        shown = held if held is not None else _held_knock(context, hand)
        assert shown is not None  # outdone by a knock: the ten cards knock too
        reason = f"Draw from the stock: {_held_words(shown)}; taking {card} {taking}."
    layout = best_arrangement(hand)
    if choice == take_action:
        kept = hand | card_bit(top)
        if take.then_discard is not None:  # None: big gin, all eleven kept
            kept &= ~card_bit(take.then_discard)
        layout = take.layout if take.layout is not None else best_arrangement(kept)  # a take to knock: its layout
    return Hint(choice, alternatives, close, reason, layout, len(context.samples))


def _last_draw_hint(context: _Context, hand: Hand, top: Card) -> Hint:
    """Our last draw (one card above the stock's end): after a stock draw the stock is at its end, after a
    take the opponent makes the last draw, so only a knock now, or what the opponent's last turn brings,
    scores. Both draws are valued in expected points (the stock by ``_last_stock_draw``)."""
    stock_end = context.rules.stock_end
    stock_points, knocking = _last_stock_draw(context, hand, stock_end)
    stock = Alternative(Action("draw_stock"), stock_points, "points", expected_points=stock_points)
    card = context.frame.name(top)
    knock_chance = f"you would knock with chance {knocking:.0%}"
    scoring = "a knock" if context.rules.stock_end_discard == "draw" else \
        "your knock, or the opponent's with your discard,"
    drawing = (f"Draw from the stock: this is your last draw, and only {scoring} scores after it ({knock_chance}, "
               f"expected {_points(stock.evaluation)} points)")
    best = _best_last_turn(context, hand | card_bit(top), top, stock_end + 1,
                           knock_only=take_only_to_knock(context.state, context.rules))
    if best is None:  # a card thrown straight back, which allows no knock
        reason = f"{drawing}; {card} came straight back and may be retaken only to knock, which it does not allow."
        return Hint(stock.action, (stock,), False, reason, best_arrangement(hand), len(context.samples))
    take = replace(best, action=Action("take_upcard"), then_discard=best.action.card)
    chosen, other = (take, stock) if _points_apart(take.evaluation, stock.evaluation) > 0 else (stock, take)
    close = _points_apart(chosen.evaluation, other.evaluation) < CLOSE_POINTS
    if best.action.type == "discard":
        taking = (f"taking {card} and discarding {context.frame.name(best.action.card or 0)} leaves the opponent the "
                  f"last draw, expected {_points(take.evaluation)} points")
    else:
        taking = f"taking {card} allows {_finish_name(best.action.type == 'big_gin', best.deadwood or 0)}, " \
                 f"expected {_points(take.evaluation)} points"
    if chosen is stock:
        reason = f"{drawing}; {taking}."
        layout = best_arrangement(hand)
    else:
        reason = (f"Take {card}: this is your last draw; {taking}, against {_points(stock.evaluation)} from the "
                  f"stock ({knock_chance}).")
        layout = best.layout if best.layout is not None else \
            best_arrangement((hand | card_bit(top)) & ~card_bit(best.action.card or 0))  # a discard's
    return Hint(chosen.action, (chosen, other), close, reason, layout, len(context.samples))


def _last_stock_draw(context: _Context, hand: Hand, stock_count: int) -> tuple[float, float]:
    """Our last draw from the stock to the ten cards ``hand``, ``stock_count`` cards left after it: the mean over
    the stock of the best last-turn move after it, and the chance that move is a knock. The stock cards are valued
    in a seeded random order, so that once the time budget is spent (after ``MIN_LAST_DRAWS`` of them) the mean
    over those valued estimates the rest."""
    total = drawable = knocking = 0.0
    draws = list(context.draw_weights)
    random.Random(context.seed).shuffle(draws)
    for index, (drawn, weight) in enumerate(draws):
        if index >= MIN_LAST_DRAWS and context.out_of_time():
            break
        move = _best_last_turn(context, hand | card_bit(drawn), None, stock_count)
        assert move is not None  # any card may be discarded after a stock draw
        total += weight * move.evaluation
        knocking += weight * (move.action.type != "discard")
        drawable += weight
    return total / (drawable or 1.0), knocking / (drawable or 1.0)


def _play_on_points(context: _Context, kept: Hand, card: Card) -> float:
    """Our expected points from discarding ``card`` (keeping ``kept``) with one draw of ours left: the opponent's
    knock on its turn (whenever it can, as in ``discard_cost``), else our last draw from the stock
    (``_last_stock_draw``; the pile card the opponent throws is not counted)."""
    chance, points = context.defence(kept, card)
    return points + (1 - chance) * _last_stock_draw(context, kept, context.state.stock_count - 2)[0]


def _knocks_at_once(context: _Context, hand: Hand, taken: Card | None) -> list[_Knock]:
    """``_knocks`` of an eleven-card hand, skipped when no discard brings it within the knock limit (a hand that
    big gin melds whole always has one: of eleven melded cards, some meld holds four or more)."""
    if context.best_drop(hand)[0] > context.limit:
        return []
    return _knocks(context, hand, taken)


def _best_last_turn(context: _Context, hand: Hand, taken: Card | None, stock_count: int,
                    knock_only: bool = False) -> Alternative | None:
    """The best move of an eleven-card ``hand`` on our last turn (``taken`` from the pile, if so), with
    ``stock_count`` cards left: gin or big gin if it can, else the knock or the discard expected to score more
    (with ``knock_only``, the card was taken only to knock: the best knock, None if none)."""
    knocks = _knocks_at_once(context, hand, taken)
    if knocks and knocks[0].deadwood == 0:
        return _knock_alternative(knocks[0], context)
    discards = [] if knock_only else _end_discards(context, hand, stock_count, taken)
    if knocks and _knock_beats(knocks[0], discards):
        return _knock_alternative(knocks[0], context)
    return discards[0] if discards else None


def _knock_beats(knock: _Knock, discards: Sequence[Alternative]) -> bool:
    """On our last turn: whether to make ``knock`` (gin and big gin always) rather than the best of ``discards``
    (best first), both valued in expected points."""
    return knock.deadwood == 0 or not discards or _points_apart(knock.expected_points, discards[0].evaluation) > 0


def _stock_end_offer_hint(context: _Context, hand: Hand, top: Card) -> Hint:
    """The discard that left the stock at its end, offered to knock with: take it if a knock with it is
    expected to score (a draw scores nothing), else pass and the hand is a draw."""
    card = context.frame.name(top)
    declined = Alternative(Action("pass"), 0.0, "points", context.deadwood(hand), 0.0)
    knock_take = _take_to_knock(context, hand, top)
    if knock_take is None:
        return Hint(Action("pass"), (declined,), False, f"Pass: {card} allows no knock, and the hand is a draw.",
                    best_arrangement(hand), len(context.samples))
    best, take = knock_take
    kind = _finish_name(best.action.type == "big_gin", best.deadwood)
    close = abs(_points_apart(best.expected_points, 0.0)) < CLOSE_POINTS  # a draw scores nothing
    if best.deadwood == 0 or not context.samples or _points_apart(best.expected_points, 0.0) > 0:
        reason = f"Take {card}: it allows {kind}, expected {_points(best.expected_points)} points against a draw."
        return Hint(Action("take_upcard"), (take, declined), close, reason, best.arrangement, len(context.samples))
    reason = (f"Pass: the hand is a draw; taking {card} for {kind} is expected to score "
              f"{_points(best.expected_points)}.")
    return Hint(Action("pass"), (declined, take), close, reason, best_arrangement(hand), len(context.samples))


def _returned_card_hint(context: _Context, hand: Hand, top: Card) -> Hint:
    """A card we discarded, thrown straight back: retaken only to knock (GRA), so taken only when that knock is
    worth making, else the stock."""
    card = context.frame.name(top)
    held = _held_knock_worth_making(context, hand)
    stock = _stock_alternative(context, hand, Action("draw_stock"), held)
    knock_take = _take_to_knock(context, hand, top)
    if knock_take is not None and _take_to_knock_advised(context, hand, top, knock_take[0]):
        best, take = knock_take
        reason = f"Take {card}: it allows {_finish_name(best.action.type == 'big_gin', best.deadwood)} right away."
        return Hint(Action("take_upcard"), (take, stock), False, reason, best.arrangement, len(context.samples))
    why = "which it does not allow" if knock_take is None else \
        f"and that knock is not advised (expected {_points(knock_take[1].evaluation)} points)"
    if held is not None:
        why += f"; {_held_words(held)}"
    reason = f"Draw from the stock: {card} came straight back and may be retaken only to knock, {why}."
    alternatives = (stock,) if knock_take is None else (stock, knock_take[1])
    return Hint(Action("draw_stock"), alternatives, False, reason, best_arrangement(hand), len(context.samples))


def _take_to_knock(context: _Context, hand: Hand, top: Card) -> tuple[_Knock, Alternative] | None:
    """The best knock (or gin, or big gin) that taking the pile's top card allows at once, by expected points,
    and the take as an alternative; None if the card allows none."""
    best = max(_knocks(context, hand | card_bit(top), top), key=lambda knock: knock.expected_points, default=None)
    if best is None:
        return None
    return best, replace(_knock_alternative(best, context), action=Action("take_upcard"), then_discard=best.action.card)


def _held_knock(context: _Context, hand: Hand) -> _Knock | None:
    """In the draw phase, the knock (or gin) that the ten cards ``hand`` allow after any stock draw, the card drawn
    thrown back, laid out to score most; None when they are above the knock limit."""
    deadwood = context.deadwood(hand)
    if context.state.phase != "draw" or deadwood > context.limit:
        return None
    action = Action("gin" if deadwood == 0 else "knock")
    return max((context.score_knock(action, layout) for layout in optimal_arrangements(hand)),
               key=attrgetter("expected_points"))


def _held_knock_worth_making(context: _Context, hand: Hand) -> _Knock | None:
    """``_held_knock`` where it is worth making (with opponent samples to value it): a stock draw is then worth at
    least its expected points, since the discard phase after it knocks."""
    held = _held_knock(context, hand)
    return held if held is not None and context.samples and context.worth_knocking(held) else None


def _stock_alternative(context: _Context, hand: Hand, action: Action, held: _Knock | None) -> Alternative:
    """Drawing from the stock (or passing the first upcard): valued at the held knock it is worth making
    (``_held_knock_worth_making``), in points, else by the look-ahead (``_stock_value``)."""
    if held is not None:
        return Alternative(action, held.expected_points, "points", expected_points=held.expected_points,
                           standard_error=held.standard_error)
    return Alternative(action, -_stock_value(context, hand), "deadwood")


def _take_to_knock_advised(context: _Context, hand: Hand, top: Card, knock: _Knock) -> bool:
    """Whether to take the pile's top card for ``knock``, as the discard phase after the take would knock: it
    must beat the knock that the ten cards held allow anyway after a stock draw (taking a card to knock with more
    deadwood than that gives up points; a pass in the first-upcard phase gives the opponent a turn first, so it
    is not such a draw), and be worth knocking, or, with one draw left after the take, worth at least what
    playing on is expected to bring."""
    return _beats_held_knock(context, hand, knock) and _knocks_after_take(context, hand, top, knock)


def _beats_held_knock(context: _Context, hand: Hand, knock: _Knock) -> bool:
    """Whether ``knock``, by a take, beats the knock the ten cards ``hand`` allow anyway after any stock draw (if
    any): in points, or without samples, by kind and deadwood."""
    held = _held_knock(context, hand)
    return held is None or (_points_apart(knock.expected_points, held.expected_points) > 0 if context.samples
                            else knock.action.type == "big_gin" or knock.deadwood < held.deadwood)


def _knocks_after_take(context: _Context, hand: Hand, top: Card, knock: _Knock) -> bool:
    """Whether the discard phase after taking ``top`` makes ``knock``: worth knocking, or, with one draw left,
    worth at least what playing on is expected to bring."""
    if context.worth_knocking(knock):
        return True
    if not (context.samples and context.one_draw_left()):
        return False
    drawn = hand | card_bit(top)
    best = context.ranked_continuations(drawn, context.rules.banned_discard(top), second_draw=True)[0]
    return _points_apart(knock.expected_points, _play_on_points(context, drawn & ~card_bit(best.card), best.card)) >= 0


def _held_words(held: _Knock) -> str:
    """How a reason tells the knock the ten cards held allow after any stock draw (``_held_knock``)."""
    kind = "go gin" if held.deadwood == 0 else f"knock with {held.deadwood} deadwood"
    return (f"the ten cards you hold {kind} after any stock draw (throwing back the card drawn), expected "
            f"{_points(held.expected_points)} points")


def _take_value(context: _Context, hand: Hand, top: Card, knocks_held: bool = False) -> tuple[Alternative, bool]:
    """Taking the pile's top card, as the discard phase after it plays: a knock (or gin, or big gin) it allows
    right away, if that phase would make it (or, where the ten cards held knock anyway, ``knocks_held``, to compare
    with that knock), else the best discard after it. Also whether a stock draw beats the take whatever it is
    valued at: its knock is no better than the ten cards' own, which any stock draw keeps, or its discard throws
    the card straight back (where the rules allow it), which only passes the turn."""
    knock_take = _take_to_knock(context, hand, top)
    if knock_take is not None and (knocks_held or _knocks_after_take(context, hand, top, knock_take[0])):
        return knock_take[1], not _beats_held_knock(context, hand, knock_take[0])
    drawn = hand | card_bit(top)
    banned = context.rules.banned_discard(top)
    planned = context.ranked_continuations(drawn, banned, second_draw=True)[0].card  # as the discard phase ranks
    best = context.continuation(drawn, planned)  # scored as the stock draw is, after one draw
    take = replace(_continue_alternative(best), action=Action("take_upcard"), then_discard=best.card)
    return take, best.card == top


def _stock_value(context: _Context, hand: Hand) -> float:
    """Expected discard score after a stock draw, the same measure as a take.

    A drawn card that neither melds nor lowers the deadwood is thrown back; otherwise the discard
    is the one that leaves the least deadwood right away, or the drawn card if that scores better.
    """
    hold = context.lookahead(hand)[0]
    total = 0.0
    for card, weight, out in context.replaced_by_draws(hand):
        score = hold + context.discard_cost(hand, card)  # thrown back
        if out is not None:
            score = min(score, context.continuation(hand | card_bit(card), out).score)
        total += weight * score
    return total


# --- reasons --------------------------------------------------------------------------------


def _describe(melds: Iterable[Meld], frame: SuitFrame) -> str:
    """The melds (named in ``frame``) as the caller names them, in the layout's order (``_layout_back``)."""
    shown = [" ".join(format_hand(meld)) for meld in _melds_back(melds, frame)]
    return ", ".join(shown) if shown else "no melds"


def _knock_reason(knock: _Knock, why: str, frame: SuitFrame) -> str:
    melds = _describe(knock.arrangement.melds, frame)
    if knock.action.type == "big_gin":
        return f"Big gin: all eleven cards meld ({melds})."
    card = frame.name(knock.action.card) if knock.action.card is not None else ""
    if knock.deadwood == 0:
        return f"Gin: discard {card} and lay out {melds}; gin cannot be undercut."
    return (f"Knock discarding {card} with {knock.deadwood} deadwood, keeping {melds}: undercut risk "
            f"{knock.undercut_risk:.0%}, expected {_points(knock.expected_points)} points; {why}.")


def _near_text(knock: _Knock, bound: float) -> str:
    """Why knocking or not is a close call: the knock is ``near`` the ``bound`` it is weighed against."""
    if knock.standard_error is None:
        why = f"fewer than {ERROR_SAMPLES:g} effective samples carry the knock's expected points"
    elif CLOSE_STANDARD_ERRORS * knock.standard_error <= CLOSE_POINTS:
        why = f"the knock's expected points are within {CLOSE_POINTS:g} of the {_points(bound)} points they are " \
            "weighed against"
    else:
        why = f"the knock's expected points have a standard error of {knock.standard_error:.1f}"
    return f" Knocking or not is a close call: {why}."


def _last_turn_text(context: _Context, best_end: Alternative | None) -> str:
    """Why a knock on our last turn beats the best discard without one (``best_end``)."""
    if best_end is None:
        return "the card was taken only to knock, so no plain discard is allowed"
    if context.state.stock_count <= context.rules.stock_end:
        if context.rules.stock_end_discard == "draw":
            return _stock_end_knock_text(context.rules)
        return (f"the stock is at its end, and without a knock the best discard, which the opponent may take only "
                f"to knock, is expected to score {_points(best_end.evaluation)}")
    return (f"{_last_turn_words(context)}, and the best discard without a knock is expected to score "
            f"{_points(best_end.evaluation)} (the opponent's last turn)")


def _stock_end_knock_text(rules: Rules) -> str:
    """Why to knock at the stock's end, where the opponent model does not value the discard."""
    if rules.stock_end_discard == "draw":
        return "the stock is at its end, so not knocking draws the hand"
    return "the stock is at its end, so not knocking draws the hand unless the opponent takes your discard to knock"


def _last_turn_words(context: _Context) -> str:
    """How a reason names our last turn before the opponent's last draw: where the discard that draw leads to is
    offered to us to knock with (``stock_end_discard``), the turn is not quite the last, and that offer is not
    valued."""
    if context.rules.stock_end_discard == "draw":
        return "this is your last turn"
    return "this is your last turn but for the opponent's last discard, which you may take only to knock (not valued)"


def _last_discard_reason(context: _Context, chosen: Alternative, knock: _Knock | None) -> str:
    card = context.frame.name(chosen.action.card) if chosen.action.card is not None else ""
    stock_ends = context.state.stock_count <= context.rules.stock_end
    if stock_ends and context.rules.stock_end_discard == "draw":
        text = f"Discard {card}: the hand ends as a draw after this discard."
    elif stock_ends:
        text = (f"Discard {card}: the opponent may take it only to knock, else the hand is a draw; expected "
                f"{_points(chosen.evaluation)} points.")
    else:
        text = (f"Discard {card}: {_last_turn_words(context)}, and the opponent makes the last draw; {card} leaves you "
                f"expected {_points(chosen.evaluation)} points from its turn (its knock; a knock you would undercut "
                "is not counted on).")
    if knock is not None:
        text += (f" Knocking ({knock.deadwood} deadwood) is expected to score {_points(knock.expected_points)} "
                 f"points, undercut risk {knock.undercut_risk:.0%}.")
    return text


def _discard_reason(best: _Continue, melds: tuple[Meld, ...], knock: _Knock | None, stock_ends: bool,
                    margin: float, play_on: float | None, stock_end_discard: str, frame: SuitFrame,
                    close_runner_up: _Continue | None) -> str:
    card = frame.name(best.card)
    text = (f"Discard {card}: keeps {_describe(melds, frame)} with {best.deadwood} deadwood and "
            f"{_count(best.outs.bit_count(), 'live out')}; the opponent can use {card} with chance "
            f"{1 - best.safety:.0%}.")
    if close_runner_up is not None:
        text += _runner_up_text(best, close_runner_up, frame)
    if knock is not None:
        points = knock.expected_points
        bound = play_on if play_on is not None and play_on < margin else margin  # what the knock fell short of
        places = _decimals_below(points, bound) if _points_apart(bound, points) > 0 else 1
        text += (f" Knocking ({knock.deadwood} deadwood) is not advised: expected {_points(points, places)} "
                 f"points, undercut risk {knock.undercut_risk:.0%}")
        if bound < margin:
            text += f", less than the {_points(bound, places)} points playing on is expected to bring with one draw " \
                "left."
        elif points <= 0:
            text += "."
        elif math.isinf(margin):
            text += ", and with an infinite knock margin no knock is made on points."
        else:
            below = "less than" if _points_apart(margin, points) > 0 else "no more than"
            text += f", {below} the {margin:.15g} points it takes to give up playing on for gin or an undercut."
    if stock_ends:
        text += (" The hand ends as a draw after this discard." if stock_end_discard == "draw" else
                 " After this discard the opponent may take it only to knock; else the hand is a draw.")
    return text


def _runner_up_text(best: _Continue, runner_up: _Continue, frame: SuitFrame) -> str:
    """The next discard, close enough to make the choice a close call, and how far below it is evaluated (the best
    two are scored alike, so never above)."""
    gap = f"{runner_up.score - best.score:.1f}"
    how = "the same" if not float(gap) else f"{gap} lower"
    return f" A close call: discarding {frame.name(runner_up.card)} is evaluated {how}."


def _finish_name(big_gin: bool, deadwood: int) -> str:
    return "big gin" if big_gin else "gin" if deadwood == 0 else f"a knock with {deadwood} deadwood"


def _draw_reason(choice: Action, top: Card, take: Alternative, stock: Alternative, frame: SuitFrame) -> str:
    """Why to take the pile's top card, or pass or draw from the stock instead."""
    card = frame.name(top)
    other = "for passing, valued as a draw from the stock" if stock.action.type == "pass" else "from the stock"
    if choice.type == "take_upcard":
        if take.unit == "points":
            return f"Take {card}: it allows {_finish_name(take.then_discard is None, take.deadwood or 0)} right away."
        then = frame.name(take.then_discard) if take.then_discard is not None else "?"
        return (f"Take {card} and discard {then}: {take.deadwood} deadwood, evaluated {_points(take.evaluation)} "
                f"against {_points(stock.evaluation)} {other} (higher is better).")
    return (f"{'Pass' if choice.type == 'pass' else 'Draw from the stock'}: {card} does not help enough "
            f"(evaluated {_points(take.evaluation)} after taking it, {_points(stock.evaluation)} {other}; higher is "
            "better).")
