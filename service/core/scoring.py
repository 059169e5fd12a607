"""Round and game scores: knock, undercut, gin, big gin, Oklahoma, bonuses, partnerships."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

from .cards import Card, CardError, Hand, check_card, check_hand, format_card, hand_size, lowest_card
from .errors import FieldError, GinError, describe_value
from .knocks import check_discard, knock_limit, may_double, score_doubled, stock_end_rules
from .layoffs import DefenderResult, best_defence, check_knocker_melds, knocker_melds_of
from .melds import Arrangement, arrangements_within, best_arrangement, min_deadwood
from .rules import Rules, check_rules

Outcome = Literal["knock", "undercut", "gin", "big_gin", "tie"]
Side = Literal["knocker", "defender"]

NO_BIG_GIN = ("an 11-card knocker needs its discard, since big gin is not played under these rules "
              "(big_gin_bonus is null)")


class IllegalKnockError(GinError):
    """A knock whose deadwood is above the limit, or a big gin that does not meld; ``field`` is the
    input at fault (the knocker's cards, or the melds it was given)."""

    def __init__(self, deadwood: int, limit: int, message: str | None = None, field: str = "knocker") -> None:
        above = "only gin may end the hand (knock limit 0)" if limit == 0 else f"above the knock limit of {limit}"
        super().__init__(message or f"the knocker's deadwood is {deadwood}, {above}")
        self.deadwood = deadwood
        self.limit = limit
        self.field = field


@dataclass(frozen=True)
class RoundResult:
    """A scored round: who won, how, how many points, and both sides laid out."""

    outcome: Outcome
    winner: Side | None
    points: int
    knocker: Arrangement
    defender: DefenderResult
    knock_limit: int
    doubled: bool
    extra_boxes: int
    discard: Card | None


def outcome_points(outcome: Outcome, knocker_deadwood: int, defender_deadwood: int, rules: Rules) -> int:
    """Points of a round ending in ``outcome``, before Oklahoma doubling: positive for the knocker, negative
    for the defender."""
    if outcome == "gin":
        return rules.gin_bonus + defender_deadwood
    if outcome == "big_gin":
        assert rules.big_gin_bonus is not None
        return rules.big_gin_bonus + defender_deadwood
    if outcome == "knock":
        return defender_deadwood - knocker_deadwood
    if outcome == "undercut":
        return -(knocker_deadwood - defender_deadwood + rules.undercut_bonus)
    return 0


def knock_outcome(knocker_deadwood: int, defender_deadwood: int, rules: Rules) -> Outcome:
    """How a knock (not gin) with this deadwood ends against the defender's (after its layoffs)."""
    if knocker_deadwood < defender_deadwood:
        return "knock"
    if knocker_deadwood > defender_deadwood or rules.undercut_on_tie:
        return "undercut"
    return "tie"


def knock_net(knocker_deadwood: int, defender_deadwood: int, rules: Rules) -> int:
    """Points of a knock (gin with 0 deadwood) for the knocker, negative when the defender scores, before
    Oklahoma doubling; ``defender_deadwood`` is after its layoffs (none against gin)."""
    outcome: Outcome = "gin" if knocker_deadwood == 0 else knock_outcome(knocker_deadwood, defender_deadwood, rules)
    return outcome_points(outcome, knocker_deadwood, defender_deadwood, rules)


def knocker_choice(knocker: Hand, defender: Hand, rules: Rules, limit: int) -> tuple[Arrangement, DefenderResult]:
    """The knocker's layout, among all within the limit, that scores best after the defender's best reply (on
    ties the first in ``arrangements_within``' order)."""
    options = arrangements_within(knocker, limit)
    if not options:
        raise IllegalKnockError(min_deadwood(knocker), limit)
    if options[0].deadwood == 0:
        return options[0], best_defence(options[0].melds, defender)
    best: tuple[Arrangement, DefenderResult] | None = None
    best_net = 0
    for arrangement in options:
        defence = best_defence(arrangement.melds, defender)
        net = knock_net(arrangement.deadwood, defence.deadwood, rules)
        if best is None or net > best_net:
            best, best_net = (arrangement, defence), net
    assert best is not None
    return best


def check_drawn_from_discard(knocker: Hand, defender: Hand, card: Card, rules: Rules) -> None:
    """Raise CardError unless the knocker could have taken ``card`` from the pile this turn.

    It is among the knocker's cards as given (the 11 with the discard, or the 10 kept); with
    10 given, it may instead have been the discard when the rules allow discarding it at once.
    """
    check_rules(rules)
    check_hand(defender)
    if check_hand(knocker) >> check_card(card) & 1:
        return
    name = format_card(card)
    if defender >> card & 1:
        raise CardError(f"{name} is in the defender's hand, so the knocker did not take it this turn", card=name)
    if hand_size(knocker) != 10:
        raise CardError(f"{name} was taken from the pile this turn, so it must be among the knocker's cards",
                        card=name)
    if not rules.discard_pickup_allowed:
        raise CardError(f"{name} was taken from the pile this turn and these rules do not let it be discarded at "
                        "once, so it must be among the knocker's 10 cards", card=name)


def score_round(
    knocker: Hand,
    defender: Hand,
    rules: Rules,
    knocker_melds: Iterable[int] | None = None,
    upcard: Card | None = None,
    discard: Card | None = None,
    drawn_from_discard: Card | None = None,
    taken_at_stock_end: bool = False,
) -> RoundResult:
    """Score a knock: 10 cards (after the discard), or 11 with ``discard``, or 11 melded as big gin.

    ``knocker_melds`` are hands (bitmasks), laid out as given; None: the legal layout that scores best after the
    defender's best reply. ``upcard`` is the deal's first (Oklahoma's knock limit and doubling);
    ``drawn_from_discard`` the card the knocker took from the pile this turn (``taken_at_stock_end``: the discard
    offered at the stock end, taken under ``stock_end_discard``'s rules). A CardError, IllegalKnockError or
    FieldError names the input at fault in ``field``; a RulesError is raised for rules that are no Rules.
    """
    for name, hand in (("knocker", knocker), ("defender", defender)):
        with _input(name):
            check_hand(hand)
    for name, given in (("upcard", upcard), ("discard", discard), ("drawn_from_discard", drawn_from_discard)):
        if given is not None:
            with _input(name):
                check_card(given)
    if knocker & defender:
        card = format_card(lowest_card(knocker & defender))
        raise CardError(f"{card} is in both hands", card=card, field="defender")
    if hand_size(defender) != 10:
        raise CardError(f"the defender holds 10 cards, got {hand_size(defender)}", field="defender")
    size = hand_size(knocker)
    if size not in (10, 11):
        raise CardError(f"the knocker holds 10 cards (11 with a discard, or 11 for big gin), got {size}",
                        field="knocker")
    with _input("upcard"):
        limit = knock_limit(rules, upcard)
    rules = stock_end_rules(rules, drawn_from_discard, taken_at_stock_end)
    if drawn_from_discard is not None:
        with _input("drawn_from_discard"):
            check_drawn_from_discard(knocker, defender, drawn_from_discard, rules)
    big_gin = size == 11 and discard is None
    if size == 11 and discard is not None:
        with _input("discard"):
            check_discard(knocker, discard, rules, drawn_from_discard)
        knocker &= ~(1 << discard)
    elif discard is not None:  # 10 cards
        raise CardError("a discard is given only with an 11-card knocker", card=format_card(discard), field="discard")
    if big_gin and rules.big_gin_bonus is None:
        raise CardError(NO_BIG_GIN, field="discard")

    if knocker_melds is not None:
        with _input("knocker_melds"):
            knocker_melds = knocker_melds_of(knocker_melds)
            check_knocker_melds(knocker_melds, knocker, discard)
        laid = Arrangement.of(knocker, knocker_melds, join_runs=False)
        if big_gin and laid.deadwood:
            raise IllegalKnockError(laid.deadwood, 0, f"an 11-card knocker without a discard is big gin, which needs "
                                    f"all 11 cards melded, but these melds leave {laid.deadwood} deadwood: give the "
                                    "discard", "knocker_melds")
        if laid.deadwood > limit:
            raise IllegalKnockError(laid.deadwood, limit, field="knocker_melds")
        defence = best_defence(laid.melds, defender)
    elif big_gin:
        laid = best_arrangement(knocker)
        if laid.deadwood:
            raise IllegalKnockError(
                laid.deadwood,
                0,
                f"an 11-card knocker without a discard is big gin, but {laid.deadwood} "
                "deadwood is left: give the discard",
            )
        defence = best_defence(laid.melds, defender)
    else:
        laid, defence = knocker_choice(knocker, defender, rules, limit)

    if big_gin:
        outcome: Outcome = "big_gin"
    elif laid.deadwood == 0:
        outcome = "gin"
    else:
        outcome = knock_outcome(laid.deadwood, defence.deadwood, rules)
    net = outcome_points(outcome, laid.deadwood, defence.deadwood, rules)
    doubled = score_doubled(rules, upcard)
    extra = 0
    if rules.oklahoma and rules.oklahoma_extra_boxes:
        extra = {"undercut": 1, "gin": 2, "big_gin": 2}.get(outcome, 0) * (2 if doubled else 1)
    winner: Side | None = None if outcome == "tie" else "defender" if outcome == "undercut" else "knocker"
    return RoundResult(outcome, winner, abs(net) * (2 if doubled else 1), laid, defence, limit, doubled, extra, discard)


@contextmanager
def _input(field: str) -> Iterator[None]:
    """A CardError raised inside names ``field`` as the input at fault."""
    try:
        yield
    except CardError as error:
        error.field = field
        raise


@dataclass(frozen=True)
class HandRecord:
    """One hand of a game: the winning player (0 or 1, None for a drawn hand) and its points."""

    winner: int | None
    points: int
    extra_boxes: int = 0


@dataclass(frozen=True)
class GameResult:
    """Running totals after each hand and, once the target is reached, the bonuses and settlement.

    The side with the lower final total (``payer``, None when nothing is owed) pays the difference,
    ``settlement``, to the other: with box bonuses that can be the side that won the game.
    """

    running_totals: tuple[tuple[int, int], ...]
    hands_won: tuple[int, int]
    boxes: tuple[int, int]
    complete: bool
    winner: int | None
    game_bonus: int
    box_points: tuple[int, int]
    shutout: bool
    final_scores: tuple[int, int]
    settlement: int
    payer: int | None


class GameError(FieldError):
    """A game record that cannot be scored: ``field`` is the list of records (``hands`` or ``deals``), ``index``
    the record at fault, ``table`` the table of a partnership deal at fault (None: the record as a whole),
    ``message`` what is wrong."""

    index: int

    def __init__(self, field: str, message: str, index: int, table: int | None = None) -> None:
        super().__init__(field, message, index)
        self.table = table
        if table is not None:
            self.args = (f"{field}/{index}/tables/{table}: {message}",)


EXTRA_BOXES = (0, 1, 2, 4)
"""The Oklahoma extra boxes a hand can win: 1 for an undercut, 2 for gin, doubled when a spade upcard
doubles the score."""


DRAWN_SCORES_NOTHING = "a drawn hand (no winner) scores no points and no boxes"


def check_hand_record(hand: HandRecord, rules: Rules) -> None:
    """Raise ``ValueError`` for a hand result that no hand under ``rules`` can have."""
    _check_record_shape(hand)
    if hand.winner is None:
        if hand.points or hand.extra_boxes:
            raise ValueError(DRAWN_SCORES_NOTHING)
        return
    ways, factors = _ways_to_win(rules), (1, 2) if may_double(rules) else (1,)
    most, how = max(((factor * way.most, way.scores_most + (", doubled by a spade upcard" if factor == 2 else ""))
                     for way in ways if way.scores_most for factor in factors), key=lambda points_how: points_how[0])
    if hand.points > most:
        raise ValueError(f"a hand scores at most {most} points under these rules ({how}); got {hand.points}")
    if hand.extra_boxes and not (rules.oklahoma and rules.oklahoma_extra_boxes):
        raise ValueError("extra boxes are won only under Oklahoma with oklahoma_extra_boxes on")
    if hand.extra_boxes not in EXTRA_BOXES:
        raise ValueError(f"extra boxes are 1 (undercut) or 2 (gin), doubled when a spade upcard doubles the score: "
                         f"one of {', '.join(map(str, EXTRA_BOXES))}, got {hand.extra_boxes}")
    if hand.extra_boxes == max(EXTRA_BOXES) and not rules.oklahoma_spades_double:
        raise ValueError(f"{hand.extra_boxes} extra boxes need a spade upcard that doubles the score, and "
                         "oklahoma_spades_double is off")
    if not any(hand.points % factor == 0 and way.least <= hand.points // factor <= way.most
               and hand.extra_boxes == factor * way.extra_boxes for way in ways for factor in factors):
        boxes = rules.oklahoma and rules.oklahoma_extra_boxes
        each = "; ".join(f"{way.name} {way.least} to {way.most}" + (_with_boxes(way.extra_boxes) if boxes else "")
                         for way in ways)
        doubled = (f", each doubled{' (its boxes too)' if boxes else ''} on a spade upcard" if len(factors) == 2
                   else "")
        raise ValueError(f"no hand won under these rules scores {hand.points} points"
                         f"{_with_boxes(hand.extra_boxes) if boxes else ''}: {each}{doubled}")


def _check_record_shape(hand: HandRecord) -> None:
    """Raise ``ValueError`` unless ``hand`` is a HandRecord of a winner 0, 1 or None and whole numbers 0 or more."""
    if not isinstance(hand, HandRecord):
        raise ValueError(f"a hand's result is a HandRecord, got {describe_value(hand)}")
    if hand.winner is not None and (type(hand.winner) is not int or hand.winner not in (0, 1)):
        raise ValueError(f"the winner is player 0 or 1, or None for a drawn hand; got {hand.winner!r}")
    for name, count in (("points", hand.points), ("extra boxes", hand.extra_boxes)):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"{name} are a whole number, 0 or more; got {count!r}")


MOST_DEADWOOD = 98
"""The most deadwood ten cards can hold: two each of the Tens, Jacks, Queens and Kings and two Nines, no three
of a rank nor in a row (Ts Js Ks Th Jh Kh Qd Qc 9d 9c)."""


@dataclass(frozen=True)
class _WayToWin:
    """A way to win a hand: the points it scores before any doubling, ``least`` to ``most`` (every number
    between), the Oklahoma extra boxes it wins, and how it scores ``most``."""

    name: str
    least: int
    most: int
    extra_boxes: int
    scores_most: str | None  # None: never the most a hand scores (a knock: gin scores 98 and more)


def _ways_to_win(rules: Rules) -> list[_WayToWin]:
    """Gin and big gin score their bonus and the defender's deadwood (0 to ``MOST_DEADWOOD``); a knock wins by
    the defender's deadwood less its own (1 to 97: an Ace against the most); an undercut scores its bonus and the
    knocker's deadwood less the defender's (0 on a tie where that is an undercut, up to the knock limit, 10 in
    Oklahoma with a ten-point upcard). No knock nor undercut where the limit is 0."""
    limit = 10 if rules.oklahoma else rules.knock_limit
    boxes = rules.oklahoma and rules.oklahoma_extra_boxes
    undercut = rules.undercut_bonus
    at_most = f"an undercut ({undercut}) of a knock at the limit ({limit}) by a melded hand"
    ways = [_WayToWin("a knock", 1, MOST_DEADWOOD - 1, 0, None),
            _WayToWin("an undercut", undercut + (0 if rules.undercut_on_tie else 1), undercut + limit,
                      1 if boxes else 0, at_most)] if limit else []
    return ways + [_WayToWin(name, bonus, bonus + MOST_DEADWOOD, 2 if boxes else 0,
                             f"{name} ({bonus}) against {MOST_DEADWOOD} deadwood, the most ten cards hold")
                   for name, bonus in (("gin", rules.gin_bonus), ("big gin", rules.big_gin_bonus)) if bonus is not None]


def _with_boxes(count: int) -> str:
    """`` with 2 extra boxes``, `` with 1 extra box``, `` with no extra box``."""
    return f" with {count or 'no'} extra box{'es' if count > 1 else ''}"


def score_game(hands: Iterable[HandRecord], rules: Rules) -> GameResult:
    """Running totals, and once a player reaches the target: game, box and shutout bonuses.

    A shutout is a game in which the loser won no hand (seed 001's words). Seed 003's "failed to score anything
    at all" is the same game unless a bonus is 0: a hand won for 0 points still earns a box.
    """
    return _score_records(hands, check_rules(rules), check_hand_record)


def _score_records(hands: Iterable[HandRecord], rules: Rules, check: Callable[[HandRecord, Rules], None] | None,
                   side: str = "player", record: str = "hand") -> GameResult:
    """``score_game``, each hand checked by ``check`` when it comes up (None: checked already); ``side`` and
    ``record`` name the scorers and their records in messages, and ``record`` + "s" the records' list in errors."""
    totals = [0, 0]
    won = [0, 0]
    boxes = [0, 0]
    running: list[tuple[int, int]] = []
    winner: int | None = None
    for index, hand in enumerate(hands):
        if winner is not None:
            raise GameError(f"{record}s", f"the game already ended with the {record} before, when a {side} "
                                          f"reached {rules.target}", index)
        try:
            if check is not None:
                check(hand, rules)
        except ValueError as error:
            raise GameError(f"{record}s", str(error), index) from None
        if hand.winner is not None:
            totals[hand.winner] += hand.points
            won[hand.winner] += 1
            boxes[hand.winner] += 1 + hand.extra_boxes
        running.append((totals[0], totals[1]))
        if max(totals) >= rules.target:
            winner = 0 if totals[0] >= totals[1] else 1
    box_points = (boxes[0] * rules.box_bonus, boxes[1] * rules.box_bonus)
    if winner is None:
        final = (totals[0] + box_points[0], totals[1] + box_points[1])
        return GameResult(
            tuple(running), (won[0], won[1]), (boxes[0], boxes[1]), False, None, 0, box_points, False, final, 0, None
        )
    loser = 1 - winner
    shutout = won[loser] == 0 and rules.shutout != "none"
    bonus = rules.game_bonus * (2 if shutout and rules.shutout == "double_bonus" else 1)
    scores = [totals[0] + box_points[0], totals[1] + box_points[1]]
    scores[winner] += bonus
    if shutout and rules.shutout == "double_score":
        scores[winner] *= 2
    final = (scores[0], scores[1])
    return GameResult(
        tuple(running),
        (won[0], won[1]),
        (boxes[0], boxes[1]),
        True,
        winner,
        bonus,
        box_points,
        shutout,
        final,
        abs(scores[0] - scores[1]),
        None if scores[0] == scores[1] else 0 if scores[0] < scores[1] else 1,
    )


def score_partnership_game(deals: Iterable[tuple[HandRecord, HandRecord]], rules: Rules
                           ) -> tuple[tuple[HandRecord, ...], GameResult]:
    """Each deal's two tables combined into the teams' result, and the game scored over those (each
    table's record is checked; a team's extra boxes are the sum of its tables', so any sum of two of 0, 1, 2
    and 4)."""
    check_rules(rules)
    deals = tuple(deals)  # read more than once
    for index, tables in enumerate(deals):
        if not isinstance(tables, tuple | list) or len(tables) != 2:
            raise GameError("deals", f"a deal is its two tables' results, a pair of HandRecords; got "
                                     f"{describe_value(tables)}", index)
        for table, hand in enumerate(tables):
            try:
                check_hand_record(hand, rules)
            except ValueError as error:
                raise GameError("deals", str(error), index, table) from None
    records = tuple(partnership_deal(*tables) for tables in deals)
    return records, _score_records(records, rules, None, "team", "deal")


def partnership_deal(first_table: HandRecord, second_table: HandRecord) -> HandRecord:
    """Combine a deal's two tables into the team result (players' winners are team numbers 0/1).

    A team that won both tables scores the sum; with one table each, the team with more points scores the
    difference (an even split scores nothing and is won by neither; a table won for 0 points, where a bonus is 0,
    still wins the deal when the other is drawn or won by the same team). The deal is one hand won by that team,
    with the Oklahoma extra boxes of its own tables: the other team's go with its table's points. A record that is
    no HandRecord of a winner 0, 1 or None and counts 0 or more is a GameError at ``tables``
    (``score_partnership_game`` checks each under the game's rules as well).
    """
    net = 0
    extra = [0, 0]
    winners = set()
    for index, table in enumerate((first_table, second_table)):
        try:
            _check_record_shape(table)
        except ValueError as error:
            raise GameError("tables", str(error), index) from None
        if table.winner is not None:
            net += table.points if table.winner == 0 else -table.points
            extra[table.winner] += table.extra_boxes
            winners.add(table.winner)
    if net:
        team = 0 if net > 0 else 1
    elif len(winners) == 1:
        (team,) = winners
    else:
        return HandRecord(None, 0)
    return HandRecord(team, abs(net), extra[team])
