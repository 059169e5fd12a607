"""Game scores: running totals, game and box bonuses, shutouts, partnerships."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.core import (
    PRESETS,
    GameError,
    GameResult,
    HandRecord,
    Rules,
    partnership_deal,
    resolve_rules,
    score_game,
    score_partnership_game,
)
from service.core.scoring import check_hand_record

from . import reference as ref

OKLAHOMA_WITH_BOXES = resolve_rules("oklahoma", {"oklahoma_extra_boxes": True})
GAME_RULES = [*(resolve_rules(preset) for preset in PRESETS), *[OKLAHOMA_WITH_BOXES] * 3,
              resolve_rules("hoyle", {"gin_bonus": 0, "target": 50})]
# Mostly records a game can have (the others are dropped by records_for): a drawn hand scores nothing, and extra
# boxes are few.
RECORD = st.one_of(st.builds(HandRecord, st.just(None), st.sampled_from([0, 0, 0, 5])),
                   st.builds(HandRecord, st.sampled_from([0, 1]), st.integers(0, 120),
                             st.sampled_from([0] * 5 + [1, 2, 4])))


def records_for(rules: Rules, drawn: list[HandRecord]) -> list[HandRecord]:
    """The drawn hand records that some hand under ``rules`` can have (the core's checks only choose them)."""
    valid = []
    for record in drawn:
        try:
            check_hand_record(record, rules)
        except ValueError:
            continue
        valid.append(record)
    return valid


def as_ref(record: HandRecord) -> ref.Record:
    return record.winner, record.points, record.extra_boxes


@settings(max_examples=300)
@given(st.sampled_from(GAME_RULES), st.lists(RECORD, max_size=30))
def test_game_scores_match_the_reference(rules: Rules, drawn: list[HandRecord]) -> None:
    """Final scores, winner and settlement of every preset's game against the rules written out in the
    reference; the hands after the game's end are refused."""
    hands = records_for(rules, drawn)
    game = ref.game_score(map(as_ref, hands), rules.target, rules.game_bonus, rules.box_bonus, rules.shutout)
    result = score_game(hands[:game.played], rules)
    assert_scored_as(result, game)
    if game.played < len(hands):
        with pytest.raises(GameError) as caught:
            score_game(hands, rules)
        assert caught.value.index == game.played


def assert_scored_as(result: GameResult, game: ref.Game) -> None:
    assert list(result.running_totals) == game.running and result.boxes == game.boxes
    assert (result.final_scores, result.winner, result.settlement) == (game.final, game.winner, game.owed)
    assert (result.complete, result.shutout) == (game.winner is not None, game.shut_out)
    assert result.payer == (None if game.owed == 0 else result.final_scores.index(min(result.final_scores)))


@settings(max_examples=200)
@given(st.sampled_from(GAME_RULES), st.lists(st.tuples(RECORD, RECORD), max_size=20))
def test_partnership_games_match_the_reference(rules: Rules, drawn: list[tuple[HandRecord, HandRecord]]) -> None:
    deals = [(first, second) for first, second in drawn if len(records_for(rules, [first, second])) == 2]
    combined = [ref.partnership_deal(as_ref(first), as_ref(second)) for first, second in deals]
    game = ref.game_score(combined, rules.target, rules.game_bonus, rules.box_bonus, rules.shutout)
    records, result = score_partnership_game(deals[:game.played], rules)
    assert [as_ref(record) for record in records] == combined[:game.played]
    assert_scored_as(result, game)


def test_running_totals_until_the_target() -> None:
    result = score_game([HandRecord(0, 30), HandRecord(1, 45), HandRecord(None, 0), HandRecord(0, 80)],
                        resolve_rules("standard"))
    assert result.running_totals == ((30, 0), (30, 45), (30, 45), (110, 45))
    assert result.complete and result.winner == 0
    assert result.hands_won == (2, 1)
    # game bonus 100, box 20 per hand won; no shutout: the loser scored.
    assert result.final_scores == (110 + 100 + 40, 45 + 20)
    assert result.settlement == 250 - 65 and result.payer == 1


def test_the_lower_final_score_pays_even_when_it_won_the_game() -> None:
    # Player 1 wins nine hands of 10, player 0 then reaches 100: its game bonus does not cover
    # player 1's nine boxes, so the game's winner pays.
    result = score_game([HandRecord(1, 10)] * 9 + [HandRecord(0, 100)], resolve_rules("standard"))
    assert result.winner == 0 and result.final_scores == (100 + 100 + 20, 90 + 9 * 20)
    assert result.payer == 0 and result.settlement == 50


def test_equal_final_scores_settle_nothing() -> None:
    # 100 + 100 + 20 against 20 + 10 boxes of 20.
    result = score_game([HandRecord(1, 2)] * 10 + [HandRecord(0, 100)], resolve_rules("standard"))
    assert result.final_scores == (220, 220) and result.settlement == 0 and result.payer is None


def test_unfinished_game_has_no_game_bonus() -> None:
    result = score_game([HandRecord(0, 30)], resolve_rules())
    assert not result.complete and result.winner is None and result.game_bonus == 0
    assert result.final_scores == (30 + 25, 0) and result.settlement == 0 and result.payer is None


def test_unfinished_game_counts_both_players_boxes_and_is_no_shutout() -> None:
    # default rules: box 25 per hand won; nobody has reached 100, so there is no winner yet.
    result = score_game([HandRecord(1, 20), HandRecord(0, 30), HandRecord(1, 5)], resolve_rules())
    assert result.running_totals == ((0, 20), (30, 20), (30, 25))
    assert result.hands_won == (1, 2) and result.boxes == (1, 2) and result.box_points == (25, 50)
    assert result.final_scores == (30 + 25, 25 + 2 * 25)
    assert not result.complete and not result.shutout and result.winner is None


def test_shutout_doubles_the_game_bonus_in_traditional_rules() -> None:
    result = score_game([HandRecord(1, 60), HandRecord(1, 50)], resolve_rules("traditional"))
    assert result.shutout and result.winner == 1 and result.game_bonus == 200
    assert result.final_scores == (0, 110 + 200 + 40)


@pytest.mark.parametrize("preset", ["hoyle", "gra"])
def test_shutout_doubles_the_whole_score(preset: str) -> None:
    result = score_game([HandRecord(0, 60), HandRecord(0, 50)], resolve_rules(preset))
    assert result.final_scores == ((110 + 100 + 2 * 25) * 2, 0)


def test_no_shutout_bonus_when_the_rules_have_none() -> None:
    result = score_game([HandRecord(0, 100)], resolve_rules("standard"))
    assert not result.shutout and result.final_scores == (100 + 100 + 20, 0)


def test_oklahoma_extra_boxes_count_at_box_value() -> None:
    rules = resolve_rules("oklahoma", {"oklahoma_extra_boxes": True})
    result = score_game([HandRecord(0, 118, extra_boxes=2)], rules)  # gin against 98 deadwood
    assert result.boxes == (3, 0) and result.box_points == (60, 0)


def test_hands_after_the_end_are_rejected() -> None:
    with pytest.raises(GameError) as caught:
        score_game([HandRecord(0, 100), HandRecord(1, 10)], resolve_rules())
    assert caught.value.index == 1


def test_a_drawn_hand_scores_nothing() -> None:
    with pytest.raises(GameError):
        score_game([HandRecord(None, 10)], resolve_rules())


OKLAHOMA_BOXES = {"oklahoma_extra_boxes": True}


@pytest.mark.parametrize(
    ("hand", "preset", "overrides", "message"),
    [
        (HandRecord(1, 0), "hoyle", None, "no hand won under these rules scores 0 points: a knock 1 to 97; an "
         "undercut 25 to 35; gin 25 to 123$"),
        # found by a referee's audit: points between the ways to win passed (149 with gin worth 1,000), so did a
        # knock's points with the knock limit 0, and odd points above an Oklahoma hand undoubled
        (HandRecord(0, 149), "hoyle", {"gin_bonus": 1000}, "scores 149 points: a knock 1 to 97; an undercut 25 to "
         "35; gin 1000 to 1098$"),
        (HandRecord(0, 3), "standard", {"knock_limit": 0, "gin_bonus": 10}, "scores 3 points: gin 10 to 108$"),
        (HandRecord(0, 119), "oklahoma", None, "scores 119 points: a knock 1 to 97; an undercut 10 to 20; gin 20 to "
         "118, each doubled on a spade upcard$"),
        (HandRecord(0, 99), "oklahoma", OKLAHOMA_BOXES, r"scores 99 points with no extra box: a knock 1 to 97 with no "
         r"extra box; an undercut 10 to 20 with 1 extra box; gin 20 to 118 with 2 extra boxes, each doubled \(its "
         r"boxes too\) on a spade upcard$"),
        (HandRecord(0, 100, extra_boxes=2), "standard", None, "only under Oklahoma with oklahoma_extra_boxes"),
        (HandRecord(0, 100, extra_boxes=2), "oklahoma", None, "only under Oklahoma with oklahoma_extra_boxes"),
        (HandRecord(0, 100, extra_boxes=3), "oklahoma", OKLAHOMA_BOXES, "one of 0, 1, 2, 4, got 3"),
        (HandRecord(None, 0, extra_boxes=1), "oklahoma", OKLAHOMA_BOXES, r"a drawn hand \(no winner\) scores no"),
        # the points of the undercut or gin that wins the boxes (found by a user audit: 2 boxes for 3 points passed)
        (HandRecord(0, 3, extra_boxes=2), "oklahoma", OKLAHOMA_BOXES, "scores 3 points with 2 extra boxes"),
        (HandRecord(0, 9, extra_boxes=1), "oklahoma", OKLAHOMA_BOXES, "scores 9 points with 1 extra box"),
        (HandRecord(0, 10, extra_boxes=1), "oklahoma", {**OKLAHOMA_BOXES, "undercut_on_tie": False},
         "an undercut 11 to 20 with 1 extra box"),
        (HandRecord(0, 21, extra_boxes=1), "oklahoma", OKLAHOMA_BOXES, "scores 21 points with 1 extra box"),
        (HandRecord(0, 39, extra_boxes=4), "oklahoma", OKLAHOMA_BOXES, "scores 39 points with 4 extra boxes"),
        # a doubled score is even (found by a rules audit: 41 points with 4 boxes passed)
        (HandRecord(0, 41, extra_boxes=4), "oklahoma", OKLAHOMA_BOXES, "scores 41 points with 4 extra boxes"),
        (HandRecord(0, 24, extra_boxes=2), "oklahoma", {**OKLAHOMA_BOXES, "gin_bonus": 25,
                                                         "oklahoma_spades_double": False}, "gin 25 to 123 with 2 extra "
         "boxes$"),
        # the extra boxes switched on without Oklahoma: no round wins them (a mutation audit found it untested)
        (HandRecord(0, 100, extra_boxes=2), "standard", {"oklahoma_extra_boxes": True}, "only under Oklahoma"),
    ],
)
def test_a_hand_no_deal_can_produce_is_refused(hand: HandRecord, preset: str, overrides: dict[str, bool] | None,
                                               message: str) -> None:
    with pytest.raises(GameError, match=message) as caught:
        score_game([HandRecord(0, 10), hand], resolve_rules(preset, overrides))
    assert caught.value.index == 1


@pytest.mark.parametrize(("hand", "overrides"), [
    (HandRecord(0, 10, extra_boxes=1), {}),
    (HandRecord(0, 20, extra_boxes=2), {}),
    (HandRecord(0, 20, extra_boxes=2), {"gin_bonus": 25}),  # an undercut on a spade upcard, doubled
    (HandRecord(0, 25, extra_boxes=2), {"gin_bonus": 25, "oklahoma_spades_double": False}),
    (HandRecord(0, 40, extra_boxes=4), {}),
    (HandRecord(0, 10, extra_boxes=2), {"big_gin_bonus": 10}),  # big gin against no deadwood
])
def test_the_fewest_points_that_win_extra_boxes_are_accepted(hand: HandRecord, overrides: dict[str, object]) -> None:
    result = score_game([hand], resolve_rules("oklahoma", {**OKLAHOMA_BOXES, **overrides}))
    assert result.boxes == (1 + hand.extra_boxes, 0)


@pytest.mark.parametrize("overrides", [{"gin_bonus": 0}, {"undercut_bonus": 0}, {"big_gin_bonus": 0}])
def test_a_hand_won_for_nothing_when_a_bonus_is_0_saves_the_loser_from_a_shutout(
        overrides: dict[str, int]) -> None:
    """An undercut on a tie, or gin against no deadwood, scores only its bonus: 0 here. The loser won a hand
    (seed 001: no shutout then) and its box (so it scored, as seed 003 counts a shutout); it was a shutout."""
    result = score_game([HandRecord(1, 0), HandRecord(0, 50), HandRecord(0, 50)], resolve_rules("hoyle", overrides))
    assert result.hands_won == (2, 1) and not result.shutout  # (a hand scores at most 98 with gin_bonus 0)
    assert result.final_scores == (100 + 100 + 50, 25) and result.settlement == 225
    with pytest.raises(GameError, match="no hand won under these rules scores 0 points"):
        score_game([HandRecord(1, 0)], resolve_rules("hoyle", {**overrides, "undercut_on_tie": False}
                                                     if "undercut_bonus" in overrides else {}))


def test_a_team_scores_the_extra_boxes_of_both_its_tables() -> None:
    """An undercut at one table (1 box) and gin at the other (2) is 3 boxes for the deal, which no single hand
    has (found by a rules audit: the game refused it)."""
    rules = resolve_rules("oklahoma", {"oklahoma_extra_boxes": True})
    hands, result = score_partnership_game([(HandRecord(0, 15, 1), HandRecord(0, 40, 2))], rules)
    assert hands == (HandRecord(0, 55, 3),) and result.boxes == (4, 0)
    with pytest.raises(GameError, match=r"^deals/0/tables/1: extra boxes are 1"):
        score_partnership_game([(HandRecord(0, 15, 1), HandRecord(0, 40, 3))], rules)


def test_partnership_tables_are_checked_each() -> None:
    with pytest.raises(GameError, match=r"^deals/1/tables/1: no hand won under these rules scores 0 points") as caught:
        score_partnership_game([(HandRecord(0, 20), HandRecord(1, 5)), (HandRecord(0, 20), HandRecord(1, 0))],
                               resolve_rules("partnership"))
    assert (caught.value.index, caught.value.table) == (1, 1)
    hands, result = score_partnership_game([(HandRecord(0, 20), HandRecord(1, 5))], resolve_rules("partnership"))
    assert hands == (HandRecord(0, 15),) and result.running_totals == ((15, 0),)


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (HandRecord(0, 20), HandRecord(0, 15), HandRecord(0, 35)),  # both tables won by team 0: the sum
        (HandRecord(0, 20), HandRecord(1, 35), HandRecord(1, 15)),  # split: the difference to the higher
        (HandRecord(0, 20), HandRecord(1, 20), HandRecord(None, 0)),  # an even split scores nothing
        (HandRecord(0, 0), HandRecord(1, 0), HandRecord(None, 0)),
        # a table won for 0 points (a bonus of 0) is still won (found by a referee's audit: the deal was drawn,
        # which made the other team's game a shutout and dropped the boxes)
        (HandRecord(1, 0), HandRecord(1, 0), HandRecord(1, 0)),
        (HandRecord(None, 0), HandRecord(0, 0, extra_boxes=2), HandRecord(0, 0, extra_boxes=2)),
        (HandRecord(None, 0), HandRecord(1, 12), HandRecord(1, 12)),  # a drawn table counts nothing
        (HandRecord(0, 21), HandRecord(1, 20), HandRecord(0, 1)),  # a split won by a single point
        (HandRecord(1, 20), HandRecord(0, 21), HandRecord(0, 1)),
        # Oklahoma extra boxes: a team that won both tables has the boxes of both
        (HandRecord(0, 20, extra_boxes=2), HandRecord(0, 15, extra_boxes=1), HandRecord(0, 35, extra_boxes=3)),
        # a split deal is one hand won by the team with more points, with its own table's boxes only
        (HandRecord(0, 30, extra_boxes=1), HandRecord(1, 10, extra_boxes=2), HandRecord(0, 20, extra_boxes=1)),
        (HandRecord(0, 10, extra_boxes=2), HandRecord(1, 30, extra_boxes=1), HandRecord(1, 20, extra_boxes=1)),
    ],
)
def test_partnership_deal(first: HandRecord, second: HandRecord, expected: HandRecord) -> None:
    assert partnership_deal(first, second) == expected
