"""The strength benchmarks still run: a few deals each, and their figures read back.

The figures themselves are measured by hand (README); here only that the scripts work and that
the oracle and the opponent-model scores mean what they say.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import re
import socket
from pathlib import Path
from typing import Any

import pytest

from benchmarks import hint_latency, opponent_model, oracle_parts, posterior, selfplay
from service.api.schemas import HintRequest
from service.core.cards import FULL_DECK, hand_from_cards, iter_cards, parse_card, parse_cards
from service.core.game import Table
from service.core.hints import DEFAULT_CONFIG, Action, GameState, Hint, _prepare, meld_partners
from service.core.hints import hint as core_hint
from service.core.rules import Rules, resolve_rules


def test_selfplay_reports_and_pairs_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "run.json"
    selfplay.main(["--deals", "3", "--seed", "2", "--opponent", "baseline", "--save", str(saved)])
    selfplay.main(["--deals", "3", "--seed", "2", "--opponent", "baseline", "--paired-with", str(saved)])
    out = capsys.readouterr().out
    assert out.count("opponent: baseline; 3 duplicate deals = 6 hands") == 2
    assert out.count("of the engine's discards per hand") == 2
    assert "over the same 3 deals (0 deals differ)" in out  # same deals, same engine: same play


def test_selfplay_plays_rule_variants(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rule overrides reach both players, and a run saved under some rules pairs only with the same rules."""
    variant = ["--preset", "gra", "--rule", "stock_end_discard=take_to_knock_any", "--rule", "eleven_card_deal=true"]
    saved = tmp_path / "run.json"
    selfplay.main(["--deals", "2", "--seed", "3", "--opponent", "baseline", "--save", str(saved), *variant])
    assert "rules: gra stock_end_discard=take_to_knock_any eleven_card_deal=true;" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="holds other deals"):
        selfplay.main(["--deals", "2", "--seed", "3", "--opponent", "baseline", "--paired-with", str(saved)])
    with pytest.raises(SystemExit):
        selfplay.main(["--opponent", "baseline", "--rule", "stock_end_discard=sometimes"])


def test_the_engine_plays_another_configuration_of_itself(capsys: pytest.CaptureFixture[str]) -> None:
    selfplay.main(["--deals", "2", "--seed", "4", "--opponent", "engine"])
    same = capsys.readouterr().out
    assert "opponent: engine(defaults)" in same
    assert "engine won 0, lost 0, drawn 2" in same  # the same play from both seats cancels exactly
    selfplay.main(["--deals", "2", "--seed", "4", "--opponent", "engine", "--opponent-set", "knock_margin=0"])
    other = capsys.readouterr().out
    assert "opponent: engine(knock_margin=0)" in other
    assert "engine won 0, lost 0, drawn 2" not in other
    with pytest.raises(SystemExit):
        selfplay.main(["--opponent", "baseline", "--opponent-set", "knock_margin=0"])


@pytest.mark.parametrize("knob", ["samples=-1", "colour=3", "samples=many", "ceiling_evidence=2"])
def test_a_knob_that_is_no_knob_or_out_of_its_range_is_a_usage_error(knob: str,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A traceback before (a TypeError for an unknown knob); an infinite margin is a knob's value, as before."""
    with pytest.raises(SystemExit):
        selfplay.main(["--deals", "1", "--opponent", "baseline", "--set", knob])
    assert "error: --set: " in capsys.readouterr().err
    assert selfplay.configured(["knock_margin=inf"]).knock_margin == math.inf


def baseline_move(hand: str, phase: str, pile: str, rules: Rules | None = None) -> str:
    """The baseline's move with ``hand`` (cards as text) and the pile ``pile``, oldest first."""
    cards, top = parse_cards(hand), tuple(parse_cards(pile))
    state = GameState(tuple(cards), phase, top[0], top, 52 - 11 - len(top) - (phase == "first_upcard"))  # type: ignore[arg-type]
    return str(selfplay.baseline_player(state, rules or Rules(), 0))


@pytest.mark.parametrize(("hand", "expected"), [
    ("7s Ts Ks 2h 5h Qh 2d 3d 4d 9d 9c", "discard Ks"),  # a King before a Ten of the same value (was Ts)
    ("Qs Ks 2h Ad 3d 6d 9d Jd 3c 4c 5c", "discard Ks"),  # was Qs
])
def test_the_baseline_discards_the_highest_card_of_those_that_leave_the_least_deadwood(hand: str,
                                                                                     expected: str) -> None:
    assert baseline_move(hand, "discard", "2c") == expected


@pytest.mark.parametrize(("hand", "upcard", "expected", "rules"), [
    ("2s 6s 7s 8s 6h 7h 8h 9h 2d 7c", "6c", "pass", Rules()),  # took it to throw the 7c, and left it unmelded
    ("2s 7s 8s 9s Ah 4h 7h Qh 3d 9c", "7c", "pass", Rules()),
    ("Js Qs Ks Qh 8d 9d 2c 4c 5c Jc", "Qc", "pass", Rules()),  # a set as good as the run it breaks
    ("2s 5s 8s Jh Qh 2d 6d 9d 3c Kc", "Kh", "take_upcard", Rules()),  # completes J-Q-K
    ("2s 5s 8s Jh Qh Kh 2d 6d 9d 3c", "Ah", "pass", Rules()),  # no run wraps round
    ("As 2s 3s 4s 4h 5h 6h 7d 8d 9d", "5s", "take_upcard", Rules(big_gin_bonus=31)),  # a dealt gin, for big gin
])
def test_the_baseline_takes_an_upcard_only_if_it_completes_or_extends_a_meld(hand: str, upcard: str, expected: str,
                                                                             rules: Rules) -> None:
    assert baseline_move(hand, "first_upcard", upcard, rules) == expected


def test_on_a_plain_first_turn_the_baseline_takes_an_upcard_that_melds() -> None:
    """Where the upcard is offered, the same draw state follows both players' passes: only the stock remains."""
    plain = resolve_rules(None, {"first_turn": "plain"})
    state = GameState(tuple(parse_cards("2s 5s 8s Jh Qh 2d 6d 9d 3c Kc")), "draw", parse_card("Kh"),
                      (parse_card("Kh"),), 31)
    assert str(selfplay.baseline_player(state, plain, 0)) == "take_upcard"
    assert str(selfplay.baseline_player(state, Rules(), 0)) == "draw_stock"


def test_deals_are_told_apart_by_the_results_of_their_two_hands() -> None:
    def deal(first: int, second: int) -> tuple[selfplay.GameRecord, selfplay.GameRecord]:
        return selfplay.GameRecord(first, "", ()), selfplay.GameRecord(second, "", ())

    pairs = [deal(-3, -8), deal(27, -5), deal(-30, 26), deal(-25, 25), deal(12, 30), deal(0, -4), deal(-1, -2)]
    assert selfplay.deal_shapes(pairs) == ("deals by their two hands: both lost 2, one won and one lost 3 "
                                           "(the deal won 1, drawn 1, lost 1), both won 1, a hand drawn 1")


def test_the_oracle_engine_sees_the_opponents_hand(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[tuple[int, int]] = []
    opponents: list[int] = []

    def hint(state: GameState, rules: Rules, **kwargs: Any) -> Hint:
        shown.append((kwargs.get("revealed", 0), opponents[-1]))
        return core_hint(state, rules, **kwargs)

    monkeypatch.setattr("benchmarks.selfplay.hint", hint)
    engine, watch = selfplay.oracle_engine(DEFAULT_CONFIG)

    def watch_too(state: GameState, opponent: int, seed: int) -> None:
        opponents.append(opponent)
        watch(state, opponent, seed)

    players = (engine, selfplay.baseline_player)
    selfplay.play_deal(selfplay.shuffled_deck(1, 0), resolve_rules(), players, 0, seed=1, watch=watch_too)
    assert shown and all(revealed == opponent and opponent.bit_count() == 10 for revealed, opponent in shown)
    monkeypatch.undo()
    selfplay.main(["--deals", "2", "--seed", "2", "--opponent", "baseline", "--oracle"])
    assert "with --oracle" in capsys.readouterr().out


def test_oracle_parts_replace_only_the_named_part_by_the_truth(capsys: pytest.CaptureFixture[str]) -> None:
    rules = resolve_rules()
    table = Table.deal(rules, selfplay.shuffled_deck(1, 0), dealer=0)
    table.play(selfplay.baseline_player(table.view(), rules, 0))  # past the first upcard
    state, opponent = table.view(), table.hands[1 - table.to_move]
    model = _prepare(state, rules, 5, DEFAULT_CONFIG)
    opponent_in_frame = model.frame.hand(opponent)  # the engine's beliefs name the suits as its frame does
    told = oracle_parts.revealing_prepare(frozenset({"meld"}), [opponent])(state, rules, 5, DEFAULT_CONFIG)
    assert told.meld_chance == pytest.approx(dict.fromkeys(iter_cards(meld_partners(opponent_in_frame)), 1.0))
    assert told.meld_chance != model.meld_chance
    assert told.samples == model.samples and told.threats == model.threats
    told = oracle_parts.revealing_prepare(frozenset({"threat", "knock"}), [opponent])(
        state, rules, 5, DEFAULT_CONFIG)
    assert {hand for hand, _ in told.samples} == {opponent_in_frame} and told.threats != model.threats
    assert told.meld_chance == model.meld_chance
    oracle_parts.main(["--deals", "1", "--seed", "2", "--part", "knock"])
    assert "the truth told: knock, share 1" in capsys.readouterr().out


def test_a_share_of_the_truth_mixes_it_with_the_models_beliefs() -> None:
    rules = resolve_rules()
    table = Table.deal(rules, selfplay.shuffled_deck(1, 0), dealer=0)
    table.play(selfplay.baseline_player(table.view(), rules, 0))
    state, opponent = table.view(), table.hands[1 - table.to_move]
    model = _prepare(state, rules, 5, DEFAULT_CONFIG)
    told = oracle_parts.revealing_prepare(frozenset({"meld", "threat", "knock"}), [opponent], share=0.25)(
        state, rules, 5, DEFAULT_CONFIG)
    opponent = model.frame.hand(opponent)
    partners = meld_partners(opponent)
    for card in iter_cards(FULL_DECK):
        expected = 0.75 * model.meld_chance.get(card, 0.0) + 0.25 * (partners >> card & 1)
        assert told.meld_chance.get(card, 0.0) == pytest.approx(expected)
    assert told.samples[:len(model.samples)] == [(hand, 0.75 * weight) for hand, weight in model.samples]
    assert sum(w for hand, w in told.samples if hand == opponent) == pytest.approx(
        0.25 + 0.75 * sum(w for hand, w in model.samples if hand == opponent))
    assert [t.weight for t in told.threats[:len(model.threats)]] == [0.75 * t.weight for t in model.threats]
    assert sum(t.weight for t in told.threats) == pytest.approx(1.0)


def test_the_opponent_model_benchmark_prints_each_score(capsys: pytest.CaptureFixture[str]) -> None:
    opponent_model.main(["--deals", "2", "--seed", "3", "--workers", "1"])
    out = capsys.readouterr().out
    for name in ("meld chance", "held", "next-turn knock"):
        line = next(line for line in out.splitlines() if line.startswith(name))
        model, rescaled, stock_only = (float(x) for x in re.findall(r"(\d+\.\d+)", line)[:3])
        assert 0 <= model < 5 and 0 <= rescaled < 5 and 0 <= stock_only < 5


def test_a_perfect_forecast_scores_zero_and_the_stock_only_forecast_is_the_bucket_mean() -> None:
    items = [opponent_model.Forecast(stock, chance, chance) for stock, chance in ((30, 0.0), (31, 1.0), (12, 0.25))]
    assert opponent_model.brier([(i.chance, i.truth) for i in items]) == 0
    assert opponent_model.stock_only(items) == [(0.5, 0.0), (0.5, 1.0), (0.25, 0.25)]


def test_rescaling_fits_the_line_from_chance_to_truth() -> None:
    halved = [opponent_model.Forecast(20, chance, chance / 2 + 0.1) for chance in (0.0, 0.2, 0.6, 1.0)]
    assert [c for c, _ in opponent_model.rescaled(halved)] == pytest.approx([i.truth for i in halved])
    steep = [opponent_model.Forecast(20, chance, truth) for chance, truth in ((0.4, 0.0), (0.6, 1.0), (0.8, 1.0))]
    assert [c for c, _ in opponent_model.rescaled(steep)] == pytest.approx([1 / 6, 2 / 3, 1.0])  # 7 / 6, clipped
    flat = [opponent_model.Forecast(20, 0.3, truth) for truth in (0.0, 1.0)]
    assert opponent_model.rescaled(flat) == [(0.5, 0.0), (0.5, 1.0)]


def test_the_service_without_analysis_keeps_its_http_layer() -> None:
    from benchmarks import no_analysis_app
    from benchmarks.load import BODY, HAND, PATH
    from service.api import hands

    analyze = hands.analyze
    try:
        client = no_analysis_app.create_app().test_client()
        answer = client.post(PATH, data=BODY, content_type="application/json")
        body = answer.json or {}
        assert answer.status_code == 200 and set(body) == {"hand", "deadwood"}
        assert sorted(body["hand"]) == sorted(HAND) and "X-Request-ID" in answer.headers
        refused = client.post(PATH, json={"hand": HAND[:9]})
        assert refused.status_code == 422 and refused.content_type == "application/problem+json"
    finally:
        hands.analyze = analyze


@pytest.mark.parametrize("preset", [None, "gra", "oklahoma"])
def test_hint_latency_describes_each_state_as_the_service_reads_it(preset: str | None) -> None:
    rules = resolve_rules(preset)
    states = hint_latency.self_play_states(1, 3, rules)
    assert len(states) > 10 and any(state.drawn_from_discard is not None for state in states)
    returned = dataclasses.replace(states[0], returned_discard=True)  # self-play against the baseline makes none
    for state in (*states, returned):
        loaded = HintRequest().load(hint_latency.request_body(state, preset))
        assert (loaded["state"], loaded["rules"]) == (state, rules)


def test_hint_latency_sends_every_self_play_state_and_each_is_answered(capsys: pytest.CaptureFixture[str]) -> None:
    hint_latency.main(["--deals", "1", "--seed", "3", "--preset", "gra", "--clients", "1", "--clients", "2"])
    out = capsys.readouterr().out
    found = re.match(r"(\d+) hint states from 1 deals of seed 3 \(gra rules\)", out)
    assert found is not None
    count = int(found[1])
    runs = out.splitlines()[1:]
    assert [line.split(",")[0] for line in runs] == ["1 clients", "2 clients"]
    assert all(f": {count} answers; status {{200: {count}}}; no answer {{}}; " in line for line in runs)


def test_hint_latency_counts_requests_that_get_no_answer() -> None:
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    tally = hint_latency.post_all(port, [b"{}"] * 3, 2)
    assert (tally.latencies, tally.failures) == ([], {"ConnectionRefusedError": 3})
    assert hint_latency.summary(tally) == "0 answers; status {}; no answer {'ConnectionRefusedError': 3}; time " \
        "budget reached 0"


def _recorded_game(deals: int, seed: int) -> tuple[list[posterior.Turn], list[int], Table, GameState]:
    """A game of the engine against the recorded baseline, stopped at the engine's ``deals``-th discard:
    the baseline's turns, the cards it was dealt and then drew from the stock, the table and the engine's state."""
    rules = resolve_rules()
    table = Table.deal(rules, selfplay.shuffled_deck(seed, 0), dealer=0)
    turns: list[posterior.Turn] = []
    baseline, engine = posterior.recording(selfplay.baseline_player, turns), selfplay.engine_player(DEFAULT_CONFIG)
    cards = list(iter_cards(table.hands[1]))
    while True:
        state = table.view()
        if table.to_move == 0:
            if state.phase == "discard":
                deals -= 1
                if not deals:
                    return turns, cards, table, state
            table.play(engine(state, rules, 0))
        else:
            action = baseline(state, rules, 0)
            if action.type == "draw_stock":
                cards.append(table.stock[-1])
            table.play(action)


def test_the_history_replays_the_opponents_real_game_as_the_baseline_would_play_it() -> None:
    turns, cards, table, _ = _recorded_game(6, seed=3)
    history = posterior.History(turns, resolve_rules(), slip=0.01)
    assert history.replay(cards) == (0.0, table.hands[1])  # every recorded move is the one the baseline makes
    assert posterior.true_cards(turns) == cards
    assert posterior.own_discards(turns) and set(posterior.own_discards(turns)) <= set(cards)
    misplayed = cards[:10] + cards[11:] + cards[10:11]  # its stock draws in another order
    assert history.replay(misplayed)[0] < 0


def test_without_evidence_the_posterior_holds_each_unseen_card_alike() -> None:
    turns, _, table, state = _recorded_game(5, seed=4)
    seen = hand_from_cards(state.hand + state.discard_pile + state.opponent_discards + state.opponent_hand_known)
    unseen = list(iter_cards(FULL_DECK & ~seen))
    history = posterior.History(turns, resolve_rules(), slip=1.0)  # every move as likely as the baseline's own
    hands = posterior.sample_hands(history, unseen + posterior.own_discards(turns), random.Random(1), 12_000, 1000, 22)
    known = hand_from_cards(state.opponent_hand_known)
    assert all(hand.bit_count() == 10 and hand & known == known and not hand & seen & ~known for hand in hands)
    share = (10 - known.bit_count()) / len(unseen)
    held = [sum(hand >> card & 1 for hand in hands) / len(hands) for card in unseen]
    assert sum(abs(chance - share) for chance in held) / len(held) < 0.035  # 0.021 measured; 0.13 with the evidence
    assert table.hands[1] & ~known & ~seen  # the test state has hidden cards to spread


def test_the_posterior_benchmark_prints_both_models(capsys: pytest.CaptureFixture[str]) -> None:
    posterior.main(["--deals", "1", "--seed", "2", "--workers", "1", "--steps", "300"])
    out = capsys.readouterr().out
    assert "meld chance, posterior: Brier score" in out and "held, engine: log loss" in out


def test_a_chain_started_at_the_truth_before_the_opponent_moved_starts_at_its_dealt_hand(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rules = resolve_rules()
    table = Table.deal(rules, selfplay.shuffled_deck(1, 0), dealer=0)
    table.play(Action("take_upcard"))  # the non-dealer takes the first upcard: its discard comes first
    opponent = table.hands[0]
    starts: list[list[int] | None] = []

    def sample_hands(*args: object) -> list[int]:
        starts.append(args[-1])  # type: ignore[arg-type]
        return [opponent]

    monkeypatch.setattr(posterior, "sample_hands", sample_hands)
    options = argparse.Namespace(slip=0.01, steps=10, burn=0, thin=1, start="truth")
    posterior.posterior_forecasts(table.view(), opponent, [], rules, 0, options)
    assert starts == [list(iter_cards(opponent))]
