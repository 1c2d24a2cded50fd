"""The search players' learned evaluation (``depth``, ``simcore.search``'s module docstring): a
rollout stops at the searching seat's D-th decision of two or more actions and a value model
scores the position there.

The decisions are pinned against an oracle written here from the docstring alone: a value model
whose weights are all 0 scores a position by its decision kind's bias, so what each option is
worth in each world follows from where its rollout stops, which the oracle finds by playing the
world on itself. Both engines write the same rows with a value model trained by ``fudasim train
--value``, in every game; a bad value model or setting is refused in one line naming it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from learned_models import digests
from test_search_positions import position

from cli.main import main
from simcore.errors import PolicyError
from simcore.games import get_game
from simcore.games.tensho.learned import FEATURES, KINDS
from simcore.models import Model, load_model, save_model
from simcore.policies import parse_policy
from simcore.rng import Stream, seat_stream
from simcore.rules import load_rules
from simcore.search import deviates

SEED = 9
GAME = get_game("tensho")
COMPILED = GAME.compile(load_rules("tensho-ise", {}))
HEURISTIC = parse_policy("heuristic", "tensho", recorded=True)
BIAS = {"yaku_set": 0, "opening_claim": 1, "bank_six": -1, "play": 3, "capture": -2}
UNIT = 4


def bias_models(folder: Path, bias: dict[str, int] = BIAS, unit: int = UNIT, objective: str = "win") -> Path:
    """Value models of both Tensho yaku sets in ``folder`` whose weights are all 0: a position
    is worth its decision kind's ``bias``, in ``unit`` points a win."""
    folder.mkdir(parents=True, exist_ok=True)
    for case in ("set1", "set2"):
        model = Model("tensho", case, 1, FEATURES, KINDS, [[0] * len(FEATURES) for _ in KINDS],
                      about={"objective": objective}, bias=[bias[k] for k in KINDS], unit=unit)
        save_model(model, folder / f"tensho-{case}.value.v1.json")
    return folder


def oracle_values(state, decision, worlds: int, depth: int, bias: dict[str, int] = BIAS) -> list[list[int]]:
    """What each action is worth to the seat in each of ``worlds`` worlds dealt from its own
    stream: the rest of the round played by heuristic in both seats up to the seat's
    ``depth``-th decision of the searched decision's kind with two or more actions (worth its
    kind's bias) or the round's end (the sign of the seat's payoff times the unit)."""
    rollout = GAME.seat_policies(COMPILED, [HEURISTIC, HEURISTIC], 0, 0)[0]
    stream = Stream(SEED, state_round(state), seat_stream(decision.seat))
    out = []
    for _ in range(worlds):
        world = state.sample_hidden(decision.seat, stream)
        row = []
        for action in decision.actions:
            copy = world.clone()
            copy.apply(action)
            count, value = 0, None
            while (pending := copy.decision()) is not None:
                if pending.seat == decision.seat and len(pending.actions) >= 2 and pending.kind == decision.kind:
                    count += 1
                    if count == depth:
                        value = bias[pending.kind]
                        break
                copy.apply(GAME.ask_policy(rollout, copy, pending))
            if value is None:
                payoff = int(copy.returns()[decision.seat])
                value = ((payoff > 0) - (payoff < 0)) * UNIT
            row.append(value)
        out.append(row)
    return out


def pimc_choice(values: list[list[int]], base: int) -> int:
    """pimc without confirm at z = 0: the largest positive paired gain over the base (ties: the
    lowest index), else the base."""
    n = len(values[0])
    gains = [sum(v[i] - v[base] for v in values) for i in range(n)]
    squares = [sum((v[i] - v[base]) ** 2 for v in values) for i in range(n)]
    best = base
    for i in range(n):
        if gains[i] > gains[best] and deviates(gains[i], squares[i], len(values), 0.0):
            best = i
    return best


def state_round(state) -> int:
    return int(ROUNDS[id(state)])


ROUNDS: dict[int, int] = {}


def decide(text: str, state, decision) -> int:
    """The reference engine's answer of policy ``text`` in its seat, as an index of the actions."""
    spec = parse_policy(text, "tensho")
    searcher = GAME.seat_policies(COMPILED, [spec, spec], SEED, state_round(state))[decision.seat]
    return list(decision.actions).index(GAME.ask_policy(searcher, state, decision))


def at(round_index: int, step: int):
    state, decision, base = position(round_index, step)
    ROUNDS[id(state)] = round_index
    return state, decision, base


# (round, decisions before, depth): the values the worlds show, heuristic's choice, pimc's
CASES = [
    # a capture between two field cards; heuristic takes the second. At depth 1 a rollout stops
    # at the seat's next capture of two or more (worth -2) or the round ends first (+-4): taking
    # the first card wins more of the worlds outright, and pimc takes it
    (8, 1, 1, {-4, -2, 4}, 1, 0),
    # three cards to play; heuristic plays the third. At depth 1 every rollout stops at the
    # seat's next play (3) or a loss ends the round first: nothing beats heuristic's card
    (11, 9, 1, {-4, 3}, 2, 2),
    # the same at depth 2: the round ends in every world before a second play (+-4), and the
    # second card wins most
    (11, 9, 2, {-4, 4}, 2, 1),
]


@pytest.mark.parametrize(("round_index", "step", "depth", "seen", "base", "expected"), CASES)
def test_a_rollout_stops_at_the_seats_nth_decision_of_the_searched_kind(tmp_path, round_index, step, depth, seen,
                                                                       base, expected):
    folder = bias_models(tmp_path / "values")
    state, decision, heuristic_choice = at(round_index, step)
    assert heuristic_choice == base
    values = oracle_values(state, decision, 8, depth)
    assert {v for row in values for v in row} == seen
    assert pimc_choice(values, base) == expected
    text = f"pimc:worlds=8,confirm=0,z=0,infer=0,rollout=heuristic,depth={depth},values={folder}"
    assert decide(text, state, decision) == expected


@pytest.mark.parametrize(("bias", "expected"), [(10, 1), (-10, 0)])
def test_a_value_models_bias_decides_as_the_oracle_says(tmp_path, bias, expected):
    # round 7, a capture between two field cards; heuristic takes the first. In some worlds
    # taking the second card leads to the seat's next capture (worth the bias) where the first
    # loses the round (-4): a capture worth more than a loss makes pimc take the second, one worth
    # less keeps heuristic's
    biased = {**BIAS, "capture": bias}
    folder = bias_models(tmp_path / "values", biased)
    state, decision, base = at(7, 1)
    assert decision.kind == "capture" and base == 0
    values = oracle_values(state, decision, 8, 1, biased)
    assert {v for row in values for v in row} == {-4, bias}
    assert pimc_choice(values, base) == expected
    text = f"pimc:worlds=8,confirm=0,z=0,infer=0,rollout=heuristic,depth=1,values={folder}"
    assert decide(text, state, decision) == expected


def test_the_kernel_and_the_reference_write_the_same_rows_with_a_value_model(tmp_path):
    folder = bias_models(tmp_path / "values")
    specs = [parse_policy(f"pimc:worlds=3,confirm=4,depth=1,values={folder}", "tensho"),
             parse_policy(f"ismcts:iterations=12,confirm=4,depth=2,values={folder}", "tensho")]
    for rounds_per_match, units in ((None, 4), (3, 1)):
        kernel = GAME.play_units("kernel", COMPILED, specs, SEED, 5, units, rounds_per_match)
        reference = GAME.play_units("reference", COMPILED, specs, SEED, 5, units, rounds_per_match)
        for k, r in zip(kernel, reference, strict=True):
            np.testing.assert_array_equal(k, r)


def test_depth_changes_what_the_search_plays(tmp_path):
    folder = bias_models(tmp_path / "values")
    plain = [parse_policy("pimc:worlds=4,confirm=4", "tensho"), HEURISTIC]
    cut = [parse_policy(f"pimc:worlds=4,confirm=4,depth=1,values={folder}", "tensho"), HEURISTIC]
    a = GAME.play_units("kernel", COMPILED, plain, SEED, 0, 40, None)[0]
    b = GAME.play_units("kernel", COMPILED, cut, SEED, 0, 40, None)[0]
    assert not np.array_equal(a, b)


@pytest.mark.parametrize(("text", "problem"), [
    ("pimc:depth=1,values={folder}/missing", "is not a folder of value model files"),
    ("pimc:depth=1,value=1,values={empty}", "needs a value model of tensho set1 at version 1 or below"),
    ("pimc:depth=1,objective=score,values={folder}", "estimates objective=win, not objective=score"),
    ("ismcts:depth=1,tree=all,values={folder}", "needs tree=own"),
])
def test_a_setting_the_value_models_cannot_serve_is_refused_naming_it(tmp_path, text, problem):
    folder = bias_models(tmp_path / "values")
    empty = tmp_path / "empty"
    empty.mkdir()
    spec = parse_policy(text.format(folder=folder, empty=empty), "tensho")
    for engine in ("kernel", "reference"):
        with pytest.raises(PolicyError, match=problem):
            GAME.play_units(engine, COMPILED, [spec, HEURISTIC], SEED, 0, 1, None)


@pytest.mark.parametrize(("edit", "problem"), [
    ({"unit": 0}, "unit 0 is outside"),
    ({"bias": [0, 0]}, "bias is not one integer"),
    ({"unit": None}, "needs both bias and unit"),
])
def test_a_bad_value_model_file_is_refused_with_its_name(tmp_path, edit, problem):
    folder = bias_models(tmp_path / "values")
    path = folder / "tensho-set1.value.v1.json"
    data = json.loads(path.read_text())
    data.update(edit)
    if data["unit"] is None:
        del data["unit"]
    path.write_text(json.dumps(data))
    with pytest.raises(PolicyError, match=f"{path}.*{problem}|{problem}"):
        load_model(path)


def test_the_command_line_refuses_depth_without_a_value_model_in_one_line(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(main, ["run", "enshu-c", "--players", "4", "--rounds", "2", "--policy",
                                       f"0=pimc:depth=1,values={empty}", "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0 and "value model of enshu c4" in result.output, result.output
    # refused before its first round: the folder it made is gone, so the corrected command runs
    assert not (tmp_path / "run").exists()
    # a folder that was there before, empty, stays (empty)
    kept = tmp_path / "kept"
    kept.mkdir()
    result = CliRunner().invoke(main, ["run", "enshu-c", "--players", "4", "--rounds", "2", "--policy",
                                       f"0=pimc:depth=1,values={empty}", "--out", str(kept)])
    assert result.exit_code == 2 and kept.is_dir() and not any(kept.iterdir())


def test_train_value_makes_a_value_model_the_search_reads(tmp_path):
    folder = tmp_path / "values"
    folder.mkdir()
    out = folder / "tensho-set1.value.v1.json"
    result = CliRunner().invoke(main, ["train", "tensho-ise", "--option", "tensho.yaku_set_choice=fixed_1",
                                       "--value", "--seed", "3", "--iterations", "1", "--rounds", "300",
                                       "--worlds", "4", "--no-progress", "--out", str(out)])
    assert result.exit_code == 0, result.output
    model = load_model(out)
    assert model.unit == 4096 and model.bias is not None and model.about["objective"] == "win"
    assert "held-out fifth" in "\n".join(model.log)
    # a fitted value model scores positions by their features: some weight is not 0
    assert any(w != 0 for row in model.weights for w in row)
    rules = load_rules("tensho-ise", {"tensho.yaku_set_choice": "fixed_1"})
    compiled = GAME.compile(rules)
    specs = [parse_policy(f"pimc:worlds=3,confirm=3,depth=1,values={folder}", "tensho"), HEURISTIC]
    for k, r in zip(GAME.play_units("kernel", compiled, specs, SEED, 0, 3, None),
                    GAME.play_units("reference", compiled, specs, SEED, 0, 3, None), strict=True):
        np.testing.assert_array_equal(k, r)


# The shipped value models, by name and sha256: a dataset records ``value=N`` where a search seat
# has ``depth``, and reads each case's newest value model at or below N, so a shipped file is never
# changed; a retrained one ships at the next version (and ``value``'s default moves to it).
SHIPPED_VALUES = {
    "enshu-c2.value.v1.json": "8a6b418e32d7e9b7",
    "enshu-c3.value.v1.json": "857a555721ba33ee",
    "enshu-c4.value.v1.json": "e6bd05fa9ebdf374",
    "enshu-c5.value.v1.json": "a0d88b603ea1460d",
    "enshu-s2.value.v1.json": "99f07edb3385d950",
    "enshu-s3.value.v1.json": "a4bff3ce60ce5c7c",
    "enshu-w2.value.v1.json": "8516d0610f0a5c25",
    "enshu-w3.value.v1.json": "ea6c354d5ccd9774",
    "koikoi-kkj.value.v1.json": "4620f89ef603ce5f",
    "koikoi-koikoi.value.v1.json": "8930eeaf7431fa82",
    "tensho-set1.value.v1.json": "0637c6948e30978e",
    "tensho-set2.value.v1.json": "e105380f6fa9b057",
}


def test_the_shipped_value_models_are_those_pinned_and_estimate_the_searchs_default_objective():
    from simcore.models import value_models

    assert digests(value_models()) == SHIPPED_VALUES
    for m in value_models():
        model = load_model(m.path)
        assert (model.game, model.case, model.version) == (m.game, m.case, m.version)
        assert model.unit is not None and model.bias is not None
        assert model.about["objective"] == parse_policy("pimc", m.game).params["objective"], m.path.name


@pytest.mark.parametrize(("rules_name", "players", "pimc"), [
    # Tensho's pimc cuts its rollouts two plays ahead by default (depth is not named)
    pytest.param("tensho-ise", None, "pimc:worlds=3,confirm=3", id="tensho"),
    pytest.param("enshu-w", 2, "pimc:worlds=3,confirm=3,depth=2", id="enshu-w2"),
    pytest.param("koikoi", None, "pimc:worlds=3,confirm=3,depth=2", id="koikoi", marks=pytest.mark.slow),
    pytest.param("enshu-c", 3, "pimc:worlds=3,confirm=3,depth=2", id="enshu-c3", marks=pytest.mark.slow),
])
def test_the_shipped_value_models_play_the_same_rows_in_both_engines(rules_name, players, pimc):
    from simcore.games import game_of

    rules = load_rules(rules_name, {} if players is None else {"enshu.players": str(players)})
    game = game_of(rules)
    compiled = game.compile(rules)
    seats = game.players(compiled)
    assert parse_policy(pimc, game.name).params["depth"] == 2
    specs = [parse_policy(pimc, game.name),
             parse_policy("ismcts:iterations=12,confirm=3,depth=1", game.name),
             *[parse_policy("greedy", game.name)] * (seats - 2)]
    for k, r in zip(game.play_units("kernel", compiled, specs, SEED, 0, 3, None),
                    game.play_units("reference", compiled, specs, SEED, 0, 3, None), strict=True):
        np.testing.assert_array_equal(k, r)


def test_a_missing_model_refuses_an_overwrite_before_the_old_dataset_is_touched(tmp_path):
    out = tmp_path / "run"
    assert CliRunner().invoke(main, ["run", "tensho-ise", "--rounds", "50", "--out", str(out),
                                     "--no-progress"]).exit_code == 0
    before = sorted((p.name, p.read_bytes()) for p in out.iterdir() if p.is_file())
    for policy in ("0=learned:model=/nonexistent/model.json", f"0=pimc:depth=1,values={tmp_path}"):
        result = CliRunner().invoke(main, ["run", "tensho-ise", "--rounds", "50", "--out", str(out), "--overwrite",
                                           "--policy", policy, "--no-progress"])
        assert result.exit_code == 2 and result.output.strip().count("\n") == 0, result.output
        assert sorted((p.name, p.read_bytes()) for p in out.iterdir() if p.is_file()) == before


def test_train_value_labels_by_what_the_search_plays_for(tmp_path):
    # Enshu-bana's learned player is trained on the score, its search plays for the margin: a
    # value model made without --objective is one the search reads
    out = tmp_path / "values" / "enshu-w2.value.v1.json"
    out.parent.mkdir()
    result = CliRunner().invoke(main, ["train", "enshu-w", "--players", "2", "--value", "--seed", "3",
                                       "--iterations", "1", "--rounds", "40", "--worlds", "2", "--label", "1000",
                                       "--no-progress", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert load_model(out).about["objective"] == "margin"


def test_tenshos_position_features_read_the_observation():
    # the features the value models read: the same for every action of a decision, counted from
    # what the seat sees (hand, field, both piles, who deals, the yaku already in each pile)
    from simcore.games.tensho.learned import F_POSITION, LearnedPolicy, features

    state, decision, _ = position(8, 6)
    assert decision.kind == "play"
    player = LearnedPolicy(parse_policy("learned", "tensho"), COMPILED)
    seen = []
    pick = player.pick

    def record(obs, kind, actions, *context):
        seen.append((obs, features(player.heuristic, obs, kind, actions, *context)))
        return pick(obs, kind, actions, *context)

    player.pick = record
    GAME.ask_policy(player, state, decision)
    obs, rows = seen[-1]
    seat = decision.seat
    expected = [bin(obs.piles[seat]).count("1"), bin(obs.piles[1 - seat]).count("1"), len(decision.actions),
                bin(obs.field).count("1"), int(obs.dealer == seat)]
    assert len(rows) == len(decision.actions) and expected[0] + expected[1] > 0
    for row in rows:
        assert row[F_POSITION:] == rows[0][F_POSITION:]
        assert row[F_POSITION + 3:F_POSITION + 8] == expected
        assert row[F_POSITION + 2] == row[F_POSITION] - row[F_POSITION + 1]


@pytest.mark.parametrize("text", ["pimc:worlds=6,confirm=6,depth=2", "ismcts:iterations=18,confirm=6,depth=2"])
def test_a_search_with_depth_decides_alike_however_the_hidden_cards_lie(text):
    # guarantee 6: the value model reads the seat's observation in each world the search deals,
    # so dealing the hidden cards of the real position anew changes no decision
    changed = 0
    for round_index, step in ((3, 4), (8, 6), (11, 2)):
        state, decision, _ = at(round_index, step)
        other = state.sample_hidden(decision.seat, Stream(77, round_index, 0))
        ROUNDS[id(other)] = round_index
        changed += other.card_places() != state.card_places()
        assert decide(text, other, decision) == decide(text, state, decision), (round_index, step)
    assert changed == 3  # the hidden cards did lie elsewhere
