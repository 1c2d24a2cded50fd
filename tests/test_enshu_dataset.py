"""Enshu-bana record columns, Parquet round trip, match play, and replay with scripted decisions."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest
from enshu_cards import (
    CHERRY_CURTAIN,
    CHERRY_RIBBON,
    IRIS_BRIDGE,
    MAPLE_CHAFF_1,
    MAPLE_CHAFF_2,
    MAPLE_DEER,
    MAPLE_RIBBON,
    PEONY_BUTTERFLIES,
    PINE_CRANE,
    PINE_RIBBON,
    PLUM_RIBBON,
    PLUM_WARBLER,
    WILLOW_RAIN_MAN,
    WISTERIA_CUCKOO,
    build_deck,
)

from simcore.dataset import read_dataset, write_shard
from simcore.games.enshu import enums as E
from simcore.games.enshu.compile import compile_rules
from simcore.games.enshu.record import LAYOUT, bit_tables
from simcore.games.enshu.reference import DealError, play_unit, play_units
from simcore.games.enshu.replay import (
    DecisionError,
    parse_enshu_deck,
    replay_deck,
    replay_from_run,
    trace_json,
)
from simcore.policies import parse_policy
from simcore.record import C_ROUND, C_VALID
from simcore.rules.loader import load_rules

NO, YES = "no", "yes"


def compiled(name, **options):
    return compile_rules(load_rules(name, options))


def test_output_matrices_and_columns():
    c = compile_rules(load_rules("enshu-c", {"enshu.players": 4}))
    specs = [parse_policy("random")] * 4
    ints, masks = play_units(c, specs, 5, 10, 30, None)
    assert ints.shape == (E.N_INT_COLUMNS, 30) and ints.dtype == np.int64
    assert masks.shape == (E.N_MASK_COLUMNS, 30) and masks.dtype == np.uint64
    assert (ints[C_VALID] == 1).all()
    assert list(ints[C_ROUND]) == list(range(10, 40))
    # Seat 4 does not exist with 4 players: its columns stay 0.
    assert not ints[E.C_ACTIVE + 4].any() and not masks[E.M_HAND_DEALT + 4].any()
    columns = LAYOUT.columns(ints, masks, 4)
    names = set(columns)
    for base in ("active", "mizu_kotsu", "kotsu", "hand_dealt", "captured", "yaku", "teyaku_dealt",
                 "teyaku_declared", "exposed", "yaku_points", "teyaku_points", "card_points", "yaku_multiplier",
                 "score", "payoff", "match_points"):
        assert {f"{base}_{s}" for s in range(4)} <= names and f"{base}_4" not in names
    for scalar in ("round", "match", "dealer", "first_player", "players", "winner", "end_reason", "end_turn",
                   "redeals", "multiplier", "field_brights", "mizu_kotsu_count", "kotsu_count", "dropout_passes",
                   "fuke", "field_dealt", "stopping_yaku", "stopping_teyaku", "match_end"):
        assert scalar in names
    assert set(LAYOUT.schema(4).names) == names
    assert (columns["active_0"].astype(int) + columns["active_1"] + columns["active_2"] + columns["active_3"] == 3).all()
    payoffs = sum(columns[f"payoff_{s}"] for s in range(4))
    assert not payoffs.any()
    # Round by round the matrices hold what play_unit returns.
    result = play_unit(c, specs, 5, 17, None)[0]
    row = 7
    assert ints[E.C_MULTIPLIER, row] == result.multiplier
    assert [int(ints[E.C_PAYOFF + s, row]) for s in range(4)] == result.payoff
    assert [int(masks[E.M_CAPTURED + s, row]) for s in range(4)] == result.captured


def test_parquet_round_trip(tmp_path):
    rules = load_rules("enshu-c", {"enshu.players": 5})
    c = compile_rules(rules)
    ints, masks = play_units(c, [parse_policy("greedy")] * 5, 8, 0, 12, None)
    columns = LAYOUT.columns(ints, masks, 5)
    info = {"game": "enshu", "variant": "C", **bit_tables(rules)}
    table = LAYOUT.table(columns, info, rules.text, 5)
    assert table.schema.field("end_reason").type == pa.dictionary(pa.int8(), pa.string())
    frame = read_dataset(write_shard(tmp_path, 0, table))  # a shard file (a folder needs _run.json)
    assert len(frame) == 12
    assert set(frame["end_reason"].astype(str)) <= set(E.END_REASONS)
    assert list(frame["multiplier"]) == list(ints[E.C_MULTIPLIER])
    assert frame["captured_4"].dtype == np.uint64
    metadata = json.loads(table.schema.metadata[b"fudasim.run"])
    assert metadata["yaku"][0] == "shiko" and metadata["teyaku"][-1] == "tanichi"


@pytest.mark.parametrize(("name", "players", "options"), [
    ("enshu-w", 3, {}), ("enshu-c", 4, {}), ("enshu-c", 3, {"enshu.next_dealer": "rotate"}),
    ("enshu-s", 2, {"enshu.s.match_scoring": "round_wins"}), ("enshu-s", 3, {})])
def test_match_play(name, players, options):
    c = compile_rules(load_rules(name, {"enshu.players": players, **options}))
    specs = [parse_policy("random")] * players
    rotate = options.get("enshu.next_dealer") == "rotate"
    wins = options.get("enshu.s.match_scoring") == "round_wins"
    for unit in range(6):
        results = play_unit(c, specs, 21, unit, 4)
        assert [r.round_index for r in results] == [unit * 4 + k for k in range(4)]
        assert results[0].dealer == unit % players
        assert [r.match_end for r in results] == [False, False, False, True]
        totals = [0] * players
        for before, after in zip(results, results[1:], strict=False):
            if before.winner < 0:
                assert after.dealer == before.dealer  # a voided round keeps its dealer
            else:
                assert after.dealer == ((before.dealer + 1) % players if rotate else before.winner)
        for r in results:
            for s in range(players):
                totals[s] += int(r.winner == s) if wins else r.payoff[s]
            assert r.match_points == totals
    # Matrices in match mode: stride rounds per unit, every row valid.
    ints, _ = play_units(c, specs, 21, 2, 3, 4)
    assert ints.shape[1] == 12 and (ints[C_VALID] == 1).all()
    assert list(ints[C_ROUND]) == list(range(8, 20))


@pytest.mark.slow
def test_a_voided_round_keeps_the_dealer_in_a_match():
    c = compile_rules(load_rules("enshu-c", {"enshu.players": 2}))
    specs = [parse_policy("random")] * 2
    seen = 0
    for unit in range(120):
        results = play_unit(c, specs, 4, unit, 4)
        for before, after in zip(results, results[1:], strict=False):
            if E.END_REASONS[before.end_reason] == "fuke":
                assert after.dealer == before.dealer
                seen += 1
    assert seen > 0


def test_replay_from_run_matches_the_run():
    c = compile_rules(load_rules("enshu-c", {"enshu.players": 5}))
    specs = [parse_policy("random")] * 5
    run = play_unit(c, specs, 13, 2, 3)
    again = replay_from_run(c, specs, 13, 2 * 3 + 1, 3)
    assert again.payoff == run[1].payoff and again.captured == run[1].captured
    trace = trace_json(c, again)
    assert trace["variant"] == "C" and len(trace["seats"]) == 5
    assert trace["events"][0]["type"] == "mizu_kotsu"
    assert json.dumps(trace)  # serialisable
    single = replay_from_run(c, specs, 13, 9)
    assert single.payoff == play_unit(c, specs, 13, 9, None)[0].payoff


def test_replay_with_the_policies_equals_the_deck_replay():
    # A deck replay without decisions uses the seats' policies on stream round 0.
    c = compiled("enshu-w")
    specs = [parse_policy("greedy")] * 3
    deck = list(range(48))
    deck[0], deck[47] = deck[47], deck[0]
    result = replay_deck(c, deck, None, specs=specs)
    assert result.field_dealt == sum(1 << x for x in deck[:6])


def test_parse_deck():
    assert parse_enshu_deck(",".join(str(i) for i in range(48))) == list(range(48))
    with pytest.raises(DealError, match="a deal needs all 48"):
        parse_enshu_deck("1,2,3")
    with pytest.raises(DealError, match="already at position"):
        parse_enshu_deck(",".join(["0"] * 48))


def test_decision_errors_name_the_step():
    c = compiled("enshu-c")
    # One card of each of the months 1-6 on the field; the rest dealt in id order: seat 0 holds
    # Pine and Plum triplets (two group-A options), seats 1 and 2 a triplet or two each.
    deck = build_deck([PINE_CRANE, PLUM_WARBLER, CHERRY_CURTAIN, WISTERIA_CUCKOO, IRIS_BRIDGE, PEONY_BUTTERFLIES], [])
    for decisions, message in [
        ([], r"decision 1 \(seat 0 declares mizu-kotsu\) is missing"),
        (["maybe"], r'decision 1 \(seat 0 declares mizu-kotsu\): .maybe. is illegal: expected "yes" or "no"'),
        ([NO] * 6 + [PINE_RIBBON], r"decision 7 \(seat 0 declares a group-A teyaku \(sanbon:1, sanbon:2\) or no\)"),
        ([NO] * 6 + ["sanbon"], r"is illegal: expected .no. or one of \['sanbon:1', 'sanbon:2'\]"),
        ([NO] * 6 + [YES], r"is illegal: expected .no. or one of"),
        ([NO] * 9 + [WILLOW_RAIN_MAN], r"decision 10 \(seat 0 plays a card, turn 1\): 40 is illegal: not in the hand"),
    ]:
        with pytest.raises(DecisionError, match=message):
            replay_deck(c, deck, decisions)
    # "sanbon:2" names one option; the round then needs the plays.
    with pytest.raises(DecisionError, match="decision 10 .seat 0 plays a card"):
        replay_deck(c, deck, [NO] * 6 + ["sanbon:2", NO, NO])
    # Variant W: seat 0's four Maple (Four of a Kind) stop the round before any decision.
    w = compiled("enshu-w")
    deck = build_deck([PINE_CRANE, PLUM_WARBLER, CHERRY_CURTAIN, WISTERIA_CUCKOO, IRIS_BRIDGE, PEONY_BUTTERFLIES],
                      [[MAPLE_DEER, MAPLE_RIBBON, MAPLE_CHAFF_1, MAPLE_CHAFF_2, PINE_RIBBON, PLUM_RIBBON, CHERRY_RIBBON]])
    with pytest.raises(DecisionError, match=r"1 decision\(s\) left unused .*'yes'"):
        replay_deck(w, deck, [YES])


def test_dealer_and_redraw_are_checked():
    c = compiled("enshu-c", **{"enshu.players": 4})
    with pytest.raises(DealError, match="dealer 4 is not a seat"):
        replay_deck(c, list(range(48)), [], dealer=4)
    with pytest.raises(DealError, match="card id 0 already at position 0"):
        replay_deck(c, [0] * 48, [])
