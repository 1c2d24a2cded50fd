"""Policy defaults may change; what a dataset recorded may not.

A dataset records each seat's policy as a text (``PolicySpec.__str__``) that names every parameter
differing from its default, and every parameter whose default is not what a recorded text that
omits it stands for (``ParamSpec.unstated``). Read back (``parse_policy(..., recorded=True)``),
an old dataset's ``pimc:worlds=2`` is the pimc it was made with, whatever ``pimc``'s defaults
are now: its rounds replay and its run resumes as they were played, and resuming it with
today's ``pimc:worlds=2`` is refused, naming the difference.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from dataset_edits import rewrite_run_metadata

from cli.main import main
from simcore.dataset import read_dataset
from simcore.errors import RunError
from simcore.policies import POLICY_KINDS, parse_policy, recorded_text
from simcore.run.runner import RunConfig, run

# What a recorded text that names no parameter of the policy stands for: the defaults every
# dataset so far was written with. Changing a default keeps its old value here
# (``ParamSpec.unstated``); a change of this table changes what old datasets replay.
UNSTATED = {
    ("tensho", "greedy"): {"yaku_set": 1},
    ("tensho", "heuristic"): {
        "yaku_set": 1, "chaff": 240, "value": 3, "instant": 400, "risk": 1600, "claim": 0,
        "mine_hand_match": 850, "mine_hand": 450, "mine_field_match": 850, "mine_field": 175, "mine_unseen": 450,
        "theirs_hand_match": 100, "theirs_hand": 250, "theirs_field_match": 250, "theirs_field": 275,
        "theirs_unseen": 500},
    ("tensho", "pimc"): {"worlds": 32, "rollout": "random", "crn": 0, "z": 0.0, "confirm": 0, "race": 0, "infer": 0, "objective": "win", "depth": 0, "value": 1, "values": "shipped",
                         "guide": 0, "gate": 0, "guides": "shipped", "search": "all"},
    ("tensho", "ismcts"): {"iterations": 1000, "c": 0.7, "rollout": "random", "norm": 0, "z": 0.0, "tree": "all", "root": "ucb", "confirm": 0, "expand": "first", "widen": 0,
                           "infer": 0, "objective": "win", "depth": 0, "value": 1, "values": "shipped"},
    ("tensho", "omniscient"): {"worlds": 32, "rollout": "random", "crn": 0, "z": 0.0, "confirm": 0, "objective": "win"},
    ("enshu", "greedy"): {},
    ("enshu", "heuristic"): {
        "card_weight": 100, "yaku_weight": 100, "deny_weight": 60, "stop_worth": 100, "chance_hand": 700,
        "chance_field": 500, "chance_unseen": 400, "field_risk": 100, "safe_delay": 300, "kotsu_strength": 50,
        "join_strength": 80, "join_step": 20, "teyaku_b_min": 0},
    ("enshu", "pimc"): {"worlds": 32, "rollout": "random", "crn": 0, "z": 0.0, "confirm": 0, "race": 0, "infer": 0, "objective": "score", "depth": 0, "value": 1, "values": "shipped",
                         "guide": 0, "gate": 0, "guides": "shipped", "search": "all"},
    ("enshu", "ismcts"): {"iterations": 1000, "c": 0.7, "rollout": "random", "norm": 0, "z": 0.0, "tree": "all", "root": "ucb", "confirm": 0, "expand": "first", "widen": 0,
                          "infer": 0, "objective": "score", "depth": 0, "value": 1, "values": "shipped"},
    ("enshu", "omniscient"): {"worlds": 32, "rollout": "random", "crn": 0, "z": 0.0, "confirm": 0, "objective": "score"},
    ("koikoi", "greedy"): {},
    ("koikoi", "heuristic"): {"koikoi_below": 4, "min_cards": 3, "danger": 3, "deny": 40},
    ("koikoi", "pimc"): {"worlds": 32, "rollout": "random", "crn": 0, "z": 0.0, "confirm": 0, "race": 0, "infer": 0, "objective": "score", "depth": 0, "value": 1, "values": "shipped",
                         "guide": 0, "gate": 0, "guides": "shipped", "search": "all"},
    ("koikoi", "ismcts"): {"iterations": 1000, "c": 0.7, "rollout": "random", "norm": 0, "z": 0.0, "tree": "all",
                           "root": "ucb", "confirm": 0, "expand": "first", "widen": 0, "infer": 0, "objective": "score", "depth": 0, "value": 1, "values": "shipped"},
    ("koikoi", "omniscient"): {"worlds": 32, "rollout": "random", "crn": 0, "z": 0.0, "confirm": 0,
                               "objective": "score"},
    # the learned player's version is always named in a recorded text (ParamSpec.recorded)
    ("tensho", "learned"): {"model": "shipped", "version": 1},
    ("enshu", "learned"): {"model": "shipped", "version": 6},
    ("koikoi", "learned"): {"model": "shipped", "version": 1},
}

# The old pimc (random rollouts, no common draws, no threshold, no inference, full rollouts)
# spelled out in full
OLD_PIMC = "pimc:worlds=2,rollout=random,crn=0,z=0,confirm=0,race=0,infer=0,depth=0"


@pytest.mark.parametrize(("game", "name"), sorted(UNSTATED), ids=lambda v: str(v))
def test_what_a_recorded_text_naming_no_parameter_stands_for_is_pinned(game, name):
    assert parse_policy(name, game, recorded=True).params == UNSTATED[(game, name)]


def test_every_policy_with_parameters_is_pinned():
    assert {name for _, name in UNSTATED} == {name for name in POLICY_KINDS if name != "random"}


TEXTS = ["pimc", "pimc:worlds=64", "pimc:rollout=random", OLD_PIMC, "ismcts", "ismcts:c=0.7,rollout=random",
         "omniscient:worlds=4", "heuristic", "greedy", "random"]


@pytest.mark.parametrize("game", ["tensho", "enshu", "koikoi"])
@pytest.mark.parametrize("text", TEXTS)
def test_the_recorded_text_is_the_same_policy_read_as_a_choice_and_as_a_record(game, text):
    spec = parse_policy(text, game)
    recorded = str(spec)
    assert parse_policy(recorded, game) == spec
    assert parse_policy(recorded, game, recorded=True) == spec
    assert recorded_text(recorded, game) == recorded


@pytest.mark.parametrize("game", ["tensho", "enshu", "koikoi"])
def test_a_parameter_whose_default_changed_is_always_spelled_out(game):
    for name in ("pimc", "ismcts"):  # omniscient, for measurement, keeps its defaults
        spec = parse_policy(name, game)
        changed = {key for key in spec.params if spec.defaults[key] != spec.unstated[key]}
        assert changed, f"{name}: no default differs from what old texts meant"
        named = {item.split("=")[0] for item in str(spec).partition(":")[2].split(",") if item}
        assert changed <= named


def _play(out: Path, first: str, **config) -> None:
    run(RunConfig(rules="tensho-ise", seed=5, rounds=6, units_per_shard=2, policies=(first, "heuristic"),
                  out=str(out), threads=1, **config))


@pytest.mark.slow
def test_an_old_dataset_replays_and_resumes_as_it_was_made(tmp_path):
    old = tmp_path / "old"
    _play(old, OLD_PIMC)
    # what a fudasim of the old defaults wrote for the same seat: the bare text
    rewrite_run_metadata(old, policies=["pimc:worlds=2", "heuristic"])
    rows = read_dataset(old)
    # today's pimc:worlds=2 plays differently, so the checks below could not pass by accident
    now = tmp_path / "now"
    _play(now, "pimc:worlds=2")
    assert not read_dataset(now).equals(rows)

    for round_index in range(6):
        result = CliRunner().invoke(main, ["replay", str(old), "--round", str(round_index), "--json"])
        assert result.exit_code == 0, result.output
        trace = json.loads(result.output)
        assert trace["row_in_dataset"] is True and trace["row_differences"] == [], round_index

    with pytest.raises(RunError, match="policy of seat 0: .pimc:confirm=0,crn=0,depth=0,race=0,rollout=random,worlds=2,z=0.0. then, "):
        _play(old, "pimc:worlds=2", resume=True)
    (old / "part-000001.parquet").unlink()
    _play(old, OLD_PIMC, resume=True)
    assert read_dataset(old).equals(rows)
    assert json.loads((old / "_run.json").read_text())["policies"] == ["pimc:worlds=2", "heuristic"]


SEARCH = ("depth", "worlds", "confirm", "race", "infer")


def test_a_game_sets_its_own_default_for_a_search_parameter_and_old_texts_keep_theirs():
    # Tensho's pimc cuts its rollouts two plays ahead (the shipped value models) with 8 worlds,
    # 40 to confirm judged 4 at a time, and no inference; the other games, and Tensho's ismcts,
    # keep the core's
    def defaults(text, game, **kw):
        params = parse_policy(text, game, **kw).params
        return tuple(params[key] for key in SEARCH)

    assert defaults("pimc", "tensho") == (2, 8, 40, 4, 0)
    assert defaults("pimc", "enshu") == defaults("pimc", "koikoi") == (0, 16, 32, 0, 4)
    assert parse_policy("ismcts", "tensho").params["depth"] == 0
    assert str(parse_policy("pimc", "tensho")) == \
        "pimc:confirm=40,crn=1,depth=2,race=4,rollout=heuristic,worlds=8,z=1.5"
    # what Tensho datasets recorded for --policy pimc before Tensho had its own defaults, and
    # before race: the searches they were made with, spelled so that they read alike as a choice
    for before, meant in (("pimc:confirm=32,crn=1,infer=4,rollout=heuristic,worlds=16,z=1.5", (0, 16, 32, 0, 4)),
                          ("pimc:confirm=40,crn=1,depth=2,rollout=heuristic,worlds=8,z=1.5", (2, 8, 40, 0, 0))):
        assert defaults(before, "tensho", recorded=True) == meant
        assert defaults(recorded_text(before, "tensho"), "tensho") == meant
        # so resuming such a dataset with today's --policy pimc names another policy (refused),
        # and with its recorded text the same one
        assert recorded_text(before, "tensho") != str(parse_policy("pimc", "tensho"))
        assert recorded_text(before, "tensho") == str(parse_policy(recorded_text(before, "tensho"), "tensho"))
    # a text parsed for no game in particular keeps the core's defaults
    assert defaults("pimc", None) == (0, 16, 32, 0, 4)


def test_another_objective_plays_its_rollouts_out_unless_depth_is_named():
    # the shipped value models estimate the default objective (win in Tensho)
    assert parse_policy("pimc:objective=win", "tensho").params["depth"] == 2
    assert parse_policy("pimc:objective=score", "tensho").params["depth"] == 0
    assert parse_policy("pimc:objective=margin,worlds=4", "tensho").params["depth"] == 0
    assert parse_policy("pimc:objective=score,depth=2", "tensho").params["depth"] == 2
    written = str(parse_policy("pimc:objective=score", "tensho"))
    assert "depth=0" in written and parse_policy(written, "tensho", recorded=True).params["depth"] == 0


def test_an_ismcts_recorded_before_expand_existed_still_expands_the_first_action():
    # the text a dataset recorded for --policy ismcts under the previous defaults
    text = "ismcts:c=1.4,confirm=32,iterations=64,norm=1,rollout=heuristic,root=paired,tree=own,z=1.5"
    spec = parse_policy(text, "enshu", recorded=True)
    assert (spec.params["expand"], spec.params["widen"], spec.params["iterations"]) == ("first", 0, 64)
    assert parse_policy(text, "enshu").params["expand"] == "rollout"
    assert "expand=first" in recorded_text(text, "enshu")


def test_enshu_search_plays_for_the_margin_and_an_old_text_for_the_payoff():
    # S is not zero-sum: the search players' default is the margin over the other seats; a text
    # recorded before names no objective and meant the payoff
    for name in ("pimc", "ismcts", "omniscient"):
        assert parse_policy(name, "enshu").params["objective"] == "margin"
        assert parse_policy(name, "enshu", recorded=True).params["objective"] == "score"
    # what a new dataset records names it, and reads back as it was played
    written = str(parse_policy("pimc:worlds=8", "enshu"))
    assert "objective=margin" in written
    assert parse_policy(written, "enshu", recorded=True).params["objective"] == "margin"


@pytest.mark.parametrize("rules, players", [("enshu-w", 3), ("enshu-c", 3), ("enshu-c", 5)])
def test_in_zero_sum_enshu_the_margin_decides_as_the_score(rules, players):
    # W and C are zero-sum: the margin is the payoff times the number of seats, so every decision
    # and row is the same under either objective (why the default could change without changing
    # them); in S it is not, and they differ
    import numpy as np

    from simcore.games import get_game
    from simcore.rules import load_rules

    game = get_game("enshu")
    for rule_set, n, alike in ((rules, players, True), ("enshu-s", 2, False)):
        compiled = game.compile(load_rules(rule_set, {"enshu.players": str(n)}))
        rows = []
        for objective in ("score", "margin"):
            specs = [parse_policy(f"pimc:worlds=6,confirm=6,objective={objective}", "enshu"),
                     *[parse_policy("heuristic", "enshu")] * (n - 1)]
            rows.append(game.play_units("kernel", compiled, specs, 3, 0, 40, None))
        same = all(np.array_equal(a, b) for a, b in zip(*rows, strict=True))
        assert same is alike, rule_set


def test_enshu_trains_by_the_payoff_unless_told_so_the_shipped_commands_make_their_models():
    from simcore.learned import learning
    from simcore.run.train import training_objective

    assert training_objective("enshu", learning("enshu")) == "score"
    assert training_objective("koikoi", learning("koikoi")) == "margin"
    assert training_objective("tensho", learning("tensho")) == "win"
