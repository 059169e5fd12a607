"""The hint engine: legal advice in any reachable state, determinism, validation, obvious cases.

Reachable states come from the game simulator (``service.core.game``) played by a mix of random
and greedy moves under several rule presets. Legality and outs are checked against references
written here from the rules, not against the engine's own helpers.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import math
import random
import re
from collections.abc import Iterator
from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from service.core import hints as engine
from service.core.cards import (
    ALL_CARDS,
    Card,
    Hand,
    card_bit,
    card_value,
    format_card,
    format_hand,
    hand_cards,
    hand_from_cards,
    parse_card,
    parse_hand,
)
from service.core.errors import GinError
from service.core.game import HandOutcome, IllegalMoveError, Table
from service.core.hints import (
    DEFAULT_CONFIG,
    MIN_LAST_DRAWS,
    MIN_SAMPLES,
    Action,
    ActionType,
    Alternative,
    EngineConfig,
    GameState,
    Hint,
    HintStateError,
    Phase,
    TimeBudget,
    check_state,
    deadwood_worth,
    hint,
    legal_actions,
    meld_completions,
    meld_partners,
    meld_reach,
    model_opponent,
    opponent_stock_draws,
    resample,
    stock_end_offer,
    unmatched_above,
    upcard_refused,
)
from service.core.knocks import may_double
from service.core.layoffs import best_defence
from service.core.melds import Arrangement, find_melds, min_deadwood, optimal_arrangements
from service.core.rules import Rules, StockEndDiscard, resolve_rules
from service.core.scoring import knock_outcome, outcome_points, score_round

from . import reference as ref
from .hands import reference_limit

# The presets that differ in play, the eleven-card deal (no upcard) with and without the pile card thrown
# straight back, and the stock-end discard offered to knock with, GRA or not (a stock end of 6 ends more random
# hands there).
RULE_SETS = (*(resolve_rules(p) for p in ("standard", "online", "gra", "oklahoma")),
             resolve_rules("standard", {"eleven_card_deal": True}), resolve_rules("gra", {"eleven_card_deal": True}),
             resolve_rules("standard", {"stock_end_discard": "take_to_knock"}),
             resolve_rules("online", {"stock_end_discard": "take_to_knock_any", "stock_end": 6}),
             resolve_rules("gra", {"stock_end_discard": "take_to_knock", "stock_end": 6}))
PLAIN_FIRST_TURN = resolve_rules("standard", {"first_turn": "plain"})
"""The upcard taken or not like any pile card (STATES ends with hands played under it)."""
FAST = EngineConfig(samples=8)


def cards(text: str) -> tuple[Card, ...]:
    """Cards from space-separated text, in order."""
    return tuple(parse_card(t) for t in text.split())


def is_legal(state: GameState, rules: Rules, action: Action) -> bool:
    """Legality of a move, from the rules, independently of ``legal_actions``."""
    hand = hand_from_cards(state.hand)
    if state.phase == "first_upcard":
        return action in (Action("take_upcard"), Action("pass"))
    # The pile's top card taken only to knock or go gin: the discard that left the stock at its end, offered to
    # the other player, or (GRA) a card thrown straight back to the player who first discarded it.
    offered = rules.stock_end_discard != "draw" and state.stock_count == rules.stock_end
    returned = state.returned_discard and rules.discard_pickup_allowed
    if state.phase == "draw" and (offered or returned):
        top = state.discard_pile[-1]
        after = replace(state, hand=(*state.hand, top), phase="discard", discard_pile=state.discard_pile[:-1],
                        drawn_from_discard=top)
        can_finish = any(is_legal(after, rules, move) for move in every_move(after))
        other = Action("pass") if offered else Action("draw_stock")
        return action == other or (action == Action("take_upcard") and can_finish)
    offered = offered and state.drawn_from_discard is not None
    only_to_knock = offered or (returned and state.drawn_from_discard is not None)
    if state.phase == "draw":
        # Both passed the first upcard: it stays, and nobody has discarded yet (on a plain first turn nobody passes).
        refused = (rules.first_turn == "upcard_offer" and state.stock_count == 31
                   and state.discard_pile == (state.upcard,) and not state.opponent_discards)
        return action == Action("draw_stock") or (action == Action("take_upcard") and not refused)
    if action.type == "big_gin":
        return action.card is None and rules.big_gin_bonus is not None and min_deadwood(hand) == 0
    card = action.card
    if card is None or not hand >> card & 1:
        return False
    # Taken at the stock end, the card may be the knock's discard only in Game Colony's form, GRA or not.
    any_discard = rules.stock_end_discard == "take_to_knock_any" if offered else rules.discard_pickup_allowed
    if card == state.drawn_from_discard and not any_discard:
        return False
    rest = min_deadwood(hand & ~card_bit(card))
    if action.type == "discard":
        return not only_to_knock
    if action.type == "gin":
        return rest == 0
    return action.type == "knock" and 0 < rest <= reference_limit(rules, state.upcard)


def every_move(state: GameState) -> Iterator[Action]:
    """Every move of every type with every card (most of them illegal)."""
    yield from (Action("take_upcard"), Action("pass"), Action("draw_stock"), Action("big_gin"))
    for kind in ("discard", "knock", "gin"):
        for card in ALL_CARDS:
            yield Action(kind, card)


def reachable_states(count: int, seed: int, near_the_end: bool = False,
                     rule_sets: tuple[Rules, ...] = RULE_SETS) -> Iterator[tuple[GameState, Rules]]:
    """States met while playing hands with a mix of random and greedy moves, under each of ``rule_sets`` in turn;
    ``near_the_end``: only those within three cards of the stock's end, from hands that seldom knock."""
    rng = random.Random(seed)
    found = 0
    for game in itertools.count():
        if found == count:
            return
        rules = rule_sets[game % len(rule_sets)]
        table = Table.shuffled(rules, rng, dealer=rng.randrange(2))
        for _ in range(100 if near_the_end else 30):
            if table.over or found == count:
                break
            state = table.view()
            if not near_the_end or state.stock_count - rules.stock_end <= 3:
                yield state, rules
                found += 1
            moves = table.legal_actions()
            knocks = [m for m in moves if m.type in ("knock", "gin", "big_gin")]
            if knocks and rng.random() < (0.1 if near_the_end else 0.5):
                table.play(rng.choice(knocks))
            elif (discards := [m for m in moves if m.type == "discard"]) and rng.random() < 0.7:
                hand = hand_from_cards(state.hand)
                table.play(min(discards, key=lambda m: min_deadwood(hand & ~card_bit(m.card or 0))))
            else:
                table.play(rng.choice(moves))


STATES = [*reachable_states(160, seed=11), *reachable_states(30, seed=11, rule_sets=(PLAIN_FIRST_TURN,))]
LATE_STATES = list(reachable_states(150, seed=12, near_the_end=True))


SUIT_PERMUTATIONS = list(itertools.permutations(range(4)))
CARD_LISTS = re.compile(r"\b[A2-9TJQK][shdc](?: [A2-9TJQK][shdc])*(?:, [A2-9TJQK][shdc](?: [A2-9TJQK][shdc])*)*\b")
"""Cards in a reason: one, a meld ("7s 7h 7d"), or melds ("As 2s 3s, 7h 7d 7c")."""


def suits_renamed(card: Card | None, into: tuple[int, ...]) -> Card | None:
    return None if card is None else into[card >> 4] * 16 + (card & 15)


def state_renamed(state: GameState, into: tuple[int, ...]) -> GameState:
    """``state`` with suit ``s`` called ``into[s]``."""
    def each(listed: tuple[Card, ...]) -> tuple[Card, ...]:
        return tuple(into[card >> 4] * 16 + (card & 15) for card in listed)
    return replace(state, hand=each(state.hand), upcard=suits_renamed(state.upcard, into),
                   discard_pile=each(state.discard_pile), opponent_hand_known=each(state.opponent_hand_known),
                   opponent_discards=each(state.opponent_discards),
                   drawn_from_discard=suits_renamed(state.drawn_from_discard, into))


def hint_said(advice: Hint, into: tuple[int, ...]) -> tuple[object, ...]:
    """Everything ``advice`` says with suit ``s`` called ``into[s]``, each set of cards (outs, melds, the cards
    in a reason's meld) as a set, since their order follows the suits' names."""
    def name(card: Card | None) -> Card | None:
        return suits_renamed(card, into)

    def cards_of(hand: Hand) -> frozenset[Card | None]:
        return frozenset(map(name, hand_cards(hand)))

    def laid(layout: Arrangement | None) -> object:
        return None if layout is None else (frozenset(map(cards_of, layout.melds)), cards_of(layout.deadwood_cards))

    def listed(match: re.Match[str]) -> str:
        melds = [" ".join(sorted(format_card(name(parse_card(c)) or 0) for c in meld.split())) for meld in
                 match[0].split(", ")]
        return ", ".join(sorted(melds))

    alternatives = tuple((a.action.type, name(a.action.card), a.evaluation, a.unit, a.deadwood, a.expected_points,
                          a.undercut_risk, frozenset(map(name, a.outs)), a.safety, name(a.then_discard), laid(a.layout))
                         for a in advice.alternatives)
    return (advice.action.type, name(advice.action.card), alternatives, advice.close_call,
            CARD_LISTS.sub(listed, advice.reason), laid(advice.layout), advice.samples, advice.effective_samples,
            advice.knock_limit, advice.time_budget_reached)


def suit_symmetries(state: GameState) -> list[tuple[int, ...]]:
    """The renamings of the suits that leave ``state`` as it is (the cards held in any order)."""
    def seen(s: GameState) -> tuple[object, ...]:
        return (frozenset(s.hand), frozenset(s.opponent_hand_known), s.upcard, s.discard_pile, s.opponent_discards,
                s.drawn_from_discard)
    return [into for into in SUIT_PERMUTATIONS if seen(state_renamed(state, into)) == seen(state)]


@given(st.sampled_from([*STATES, *LATE_STATES]), st.sampled_from(SUIT_PERMUTATIONS))
def test_renaming_the_suits_renames_the_hint(situation_and_rules: tuple[GameState, Rules],
                                             into: tuple[int, ...]) -> None:
    """The suits are alike (but for Oklahoma's spade upcard, which doubles the score), so a state with its suits
    renamed gets the same hint with its cards renamed: the engine samples and breaks ties in a frame named by the
    cards' roles. Where some renaming leaves the state as it is, the hint may name either of the suits it swaps."""
    state, rules = situation_and_rules
    if may_double(rules):  # spades keep their name, the others keep the order of their new names
        into = (0, *(1 + sorted(into[1:]).index(suit) for suit in into[1:]))
    renamed_advice = hint(state_renamed(state, into), rules, seed=4)
    advice = hint(state, rules, seed=4)
    assert any(hint_said(renamed_advice, tuple(range(4))) == hint_said(advice, tuple(into[s] for s in symmetry))
               for symmetry in suit_symmetries(state))
    model, renamed_model = model_opponent(state, rules, seed=4), model_opponent(state_renamed(state, into), rules, 4)
    assert {suits_renamed(card, into): chance for card, chance in model.meld_chance.items()} == \
        renamed_model.meld_chance or len(suit_symmetries(state)) > 1


def test_a_reason_lists_the_melds_in_the_layouts_order() -> None:
    """A review of the suits' renaming: the reason listed the melds in the order of the renamed suits ("keeps
    7c 8c 9c, 7s 7h 7d" beside the layout's 7s 7h 7d, 7c 8c 9c)."""
    state = GameState(cards("7s 7h 7d 7c 8c 9c As 3s Kd Qh Th"), "discard", parse_card("5d"), cards("5d 2d 4h"), 28,
                      (), cards("4h"))
    listed = []
    for situation_, rules in [(state, Rules()), *STATES, *LATE_STATES]:
        advice = hint(situation_, rules, seed=1, config=FAST)
        melds = ", ".join(" ".join(format_hand(meld)) for meld in advice.layout.melds)
        if any(word in advice.reason for word in ("keeps ", "keeping ", "lay out ")) and len(advice.layout.melds) > 1:
            assert f"{melds} with" in advice.reason or f"{melds}:" in advice.reason or f"{melds};" in advice.reason, \
                (advice.reason, melds)
            listed.append(melds)
    assert listed[0] == "7s 7h 7d, 7c 8c 9c" and len(listed) > 5

def test_reachable_states_cover_every_phase_and_preset() -> None:
    assert {s.phase for s, _ in STATES} == {"first_upcard", "draw", "discard"}
    assert any(s.drawn_from_discard is not None for s, _ in STATES)
    assert any(r.oklahoma for _, r in STATES) and any(r.discard_pickup_allowed for _, r in STATES)
    assert any(r.first_turn == "plain" and s.stock_count == 31 and len(s.discard_pile) == 1 for s, r in STATES)
    first_discards = [s for s, r in STATES if r.eleven_card_deal and s.stock_count == 31 and not s.discard_pile]
    assert first_discards and all(s.phase == "discard" and len(s.hand) == 11 for s in first_discards)
    one_draw_left = [(s, r) for s, r in LATE_STATES if s.phase == "discard" and 2 <= s.stock_count - r.stock_end <= 3]
    assert any(a.type == "knock" for s, r in one_draw_left for a in legal_actions(s, r))


@pytest.mark.parametrize("index", range(0, len(STATES), 4))
def test_legal_actions_match_the_rules(index: int) -> None:
    state, rules = STATES[index]
    listed = legal_actions(state, rules)
    assert len(set(listed)) == len(listed)
    assert set(listed) == {a for a in every_move(state) if is_legal(state, rules, a)}


@pytest.mark.parametrize("index", range(len(STATES + LATE_STATES)))
def test_advice_is_always_legal(index: int) -> None:
    state, rules = (STATES + LATE_STATES)[index]
    advice = hint(state, rules, seed=index, config=FAST)
    assert is_legal(state, rules, advice.action)
    assert advice.alternatives[0].action == advice.action
    assert all(is_legal(state, rules, a.action) for a in advice.alternatives)
    assert advice.reason
    hand = hand_from_cards(state.hand)
    if state.phase == "discard" and any(min_deadwood(hand & ~card_bit(c)) == 0 for c in state.hand
                                        if c != state.drawn_from_discard or rules.discard_pickup_allowed):
        assert advice.action.type in ("gin", "big_gin")
    kept = _kept_after(state, advice)
    layout = advice.layout
    assert layout.hand == kept and all(layout.deadwood_cards & meld == 0 for meld in layout.melds)
    assert frozenset(ref.from_bits(meld) for meld in layout.melds) in ref.optimal_arrangements(ref.from_bits(kept))


def _kept_after(state: GameState, advice: Hint) -> Hand:
    """The cards the advised move keeps: the hand less the discard, with the taken card less the take's planned
    discard, or the hand as it is (a stock draw, a pass, big gin)."""
    hand = hand_from_cards(state.hand)
    action = advice.action
    if action.type == "take_upcard":
        top = state.discard_pile[-1] if state.discard_pile else state.upcard
        assert top is not None
        then = advice.alternatives[0].then_discard
        return (hand | card_bit(top)) & ~(0 if then is None else card_bit(then))
    return hand & ~(0 if action.card is None else card_bit(action.card))


def reference_outs(kept: Hand, unseen: list[Card]) -> set[Card]:
    """The unseen cards that, drawn, lower the least deadwood of ``kept`` after the best discard, or form a
    meld with two or more of its cards (every meld of the eleven cards, by the brute-force reference)."""
    base = min_deadwood(kept)
    lowering = {x for x in unseen
                if min(min_deadwood((kept | card_bit(x)) & ~card_bit(d)) for d in ALL_CARDS if kept >> d & 1) < base}
    melding = {x for x in unseen if any(ref.from_bits(card_bit(x)) <= meld
                                        for meld in ref.melds(ref.from_bits(kept | card_bit(x))))}
    return lowering | melding


@pytest.mark.parametrize("index", [i for i, (s, _) in enumerate(STATES) if s.phase == "discard"][::5])
def test_outs_and_safety_of_each_discard(index: int) -> None:
    state, rules = STATES[index]
    advice = hint(state, rules, seed=1, config=FAST)
    unseen = [c for c in ALL_CARDS if c not in state.hand + state.discard_pile + state.opponent_hand_known]
    for alternative in advice.alternatives:
        if alternative.action.type != "discard":
            continue
        assert alternative.action.card is not None
        kept = hand_from_cards(state.hand) & ~card_bit(alternative.action.card)
        assert set(alternative.outs) == reference_outs(kept, unseen)
        assert alternative.deadwood == min_deadwood(kept)
        assert alternative.safety is not None and 0 <= alternative.safety <= 1 + 1e-9


def test_a_knock_has_the_outs_and_safety_of_its_discard() -> None:
    """A knock's outs are those of the ten cards it keeps, and its safety is its discard's, as for the
    same card discarded without knocking (the README's example: 7c just taken, knocks with 9h or 5c)."""
    state = GameState(hand=cards("As 2s 3s 7h 7d 7c Kd Qd Jd 5c 9h"), phase="discard", upcard=parse_card("4d"),
                      discard_pile=cards("4d Tc"), stock_count=29, opponent_discards=cards("7c"),
                      drawn_from_discard=parse_card("7c"))
    unseen = [c for c in ALL_CARDS if c not in state.hand + state.discard_pile]
    alternatives = {a.action: a for a in hint(state, Rules(), config=FAST).alternatives}
    knocks = [a for a in alternatives.values() if a.action.type == "knock"]
    assert {a.action.card for a in knocks} == set(cards("9h 5c"))
    for knock in knocks:
        assert knock.action.card is not None and knock.safety is not None
        kept = hand_from_cards(state.hand) & ~card_bit(knock.action.card)
        assert set(knock.outs) == reference_outs(kept, unseen) != set()
        assert knock.safety == alternatives[Action("discard", knock.action.card)].safety


def least_after_draw(hand: Hand, card: Card) -> int:
    """Reference: the least deadwood of ``hand`` plus ``card`` after the best discard."""
    drawn = hand | card_bit(card)
    return min(min_deadwood(drawn & ~card_bit(d)) for d in ALL_CARDS if drawn >> d & 1)


def worth(deadwood: int, limit: int, config: EngineConfig = DEFAULT_CONFIG) -> float:
    """Reference: the worth of a least deadwood, added up point by point (by default each point up to the
    knock limit counts 2, each above 30 or the limit 0.5, the rest 1), less what the limit's points count
    beyond themselves, so that a deadwood at the limit is worth itself."""
    low, high, high_from = config.knock_range_slope, config.high_deadwood_slope, config.high_deadwood_from
    return sum(low if point <= limit else 1.0 if point <= max(high_from, limit) else high
               for point in range(1, deadwood + 1)) - (low - 1) * limit


@pytest.mark.parametrize("config", [
    DEFAULT_CONFIG,
    dataclasses.replace(DEFAULT_CONFIG, knock_range_slope=1.5, high_deadwood_from=5, high_deadwood_slope=0.25),
], ids=["default", "high deadwood from below the limit"])
def test_the_worth_of_a_deadwood_adds_up_its_points(config: EngineConfig) -> None:
    for limit in range(11):
        for deadwood in range(101):
            assert deadwood_worth(deadwood, limit, config) == pytest.approx(worth(deadwood, limit, config))


def one_draw(hand: Hand, unseen: list[Card], limit: int | None = None) -> float:
    """Reference: the mean least deadwood after drawing one of the unseen cards not in ``hand`` and
    discarding; with ``limit``, the mean of its worth under that knock limit."""
    draws = [c for c in unseen if not hand >> c & 1]
    after = [least_after_draw(hand, c) for c in draws]
    return sum(a if limit is None else worth(a, limit) for a in after) / len(draws)


def two_draws(hand: Hand, unseen: list[Card], limit: int | None = None) -> float:
    """Reference for the two-draw score, from its definition: after the first draw keep the better of
    throwing the card back and keeping it in place of the card whose removal leaves the least deadwood
    (highest rank first, then suit order: the engine's, ``_suit_frame``), if the drawn card melds or lowers the
    deadwood."""
    hold = one_draw(hand, unseen, limit)
    total = 0.0
    for card in unseen:
        drawn = hand | card_bit(card)
        melds = any(m >> card & 1 for m in find_melds(drawn))
        if melds or least_after_draw(hand, card) < min_deadwood(hand):
            out = min((d for d in ALL_CARDS if drawn >> d & 1),
                      key=lambda d: (min_deadwood(drawn & ~card_bit(d)), -card_value(d), -(d & 15), d >> 4))
            if out != card:
                total += min(hold, one_draw(drawn & ~card_bit(out), unseen, limit))
                continue
        total += hold
    return total / len(unseen)


@pytest.mark.parametrize("plain", [False, True], ids=["worth", "plain deadwood"])
@pytest.mark.parametrize("index", [i for i, (s, _) in enumerate(STATES) if s.phase == "discard"][1::12])
def test_discards_are_scored_after_one_or_two_draws(index: int, plain: bool) -> None:
    # Without samples every unseen card is as likely to be drawn and nothing else is added to the score;
    # with every slope at 1 the worth of a deadwood is the deadwood itself.
    state, rules = STATES[index]
    frame = engine._suit_frame(state)  # the two-draw score breaks ties by suit, as the frame names them
    unseen = [frame.card(c) for c in ALL_CARDS if c not in state.hand + state.discard_pile + state.opponent_hand_known]
    hand = frame.hand(hand_from_cards(state.hand))
    limit = None if plain else reference_limit(rules, state.upcard)
    config = EngineConfig(samples=0)
    if plain:
        config = replace(config, knock_range_slope=1.0, high_deadwood_slope=1.0)
    for margin, reference in ((-1.0, one_draw), (100.0, two_draws)):
        advice = hint(state, rules, config=replace(config, second_draw_margin=margin))
        for alternative in advice.alternatives:
            if alternative.action.type == "discard":
                assert alternative.action.card is not None
                kept = hand & ~card_bit(frame.card(alternative.action.card))
                assert -alternative.evaluation == pytest.approx(reference(kept, unseen, limit))
                assert reference is one_draw or -alternative.evaluation <= one_draw(kept, unseen, limit) + 1e-9


def test_a_draw_is_scored_with_the_best_discard_after_it_even_an_ace() -> None:
    # Keeping all but Kh, a drawn 4d or 7d melds 5d 6d and leaves As alone unmatched: As goes, for no deadwood.
    state = situation(cards("As 5d 6d 3h 3s 3c 8c 9c Tc Jc Kh"), "discard", pile=5)
    unseen = [c for c in ALL_CARDS if c not in state.hand + state.discard_pile]
    hand = hand_from_cards(state.hand)
    advice = hint(state, Rules(), config=EngineConfig(samples=0, second_draw_margin=-1.0))
    limit = reference_limit(Rules(), state.upcard)
    for alternative in advice.alternatives:
        if alternative.action.type == "discard":
            assert alternative.action.card is not None
            kept = hand & ~card_bit(alternative.action.card)
            assert -alternative.evaluation == pytest.approx(one_draw(kept, unseen, limit))


@pytest.mark.parametrize(("index", "within"), [(41, 4), (111, 1)])
def test_only_discards_close_to_the_best_and_the_runner_up_are_scored_again(index: int, within: int) -> None:
    """The discards within the margin of the best one-draw score, and at least two, get the second look."""
    state, rules = STATES[index]
    one, default = (hint(state, rules, config=EngineConfig(samples=0, second_draw_margin=margin))
                    for margin in (-1.0, DEFAULT_CONFIG.second_draw_margin))
    ones = {a.action: a.evaluation for a in one.alternatives if a.action.type == "discard"}
    ranked_once = sorted(ones, key=lambda action: -ones[action])
    assert ones[ranked_once[1]] != ones[ranked_once[2]]  # the runner-up is not a tie to break
    cut = ones[ranked_once[0]] - DEFAULT_CONFIG.second_draw_margin
    close = {action for action, value in ones.items() if value >= cut}
    assert len(close) == within
    looked = close | set(ranked_once[:2])
    ranked = [a for a in default.alternatives if a.action.type == "discard"]
    assert {a.action for a in ranked[:len(looked)]} == looked  # scored again, and ranked first
    for alternative in ranked[:len(looked)]:
        assert alternative.evaluation > ones[alternative.action]  # a second draw only adds chances
    for alternative in ranked[len(looked):]:
        assert alternative.evaluation == ones[alternative.action]


def stopwatch(free_reads: int) -> TimeBudget:
    """A one-second budget whose clock reads 0 (the start and ``free_reads`` checks), then 10."""
    reads = itertools.chain([0.0] * (1 + free_reads), itertools.repeat(10.0))
    return TimeBudget(1.0, clock=lambda: next(reads))


def test_a_budget_that_is_not_reached_changes_nothing() -> None:
    for state, rules in STATES[::10]:
        budgeted = hint(state, rules, seed=3, budget=TimeBudget(60.0))
        assert budgeted == hint(state, rules, seed=3) and not budgeted.time_budget_reached


def test_a_spent_budget_keeps_the_first_samples_and_one_draw_scores() -> None:
    # Out of time from the first check on: the hint of MIN_SAMPLES samples (the same first draws of
    # the seeded sampler) with no second look at any discard.
    for state, rules in STATES[::10]:
        rushed = hint(state, rules, seed=3, budget=stopwatch(0))
        reduced = replace(DEFAULT_CONFIG, samples=MIN_SAMPLES, sample_pool=MIN_SAMPLES, second_draw_margin=-1.0)
        assert rushed == replace(hint(state, rules, seed=3, config=reduced), time_budget_reached=True)
        assert rushed.samples == MIN_SAMPLES


def test_a_budget_that_runs_out_after_the_last_check_is_still_reported() -> None:
    """In a draw phase the checks are all in the sampling; the time may run out in the scoring after it."""
    state, rules = next((s, r) for s, r in STATES if s.phase == "draw")
    config = replace(DEFAULT_CONFIG, samples=MIN_SAMPLES)  # no check of the clock while sampling
    late = hint(state, rules, seed=3, config=config, budget=stopwatch(0))
    assert late == replace(hint(state, rules, seed=3, config=config), time_budget_reached=True)


def test_a_spent_budget_values_the_last_draw_on_the_first_stock_cards_of_a_seeded_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On our last draw every stock card is valued by the best move after it; out of time, only the first
    ``MIN_LAST_DRAWS`` of a random order fixed by the seed are, and their mean stands for the stock's."""
    state = situation(cards("Ts Js As Ah Ac 7c 7h 7s 5h Kc"), "draw", pile=29)
    assert state.stock_count == Rules().stock_end + 1
    valued: list[tuple[Card, float]] = []
    best_last_turn = engine._best_last_turn

    def recording(context: engine._Context, hand: Hand, taken: Card | None, stock_count: int,
                  knock_only: bool = False) -> Alternative | None:
        move = best_last_turn(context, hand, taken, stock_count, knock_only)
        if taken is None:  # a stock draw
            assert move is not None
            valued.append((((hand & ~hand_from_cards(state.hand)).bit_length() - 1), move.evaluation))
        return move

    monkeypatch.setattr(engine, "_best_last_turn", recording)
    orders = []
    for seed in (3, 4):
        valued.clear()
        hint(state, Rules(), seed=seed)
        orders.append([card for card, _ in valued])
    assert sorted(orders[0]) == sorted(orders[1]) and orders[0] != orders[1]  # all of them, in another order
    assert len(orders[0]) > MIN_LAST_DRAWS
    valued.clear()
    rushed = hint(state, Rules(), seed=3, budget=stopwatch(0))
    assert rushed.time_budget_reached and [card for card, _ in valued] == orders[0][:MIN_LAST_DRAWS]
    stock = next(a for a in rushed.alternatives if a.action.type == "draw_stock")
    assert min(value for _, value in valued) <= stock.evaluation <= max(value for _, value in valued)


def test_a_budget_running_out_among_the_close_discards_stops_their_second_look_after_the_best_two() -> None:
    state, rules = next((s, r) for s, r in STATES[40:] if s.phase == "discard")
    config = EngineConfig(samples=0)  # no sampling: the first check of the clock is before a second look

    def discards(advice: Hint) -> list[Alternative]:
        return [a for a in advice.alternatives if a.action.type == "discard"]

    one_ranked = discards(hint(state, rules, config=replace(config, second_draw_margin=-1.0)))
    one = {a.action: a.evaluation for a in one_ranked}
    full = {a.action: a.evaluation for a in discards(hint(state, rules, config=config))}
    assert sum(full[action] != value for action, value in one.items()) > 2  # several get a second look
    none = hint(state, rules, config=config, budget=stopwatch(0))
    assert none.time_budget_reached
    assert [(a.action, a.evaluation) for a in discards(none)] == [(a.action, a.evaluation) for a in one_ranked]
    partial = hint(state, rules, config=config, budget=stopwatch(1))  # time for one look: the best two share it
    assert partial.time_budget_reached
    best_two, rest = discards(partial)[:2], discards(partial)[2:]
    assert {a.action for a in best_two} == {a.action for a in one_ranked[:2]}
    assert all(a.evaluation == full[a.action] != one[a.action] for a in best_two)
    assert [(a.action, a.evaluation) for a in rest] == [(a.action, a.evaluation) for a in one_ranked[2:]]


@settings(max_examples=60)  # each example plays a whole hand
@given(st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(RULE_SETS))
def test_every_state_met_in_random_play_is_accepted_with_the_moves_the_rules_allow(seed: int, rules: Rules) -> None:
    """The state checks (turn order included) never refuse a state that play reaches, and the moves
    allowed are those of ``is_legal``. Random play takes the pile's card half the time, so it meets
    an upcard taken and thrown back while the stock is still full."""
    rng = random.Random(seed)
    table = Table.shuffled(rules, rng, dealer=rng.randrange(2))
    while not table.over:
        state = table.view()
        moves = legal_actions(state, rules)
        assert set(moves) == {a for a in every_move(state) if is_legal(state, rules, a)}
        table.play(rng.choice(moves))


def test_same_state_and_seed_give_the_same_hint() -> None:
    for state, rules in STATES[::10]:
        assert hint(state, rules, seed=5) == hint(state, rules, seed=5)


@settings(max_examples=200)
@given(st.sets(st.sampled_from(ALL_CARDS), min_size=0, max_size=12), st.sampled_from(ALL_CARDS))
def test_meld_partners_are_the_cards_that_join_a_meld(held: set[Card], card: Card) -> None:
    hand = hand_from_cards(held) & ~card_bit(card)
    joins = any(m >> card & 1 for m in find_melds(hand | card_bit(card)))
    assert bool(meld_partners(hand) >> card & 1) == joins


@settings(max_examples=300)
@given(st.sets(st.sampled_from(ALL_CARDS), min_size=0, max_size=20), st.sampled_from(ALL_CARDS))
@example(set(cards("As 3s 4s 2h 2d")), parse_card("2s"))  # A 2 3, 2 3 4 and a set
@example(set(cards("6s 7s 8s 4s")), parse_card("5s"))  # 6 7 8 is beside 5s, not a meld with it
@example(set(cards("Js Qs 9s")), parse_card("Ks"))  # J Q K; no run goes past the king
def test_meld_completions_are_the_pairs_that_make_a_three_card_meld(held: set[Card], card: Card) -> None:
    hand = hand_from_cards(held) & ~card_bit(card)
    pairs = {pair for pair in itertools.combinations(sorted(held - {card}), 2)
             if hand_from_cards((card, *pair)) in find_melds(hand | card_bit(card))}
    found = meld_completions(card, hand)
    assert len(found) == len(set(found))
    assert set(found) == {hand_from_cards(pair) for pair in pairs}


@settings(max_examples=300)
@given(st.sets(st.sampled_from(ALL_CARDS), min_size=3, max_size=10), st.sampled_from(ALL_CARDS))
def test_a_card_melds_away_no_more_deadwood_than_its_reach(held: set[Card], card: Card) -> None:
    # The threat search skips draws on this bound, so it must never be too small.
    hand = hand_from_cards(held) & ~card_bit(card)
    assert min_deadwood(hand | card_bit(card)) >= min_deadwood(hand) - meld_reach(hand, card)


@pytest.mark.parametrize(
    ("held", "card", "reach"),
    [
        ("4h 5h 7h 8h 9h 6s 6d", "6h", 4 + 5 + 7 + 8 + 9),  # the stretch on both sides, worth more than the sixes
        ("6s 6d 6c 5h 8h Qh", "6h", 3 * 6),  # the sixes; the stretch is 5h alone (7h is missing)
        ("2s 3s 5s Ks", "As", 2 + 3),  # an ace has no lower neighbour
        ("As 3s 4s", "2s", 1 + 3 + 4),  # the stretch down to the ace
        ("Js Qs 9s 2h", "Ks", 10 + 10),  # nor a king a higher one
        ("2h 5d 9c", "7s", 0),
    ],
)
def test_meld_reach_is_the_run_through_the_card_or_its_rank(held: str, card: str, reach: int) -> None:
    assert meld_reach(hand_from_cards(cards(held)), parse_card(card)) == reach


@settings(max_examples=200)
@given(st.sets(st.sampled_from(ALL_CARDS), min_size=1, max_size=11), st.integers(min_value=0, max_value=10))
def test_unmatched_above_counts_cards_left_out_of_some_best_arrangement(held: set[Card], ceiling: int) -> None:
    hand = hand_from_cards(held)
    unmatched = {c for a in optimal_arrangements(hand) for c in ALL_CARDS if a.deadwood_cards >> c & 1}
    assert unmatched_above(hand, ceiling) == sum(card_value(c) > ceiling for c in unmatched)


@pytest.mark.parametrize("seed", range(3))
def test_a_low_last_discard_means_low_opponent_deadwood(seed: int) -> None:
    # A player throws its highest unmatched card: after 2c the opponent's deadwood is small, so a knock
    # is worth less; after Qc the ceiling says nothing (no card is worth more than 10).
    hand = cards("As 2s 3s 4h 5h 6h 7c 7d 7s 4d 5c")
    worth = {}
    for last in ("2c", "Qc"):
        state = GameState(hand, "discard", parse_card("Kd"), cards(f"Kd 8s 9c Jh {last}"), 26, (), cards(f"9c {last}"))
        for evidence in (1.0, DEFAULT_CONFIG.ceiling_evidence):
            config = replace(DEFAULT_CONFIG, ceiling_evidence=evidence, knock_margin=0.0)  # knock on any gain
            advice = hint(state, Rules(), seed=seed, config=config)
            assert advice.action == Action("knock", parse_card("5c"))
            worth[last, evidence] = advice.alternatives[0].expected_points or 0.0
    assert worth["2c", DEFAULT_CONFIG.ceiling_evidence] < worth["2c", 1.0] - 10
    assert worth["Qc", DEFAULT_CONFIG.ceiling_evidence] == worth["Qc", 1.0]


# --- validation ------------------------------------------------------------------------------

TEN = cards("As 2s 3s 7h 7d 7c Kd Qd Jd 5c")
DRAW = GameState(hand=TEN, phase="draw", upcard=parse_card("9h"), discard_pile=cards("9h 4c"),
                 stock_count=30, opponent_hand_known=(), opponent_discards=cards("4c"))


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"phase": "deal"}, "phase", "expected one of"),
        ({"hand": TEN[:9]}, "hand", "needs 10 cards"),
        ({"phase": "discard"}, "hand", "needs 11 cards"),
        ({"hand": (*TEN, parse_card("9c"))}, "hand", "the draw phase needs 10 cards in hand, got 11"),
        ({"hand": (*TEN[:9], TEN[0])}, "hand", "listed twice"),
        ({"hand": (*TEN[:9], 13)}, "hand", "not a card"),
        ({"hand": (*TEN[:9], True)}, "hand", "true is not a card"),
        ({"hand": (*TEN[:9], 4.0)}, "hand", "4.0 is not a card"),
        ({"discard_pile": cards("9h 4c As")}, "discard_pile", "also in hand"),
        ({"opponent_hand_known": cards("4c")}, "opponent_hand_known", "also in discard_pile"),
        ({"stock_count": 31}, "stock_count", "do not add up to 52: 10 in hand + 10 held by the opponent + 2 in the "
         "pile + 31 in the stock = 53"),
        ({"stock_count": -1}, "stock_count", "whole number"),
        ({"stock_count": True}, "stock_count", "expected a whole number of cards, got True"),
        ({"stock_count": 30.0}, "stock_count", "expected a whole number of cards, got 30.0"),
        ({"opponent_discards": cards("Ah")}, "opponent_discards", "Ah was discarded face up, so it must be in the "
         "pile"),
        ({"upcard": parse_card("Ah")}, "upcard", "must be in the pile"),
        ({"drawn_from_discard": parse_card("As")}, "drawn_from_discard", "only in the discard phase"),
        ({"phase": "first_upcard", "stock_count": 31, "discard_pile": cards("9h"), "opponent_discards": (),
          "drawn_from_discard": parse_card("As")}, "drawn_from_discard", "only in the discard phase"),
        ({"phase": "discard", "hand": (*TEN, parse_card("9c")), "stock_count": 29, "drawn_from_discard": 13},
         "drawn_from_discard", "13 is not a card"),
        ({"upcard": True}, "upcard", "true is not a card"),
        ({"phase": "first_upcard", "upcard": None, "discard_pile": ()}, "upcard",
         "needs the upcard (here or as the pile's one card)"),
        ({"phase": "first_upcard", "stock_count": 31}, "discard_pile", "only the upcard"),
        ({"opponent_hand_known": cards("2h 3h 4h 5h 6h 8h 9c Tc Jc Qc Kc"), "stock_count": 30},
         "opponent_hand_known", "10 cards"),
        ({"discard_pile": (), "upcard": None, "opponent_discards": (), "stock_count": 32}, "discard_pile",
         "at least the last discard"),
        ({"discard_pile": cards("4c 9h")}, "discard_pile", "4c, is on top of the pile until it is taken, but the "
         "pile (listed oldest first, so its top card last) ends with 9h"),
        # in the draw phase nothing has been taken this turn: the pile is at fault, not drawn_from_discard
        ({"discard_pile": cards("9h 4c"), "opponent_discards": cards("4c 7c"), "stock_count": 30}, "discard_pile",
         "the opponent's last discard, 7c, is on top of the pile until it is taken, but the pile (listed oldest "
         "first, so its top card last) ends with 4c"),
        # the opponent's last discard taken this turn, but not named as taken: the fault is the missing field
        ({"phase": "discard", "hand": (*TEN, parse_card("4c")), "discard_pile": cards("9h"), "stock_count": 30},
         "drawn_from_discard", "4c, the opponent's last discard, is in hand, so it was taken from the pile this "
         "turn: give it here"),
        # a taken card that is not in hand is named as such, before what the opponent threw is checked
        ({"phase": "discard", "hand": (*TEN, parse_card("9c")), "discard_pile": cards("9h"), "stock_count": 30,
          "drawn_from_discard": parse_card("4c")}, "drawn_from_discard", "4c is not in hand"),
        # after two discards the message names the last one, not the first
        ({"discard_pile": cards("9h 4c Ah"), "opponent_discards": cards("9h 4c"), "stock_count": 29}, "discard_pile",
         "last discard, 4c, is on top of the pile"),
        ({"phase": "first_upcard", "discard_pile": cards("9h"), "stock_count": 31, "opponent_discards": cards("9h")},
         "opponent_discards", "before the first upcard"),
        ({"phase": "discard", "hand": (*TEN, parse_card("9h")), "discard_pile": (), "opponent_discards": (),
          "stock_count": 31}, "drawn_from_discard", "taken from the pile: name it here"),
        # no upcard either: the shape of an eleven-card deal's first turn, which the message points to
        ({"phase": "discard", "hand": (*TEN, parse_card("9h")), "upcard": None, "discard_pile": (),
          "opponent_discards": (), "stock_count": 31}, "drawn_from_discard",
         "name it here (or, if the deal gave you 11 cards and turned no card up, set the rule eleven_card_deal)"),
        ({"phase": "discard", "hand": (*TEN, parse_card("8c")), "stock_count": 29,
          "drawn_from_discard": parse_card("8c")}, "drawn_from_discard", "was 4c (the opponent's last discard)"),
        ({"phase": "discard", "hand": (*TEN, parse_card("9c")), "stock_count": 29,
          "drawn_from_discard": parse_card("4c")}, "drawn_from_discard", "4c is not in hand"),  # still on the pile
        ({"phase": "discard", "hand": (*TEN, parse_card("9h")), "discard_pile": (), "opponent_discards": (),
          "stock_count": 31, "drawn_from_discard": parse_card("As")}, "drawn_from_discard", "was 9h (the upcard)"),
        # the opponent has had one turn (4c): one card taken from the pile at most, one discard of ours
        ({"opponent_hand_known": cards("2h 3h")}, "opponent_hand_known",
         "2 cards taken from the pile, but the opponent has had 1 turn (one a discard)"),
        ({"discard_pile": cards("9h 2c 3c 4c"), "stock_count": 28}, "discard_pile",
         "2 cards in the pile or taken from it were neither the upcard nor the opponent's discards"),
        # the pile alone holds as many of our discards as we had turns: the card known in its hand tips it over
        ({"discard_pile": cards("9h 3c 4c"), "opponent_hand_known": cards("2h"), "stock_count": 29},
         "opponent_hand_known", "so you would have discarded 2h too: 2 discards of yours in all, but you have had at "
         "most as many turns as the opponent, 1"),
        # after the first turn the opponent has always discarded: 4c on the pile, or the upcard it took
        ({"opponent_discards": ()}, "opponent_discards", "has discarded since the hand began"),
        ({"discard_pile": cards("4c"), "opponent_hand_known": cards("9h"), "opponent_discards": (),
          "stock_count": 31}, "opponent_discards", "has discarded since the hand began"),
        ({"phase": "discard", "hand": (*TEN, parse_card("9c")), "stock_count": 29, "opponent_discards": ()},
         "opponent_discards", "has discarded since the hand began"),
        # one stock draw, but the pile's card is not the upcard: the opponent took 9h and threw 4c
        ({"phase": "discard", "hand": (*TEN, parse_card("9c")), "discard_pile": cards("4c"),
          "opponent_hand_known": cards("9h"), "opponent_discards": (), "stock_count": 30},
         "opponent_discards", "has discarded since the hand began"),
        # the upcard 9h taken with a card under it and a stock draw made: not the first turn
        ({"phase": "discard", "hand": (*TEN, parse_card("9h")), "discard_pile": cards("4c"), "opponent_discards": (),
          "stock_count": 30, "drawn_from_discard": parse_card("9h")}, "opponent_discards",
         "has discarded since the hand began"),
    ],
)
def test_impossible_states_name_the_field(changes: dict[str, object], field: str, words: str) -> None:
    with pytest.raises(HintStateError) as error:
        hint(replace(DRAW, **changes), Rules())  # type: ignore[arg-type]
    assert error.value.field == field
    assert words in error.value.message


def test_a_card_that_is_no_card_is_pointed_at_where_it_is_listed() -> None:
    with pytest.raises(HintStateError) as error:
        hint(replace(DRAW, hand=(*TEN[:9], 13)), Rules())
    assert (error.value.field, error.value.index) == ("hand", 9)


def test_a_discard_never_seen_is_pointed_at_where_it_is_listed() -> None:
    with pytest.raises(HintStateError) as error:
        hint(replace(DRAW, opponent_discards=cards("Kh 2h 4c")), Rules())
    assert (error.value.field, error.value.index) == ("opponent_discards", 0)
    assert error.value.message == ("Kh was discarded face up, so it must be in the pile, in hand or among the "
                                   "opponent's known cards")


def test_our_own_discard_taken_by_the_opponent_is_a_possible_state() -> None:
    """We threw 2h, the opponent took it and threw 4c: one turn each."""
    state = replace(DRAW, opponent_hand_known=cards("2h"))
    assert hint(state, Rules(), config=FAST).action.type in ("take_upcard", "draw_stock")


@pytest.mark.parametrize(
    ("revealed", "words"),
    [
        (cards("As"), "As is in hand"),
        (cards("4c"), "4c is in discard_pile"),
        (cards("2h 3h 4h 5h 6h 8h 9c Tc Jc Qc Kc"), "holds 10 cards, got 11 known"),
    ],
)
def test_revealed_cards_must_be_in_the_opponents_hand(revealed: tuple[Card, ...], words: str) -> None:
    with pytest.raises(HintStateError, match=words) as error:
        hint(DRAW, Rules(), config=FAST, revealed=hand_from_cards(revealed))
    assert error.value.field == "revealed"
    with pytest.raises(HintStateError, match="expected a hand of cards as a bitmask"):
        hint(DRAW, Rules(), config=FAST, revealed=-1)


def test_oklahoma_needs_the_upcard_and_a_live_stock() -> None:
    with pytest.raises(HintStateError, match="Oklahoma") as error:
        check_state(replace(DRAW, upcard=None), resolve_rules("oklahoma"))
    assert error.value.field == "upcard"
    late = situation(TEN, "draw", pile=30)
    assert late.stock_count == 2
    with pytest.raises(HintStateError, match="already over") as error:
        check_state(late, Rules())
    assert error.value.field == "stock_count"


def test_a_state_without_the_upcard_is_accepted_outside_oklahoma() -> None:
    """The upcard is optional: only Oklahoma, whose knock limit it sets, needs it."""
    state = replace(DRAW, upcard=None)
    assert legal_actions(state, Rules()) == [Action("take_upcard"), Action("draw_stock")]


def test_the_first_upcard_may_be_given_as_the_piles_one_card() -> None:
    """In the first_upcard phase the pile's one card is the upcard: naming it again is not needed."""
    given = GameState(hand=cards("As 2s 3s 4h 5h Kc Qd Jh 9d 8s"), phase="first_upcard", upcard=parse_card("6h"),
                      discard_pile=cards("6h"), stock_count=31)
    assert hint(replace(given, upcard=None), Rules()) == hint(given, Rules())
    with pytest.raises(HintStateError, match="Oklahoma rules need the first upcard"):
        hint(replace(given, upcard=None), resolve_rules("oklahoma"))


def test_a_card_taken_on_the_first_turn_stands_when_the_upcard_is_not_given() -> None:
    """Without the upcard nothing says which card was on top, so the card named as taken is accepted."""
    taken = parse_card("9h")
    state = GameState(hand=(*TEN, taken), phase="discard", upcard=None, discard_pile=(), stock_count=31,
                      opponent_hand_known=(), opponent_discards=(), drawn_from_discard=taken)
    discards = {a.card for a in legal_actions(state, Rules()) if a.type == "discard"}
    assert discards == set(TEN)  # every card but the one just taken


def test_an_empty_stock_is_a_hand_already_over_not_a_bad_count() -> None:
    empty = situation(TEN, "draw", pile=32)
    assert empty.stock_count == 0
    with pytest.raises(HintStateError, match="with 0 cards left the hand is already over") as error:
        check_state(empty, Rules())
    assert error.value.field == "stock_count"
    with pytest.raises(HintStateError, match="with 1 card left the hand is already over"):
        check_state(situation(TEN, "draw", pile=31), Rules())


def test_an_upcard_taken_and_discarded_again_may_be_taken() -> None:
    """The pile holds just the upcard and the stock is full, but the opponent took the upcard and
    threw it back later: it is not the refused first upcard, and here it makes gin."""
    state = GameState(hand=cards("9h 9d 2c 3c 4c 5h 6h 7h 8h Kd"), phase="draw", upcard=parse_card("9s"),
                      discard_pile=cards("9s"), stock_count=31, opponent_hand_known=cards("Jc"),
                      opponent_discards=cards("Kd 9s"))
    assert Action("take_upcard") in legal_actions(state, Rules())
    assert hint(state, Rules(), config=FAST).action == Action("take_upcard")
    refused = replace(state, hand=cards("9h 9d 2c 3c 4c 5h 6h 7h 8h Jc"), opponent_hand_known=(), opponent_discards=())
    assert legal_actions(refused, Rules()) == [Action("draw_stock")]


def test_the_first_upcard_is_refused_only_once_both_players_passed_it() -> None:
    """``upcard_refused`` (the self-play baseline asks it in every draw decision): in the first_upcard
    phase the upcard may still be taken; in the draw phase with it alone on the pile both passed it."""
    first = GameState(hand=cards("As 2s 3s 4h 5h Kc Qd Jh 9d 8s"), phase="first_upcard", upcard=parse_card("6h"),
                      discard_pile=cards("6h"), stock_count=31)
    assert not upcard_refused(first, Rules())
    assert upcard_refused(replace(first, phase="draw"), Rules())
    assert not upcard_refused(replace(first, phase="draw"), PLAIN_FIRST_TURN)  # nobody was offered it


def test_the_opponent_draws_from_the_stock_no_more_than_has_left_it() -> None:
    """It discarded twice and holds one pile take (Jc), but nothing has left the stock: its other
    discard (9s, the upcard thrown back) followed a pile take too, not a stock draw."""
    state = GameState(hand=cards("9h 9d 2c 3c 4c 5h 6h 7h 8h Kd"), phase="draw", upcard=parse_card("9s"),
                      discard_pile=cards("9s"), stock_count=31, opponent_hand_known=cards("Jc"),
                      opponent_discards=cards("Kd 9s"))
    assert opponent_stock_draws(state) == 0
    assert opponent_stock_draws(replace(state, stock_count=29)) == 1


def test_a_drawn_card_must_be_in_hand() -> None:
    state = replace(DRAW, phase="discard", hand=TEN + cards("4c"), discard_pile=cards("9h"),
                    drawn_from_discard=parse_card("8c"))
    with pytest.raises(HintStateError) as error:
        hint(state, Rules())
    assert error.value.field == "drawn_from_discard"


# --- obvious cases ---------------------------------------------------------------------------


def situation(hand: tuple[Card, ...], phase: Phase, pile: int, upcard: Card | None = None,
              opponent_hand_known: tuple[Card, ...] = (), opponent_discards: tuple[Card, ...] | None = None,
              drawn_from_discard: Card | None = None, held: tuple[Card, ...] = ()) -> GameState:
    """A state whose pile holds ``pile`` filler cards (the first one the upcard), with the stock to match;
    unless given, the opponent's discards are every other pile card from the top down to the upcard.
    The cards of ``opponent_hand_known`` and ``held`` (shown to the engine as ``revealed``) stay out of the pile."""
    used = set(hand) | set(opponent_hand_known) | set(held)
    order = cards("2c 3c 4c 5c 6c 2d 3d 4d 5d 6d 2h 3h 8d 9d Td Jd Qd Kd 8h 9h Th Jh Qh Kh 4s 5s 6s 8s 9s Ts Js "
                  "7d 8c") + ALL_CARDS
    face_up = tuple(c for c in dict.fromkeys(order) if c not in used)[:pile]
    if upcard is None:
        upcard = face_up[0]
    stock_count = 52 - 10 - len(hand) - len(face_up)
    if opponent_discards is None:
        opponent_discards = face_up[1 + len(face_up) % 2::2]
    return GameState(hand, phase, upcard, face_up, stock_count, opponent_hand_known, opponent_discards,
                     drawn_from_discard)


@pytest.mark.parametrize(("offer", "ending"), [
    ("draw", " The hand ends as a draw after this discard."),
    ("take_to_knock", " After this discard the opponent may take it only to knock; else the hand is a draw."),
])
def test_without_samples_the_discard_that_leaves_the_stocks_end_says_what_follows(offer: str, ending: str) -> None:
    """Without samples the last turn is not valued, but the reason still says how the hand goes on."""
    state = situation(cards("As 3s 5s 7h 9h Jd Kd 2c 4c 6c 8d"), "discard", pile=29)  # no meld, no knock
    assert state.stock_count == Rules().stock_end
    advice = hint(state, Rules(stock_end_discard=offer), config=EngineConfig(samples=0))  # type: ignore[arg-type]
    assert advice.action.type == "discard" and advice.reason.endswith(ending), advice.reason


def test_all_ten_of_the_opponents_cards_may_be_known() -> None:
    """The opponent took the upcard and each of our nine discards, throwing one card a turn: the state is
    possible, and all its ten cards are known (none can be sampled)."""
    thrown = cards("7s Js Jh 4d 8d Ac 4c 6c 8c 9c")
    state = GameState(hand=cards("4h Th Qh Ad 5d 9d Td Qd 3c 7c"), phase="draw", upcard=parse_card("As"),
                      discard_pile=thrown, stock_count=22,
                      opponent_hand_known=cards("As 2s 3s 4s 6s 8s 9s Ks Ah 3h"), opponent_discards=thrown)
    assert legal_actions(state, Rules()) == [Action("take_upcard"), Action("draw_stock")]
    assert is_legal(state, Rules(), hint(state, Rules(), config=FAST).action)
    eleventh = replace(state, opponent_hand_known=(*state.opponent_hand_known, parse_card("5s")))
    with pytest.raises(HintStateError, match="the opponent holds 10 cards, got 11 known"):
        legal_actions(eleventh, Rules())


def test_takes_an_upcard_that_completes_a_meld() -> None:
    state = GameState(hand=cards("As 2s 3s 4h 5h Kc Qd Jh 9d 8s"), phase="first_upcard", upcard=parse_card("6h"),
                      discard_pile=cards("6h"), stock_count=31)
    advice = hint(state, Rules())
    assert advice.action == Action("take_upcard")
    then = advice.alternatives[0].then_discard
    assert then is not None and then in cards("Kc Qd Jh")
    # Kept: As 2s 3s, 4h 5h 6h and two of Kc Qd Jh with 9d 8s unmatched.
    assert advice.alternatives[0].deadwood == 10 + 10 + 9 + 8
    assert advice.reason.startswith(f"Take 6h and discard {format_card(then)}: 37 deadwood, evaluated ")
    assert advice.reason.endswith(" for passing, valued as a draw from the stock (higher is better).")  # not
    # "from the stock": the other move is a pass


def test_passes_an_upcard_that_helps_nothing() -> None:
    state = GameState(hand=cards("As 2s 3s 4h 5h 6h 7c 8d 9s Jd"), phase="first_upcard", upcard=parse_card("Kc"),
                      discard_pile=cards("Kc"), stock_count=31)
    advice = hint(state, Rules())
    assert advice.action == Action("pass") and advice.reason.startswith("Pass: Kc does not help enough (evaluated ")
    assert advice.reason.endswith(" for passing, valued as a draw from the stock; higher is better).")


def test_draws_from_the_stock_when_the_pile_card_helps_nothing() -> None:
    state = GameState(hand=cards("As 2s 3s 4h 5h 6h 7c 8d 9s Jd"), phase="draw", upcard=parse_card("2c"),
                      discard_pile=cards("2c Kc"), stock_count=30, opponent_discards=cards("Kc"))
    advice = hint(state, Rules())
    assert advice.action == Action("draw_stock")
    take, stock = (next(a for a in advice.alternatives if a.action.type == kind) for kind in ("take_upcard",
                                                                                               "draw_stock"))
    assert stock.evaluation > take.evaluation  # the reason quotes the alternatives' evaluations, higher better
    assert advice.reason == (f"Draw from the stock: Kc does not help enough (evaluated {take.evaluation:+.1f} after "
                             f"taking it, {stock.evaluation:+.1f} from the stock; higher is better).")


@pytest.mark.parametrize("samples", [0, DEFAULT_CONFIG.samples])
@pytest.mark.parametrize("big_gin", [True, False])
def test_takes_an_upcard_that_allows_gin_at_once(samples: int, big_gin: bool) -> None:
    """Gin is always taken, also with the opponent model off, where a knock's expected points are 0 (and
    passing, with ten cards already melded, expects no deadwood either). With 8h all eleven cards meld: big
    gin where it is played (the take's plan is the move the engine makes next), else gin."""
    state = GameState(hand=cards("As 2s 3s 4s 5h 6h 7h 9c 9d 9s"), phase="first_upcard", upcard=parse_card("8h"),
                      discard_pile=cards("8h"), stock_count=31)
    rules = Rules() if big_gin else Rules(big_gin_bonus=None)
    advice = hint(state, rules, config=replace(DEFAULT_CONFIG, samples=samples))
    take = advice.alternatives[0]
    assert advice.action == Action("take_upcard") and take.deadwood == 0
    if big_gin:
        assert take.then_discard is None and advice.reason == "Take 8h: it allows big gin right away."
        assert len(advice.layout.melds) == 3 and advice.layout.hand == hand_from_cards((*state.hand, parse_card("8h")))
        assert advice.layout.deadwood_cards == 0
        after = replace(state, hand=(*state.hand, parse_card("8h")), phase="discard", discard_pile=(),
                        drawn_from_discard=parse_card("8h"))
        next_move = hint(after, rules, config=replace(DEFAULT_CONFIG, samples=samples))
        assert next_move.action == Action("big_gin") and next_move.alternatives[0].expected_points == \
            take.expected_points
    else:
        assert take.then_discard in cards("As 4s 5h")  # 8h may not go straight back
        assert advice.reason == "Take 8h: it allows gin right away."


def test_takes_an_upcard_that_allows_a_knock_at_once() -> None:
    """With the opponent model off a knock is made whenever legal: 7s melds the sevens, then Kc goes."""
    state = GameState(hand=cards("As 2s 3s 4h 5h 6h 7c 7d Ac Kc"), phase="draw", upcard=parse_card("2c"),
                      discard_pile=cards("2c 7s"), stock_count=30, opponent_discards=cards("7s"))
    advice = hint(state, Rules(), config=replace(DEFAULT_CONFIG, samples=0))
    assert advice.action == Action("take_upcard") and advice.alternatives[0].then_discard == parse_card("Kc")
    assert advice.reason == "Take 7s: it allows a knock with 1 deadwood right away."


HOLDS_A_KNOCK = GameState(hand=cards("3d 3h 3s 4d 7d 7s 7h Qs Qh Qd"), phase="draw", upcard=parse_card("4s"),
                          discard_pile=cards("4s Kc"), stock_count=30, opponent_discards=cards("Kc"))
"""Ten cards that knock with 4 after any stock draw; Kc allows a knock only with 10 (discarding 4d)."""


def test_a_pile_card_is_not_taken_to_knock_with_more_deadwood_than_the_hand_already_knocks_with() -> None:
    """An integrator's audit: the take to knock with Kc (worth more than the knock margin) was advised, though a
    stock draw thrown back knocks with 4 and scores more; 20 of 60 such states took the card."""
    advice = hint(HOLDS_A_KNOCK, Rules(), seed=1, config=FAST)
    assert advice.action == Action("draw_stock")
    stock, take = advice.alternatives
    # Both in points: the stock at least the knock held (worth making), the take at its knock.
    assert (stock.unit, take.unit, take.deadwood, take.then_discard) == ("points", "points", 10, parse_card("4d"))
    assert stock.expected_points == stock.evaluation > take.evaluation > DEFAULT_CONFIG.knock_margin
    assert stock.standard_error is not None and stock.standard_error > 0  # the knock held's
    assert advice.reason == (
        "Draw from the stock: the ten cards you hold knock with 4 deadwood after any stock draw (throwing back the "
        f"card drawn), expected {stock.evaluation:+.1f} points; taking Kc allows a knock with 10 deadwood, expected "
        f"{take.evaluation:+.1f} points.")
    no_samples = hint(HOLDS_A_KNOCK, Rules(), config=replace(DEFAULT_CONFIG, samples=0))
    assert no_samples.action == Action("draw_stock") and no_samples.alternatives[0].unit == "deadwood"


def test_a_card_that_would_only_be_thrown_back_to_make_the_knock_held_is_not_taken() -> None:
    """A hint audit, after the fix above: under GRA, taking Kd to throw it straight back knocks as the ten cards
    held do after any stock draw; the take was then scored as a plain discard and beat the stock's look-ahead, and
    "Take Kd and discard Kd" was advised."""
    state = GameState(hand=cards("As 4s 8s 4h 5h 6h 7h 8h 4d 8d"), phase="draw", upcard=parse_card("8h"),
                      discard_pile=cards("Qd Kd"), stock_count=30, opponent_hand_known=cards("5c"),
                      opponent_discards=cards("4d Kd"))
    advice = hint(state, resolve_rules("gra"), seed=3, config=FAST)
    stock, take = advice.alternatives
    assert advice.action == Action("draw_stock") and (stock.unit, take.unit) == ("points", "points")
    assert take.then_discard == parse_card("Kd") and take.evaluation == stock.evaluation  # the same knock
    assert advice.close_call is False  # the stock is worth at least that knock
    assert advice.reason.startswith("Draw from the stock: the ten cards you hold knock with 1 deadwood after any "
                                    "stock draw (throwing back the card drawn), expected +")


def test_with_one_draw_left_after_a_take_the_draw_phase_plans_the_knock_the_discard_phase_makes() -> None:
    """A hint audit: the draw phase planned a take's discard by the knock margin, while the discard phase after
    the take, one draw of ours left, knocks when the knock beats what playing on brings."""
    state = GameState(hand=cards("As 2s 3s Ah 2h 4h 5d Ac 4c 6c"), phase="draw", upcard=parse_card("6d"),
                      discard_pile=cards("6s Jd Ts 4s Tc Jh Qh Kd Kh Th Td Qs Qd Jc Js 9s 9c Ks Kc 6h 8d Qc 9d 8s "
                                         "9h 6d 5h 3h"), stock_count=4, opponent_hand_known=cards("7h 7d"),
                      opponent_discards=cards("Jd 4s Tc Jh Qh Kh 2h Ah Qs Ac Js 3s Ks 6h Qc 9d 9h 5h 3h"))
    rules = resolve_rules("hoyle")
    advice = hint(state, rules, seed=6)
    take = advice.alternatives[0]
    assert advice.action == Action("take_upcard") and take.unit == "points"
    after = hint(taken(state), rules, seed=6)
    assert after.action == Action("knock", take.then_discard) and "with one draw left" in after.reason
    assert after.alternatives[0].evaluation == take.evaluation < 20  # below the knock margin


def test_a_take_that_only_throws_the_card_straight_back_is_not_advised() -> None:
    """A review: under GRA, with one draw left and the knock held below the margin, "Take 9d and discard 9d" was
    advised (it only passes the turn), and the discard phase after it knocked with 9d. Whether the take is valued
    as that knock (the ten cards' own, which a stock draw keeps) depends on the samples; with these it is valued as
    the throw-back, and either way the stock is drawn. The look-ahead rates that take above the stock draw
    (6.84 against 5.78: it charges the stock card thrown back for feeding the opponent); the take is shown at the
    stock draw's value, as play-outs found it worse."""
    state = GameState(hand=cards("As 3s Ks Ah Ad Kd Ac 2c 3c Kc"), phase="draw", upcard=parse_card("2h"),
                      discard_pile=cards("5s 7c Js Qs Jd Qd 2s Tc Jh Qc 8s 9c Th 5d Ts Jc 9s 9h 8d 7s 6s 7h Kh 4c Td "
                                         "Qh 9d"), stock_count=5, opponent_hand_known=cards("2h 5c 6c"),
                      opponent_discards=cards("5s Js Ks Jd Qd 2s 3s Tc Jh 8s Th Ts Jc 9s 9h 8d 7s 7h 6s 7h Kh 4c Td "
                                              "2c 9d"))
    advice = hint(state, resolve_rules("gra"), seed=2)
    take = next(option for option in advice.alternatives if option.action == Action("take_upcard"))
    assert advice.action == Action("draw_stock") and (take.unit, take.then_discard) == ("deadwood", parse_card("9d"))
    assert advice.reason == "Draw from the stock: after taking 9d the best discard would be 9d itself, which only " \
        "passes the turn."
    assert not advice.close_call
    stock = advice.alternatives[0]
    assert stock.action == Action("draw_stock") and take.evaluation == stock.evaluation


def taken(state: GameState) -> GameState:
    """The discard phase after taking the pile's top card."""
    top = state.discard_pile[-1]
    return replace(state, phase="discard", hand=(*state.hand, top), discard_pile=state.discard_pile[:-1],
                   drawn_from_discard=top)


def test_a_take_plans_the_move_the_discard_phase_then_makes() -> None:
    """In every draw state met (random and late ones) where a take is advised, the discard phase after it, with
    the same seed, plays the take's ``then_discard``, knocking where the take was valued as a knock."""
    checked = 0
    for state, rules in [*STATES, *LATE_STATES]:
        if state.phase != "draw" or stock_end_offer(state, rules):
            continue
        advice = hint(state, rules, seed=2, config=FAST)
        if advice.action != Action("take_upcard"):
            continue
        take, after = advice.alternatives[0], hint(taken(state), rules, seed=2, config=FAST)
        assert engine._suit_frame(taken(state)) == engine._suit_frame(state)  # so the same samples
        checked += 1
        assert after.action.card == take.then_discard, (state, rules)
        assert (after.action.type == "discard") == (take.unit == "deadwood"), (state, rules)
    assert checked >= 20


def test_a_pile_card_that_knocks_with_less_than_the_hand_holds_is_still_taken() -> None:
    state = GameState(hand=cards("As 2s 3s 4s 7h 8h 9h Th 5c 2c"), phase="draw", upcard=parse_card("Jc"),
                      discard_pile=cards("Jc 5s"), stock_count=30, opponent_discards=cards("5s"))
    advice = hint(state, Rules(), config=replace(DEFAULT_CONFIG, samples=0))  # knocks whenever it may
    assert advice.action == Action("take_upcard") and advice.alternatives[0].then_discard == parse_card("5c")
    assert advice.reason == "Take 5s: it allows a knock with 2 deadwood right away."
    # Offered the first upcard, a pass is no stock draw of ours (the other player may take the card, or play a
    # turn, first): the ten cards held do not stand in for it, and a knock with the card is made as before.
    first_upcard = replace(HOLDS_A_KNOCK, phase="first_upcard", upcard=parse_card("Kc"), discard_pile=cards("Kc"),
                           stock_count=31, opponent_discards=())
    assert hint(first_upcard, Rules(), config=replace(DEFAULT_CONFIG, samples=0)).action == Action("take_upcard")


def test_a_returned_card_is_not_retaken_to_knock_no_better_than_the_hand_holds() -> None:
    """GRA: Kc came straight back and may be retaken only to knock, which it allows only by throwing Kc again:
    the very knock the ten cards make after any stock draw, so the stock, with its chance of better, is drawn."""
    state = replace(HOLDS_A_KNOCK, upcard=parse_card("5c"), discard_pile=cards("5c Kc"), returned_discard=True)
    advice = hint(state, resolve_rules("gra"), seed=1, config=FAST)
    assert advice.action == Action("draw_stock")
    assert advice.alternatives[1].then_discard == parse_card("Kc")
    assert advice.reason.startswith("Draw from the stock: Kc came straight back and may be retaken only to knock, "
                                    "and that knock is not advised (expected +")
    assert "; the ten cards you hold knock with 4 deadwood after any stock draw" in advice.reason


def test_goes_gin_when_it_can() -> None:
    state = situation(cards("As 2s 3s 4s 5h 6h 7h 9c 9d 9s Kc"), "discard", pile=10)
    advice = hint(state, Rules())
    assert advice.action == Action("gin", parse_card("Kc"))
    assert "Gin" in advice.reason


def test_the_gin_reason_names_the_discard_and_the_melds() -> None:
    state = situation(cards("As 2s 3s 4s 5h 6h 7h 9c 9d 9s Kc"), "discard", pile=10)
    assert hint(state, Rules()).reason == ("Gin: discard Kc and lay out As 2s 3s 4s, 5h 6h 7h, 9s 9d 9c; "
                                           "gin cannot be undercut.")


def test_big_gin_only_where_it_is_played() -> None:
    state = situation(cards("As 2s 3s 4h 5h 6h 7c 7d 7s 7h 8h"), "discard", pile=10)
    big = hint(state, resolve_rules("online"))
    assert big.action == Action("big_gin") and big.reason.startswith("Big gin: all eleven cards meld (")
    assert (big.alternatives[0].outs, big.alternatives[0].safety) == ((), None)  # no card is discarded
    assert hint(state, resolve_rules("standard")).action.type == "gin"
    for preset in ("online", "standard"):
        moves = legal_actions(state, resolve_rules(preset))
        assert sorted(map(str, moves)) == sorted(str(m) for m in every_move(state)
                                                 if is_legal(state, resolve_rules(preset), m))
    assert Action("big_gin") in legal_actions(state, resolve_rules("online"))


def test_knocks_at_the_stock_end_rather_than_draw() -> None:
    # The opponent last threw Kd (so it may still hold high unmatched cards), not a 9 that would say
    # it kept only low ones: its ten among the twelve unseen cards then seldom undercut our 1.
    state = situation(cards("As 2s 3s 4h 5h 6h 7c 7d 7s Ac Kc"), "discard", pile=29)
    top = parse_card("Kd")
    pile = (*(c for c in state.discard_pile if c != top), top)
    state = replace(state, discard_pile=pile, opponent_discards=pile[1 + len(pile) % 2::2])
    assert state.stock_count == Rules().stock_end
    advice = hint(state, Rules())
    assert advice.action == Action("knock", parse_card("Kc"))
    assert "draw" in advice.reason


def test_a_knock_before_the_stock_end_says_it_beats_waiting() -> None:
    """With the opponent model off (a knock is made whenever legal, expecting 0 points, no undercut)."""
    state = situation(cards("As 2s 3s 4h 5h 6h 7c 7d 7s Ac Kc"), "discard", pile=10)
    assert state.stock_count > Rules().stock_end
    advice = hint(state, Rules(), config=replace(DEFAULT_CONFIG, samples=0))
    assert advice.action == Action("knock", parse_card("Kc"))
    assert advice.reason == ("Knock discarding Kc with 1 deadwood, keeping As 2s 3s, 4h 5h 6h, 7s 7d 7c: undercut "
                             "risk 0%, expected +0.0 points; knocking now beats waiting while the opponent improves.")


def test_after_our_last_stock_draw_the_opponent_never_knocks() -> None:
    """Our stock draw leaves the stock at its end: the hand ends after our discard, unless we knock, so the
    stock is worth at least nought however strong the opponent's eight known cards are."""
    state = GameState(
        hand=cards("4s Js 3h Qh 2d 4d 5d 6d 2c Jc"), phase="draw", upcard=parse_card("Kh"),
        discard_pile=cards("Kh 7d 2h 7h Ac 5c Td Qs 3s 8h Qc Ks 7s 3c 6s Jd Kc Ad 2s 3d 4h 9h Qd As Ah 8d 4c Jh Kd"),
        stock_count=3, opponent_hand_known=cards("8s 9s Ts Th 9d 6c 8c 9c"),
        opponent_discards=cards("7d 3s 3c Ks 4d 5c Td Ad Ts 3s Qc 8h Ks 7s Jh 9c Jd Kc 8s 8c 3d 4c 9h Qh Qd 2c As 8d "
                                "9d Jh Kd"))
    assert state.stock_count == Rules().stock_end + 1
    advice = hint(state, Rules())
    stock = next(a for a in advice.alternatives if a.action.type == "draw_stock")
    assert stock.evaluation >= 0


def test_the_last_draw_and_the_last_turn_are_valued_in_points() -> None:
    """One card above the stock's end no draw of ours follows this turn, so playing on for gin or an undercut
    is over: a take that allows a knock worth less than ``knock_margin`` is taken, and the knock made; a
    discard without a knock is worth what the opponent's last turn costs us, never an undercut counted on."""
    hand = cards("Ts Js As Ah Ac 7c 7h 7s 5h Kc")  # 9s on the pile: 9s Ts Js, and 5 deadwood after Kc
    draw = situation(hand, "draw", pile=29)
    top = draw.discard_pile[-1]
    assert (draw.stock_count, format_card(top)) == (Rules().stock_end + 1, "9s")
    advice = hint(draw, Rules())
    take, stock = advice.alternatives
    assert advice.action == take.action == Action("take_upcard") and stock.action == Action("draw_stock")
    assert {take.unit, stock.unit} == {"points"} and take.then_discard == parse_card("Kc")
    assert 0 < (take.expected_points or 0.0) < DEFAULT_CONFIG.knock_margin and take.deadwood == 5
    assert stock.evaluation >= 0  # after a stock draw the hand ends: a knock, or a draw
    assert advice.reason.startswith("Take 9s: this is your last draw; taking 9s allows a knock with 5 deadwood")
    taken = replace(draw, phase="discard", hand=(*draw.hand, top), discard_pile=draw.discard_pile[:-1],
                    drawn_from_discard=top)
    after = hint(taken, Rules())
    assert after.action == Action("knock", parse_card("Kc"))
    assert after.alternatives[0].expected_points == take.expected_points
    assert "this is your last turn" in after.reason
    discards = [a for a in after.alternatives if a.action.type == "discard"]
    assert discards and all(a.unit == "points" and a.outs == () and a.evaluation <= 0 for a in discards)
    assert after.alternatives[0].outs == ()  # the knock's are its discard's: none, no draw of ours follows
    meld_chance = model_opponent(taken, Rules()).meld_chance  # safety is the chance it cannot use the card
    assert all(a.safety == pytest.approx(1 - meld_chance.get(a.action.card or 0, 0.0)) for a in discards)
    assert [a.evaluation for a in after.alternatives] == sorted((a.evaluation for a in after.alternatives),
                                                                reverse=True)


TIED = " Knocking or not is a close call: the knock's expected points are within 1 of the +12.0 points they are " \
    "weighed against."


@pytest.mark.parametrize(("stock", "action", "why"), [
    ("9h 7s Js 6s", "knock", "with one draw left, playing on is expected to bring no more (+12.0 points)." + TIED),
    ("9h 7s Js Tc", "discard", "less than the +18.5 points playing on is expected to bring with one draw left."),
    ("9h 7s Js 6s 5d", "knock", "with one draw left, playing on is expected to bring no more (+12.0 points)." + TIED),
    ("9h 7s Js Tc 5d", "discard", "less than the +17.2 points playing on is expected to bring with one draw left."),
    ("9h 7s Js 6s 9d Ts", "discard", "less than the 20 points it takes to give up playing on for gin or an undercut."),
])
def test_with_one_draw_left_a_knock_is_weighed_against_that_draw(stock: str, action: ActionType, why: str) -> None:
    """The opponent's ten cards are shown to the engine: 13 deadwood, none to lay off, and no card of the stock
    brings it within the knock limit, so our knock with Ac (1 deadwood) wins 12 points now or after our last draw.
    With four cards left our next draw is our last: playing on is worth that knock again (a tie, which knocks:
    the opponent only improves meanwhile), or, with Tc there to make gin (12 + 1 + 25 = 38 points), 3/4 x 12 +
    1/4 x 38 = 18.5, more than the knock. With five left (a mutation audit) the opponent draws one and ours is
    then the last too: 4/5 x 12 + 1/5 x 38 = 17.2 with Tc there. With six left the knock margin decides."""
    ours = cards("2s 2h 2d 7c 8c 9c Jh Qh Kh Ac Ks")
    theirs = cards("Qc Qd Qs 3h 4h 5h 4d Ad 5s 3c")
    used = {*ours, *theirs, *cards(stock)}
    pile = tuple(c for c in ALL_CARDS if c not in used)
    state = GameState(ours, "discard", pile[0], pile, len(cards(stock)), (), pile[1 + len(pile) % 2::2], None)
    advice = hint(state, Rules(), revealed=hand_from_cards(theirs))
    knock = next(a for a in advice.alternatives if a.action == Action("knock", parse_card("Ks")))
    assert knock.expected_points == 12
    assert advice.action == Action(action, parse_card("Ks")) and advice.reason.endswith(why)
    assert knock.standard_error == 0 and advice.close_call is (action == "knock")  # the opponent's hand is known


def test_the_last_discard_under_the_fiftieth_card_rule_counts_the_offer() -> None:
    """With ``stock_end_discard`` the discard that leaves the stock at its end may be taken to knock: a
    discard is worth what that costs us (0 where the opponent cannot knock with it)."""
    rules = Rules(stock_end_discard="take_to_knock")
    hand = cards("As 3s 5h 7c 9d Jd Kh 2c 4d 6h 8s")  # no meld: no knock
    advice = hint(situation(hand, "discard", pile=29), rules, config=FAST)
    assert advice.action.type == "discard" and advice.reason.startswith(
        f"Discard {format_card(advice.action.card or 0)}: the opponent may take it only to knock")
    assert all(a.unit == "points" and a.evaluation <= 0 for a in advice.alternatives)


def test_the_reason_says_when_a_discard_ends_the_hand_as_a_draw() -> None:
    hand = cards("As 3s 5h 7c 9d Jd Kh 2c 4d 6h 8s")  # no meld: no knock
    for pile, ends in ((10, False), (29, True)):
        state = situation(hand, "discard", pile=pile)
        assert (state.stock_count == Rules().stock_end) == ends
        advice = hint(state, Rules(), config=FAST)
        assert advice.action.type == "discard"
        assert advice.reason.endswith("ends as a draw after this discard.") == ends


def test_the_reason_for_a_discard_keeping_no_melds() -> None:
    """The opponent's ten cards are shown to the engine, so the chance it can use the discard is
    exact: none of Tc Th Td Qc Qh Qs 2d 3d 5d Ad melds with Kh."""
    hand = cards("As 3s 5h 7c 9d Jd Kh 2c 4d 6h 8s")
    opponent = cards("Tc Th Td Qc Qh Qs 2d 3d 5d Ad")
    state = situation(hand, "discard", pile=10, held=opponent)
    advice = hint(state, Rules(), config=FAST, revealed=hand_from_cards(opponent))
    assert advice.action == Action("discard", parse_card("Kh")) and advice.alternatives[0].safety == 1.0
    assert advice.reason == ("Discard Kh: keeps no melds with 55 deadwood and 15 live outs; the opponent can use Kh "
                             "with chance 0%. A close call: discarding Jd is evaluated the same.")


def test_resampling_keeps_each_hand_its_share_of_the_weight() -> None:
    weighted = [(1, 0.5), (2, 0.25), (4, 0.25)]
    for seed in range(20):
        kept = resample(weighted, 4, random.Random(seed))
        assert kept == [(1, 0.25), (1, 0.25), (2, 0.25), (4, 0.25)]
    assert sorted(resample(weighted, 2, random.Random(0))) in ([(1, 0.5), (2, 0.5)], [(1, 0.5), (4, 0.5)])


def test_without_an_opponent_model_no_hand_is_worth_anything() -> None:
    assert hint(DRAW, Rules(), config=replace(DEFAULT_CONFIG, samples=0)).effective_samples == 0.0


def test_the_advice_does_not_hang_on_a_few_lucky_samples() -> None:
    """The README's state: the opponent threw only a 7, so few random hands fit what it did (its unmatched cards
    above 7 count against them). With 24 hands drawn and weighed, one or two carried the answer, and the knock's
    expected points went from 6 to 32 with the seed, knocking at 10 seeds of 20 against a margin of 20; hands are
    now drawn until they are worth 24 evenly weighted ones (or 240 have been drawn)."""
    state = GameState(hand=cards("As 2s 3s 7h 7d 7c Kd Qd Jd 5c 9h"), phase="discard", upcard=parse_card("4d"),
                      discard_pile=cards("4d Tc"), stock_count=29, opponent_hand_known=(),
                      opponent_discards=cards("7c"), drawn_from_discard=parse_card("7c"))
    answers = [hint(state, Rules(), seed=seed) for seed in range(12)]
    assert {answer.action for answer in answers} == {Action("discard", parse_card("9h"))}
    knock = [a.expected_points for answer in answers for a in answer.alternatives if a.action.type == "knock"
             and a.action.card == parse_card("9h") and a.expected_points is not None]
    assert len(knock) == 12 and max(knock) - min(knock) < 15


def test_a_knock_expected_to_score_exactly_the_margin_is_not_made() -> None:
    """A knock is made when its expected points exceed ``knock_margin``: at the margin itself, or a rounding hair
    from it (the samples' float sum), the engine plays on."""
    # a seed whose samples make the knock worth a little (0 < points < 20): with most seeds they make it lose,
    # and the engine plays on even at margin 0
    state = GameState(hand=cards("7s Ts Ah 2h 7h Th Ad 6d 9d 7c Tc"), phase="discard", upcard=parse_card("Ks"),
                      discard_pile=cards("6c 2c 6s 3s Js 3h 9h Td 4d 5h Ks"), stock_count=20,
                      opponent_hand_known=cards("Jh Jd 5c"), opponent_discards=cards("Jh 6s 3s 6d 3h 4d Ts Td 5h 7s"),
                      drawn_from_discard=parse_card("7s"))
    eager = hint(state, Rules(), seed=11, config=replace(DEFAULT_CONFIG, knock_margin=0.0))
    assert eager.action.type == "knock"
    points = eager.alternatives[0].expected_points
    assert points is not None and 0 < points < DEFAULT_CONFIG.knock_margin
    for margin in (points, math.nextafter(points, 0.0), math.nextafter(points, 100.0)):
        at_margin = hint(state, Rules(), seed=11, config=replace(DEFAULT_CONFIG, knock_margin=margin))
        assert at_margin.action.type == "discard"
    below = hint(state, Rules(), seed=11, config=replace(DEFAULT_CONFIG, knock_margin=points - 0.001))
    assert below.action == eager.action


def test_a_knock_lays_out_the_melds_that_leave_the_least_to_lay_off() -> None:
    """7s can join the run 8s-Qs or make four sevens; the opponent (shown to the engine) holds 6s, which it can
    lay off on 7s-Qs only: the knock keeps the four sevens, and is worth 6 points more for it."""
    hand = cards("7s 7h 7d 7c 8s 9s Ts Js Qs 2c Kd")
    opponent = cards("6s Kh Qh 9d Jc Tc 8h 5d 3h Ah")
    state = situation(hand, "discard", pile=10, held=opponent)
    advice = hint(state, Rules(), revealed=hand_from_cards(opponent))
    assert advice.action == Action("knock", parse_card("Kd"))
    assert advice.layout.melds == (hand_from_cards(cards("7s 7h 7d 7c")), hand_from_cards(cards("8s 9s Ts Js Qs")))
    assert advice.layout.deadwood_cards == hand_from_cards(cards("2c"))
    theirs = min_deadwood(hand_from_cards(opponent))
    assert advice.alternatives[0].expected_points == pytest.approx(theirs - 2)  # nothing laid off
    assert "keeping 7s 7h 7d 7c, 8s 9s Ts Js Qs" in advice.reason


@pytest.mark.parametrize("pile", [10, 29])  # 29: our last draw, one card above the stock's end
def test_a_take_to_knock_shows_the_layout_the_knock_lays_down(pile: int) -> None:
    """The same hand without 7c, which the opponent has just thrown: taking it allows that knock, and the
    draw phase shows the four sevens the knock will lay down, not the run 7s-Qs (found by a review)."""
    opponent = cards("6s Kh Qh 9d Jc Tc 8h 5d 3h Ah")
    start = situation(cards("7s 7h 7d 8s 9s Ts Js Qs 2c Kd"), "draw", pile=pile, held=(*opponent, parse_card("7c")))
    state = replace(start, discard_pile=(*start.discard_pile[:-1], parse_card("7c")),
                    opponent_discards=(*start.opponent_discards[:-1], parse_card("7c")))
    advice = hint(state, Rules(), revealed=hand_from_cards(opponent))
    assert advice.action == Action("take_upcard") and advice.alternatives[0].then_discard == parse_card("Kd")
    assert advice.layout.melds == (hand_from_cards(cards("7s 7h 7d 7c")), hand_from_cards(cards("8s 9s Ts Js Qs")))


def test_keeps_away_from_what_the_opponent_collects() -> None:
    # The opponent took Qh and Qd to meld them, so it holds Qc, or jacks and kings or tens beside
    # them: Qs always melds, Kc and 9d may, 7c (far from all it took) hardly.
    state = replace(situation(cards("As 2s 3s 4h 5h 6h 7c 8c 9d Qs Kc"), "discard", pile=3,
                              opponent_hand_known=cards("Qh Qd"), opponent_discards=cards("4c 2c")),
                    upcard=parse_card("3c"), discard_pile=cards("3c 4c 2c"))  # its discard on top
    advice = hint(state, Rules())
    assert advice.action != Action("discard", parse_card("Qs"))
    safety = {a.action.card: a.safety or 0.0 for a in advice.alternatives if a.action.type == "discard"}
    assert safety[parse_card("Qs")] == pytest.approx(0.0)
    assert max(safety[parse_card("Kc")], safety[parse_card("9d")]) < 0.8 < safety[parse_card("7c")]


def test_never_discards_the_card_just_taken_where_forbidden() -> None:
    state = situation(cards("As 2s 3s 4h 5h 6h 7c 8c 9c Kd Kc"), "discard", pile=0, upcard=parse_card("Kd"),
                      drawn_from_discard=parse_card("Kd"))
    assert hint(state, Rules()).action.card == parse_card("Kc")
    assert is_legal(state, resolve_rules("gra"), hint(state, resolve_rules("gra")).action)


def test_the_deal_alternates_from_the_non_dealer_then_turns_up_the_next_card() -> None:
    deck = list(ALL_CARDS)  # the top of the deck last
    for dealer in (0, 1):
        table = Table.deal(Rules(), deck, dealer=dealer)
        assert table.hands[1 - dealer] == hand_from_cards(deck[-1:-21:-2])
        assert table.hands[dealer] == hand_from_cards(deck[-2:-21:-2])
        assert (table.upcard, table.pile, table.stock, table.to_move) == (deck[-21], [deck[-21]], deck[:-21],
                                                                          1 - dealer)
    with pytest.raises(GinError, match="the dealer is player 0 or 1, got 2"):  # an IndexError
        Table.deal(Rules(), deck, dealer=2)
    with pytest.raises(GinError, match="the dealer is player 0 or 1, got True"):
        Table.deal(Rules(), deck, dealer=True)


def test_on_a_plain_first_turn_the_non_dealer_takes_the_upcard_or_draws_and_nobody_passes() -> None:
    table = Table.shuffled(PLAIN_FIRST_TURN, random.Random(3), dealer=1)
    assert (table.phase, table.to_move) == ("draw", 0)
    assert table.legal_actions() == [Action("take_upcard"), Action("draw_stock")]
    table.play(Action("draw_stock"))
    table.play(Action("discard", hand_cards(table.hands[0])[0]))
    assert table.to_move == 1 and len(table.pile) == 2  # the upcard stays beneath the discard
    with pytest.raises(HintStateError, match="under first_turn plain nobody is offered the first upcard"):
        check_state(replace(Table.shuffled(PLAIN_FIRST_TURN, random.Random(3)).view(), phase="first_upcard"),
                    PLAIN_FIRST_TURN)


def test_an_upcard_taken_and_thrown_back_at_once_is_no_returned_discard() -> None:
    """Under GRA the card taken may be discarded at once; the first upcard was nobody's discard, so the dealer
    may take it as any pile card (only a card of ours thrown straight back is retaken only to knock). Thrown
    straight back by the dealer, it comes back to us as a card we first discarded, a state the hint takes."""
    table = Table.shuffled(resolve_rules("gra"), random.Random(1))
    upcard = table.upcard
    assert upcard is not None
    table.play(Action("take_upcard"))
    table.play(Action("discard", upcard))
    assert not table.view().returned_discard
    assert table.legal_actions() == [Action("take_upcard"), Action("draw_stock")]
    table.play(Action("take_upcard"))  # the dealer takes it freely and throws it straight back
    table.play(Action("discard", upcard))
    assert table.view().returned_discard  # to us, who first discarded it: retaken only to knock
    hint(table.view(), table.rules, config=replace(DEFAULT_CONFIG, samples=4))  # a state the hint takes


def test_the_table_rejects_illegal_moves() -> None:
    table = Table.shuffled(Rules(), random.Random(3))
    with pytest.raises(IllegalMoveError):
        table.play(Action("draw_stock"))
    table.play(Action("pass"))
    table.play(Action("pass"))
    assert table.legal_actions() == [Action("draw_stock")]
    assert table.view().discard_pile == (table.upcard,)
    with pytest.raises(ValueError, match="each of the 52 cards once"):
        Table.deal(Rules(), list(range(52)))  # card ints are not 0-51 (each suit has a lane of 16)


def test_an_illegal_move_is_named_with_its_card() -> None:
    table = Table.shuffled(Rules(), random.Random(3))
    assert table.phase == "first_upcard"
    with pytest.raises(IllegalMoveError, match=r"^discard Kc is not legal in the first_upcard phase$"):
        table.play(Action("discard", parse_card("Kc")))
    assert (str(Action("knock", parse_card("Th"))), str(Action("draw_stock"))) == ("knock Th", "draw_stock")


def test_a_finished_hand_takes_no_more_moves() -> None:
    table = Table.shuffled(Rules(), random.Random(5))
    while not table.over:
        table.play(table.legal_actions()[-1])  # knock, gin or big gin whenever allowed, else the last discard
    with pytest.raises(IllegalMoveError, match="the hand is over"):
        table.play(Action("draw_stock"))


def _greedy_to_the_stock_end_offer(rules: Rules, seed: int) -> Table:
    """A hand played without knocks (greedy discards, random draws) until the stock-end discard is offered."""
    rng = random.Random(seed)
    table = Table.shuffled(rules, rng)
    while not table.over and not stock_end_offer(table.view(), rules):
        state, moves = table.view(), table.legal_actions()
        if state.phase == "discard":
            hand = hand_from_cards(state.hand)
            table.play(min((m for m in moves if m.type == "discard"),
                           key=lambda m: (min_deadwood(hand & ~card_bit(m.card or 0)), rng.random())))
        else:
            table.play(rng.choice([m for m in moves if m.type in ("pass", "take_upcard", "draw_stock")]))
    return table


def test_the_table_offers_the_stock_end_discard_to_knock_with() -> None:
    """Game Colony's form: taken, the card may be the knock's own discard; declined, the hand is a draw."""
    rules = Rules(stock_end_discard="take_to_knock_any")
    table = next(t for t in (_greedy_to_the_stock_end_offer(rules, seed) for seed in range(50))
                 if Action("take_upcard") in t.legal_actions())
    assert len(table.stock) == 2 and table.legal_actions()[-1] == Action("pass")
    declined = copy.deepcopy(table)
    declined.play(Action("pass"))
    assert declined.over and declined.outcome == HandOutcome(None, None)
    top = table.pile[-1]
    table.play(Action("take_upcard"))
    moves = table.legal_actions()
    assert moves and all(m.type in ("knock", "gin", "big_gin") for m in moves)
    table.play(moves[0])
    assert table.outcome is not None and table.outcome.result is not None and table.outcome.knocker is not None
    if moves[0].card == top:  # thrown to knock, as only this rule allows
        assert table.outcome.result.knocker.hand & card_bit(top) == 0


def test_a_hands_outcome_names_the_player_who_scored() -> None:
    # Knocker 8 deadwood; defenders with 10 (knock won by 2), 5 (undercut: 3 + 25) and 8 (a tie
    # when ties are not undercuts). The knocker is player 0 or 1; a draw has no result.
    knocker = parse_hand("As 2s 3s 4h 5h 6h 7c 7d 7s 8d")
    knock = score_round(knocker, parse_hand("9s 9h 9d Jc Qc Kc 5c 2d Ah 2c"), Rules())
    undercut = score_round(knocker, parse_hand("9s 9h 9d Jc Qc Kc 2d Ah 2c Tc"), Rules())
    tie = score_round(knocker, parse_hand("9s 9h 9d Jc Qc Kc 2d Ah 5c Tc"), Rules(undercut_on_tie=False))
    for player in (0, 1):
        assert (HandOutcome(knock, player).winner, HandOutcome(knock, player).points) == (player, 2)
        assert (HandOutcome(undercut, player).winner, HandOutcome(undercut, player).points) == (1 - player, 28)
        assert (HandOutcome(tie, player).winner, HandOutcome(tie, player).points) == (None, 0)
    assert (HandOutcome(None, None).winner, HandOutcome(None, None).points) == (None, 0)


def test_sheds_deadwood_when_the_opponent_is_close_to_knocking() -> None:
    # A state met in self-play (seed 11), 15 cards left in the stock: the opponent took 8c and Qc from
    # the pile and has thrown high cards since, so it may knock next turn. Without the defensive term
    # the engine throws 4h and holds 12 deadwood; with a heavy one it throws Tc and holds 6.
    hand = cards("As 2s 7s 2h 4h 7h Ad 2d 7d 7c Tc")
    pile = cards("Qh Kh Jd Td Qd 9d 9s Th Qs Ts 5c Ks 9h Kd Jh 5h")
    late = GameState(hand, "discard", parse_card("4h"), pile, 15, cards("8c Qc"), cards("Kh Jd Qd 9d Th Ts Ks Kd 5h"))
    for weight, thrown_away in ((0.0, "4h"), (2.0, "Tc")):
        advice = hint(late, Rules(), config=replace(DEFAULT_CONFIG, defence_weight=weight))
        assert advice.action == Action("discard", parse_card(thrown_away))


def test_the_defence_weight_weighs_the_defence_term_only() -> None:
    """At weight 0 the opponent's knocks still value our last turn (every discard was worth 0, so a knock lost
    to a discard; found by a code review)."""
    last_turns = [(s, r) for s, r in LATE_STATES if s.phase == "discard" and s.stock_count - r.stock_end <= 1]
    assert len(last_turns) >= 10
    for state, rules in last_turns:
        off, faint = (hint(state, rules, config=replace(FAST, defence_weight=weight)) for weight in (0.0, 1e-12))
        assert off.action == faint.action
        assert [a.evaluation for a in off.alternatives] == pytest.approx([a.evaluation for a in faint.alternatives])


def test_a_draw_between_moves_valued_in_points_is_close_within_a_point() -> None:
    """The last draw, and the stock end's offer, weigh two moves in expected points: too close to call within
    ``CLOSE_POINTS`` (they used the discards' margin in deadwood, half as wide; found by a code review)."""
    states = LATE_STATES + list(reachable_states(150, seed=13, near_the_end=True))
    weighed = [advice for advice in (hint(s, r, config=FAST) for s, r in states if s.phase != "discard")
               if len(advice.alternatives) == 2 and {a.unit for a in advice.alternatives} == {"points"}]
    # A stock draw valued at the knock the ten cards hold is worth at least that: never close when chosen.
    held = [advice.action == Action("draw_stock") and "the ten cards you hold" in advice.reason for advice in weighed]
    gaps = [engine._points_apart(*(a.evaluation for a in advice.alternatives)) for advice in weighed]
    assert any(engine.CLOSE_POINTS / 2 <= gap < engine.CLOSE_POINTS for gap in gaps)
    assert [advice.close_call for advice in weighed] == [gap < engine.CLOSE_POINTS and not at_least
                                                         for gap, at_least in zip(gaps, held, strict=True)]


def test_gin_has_no_outs_and_its_discard_keeps_its_safety() -> None:
    """Gin keeps nothing to improve, so it lists no outs; the same discard played on (gin in hand, 0 deadwood)
    still says how safe the card is (a mutation audit found neither pinned)."""
    state = GameState(cards("As 2s 3s 4h 5h 6h 7d 8d 9d Td Kc"), "discard", parse_card("4d"), cards("4d Tc 7c"), 28,
                      (), cards("7c"))
    advice = hint(state, Rules(), config=FAST)
    gin = advice.alternatives[0]
    assert advice.action == gin.action == Action("gin", parse_card("Kc")) and gin.outs == ()
    kept = next(a for a in advice.alternatives if a.action == Action("discard", parse_card("Kc")))
    assert kept.deadwood == 0 and kept.safety is not None and kept.safety == gin.safety


def test_the_defensive_term_hardly_matters_early() -> None:
    hand = cards("As 3s Ah 2h 9h Th Jh Ad 4d 8d 5c")
    early = GameState(hand, "discard", parse_card("3c"), cards("3c Kd Qd"), 28, (), cards("Qd"))
    without, with_defence = (hint(early, Rules(), config=replace(DEFAULT_CONFIG, defence_weight=weight))
                             for weight in (0.0, 1.0))
    assert without.action == with_defence.action
    for plain, defended in zip(without.alternatives, with_defence.alternatives, strict=True):
        assert defended.evaluation == pytest.approx(plain.evaluation, abs=0.05)


def test_plays_on_rather_than_knock_for_a_modest_gain() -> None:
    state = GameState(hand=cards("As 2s 3s 7h 7d 7c Kd Qd Jd 5c 9h"), phase="discard", upcard=parse_card("4d"),
                      discard_pile=cards("4d Tc"), stock_count=29, opponent_discards=cards("7c"),
                      drawn_from_discard=parse_card("7c"))
    eager = hint(state, Rules(), config=replace(DEFAULT_CONFIG, knock_margin=0.0))
    assert eager.action.type == "knock"
    assert 0 < (eager.alternatives[0].expected_points or 0.0) < DEFAULT_CONFIG.knock_margin
    patient = hint(state, Rules())
    assert patient.action.type == "discard"
    assert f"less than the {DEFAULT_CONFIG.knock_margin:.0f} points" in patient.reason


@pytest.mark.parametrize(("last", "rules", "outs", "knocking"), [
    ("2d", Rules(), 5, "expected +1.0 points, undercut risk 0%, less than the 20 points it takes to give up playing "
                       "on for gin or an undercut."),
    ("Ad", Rules(undercut_on_tie=False), 4, "expected +0.0 points, undercut risk 0%."),
    ("Ad", Rules(), 4, "expected -25.0 points, undercut risk 100%."),
])
def test_the_reason_for_not_knocking_names_the_margin_only_for_a_knock_that_scores(last: str, rules: Rules, outs: int,
                                                                                   knocking: str) -> None:
    """The opponent's ten cards are shown to the engine: after our knock with 1 deadwood it holds ``last`` alone
    unmatched (2 wins us 1 point; 1 ties, an undercut only where ties are), below the 20-point margin. The outs:
    4s, 3h and 7h, which make gin, and Ah and Ad, which meld with As and Ac without lowering the deadwood (Ad
    only where the opponent does not hold it)."""
    opponent = cards("8s 8h 8d 9c Tc Jc Qd Qs Qc") + cards(last)
    state = situation(cards("As 2s 3s 4h 5h 6h 7c 7d 7s Ac Kc"), "discard", pile=10, held=opponent)
    advice = hint(state, rules, revealed=hand_from_cards(opponent))
    assert advice.action == Action("discard", parse_card("Kc"))
    assert advice.reason == (f"Discard Kc: keeps As 2s 3s, 4h 5h 6h, 7s 7d 7c with 1 deadwood and {outs} live outs; "
                             "the opponent can use Kc with chance 100%. Knocking (1 deadwood) is not advised: "
                             + knocking)


def states_with_the_opponents_hand(count: int, seed: int) -> Iterator[tuple[GameState, Rules, int]]:
    """Discard-phase states of hands played with greedy discards, each with the opponent's real hand."""
    rng = random.Random(seed)
    found = 0
    for game in itertools.count():
        rules = RULE_SETS[game % len(RULE_SETS)]
        table = Table.shuffled(rules, rng, dealer=rng.randrange(2))
        while not table.over:
            state = table.view()
            if state.phase == "discard":
                if found == count:
                    return
                yield state, rules, table.hands[1 - table.to_move]
                found += 1
                hand = hand_from_cards(state.hand)
                discards = [m for m in table.legal_actions() if m.type == "discard"]
                table.play(min(discards, key=lambda m: min_deadwood(hand & ~card_bit(m.card or 0))))
            else:
                table.play(rng.choice(table.legal_actions()))


MODEL_STATES = list(states_with_the_opponents_hand(24, seed=5))


@pytest.mark.parametrize("index", range(len(MODEL_STATES)))
def test_the_opponent_model_is_exact_when_the_whole_hand_is_known(index: int) -> None:
    state, rules, opponent = MODEL_STATES[index]
    model = model_opponent(state, rules, config=FAST, revealed=opponent)
    stock = [c for c in ALL_CARDS if c not in state.hand + state.discard_pile and not opponent >> c & 1]
    assert model.held == dict.fromkeys(stock, 0.0)  # the opponent's cards are no longer unseen
    joins = {c for c in ALL_CARDS if not opponent >> c & 1
             and any(m >> c & 1 for m in find_melds(opponent | card_bit(c)))}
    assert {c for c, chance in model.meld_chance.items() if chance} == joins
    assert set(model.meld_chance.values()) <= {1.0}
    limit = reference_limit(rules, state.upcard)
    knocks = sum(least_after_draw(opponent, c) <= limit for c in stock)
    assert model.knock_next == pytest.approx(knocks / len(stock))


@pytest.mark.parametrize("seed", range(4))
def test_the_opponent_melds_the_card_it_took(seed: int) -> None:
    # It took the first upcard, 7h, and has drawn nothing since, so every sample melds 7h with two
    # unseen cards: two sevens, or 5h 6h (8h is ours), and it holds two of them on average.
    state = GameState(cards("As 2s 3s 4d 5d Kc Qc 9c 8h Jd"), "draw", parse_card("7h"), cards("Jh"), 31,
                      cards("7h"), cards("Jh"))
    model = model_opponent(state, resolve_rules(), seed=seed, config=FAST)
    assert sum(model.held[c] for c in cards("7s 7d 7c 5h 6h")) >= 2 - 1e-9


@pytest.mark.parametrize("index", range(0, len(MODEL_STATES), 3))
def test_the_opponent_model_is_the_one_behind_the_hint(index: int) -> None:
    state, rules, _ = MODEL_STATES[index]
    model = model_opponent(state, rules, seed=3, config=FAST)
    hidden = 10 - len(state.opponent_hand_known)
    assert sum(model.held.values()) == pytest.approx(hidden)
    assert all(0 <= chance <= 1 for chance in [*model.held.values(), *model.meld_chance.values(), model.knock_next])
    for alternative in hint(state, rules, seed=3, config=FAST).alternatives:
        if alternative.action.type == "discard":
            assert alternative.action.card is not None and alternative.safety is not None
            assert alternative.safety == pytest.approx(1 - model.meld_chance.get(alternative.action.card, 0.0))


def test_a_knock_against_an_equal_count_scores_by_the_tie_rule() -> None:
    # The opponent's hand is shown in full: 8 deadwood (2d Ah 5c), as our knock discarding Kh.
    hand = cards("As 2s 3s 4h 5h 6h 7c 7d 7s 8d Kh")
    opponent = cards("9s 9h 9d Tc Jc Qc Kc 2d Ah 5c")
    state = situation(hand, "discard", pile=5, held=opponent)
    knock = Action("knock", parse_card("Kh"))
    for rules, points in ((Rules(), -25.0), (Rules(undercut_on_tie=False), 0.0)):
        scored = {a.action: a for a in hint(state, rules, revealed=hand_from_cards(opponent)).alternatives}[knock]
        assert scored.expected_points == pytest.approx(points)
        assert scored.undercut_risk == pytest.approx(1.0 if points else 0.0)


# --- close calls -----------------------------------------------------------------------------


def test_the_refused_first_upcard_leaves_only_the_stock_and_says_so() -> None:
    """Both players passed the upcard (9s, which would make a set of nines): the stock draw is the
    only move, no close call, with the fixed reason."""
    state = GameState(hand=cards("9h 9d 2c 3c 4c 5h 6h 7h 8h Jc"), phase="draw", upcard=parse_card("9s"),
                      discard_pile=cards("9s"), stock_count=31)
    advice = hint(state, Rules(), config=FAST)
    assert advice.action == Action("draw_stock")
    assert [a.action for a in advice.alternatives] == [Action("draw_stock")]
    assert advice.close_call is False
    assert advice.reason == "The refused first upcard may not be taken now: draw from the stock."


@pytest.mark.parametrize(("state", "knob"), [
    (situation(cards("As 3s 5h 7c 9d Jd Kh 2c 4d 6h 8s"), "discard", pile=10), "discard_close_margin"),
    (GameState(hand=cards("As 2s 3s 4h 5h Kc Qd Jh 9d 8s"), phase="first_upcard", upcard=parse_card("6h"),
               discard_pile=cards("6h"), stock_count=31), "close_margin"),
], ids=["discards", "take or pass"])
def test_a_choice_is_a_close_call_when_the_runner_up_is_within_its_close_margin(state: GameState, knob: str) -> None:
    """Strictly within, to a billionth (past the noise of float sums): a gap equal to the margin is not close, one
    a billionth narrower is. The other phase's margin does not count."""
    other = "close_margin" if knob == "discard_close_margin" else "discard_close_margin"
    best, second = hint(state, Rules(), config=FAST).alternatives[:2]
    assert best.unit == second.unit == "deadwood"
    gap = round(best.evaluation - second.evaluation, 9)
    assert gap > 0
    for margin, close in ((gap, False), (gap + 1e-9, True), (gap / 2, False), (gap * 2, True),
                          (math.nextafter(gap, -math.inf), False)):  # float noise below the margin: not close
        margins = {knob: margin, other: 1e9}
        config = replace(FAST, close_margin=margins["close_margin"],
                         discard_close_margin=margins["discard_close_margin"])
        assert hint(state, Rules(), config=config).close_call is close


@pytest.mark.parametrize("index", [3, 31])
def test_discards_within_one_and_a_half_are_a_close_call_the_reason_names(index: int) -> None:
    """Another seed moves the gap between the top two discards by about half a point, so the default margin is
    1.5 (at 0.5, half the discards whose advice changes with the seed were called clear)."""
    state, rules = STATES[index]
    advice = hint(state, rules)
    best, second = advice.alternatives[:2]
    assert best.action.type == second.action.type == "discard" and second.action.card is not None
    gap = best.evaluation - second.evaluation
    assert 0.5 < gap < DEFAULT_CONFIG.discard_close_margin == 1.5
    assert advice.close_call
    named = format_card(second.action.card)
    assert f". A close call: discarding {named} is evaluated {gap:.1f} lower." in advice.reason
    narrow = hint(state, rules, config=replace(DEFAULT_CONFIG, discard_close_margin=0.5))
    assert not narrow.close_call and "close call" not in narrow.reason


def test_a_discards_reason_names_the_next_discard_exactly_when_it_is_close() -> None:
    named = 0
    for state, rules in STATES:
        if state.phase != "discard" or (advice := hint(state, rules, config=FAST)).action.type != "discard":
            continue
        best, second = advice.alternatives[:2]
        close = second.action.type == "discard" and round(best.evaluation - second.evaluation, 9) < 1.5
        said = re.search(r" A close call: discarding (\S+) is evaluated (the same|[0-9.]+ lower)\.", advice.reason)
        assert (said is not None) == close, advice.reason
        if said:
            assert second.action.card is not None and said[1] == format_card(second.action.card)
            gap = f"{best.evaluation - second.evaluation:.1f}"
            assert said[2] == ("the same" if not float(gap) else f"{gap} lower")
            named += 1
    assert named > 10


def test_a_knocks_reason_says_it_is_close_exactly_when_it_is_near_the_knock_margin() -> None:
    """Generated discard states with a knock (the first 60 of seed 13; without gin, not on our last turns, where
    other rules weigh the knock, nor after a card taken only to knock: 25 of them): the reason calls knocking or
    not close exactly when the best knock's expected points are within 2.5 standard errors (at least 1) of the
    knock margin, or its standard error is not estimated, and then quotes it; the answer is then a close call."""
    near = far = 0
    knocking = (pair for pair in reachable_states(3000, seed=13) if pair[0].phase == "discard" and any(
        action.type == "knock" for action in engine.legal_actions(*pair)))
    for state, rules in itertools.islice(knocking, 60):
        context = engine._prepare(state, rules, 0, FAST)
        if context.last_turn() or context.one_draw_left() or engine.take_only_to_knock(state, rules):
            continue
        advice = hint(state, rules, config=FAST)
        knocks = [a for a in advice.alternatives if a.unit == "points"]
        if not knocks or any(a.action.type != "knock" for a in knocks):
            continue  # no knock, or gin (always made)
        best = knocks[0]
        assert best.expected_points is not None
        error = best.standard_error
        close = error is None or abs(best.expected_points - FAST.knock_margin) < max(1, 2.5 * error)
        said = re.search(r" Knocking or not is a close call: (.*)\.$", advice.reason)
        assert (said is not None) == close, advice.reason
        if said:
            assert advice.close_call
            assert said[1] == ("fewer than 2 effective samples carry the knock's expected points" if error is None
                               else f"the knock's expected points have a standard error of {error:.1f}"
                               if 2.5 * error > 1 else
                               f"the knock's expected points are within 1 of the +{FAST.knock_margin:.1f} points they "
                               "are weighed against")
        near, far = near + close, far + (not close)
    assert near > 3 and far > 3


def test_a_take_for_a_knock_and_a_stock_draw_are_never_a_close_call() -> None:
    """Points against deadwood do not compare, however wide the close margin."""
    state = GameState(hand=cards("As 2s 3s 4h 5h 6h 7c 7d Ac Kc"), phase="draw", upcard=parse_card("2c"),
                      discard_pile=cards("2c 7s"), stock_count=30, opponent_discards=cards("7s"))
    advice = hint(state, Rules(), config=replace(DEFAULT_CONFIG, samples=0, close_margin=1e9))
    assert [a.unit for a in advice.alternatives] == ["points", "deadwood"]
    assert advice.close_call is False


SHOWN = cards("Kd Qc Jh 9h Tc 8d Kh Qs Js 9c")


def test_knocks_are_a_close_call_when_the_second_scores_less_than_a_point_below() -> None:
    """The opponent's hand is shown in full (no meld, no layoff, 96 deadwood): knocking off 2d (1
    deadwood) expects exactly one point more than knocking off Ac (2 deadwood): not close. With the
    opponent model off every knock expects 0 points: close."""
    state = situation(cards("As 2s 3s 4h 5h 6h 7c 7d 7s Ac 2d"), "discard", pile=10, held=SHOWN)
    advice = hint(state, Rules(), config=FAST, revealed=hand_from_cards(SHOWN))
    first, second = advice.alternatives[:2]
    assert (first.action, second.action) == (Action("knock", parse_card("2d")), Action("knock", parse_card("Ac")))
    assert (first.evaluation, second.evaluation) == (95.0, 94.0)
    assert advice.close_call is False
    blind = hint(state, Rules(), config=replace(FAST, samples=0), revealed=hand_from_cards(SHOWN))
    assert blind.action == first.action and blind.alternatives[1].action == second.action
    assert blind.close_call is True


def test_a_knock_known_exactly_is_a_close_call_only_within_a_point_of_the_knock_margin() -> None:
    """The same knock (95 expected points, one point clear of the next) against the opponent's hand shown in full:
    every sample scores it alike, so its standard error is 0 and the knock margin it must beat decides only within
    ``CLOSE_POINTS``."""
    state = situation(cards("As 2s 3s 4h 5h 6h 7c 7d 7s Ac 2d"), "discard", pile=10, held=SHOWN)
    knock = Action("knock", parse_card("2d"))
    for knock_margin, close in ((91.5, False), (94.0, False), (94.5, True), (20.0, False)):
        advice = hint(state, Rules(), config=replace(FAST, knock_margin=knock_margin), revealed=hand_from_cards(SHOWN))
        assert advice.action == knock and advice.alternatives[0].evaluation == 95.0
        assert advice.alternatives[0].standard_error == 0
        assert advice.close_call is close
        assert advice.reason.endswith(" Knocking or not is a close call: the knock's expected points are within 1 "
                                      f"of the +{knock_margin:.1f} points they are weighed against.") is close


@pytest.mark.parametrize(("upcard", "rules", "doubling"), [("4d", Rules(), 1), ("Ts", resolve_rules("oklahoma"), 2)])
def test_a_knocks_standard_error_is_the_spread_of_its_points_over_the_samples(
        monkeypatch: pytest.MonkeyPatch, upcard: str, rules: Rules, doubling: int) -> None:
    """The README's hint (and under Oklahoma with a spade upcard, which doubles the score), each sample scored
    again (the defender's least deadwood after its layoffs): the knock off 9h has for expected points the weighted
    mean, and for standard error the weighted standard deviation over the root of one less than the effective
    samples, which uneven weights make fewer than the samples."""
    contexts: list[engine._Context] = []
    knocks = engine._knocks

    def recording(context: engine._Context, hand: Hand, taken: Card | None) -> list[engine._Knock]:
        contexts.append(context)
        return knocks(context, hand, taken)

    monkeypatch.setattr(engine, "_knocks", recording)
    state = GameState(cards("As 2s 3s 7h 7d 7c Kd Qd Jd 5c 9h"), "discard", parse_card(upcard), cards(f"{upcard} Tc"),
                      29, (), cards("7c"), parse_card("7c"))
    advice = hint(state, rules)
    knock = next(a for a in advice.alternatives if a.action == Action("knock", parse_card("9h")))
    assert knock.layout is not None and knock.deadwood == 5
    context = contexts[-1]
    scored = []
    for hand, weight in context.samples:  # named in the engine's suit frame, the layout as the caller names it
        theirs = best_defence(knock.layout.melds, context.frame.hand_back(hand)).deadwood
        scored.append((weight, doubling * outcome_points(knock_outcome(5, theirs, rules), 5, theirs, rules)))
    mean = sum(weight * points for weight, points in scored)
    variance = sum(weight * (points - mean) ** 2 for weight, points in scored)
    assert len({points for _, points in scored}) > 1 and advice.effective_samples < len(scored)
    assert knock.expected_points == pytest.approx(mean)
    assert knock.standard_error == pytest.approx(math.sqrt(variance / (advice.effective_samples - 1)))


def test_a_knock_is_a_close_call_within_two_and_a_half_standard_errors_of_the_knock_margin() -> None:
    """A knock off 9h with 5 deadwood (about +13.5 points, a standard error near 1.6, the next knock far below),
    with the knock margin set just inside and just outside 2.5 standard errors of its expected points, below them
    (it knocks) and above (it plays on; the best discard is clear of the next): close just inside, and the reason
    then quotes the standard error."""
    state = situation(cards("As 2s 3s 7h 7d 7c Kd Qd Jd 2c 9h"), "discard", pile=4)
    knock = next(a for a in hint(state, Rules()).alternatives if a.action.type == "knock")
    assert knock.expected_points is not None and knock.standard_error is not None
    window = 2.5 * knock.standard_error
    assert 2 < window < knock.expected_points - 5
    quoted = " Knocking or not is a close call: the knock's expected points have a standard error of " \
        f"{knock.standard_error:.1f}."
    sides: tuple[tuple[int, ActionType], ...] = ((-1, "knock"), (1, "discard"))
    for side, action in sides:
        for inside in (True, False):
            margin = knock.expected_points + side * (window + (-0.01 if inside else 0.01))
            advice = hint(state, Rules(), config=replace(DEFAULT_CONFIG, knock_margin=margin))
            assert advice.action == Action(action, parse_card("9h"))
            assert advice.close_call is inside and advice.reason.endswith(quoted) is inside


@pytest.mark.parametrize(("seed", "action"), [(6, "knock"), (2, "discard")])
def test_a_knock_resting_on_too_few_samples_is_always_a_close_call(seed: int, action: ActionType) -> None:
    """The README's hint with its time budget spent from the start: the engine keeps ``MIN_SAMPLES`` opponent hands,
    and the evidence leaves fewer than two effective samples. The knock's standard error is then not estimated
    (its points rest on about one hand: over seeds 0-39 this state knocked at some and not at others), and knocking
    or not is a close call however far the knock is from the margin (52.9 points at seed 6)."""
    state = GameState(cards("As 2s 3s 7h 7d 7c Kd Qd Jd 5c 9h"), "discard", parse_card("4d"), cards("4d Tc"), 29, (),
                      cards("7c"), parse_card("7c"))
    advice = hint(state, Rules(), seed=seed, budget=stopwatch(0))
    knock = next(a for a in advice.alternatives if a.action == Action("knock", parse_card("9h")))
    assert advice.time_budget_reached and advice.samples == MIN_SAMPLES and advice.effective_samples < 2
    assert advice.action == Action(action, parse_card("9h")) and knock.standard_error is None
    assert advice.close_call
    assert advice.reason.endswith(" Knocking or not is a close call: fewer than 2 effective samples carry the knock's "
                                  "expected points.")
    never = hint(state, Rules(), seed=seed, budget=stopwatch(0), config=replace(DEFAULT_CONFIG, knock_margin=math.inf))
    assert never.action == Action("discard", parse_card("9h")) and not never.close_call  # no knock on points at all
    assert never.reason.endswith("with an infinite knock margin no knock is made on points.")


def test_a_knock_declined_for_playing_on_is_weighed_against_that_not_the_margin() -> None:
    """A mutation audit: with one draw left, the knock off Ks (4 deadwood against the opponent's 13, shown to the
    engine: +9.0 points) is weighed against playing on (+9.25: drawing 3s would knock with 3), not against the knock
    margin of 20: within a point of it, a close call, though the best discard is clear of the next."""
    ours = cards("2s 2h 2d 7c 8c 9c Jh Qh Kh 4c Ks")
    theirs = cards("Qc Qd Qs 3h 4h 5h 4d Ad 5s 3c")
    used = {*ours, *theirs, *cards("3s 9h 7s Js")}
    pile = tuple(c for c in ALL_CARDS if c not in used)
    state = GameState(ours, "discard", pile[0], pile, 4, (), pile[1 + len(pile) % 2::2], None)
    advice = hint(state, Rules(), revealed=hand_from_cards(theirs))
    first, second = advice.alternatives[:2]
    knock = next(a for a in advice.alternatives if a.action.type == "knock")
    assert advice.action == Action("discard", parse_card("Ks")) and knock.expected_points == 9
    assert first.evaluation - second.evaluation > DEFAULT_CONFIG.discard_close_margin
    assert advice.close_call
    assert advice.reason.endswith("less than the +9.2 points playing on is expected to bring with one draw left. "
                                  "Knocking or not is a close call: the knock's expected points are within 1 of the "
                                  "+9.2 points they are weighed against.")


def test_gin_is_no_close_call_on_the_knock_margin() -> None:
    """Gin is made whatever the knock margin, and is clear of the knocks after it: never close, even with the
    knock margin within half a point of its expected points (a mutation audit)."""
    state = situation(cards("As 2s 3s 4s 5h 6h 7h 9c 9d 9s Kc"), "discard", pile=10)
    gin = hint(state, Rules()).alternatives[0]
    assert gin.standard_error is not None and gin.standard_error > 0
    for knock_margin in (DEFAULT_CONFIG.knock_margin, 1000.0, gin.evaluation - 0.5, gin.evaluation + 0.5):
        advice = hint(state, Rules(), config=replace(DEFAULT_CONFIG, knock_margin=knock_margin))
        first, second = advice.alternatives[:2]
        assert advice.action == Action("gin", parse_card("Kc")) and second.action.type == "knock"
        assert first.evaluation - second.evaluation >= 1.0
        assert advice.close_call is False


@pytest.mark.parametrize(("hand", "knocks", "close"), [
    ("As 2s 3s 4h 5h 6h 7h Ac 2c 3d Kd", 1, False),  # only Kd can go (6 deadwood)
    ("As 2s 3s 4h 5h 6h 7c 7d 7s 8s Kc", 2, True),  # Kc (8 deadwood) or 8s (10)
])
def test_knocks_with_the_opponent_model_off_are_a_close_call_only_when_there_are_two(hand: str, knocks: int,
                                                                                      close: bool) -> None:
    """Without samples every knock expects 0 points: two of them tie, but a lone knock is no close call."""
    advice = hint(situation(cards(hand), "discard", pile=10), Rules(), config=replace(DEFAULT_CONFIG, samples=0))
    assert advice.action.type == "knock"
    assert [a.action.type for a in advice.alternatives].count("knock") == knocks
    assert advice.close_call is close


def test_gins_scoring_the_same_are_a_close_call() -> None:
    """Without big gin, this hand goes gin discarding As, 4s or any nine, each for the same points."""
    state = situation(cards("As 2s 3s 4s 5h 6h 7h 9c 9d 9s 9h"), "discard", pile=10)
    advice = hint(state, resolve_rules("standard"), config=FAST)
    first, second = advice.alternatives[:2]
    assert first.action.type == second.action.type == "gin" and first.evaluation == second.evaluation > 0
    assert advice.close_call is True


def test_our_points_against_a_knock_are_its_round_score_from_the_defenders_side() -> None:
    """The table the engine weighs the opponent's knocks with: ``[their deadwood][ours]``, layoffs not counted."""
    table = engine._points_against_knocks(Rules())  # gin 25, undercut 25, a tie is an undercut
    assert table[0][7] == -(25 + 7)  # its gin: the bonus and our deadwood
    assert table[5][9] == -4  # its knock wins by 4
    assert table[5][3] == 2 + 25 and table[5][5] == 25  # we undercut it, a tie included
    assert engine._points_against_knocks(Rules(undercut_on_tie=False, undercut_bonus=10))[5][5] == 0
    assert engine._points_against_knocks(Rules(undercut_on_tie=False, undercut_bonus=10))[5][4] == 1 + 10


TAKE_TO_KNOCK_STATES = {
    # the last draw (a hint audit found 4d missing from the outs, which were those of the nine cards without 4s;
    # a later one, that the discards of that turn have none, no draw of ours following, and a knock the same
    # discard's): traditional rules, take 4s and knock discarding Qs
    "last draw": (GameState(
        hand=cards("2s Qs 2h 2c 4c 8c 9c Tc Jc Qc"), phase="draw", upcard=parse_card("8c"),
        discard_pile=cards("Kc Kd 6s Td Jh Qh 8s Qd 4h Ts 3s Ks Jd 7c Ad 6h 7h Js 5h 9s 7s 8d 9h 5d Kh 6c 3h 8h 4s"),
        stock_count=3,
        opponent_discards=cards("Kc Kd Td 9s Qh Qd Ts Qc Ks 3s Jd Ad 2h Js 9s 5h 7s 8d 5d 8h 2s Qs 4s")),
        "4s", "Qs"),
    # early in the hand (a take to knock had no outs at all): take Jd and knock discarding 9c
    "early": (GameState(hand=cards("As 2s 3s 7h 7d 7c Kd Qd 9c 2c"), phase="draw", upcard=parse_card("5h"),
                        discard_pile=cards("5h Jd"), stock_count=30, opponent_discards=cards("Jd")), "Jd", "9c"),
}


@pytest.mark.parametrize("name", TAKE_TO_KNOCK_STATES)
def test_a_take_to_knock_has_the_outs_of_the_ten_cards_it_keeps_unless_no_draw_follows(name: str) -> None:
    state, taken, thrown = TAKE_TO_KNOCK_STATES[name]
    advice = hint(state, resolve_rules("traditional"), seed=3, config=FAST)
    take = next(a for a in advice.alternatives if a.action.type == "take_upcard")
    assert take.unit == "points" and take.then_discard == parse_card(thrown)
    kept = (hand_from_cards(state.hand) | card_bit(parse_card(taken))) & ~card_bit(parse_card(thrown))
    unseen = [c for c in ALL_CARDS if c not in state.hand + state.discard_pile]
    last_draw = state.stock_count == Rules().stock_end + 1
    assert set(take.outs) == (set() if last_draw else reference_outs(kept, unseen))
    assert reference_outs(kept, unseen) != set()
    after = hint(replace(state, phase="discard", hand=(*state.hand, parse_card(taken)),
                         discard_pile=state.discard_pile[:-1], drawn_from_discard=parse_card(taken)),
                 resolve_rules("traditional"), seed=3, config=FAST)
    same_discard = next(a for a in after.alternatives if a.action == Action("discard", parse_card(thrown)))
    assert take.outs == same_discard.outs  # the same discard without the knock, for comparison


# --- from a mutation audit of the rule-level parts: exact ties and flags no test read ------------------

STOCK_END_PILE = cards("2c 3c 4c 5c 2d 3d 4d 5d 6d 9d Td Jd Qd Kd 8h 9h Th Jh Kh 4s 5s 6s 8s 9s Ts 7d 8c As 2s")


def test_gins_scoring_the_same_go_out_with_the_lowest_card_and_before_big_gin_worth_less() -> None:
    state = situation(cards("As 2s 3s 4s 5h 6h 7h 9c 9d 9s 9h"), "discard", pile=10)
    no_samples = replace(DEFAULT_CONFIG, samples=0)
    advice = hint(state, resolve_rules("standard"), config=no_samples)
    assert [str(a.action) for a in advice.alternatives[:2]] == ["gin As", "gin 4s"]  # by rank
    assert {str(a.action) for a in advice.alternatives[2:6]} == {"gin 9s", "gin 9h", "gin 9d", "gin 9c"}
    cheap_big_gin = hint(state, Rules(big_gin_bonus=10, gin_bonus=25), config=no_samples)
    assert cheap_big_gin.action == Action("gin", parse_card("As"))


def test_at_the_last_turn_equal_discards_keep_the_least_deadwood_and_are_no_close_call() -> None:
    """Every discard is worth 0 at the stock end under the draw rule; the one that keeps least deadwood goes, and
    a choice between moves all worth the same is no close call."""
    state = GameState(cards("Ks Qs Js 2h 3h 4h 9c Tc 8d 6c Qh"), "discard", parse_card("2c"), STOCK_END_PILE, 2,
                      (), cards("4c 2d 4d 6d Td Qd 8h Th Kh 5s 8s Ts 8c 2s"))
    advice = hint(state, Rules(), config=replace(DEFAULT_CONFIG, samples=8))
    assert advice.action == Action("discard", parse_card("Qh"))
    assert advice.close_call is False


def test_a_take_at_the_stock_end_worth_as_much_as_the_draw_is_a_close_call() -> None:
    pile = cards("2c 3c 4c 5c 6c 2d 3d 4d 5d 6d 2h 3h 8d 9d Td 8h 9h Th Jh Qh Kh 4s 5s 6s 8s Ts Js 8c 7s Qs")
    state = GameState(cards("As 2s 3s 7h 7d 7c Kd Qd Jd 9s"), "draw", parse_card("2c"), pile, 2, (),
                      cards("3c 5c 2d 4d 6d 3h 9d 8h Th Qh 4s 6s Ts 8c Qs"))
    advice = hint(state, resolve_rules("standard", {"stock_end_discard": "take_to_knock"}),
                  config=replace(DEFAULT_CONFIG, samples=0))
    assert advice.action == Action("take_upcard") and advice.close_call is True


def test_a_knock_with_a_card_that_may_be_taken_only_to_knock_is_no_close_call() -> None:
    """GRA: the 7c came straight back and was retaken, so the only moves are knocks."""
    state = GameState(cards("As 2s 3s 7h 7d Kd Qd Jd 5c 9h 7c"), "discard", parse_card("4d"), cards("4d"), 30,
                      (), cards("7c"), drawn_from_discard=parse_card("7c"), returned_discard=True)
    advice = hint(state, resolve_rules("gra"), config=replace(DEFAULT_CONFIG, samples=8))
    assert advice.action == Action("knock", parse_card("9h")) and advice.close_call is False
    # Not "beats waiting": it may not wait. (It said the card "may be kept only to knock", which read wrong where
    # the knock discards that very card: an integrator's audit.)
    assert advice.reason.endswith("; the card was taken only to knock, so no plain discard is allowed.")


def test_an_infinite_knock_margin_is_named_as_such() -> None:
    """From an audit of the reasons: an infinite margin was quoted as "less than the inf points"."""
    state = GameState(hand=cards("As 5s 2h 5h 2d 5d Ac 2c 3c 4c 5c"), phase="discard", upcard=parse_card("3h"),
                      discard_pile=cards("Qd Ks Tc Jd Kh Jh Kc 9h Jc 6c 3h"), stock_count=20,
                      opponent_hand_known=cards("8h 8c 6s 7c 8s 4s"),
                      opponent_discards=cards("Qd Ks Tc Jd Kh Jh Kc 9h Jc 4c 5c 3h"))
    advice = hint(state, resolve_rules("oklahoma"), seed=965, config=replace(DEFAULT_CONFIG, knock_margin=math.inf))
    assert advice.action.type == "discard"
    assert advice.reason.endswith("undercut risk 0%, and with an infinite knock margin no knock is made on points.")


@pytest.mark.parametrize(("offer", "words"), [
    ("draw", "so not knocking draws the hand."),
    ("take_to_knock_any", "so not knocking draws the hand unless the opponent takes your discard to knock.")])
def test_without_samples_a_knock_at_the_stock_end_names_the_offer(offer: StockEndDiscard, words: str) -> None:
    """With the opponent model off, the last turn is valued like any other; the reason still says what the rules
    let the opponent do with the discard, and no move has outs, since no draw of ours follows."""
    state = GameState(hand=cards("2h 5h 6h 7h 8h 9h Th Jh Ad 3d 7d"), phase="discard", upcard=None,
                      discard_pile=cards("Qc Qh Qd Ks Jd Jc 9s 9c Js Qs 8s 8d 7c Ts 7s 6d Tc Kh Kd 5d 5c Kc 5s 3s Td "
                                         "6c 3c 6s"), stock_count=3, opponent_hand_known=cards("4s 4c"),
                      opponent_discards=cards("Qc Qd Jd 9s 9c Qs 8d Ts 7s 6d Kh 6h 5d Kc 5s 3s 6c 6s"))
    rules = Rules(stock_end_discard=offer, stock_end=3, discard_pickup_allowed=True, big_gin_bonus=None,
                  eleven_card_deal=True)
    advice = hint(state, rules, seed=999, config=replace(DEFAULT_CONFIG, samples=0))
    assert advice.action.type == "knock" and advice.reason.endswith(words)
    assert len(advice.alternatives) > 1 and not any(option.outs for option in advice.alternatives)


# Found by a mutation audit of the draw phase's held knock and of one draw left (2026-11-27): each test fails
# on a mutant that survived the tests above.
HELD_IN_TWO_LAYOUTS = cards("4s 5s 6s 7s 4h 4d 4c Ac 2c 5d")
"""Ten cards that knock with 8 (Ac 2c 5d) laid out as 4s-7s with 4h 4d 4c (the first of the optimal layouts) or
as the four 4s with 5s 6s 7s."""
SHOWN_NO_MELD = cards("3s 9s Jc Kc 8h Th Qh Kd 6c Jd")
"""The opponent's ten cards, shown to the engine: 86 deadwood, no meld; 3s lays off on 4s-7s only."""


def test_the_knock_held_is_valued_laid_out_to_score_most() -> None:
    """The stock draw is worth the held knock laid out so that 3s lays off nowhere (86 - 8 = 78 points), not the
    first optimal layout (3s on 4s-7s: 83 - 8 = 75) nor the least-scoring one."""
    state = situation(HELD_IN_TWO_LAYOUTS, "draw", pile=8, held=SHOWN_NO_MELD)
    advice = hint(state, Rules(), revealed=hand_from_cards(SHOWN_NO_MELD))
    stock, take = advice.alternatives
    assert advice.action == Action("draw_stock") and (stock.unit, stock.evaluation) == ("points", 78)
    assert take.unit == "deadwood"
    assert advice.reason == ("Draw from the stock: the ten cards you hold knock with 8 deadwood after any stock draw "
                             "(throwing back the card drawn), expected +78.0 points; taking 8d allows no knock.")


def test_without_samples_a_returned_card_is_not_retaken_to_knock_with_the_deadwood_held() -> None:
    """No opponent model (every knock worth 0 points): GRA's returned Kc allows only the knock with 4 that the ten
    cards make anyway after any stock draw, so it is compared by deadwood, and a tie is no reason to take it."""
    state = replace(HOLDS_A_KNOCK, upcard=parse_card("5c"), discard_pile=cards("5c Kc"), returned_discard=True)
    advice = hint(state, resolve_rules("gra"), config=replace(DEFAULT_CONFIG, samples=0))
    assert advice.action == Action("draw_stock")
    assert advice.alternatives[1].deadwood == 4


def test_without_samples_big_gin_by_a_take_beats_the_gin_held() -> None:
    """No opponent model: the ten cards held are gin after any stock draw, but 8h makes big gin, which scores more
    (the library's no-sample mode compares by kind where it cannot by points)."""

    state = GameState(hand=cards("As 2s 3s 4s 5h 6h 7h 9c 9d 9s"), phase="draw", upcard=parse_card("2c"),
                      discard_pile=cards("2c 8h"), stock_count=30, opponent_discards=cards("8h"))
    advice = hint(state, Rules(), config=replace(DEFAULT_CONFIG, samples=0))
    take = advice.alternatives[0]
    assert advice.action == Action("take_upcard") and (take.unit, take.then_discard) == ("points", None)
    assert advice.reason == "Take 8h: it allows big gin right away."


@pytest.mark.parametrize("stock", ["9h 7s Js 6s", "9h 7s Js 6s 5d"])
def test_with_one_draw_left_a_take_to_knock_that_ties_with_playing_on_is_planned_as_that_knock(stock: str) -> None:
    """The draw phase of the state above (Ac on the pile): taking Ac allows the knock with 1 (12 points), and
    playing on after the take is worth 12 too. On a tie the discard phase knocks, so the take is that knock, in
    points, and its plan says so (not "Take Ac and discard Ks", valued in deadwood)."""
    ours = cards("2s 2h 2d 7c 8c 9c Jh Qh Kh Ks")
    theirs = cards("Qc Qd Qs 3h 4h 5h 4d Ad 5s 3c")
    ace = parse_card("Ac")
    pile = tuple(c for c in ALL_CARDS if c not in {*ours, *theirs, *cards(stock), ace})
    state = GameState(ours, "draw", pile[0], (*pile, ace), len(cards(stock)), (),
                      (*pile[1 + len(pile) % 2::2], ace), None)
    advice = hint(state, Rules(), revealed=hand_from_cards(theirs))
    take = advice.alternatives[0]
    assert advice.action == Action("take_upcard") and (take.unit, take.evaluation) == ("points", 12)
    assert take.then_discard == parse_card("Ks")
    assert advice.reason == "Take Ac: it allows a knock with 1 deadwood right away."


def test_a_take_that_knocks_a_whole_point_better_than_the_knock_held_is_no_close_call() -> None:
    """The ten cards knock with 5 (5d) after any stock draw: 67 - 5 = 62 points against the opponent's shown
    cards; taking 4c knocks with 4, 63 points. A whole point apart is outside ``CLOSE_POINTS`` (the stock's value,
    summed in floats, is 62.000000000000014: the gap is rounded, as everywhere)."""
    hand = cards("7s 8s 9s Jh Jd Jc Kh Kd Kc 5d")
    theirs = cards("2s 3h 5c 6h 8h Qs Qd 9c 6c 8d")
    state = situation(hand, "draw", pile=3, held=theirs)
    assert state.discard_pile[-1] == parse_card("4c")
    advice = hint(state, Rules(), revealed=hand_from_cards(theirs))
    take, stock = advice.alternatives
    assert advice.action == Action("take_upcard") and (take.unit, stock.unit) == ("points", "points")
    assert take.evaluation == 63 and stock.evaluation == pytest.approx(62)
    assert advice.close_call is False


def test_on_the_last_turn_a_knock_with_a_card_taken_only_to_knock_says_so() -> None:
    """GRA, three cards left (our last turn): the 7c came straight back and was retaken, so the last turn's reason
    is the knock-only one, worded as in the discard phase (not "may be kept only to knock")."""

    rules = resolve_rules("gra")
    hand = cards("As 2s 3s 7h 7d Kd Qd Jd 5c 9h 7c")
    pile = tuple(c for c in ALL_CARDS if c not in set(hand))[:28]
    state = GameState(hand, "discard", pile[0], pile, rules.stock_end + 1, (),
                      (*pile[1 + len(pile) % 2::2], parse_card("7c")), drawn_from_discard=parse_card("7c"),
                      returned_discard=True)
    advice = hint(state, rules, config=replace(DEFAULT_CONFIG, samples=8))
    assert advice.action == Action("knock", parse_card("9h"))
    assert advice.reason.endswith("; the card was taken only to knock, so no plain discard is allowed.")


def test_a_take_that_beats_the_held_knock_by_less_than_a_point_is_a_close_call() -> None:
    """A mutation audit: the ten cards held knock with 9 deadwood after any stock draw (6s 6h 6d 6c, Tc Jc Qc; worth
    making), so the stock draw is valued at that knock; taking 9c knocks with 4 (9c Tc Jc Qc, discarding 5s) and
    is expected 0.75 points more (the sampled opponent makes the gap fractional): taken, and a close call, as
    knocks less than ``CLOSE_POINTS`` (1) apart are (not the close margin, 0.5, of look-ahead scores)."""
    state = GameState(hand=cards("5s 6s 6h 6d Ac 3c 6c Tc Jc Qc"), phase="draw", upcard=parse_card("2c"),
                      discard_pile=cards("2c 4c 5c 2d 3d 4d 9c"), stock_count=25, opponent_discards=cards("5c 3d 9c"))
    advice = hint(state, Rules(), seed=71)
    take, stock = advice.alternatives
    assert advice.action == Action("take_upcard") and (take.unit, stock.unit) == ("points", "points")
    assert (take.deadwood, take.then_discard) == (4, parse_card("5s"))
    assert stock.evaluation > 20  # the held knock is worth making (above the knock margin)
    assert 0.5 <= take.evaluation - stock.evaluation < 1
    assert advice.close_call


def test_with_one_draw_left_a_take_to_knock_is_weighed_against_throwing_the_card_straight_back() -> None:
    """A mutation audit: under GRA, with one draw left, taking 5h allows a knock with 5 deadwood (discarding 7c,
    expected +8.7 points, below the knock margin), but after the take the best play is to throw 5h straight back and
    play on (expected +14.8 points): the draw phase weighs the knock against that discard, as the discard phase after
    the take does (``banned_discard``), so the take is not valued as a knock and the stock is drawn. Weighed against
    the best discard other than 5h (7c), playing on brings less than the knock, and "Take 5h" to knock was
    advised, which the discard phase then does not make."""
    state = GameState(hand=cards("4c 3h 6h 4s 4h 3s 3d 6c 6s 7c"), phase="draw", upcard=parse_card("2c"),
                      discard_pile=cards("2c 3c 5c 2d 4d 5d 6d 2h 8d 9d Td Jd Qd Kd 8h 9h Th Jh Qh Kh 5s 8s 9s Ts Js "
                                         "7d 8c 5h"), stock_count=4,
                      opponent_discards=cards("3c 2d 5d 2h 9d Jd Kd 9h Jh Kh 8s Ts 7d 5h"))
    rules = resolve_rules("gra")
    advice = hint(state, rules, seed=1)
    stock, take = advice.alternatives
    assert advice.action == Action("draw_stock") and (stock.unit, take.unit) == ("deadwood", "deadwood")
    after = hint(taken(state), rules, seed=1)
    assert after.action == Action("discard", parse_card("5h"))  # no knock: playing on brings more
    assert "less than the +14.8 points playing on is expected to bring with one draw left" in after.reason


def test_with_one_draw_left_a_take_to_knock_is_weighed_against_the_discard_ranked_after_two_draws() -> None:
    """A mutation audit: under GRA, with one draw left, taking 4c allows a knock with 6 deadwood (discarding 7d,
    expected +6.5 points); the discard phase after the take ranks its discards after two draws (6d first) and knocks,
    as playing on brings less (+5.7 points). The draw phase ranks them the same way (``second_draw=True``) and
    takes 4c to knock; ranked after one draw (7d first, playing on valued above the knock) the take would be planned
    as a plain discard of 6d, which the discard phase does not make."""
    state = GameState(hand=cards("Qs Qc 3c As Ad 6d Qh Ac 2c 7d"), phase="draw", upcard=parse_card("5c"),
                      discard_pile=cards("5c 6c 2d 3d 4d 5d 2h 3h 8d 9d Td Jd Qd Kd 8h 9h Th Jh Kh 4s 5s 6s 8s 9s Ts "
                                         "Js 4c"), stock_count=5,
                      opponent_discards=cards("2d 4d 2h 8d Td Qd 8h Th Kh 5s 8s Ts 4c"))
    rules = resolve_rules("gra")
    advice = hint(state, rules, seed=8)
    take = advice.alternatives[0]
    assert advice.action == Action("take_upcard") and take.unit == "points"
    assert (take.deadwood, take.then_discard) == (6, parse_card("7d"))
    assert advice.reason == "Take 4c: it allows a knock with 6 deadwood right away."
    after = hint(taken(state), rules, seed=8)
    assert after.action == Action("knock", parse_card("7d")) and after.alternatives[0].evaluation == take.evaluation


def test_gra_take_is_not_followed_by_throwing_the_card_straight_back() -> None:
    """An audit of the take's plan against the discard phase after it (2026-11-27), in a state reached in play
    (GRA, one draw left): the draw phase planned the take with Qs barred (``_take_value`` passes ``top``),
    the discard phase after it (``banned_discard`` is None under GRA) ranked throwing Qs back first: the two hints
    contradicted, and by the discard phase's own ranking the take only passed the turn, which a stock draw beats.
    Now the take is planned as that phase ranks, and a plan that throws the card back is not advised."""
    state = GameState(hand=cards("3s 4s 6s Ah 2h 5h 3d Ac 2c 4c"), phase="draw", upcard=parse_card("6h"),
                      discard_pile=cards("Ts Jh Jd Qc Kd 9c Ad Kh 9s Td 8h Tc 8d Qd 7s 6h 6c Js Qh 8c Kc Jc Ks 8s 7h "
                                         "Th 7d Qs"), stock_count=4, opponent_hand_known=cards("5d 5c"),
                      opponent_discards=cards("Ts Jh Jd Kd 9c Td Kh 9s Td 8h 8d Qd 7s 6h 5c Qh 6c 8c 7h Kc Jc Ks 8s Th "
                                              "Qs"))
    rules = resolve_rules("gra")
    advice = hint(state, rules, seed=67)
    after = hint(taken(state), rules, seed=67)
    assert after.action == Action("discard", parse_card("Qs"))  # thrown straight back
    assert advice.action == Action("draw_stock") and advice.alternatives[1].then_discard == parse_card("Qs")
    assert advice.reason == ("Draw from the stock: after taking Qs the best discard would be Qs itself, which only "
                             "passes the turn.") and not advice.close_call


def test_a_take_is_not_advised_where_the_discard_phase_then_knocks_for_less_than_the_ten_cards_hold() -> None:
    """The same audit (30 such hints in 6,742 built states): standard rules, one draw left. The ten cards knock
    with 3 deadwood after any stock draw (expected +8.8, below the knock margin, so the stock is not valued at it);
    taking 4h allows only knocks no better (the held knock rule rejected them), so the take was planned as "discard
    2s" and beat the stock's look-ahead. After the
    take the discard phase knocks discarding 3h with 4 deadwood (+7.7 points): a point less than drawing and
    knocking with the ten cards held. Now a take whose knock does not beat the held knock is not advised, whatever
    the stock is valued at."""
    state = GameState(hand=cards("Qh 3h Kh 2h 2s 8d 8c 8h Jh 2c"), phase="draw", upcard=parse_card("3c"),
                      discard_pile=cards("3c 4c 5c 6c 2d 3d 4d 5d 6d 9d Td Jd Qd Kd 9h Th 4s 5s 6s 8s 9s Ts Js 7d As "
                                         "3s 4h"), stock_count=5,
                      opponent_discards=cards("5c 2d 4d 6d Td Qd 9h 4s 6s 9s Js As 4h"))
    rules = resolve_rules("standard")
    advice = hint(state, rules, seed=5)
    after = hint(taken(state), rules, seed=5)
    assert after.action == Action("knock", parse_card("3h"))
    assert advice.action == Action("draw_stock") and advice.alternatives[1].unit == "points"
    assert advice.reason.startswith("Draw from the stock: the ten cards you hold knock with 3 deadwood after any "
                                    "stock draw")


def test_under_gra_a_first_upcard_that_would_be_thrown_straight_back_is_passed_for_that_reason() -> None:
    """The first-upcard phase of the audit above: under GRA the discard phase may throw the upcard taken straight
    back, and for these ten cards ranks that first, so the take is shown as that plan and passed (49 of 600 random
    first upcards under GRA)."""
    state = GameState(cards("7c Qh Kd 4h As 2h 8s 3d 2s Th"), "first_upcard", parse_card("Qs"), cards("Qs"), 31,
                      (), (), None)
    advice = hint(state, resolve_rules("gra"), seed=8, budget=None)
    assert advice.action == Action("pass") and advice.alternatives[1].then_discard == parse_card("Qs")
    assert advice.reason == "Pass: after taking Qs the best discard would be Qs itself, which only passes the turn."


# A check of the fix above (2026-11-27): 0 contradictions in 55,447 advised takes under five rule sets; a mutation run
# of the new code left these four states to tell its mutants apart.
LATE_PILE_STATES = {  # hand, pile (oldest first, the first upcard 2c), opponent's discards, stock count
    "take_beside_an_unadvised_knock": ("8s 9s Ts Ah 2h 3h 4h 2d 5d 7d", "2c 3c 4c 5c 6c 3d 4d 6d 8d 9d Td Jd Qd Kd 8h "
                                       "9h Th Jh Qh Kh 4s 5s 6s Js 8c As 2s 7s",
                                       "3c 5c 3d 6d 9d Jd Kd 9h Jh Kh 5s Js As 7s", 4),
    "gra_throw_back": ("5s 3h Ad 2d 3d Ac 5c 8c 9c Tc", "2c 3c 4c 6c 4d 5d 6d 2h 8d 9d Td Jd Qd Kd 8h 9h Th Jh Qh Qc",
                       "3c 6c 5d 2h 9d Jd Kd 9h Jh Qc", 12),
    "two_draws_left": ("7s 8s Ah 8h 5d 8d 4c 5c 6c 7c", "2c 3c 3d 4d 6d 2h 3h 9d Td Jd Qd Kd 9h Th Jh Qh Kh 4s 5s 6s "
                       "9s Ts Js 7d 8c 2d", "3c 4d 2h 9d Jd Kd Th Qh 4s 6s Ts 7d 2d", 6),
    "held_knock_worth_making": ("3s 7s 8s 9s 3h 7h 3d 7d 3c 7c", "2c 4c 5c 6c 4d 5d 6d 2h 8d 9d Td Jd Qd Kd 8h 9h Th "
                                "Jh Qh Kh 4s 5s 6s Ts Js 2d", "4c 6c 5d 2h 9d Jd Kd 9h Jh Kh 5s Ts 2d", 6),
}


def _late_pile_state(name: str) -> GameState:
    hand, pile, thrown, stock_count = LATE_PILE_STATES[name]
    return GameState(cards(hand), "draw", parse_card("2c"), cards(pile), stock_count, (), cards(thrown))


def test_a_knock_not_made_after_the_take_leaves_the_take_planned_as_a_discard() -> None:
    """Four stock cards: taking 7s allows a knock the discard phase would not make, so the take is valued as the
    discard it plans, and advised (marking it outdone because some knock exists would draw instead)."""
    assert hint(_late_pile_state("take_beside_an_unadvised_knock"), Rules(), seed=52).action == Action("take_upcard")


def test_a_take_that_only_throws_the_card_back_is_no_close_call() -> None:
    advice = hint(_late_pile_state("gra_throw_back"), resolve_rules("gra"), seed=33)
    assert advice.action == Action("draw_stock") and advice.close_call is False


def test_with_two_draws_left_a_knock_below_the_margin_is_not_the_takes_plan() -> None:
    """Six stock cards: the discard phase after the take weighs the knock by the margin alone, so the take is
    planned as a plain discard (weighed against playing on, as with one draw left, it was planned as the knock)."""
    advice = hint(_late_pile_state("two_draws_left"), Rules(), seed=35, config=FAST)
    assert advice.action == Action("take_upcard") and advice.alternatives[0].unit == "deadwood"


def test_beside_a_held_knock_worth_making_the_take_is_shown_as_its_knock() -> None:
    """The ten cards knock after any stock draw (worth making): the take is shown as its own knock, to compare."""
    advice = hint(_late_pile_state("held_knock_worth_making"), Rules(), seed=59)
    assert advice.action == Action("draw_stock") and advice.alternatives[1].unit == "points"
    assert "allows a knock with 2 deadwood" in advice.reason
