"""``fudasim compile``: the kernels of chosen runs compiled ahead, so that those runs load them
from numba's cache instead of compiling them (``simcore.run.ahead``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import main
from simcore.registry import known_game_names
from simcore.rules import load_rules
from simcore.run.ahead import (
    DEFAULT_POLICIES,
    Target,
    _order,
    compile_kernels,
    default_rules,
    default_targets,
)

ROOT = Path(__file__).resolve().parent.parent


def test_the_default_list_covers_every_game_and_policy():
    names = default_rules()
    assert [load_rules(name).game for name in names] == known_game_names()
    targets, skipped = default_targets(names)
    assert skipped == []  # every shipped default has the learned player's models
    assert len(targets) == len(names) * len(DEFAULT_POLICIES)
    assert Target("enshu-c", ((0, "pimc"),)) in targets and Target("koikoi") in targets


def test_a_games_general_kernels_follow_one_another_and_fast_ones_go_alone():
    targets = [Target("tensho-ise"), Target("tensho-ise", ((0, "heuristic"),)), Target("koikoi", ((1, "pimc"),)),
               Target("tensho-ise", ((0, "pimc"),)), Target("tensho-ise", ((0, "greedy"), (1, "greedy"))),
               Target("tensho-ise", ((0, "heuristic"),))]  # a repeat is compiled once
    ready, after = _order(targets)
    assert ready == [targets[1], targets[2], targets[0], targets[4]]  # general kernels first: they take longer
    assert after == {targets[1]: targets[3]}


def test_compile_reports_each_kernel_and_a_run_of_it_compiles_nothing_more(tmp_path):
    result = CliRunner().invoke(main, ["compile", "tensho-ise", "--policy", "0=greedy", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "compiling 1 kernel into the numba cache (runs load them from there) ..."
    assert lines[1].startswith("tensho-ise --policy 0=greedy  ")
    assert " loaded in " in lines[1] or " compiled in " in lines[1]
    assert lines[2].startswith("1 kernel ready in ")
    again = CliRunner().invoke(main, ["compile", "tensho-ise", "--policy", "0=greedy", "--jobs", "1"])
    assert "in the cache, loaded in" in again.output and "(all were in the cache already)" in again.output


def test_options_and_players_are_those_of_the_run():
    result = CliRunner().invoke(main, ["compile", "enshu-w", "--players", "2", "--option", "enshu.rounds=6",
                                       "--policy", "1=greedy", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "enshu-w --option enshu.players=2 --option enshu.rounds=6 --policy 1=greedy  " in result.output


@pytest.mark.parametrize("args, message", [
    (["no-such-rules"], "no-such-rules"),
    (["tensho-ise", "--policy", "0=no_such_policy"], "no_such_policy"),
    (["tensho-ise", "--policy", "3=heuristic"], "seat 3"),
    (["tensho-ise", "--policy", "0=greedy", "--policy", "0=random"], "given twice"),
    (["--jobs", "0"], "--jobs"),
    (["tensho-ise", "--option", "no.such=1"], "no.such"),
    (["tensho-ise", "--players", "3"], "--players 3"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    result = CliRunner().invoke(main, ["compile", *args])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1 and message in result.output
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_kernels_compiled_in_two_processes_serve_the_runs(tmp_path):
    """With an empty numba cache, two workers compile two games' fast kernels (the spawned workers'
    path); runs of both then load them (no compile notice in their summaries), and a second
    ``fudasim compile`` finds them in the cache.  Slow: two kernels compiled from nothing."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"), PYTHONPATH=str(ROOT))

    def fudasim(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout

    first = fudasim("compile", "koikoi", "tensho-ise", "--policy", "0=greedy", "--jobs", "2")
    assert "koikoi --policy 0=greedy" in first and "tensho-ise --policy 0=greedy" in first
    assert first.count(" compiled in ") == 2
    for rules in ("koikoi", "tensho-hanafuda"):  # a kernel serves every rule set of its game
        summary = fudasim("run", rules, "--rounds", "2000", "--policy", "0=greedy", "--out", f"runs/{rules}")
        assert "compiling" not in summary
    assert "(all were in the cache already)" in fudasim("compile", "koikoi", "tensho-ise", "--policy", "0=greedy")


def test_compile_kernels_calls_back_as_each_is_ready():
    seen = []
    results = compile_kernels([Target("tensho-ise", ((0, "greedy"),))], jobs=1, done=seen.append)
    assert seen == results and results[0].target == Target("tensho-ise", ((0, "greedy"),))
    assert results[0].seconds > 0


def test_a_default_policy_the_rules_have_no_model_for_is_left_out_with_the_reason(monkeypatch):
    import simcore.run.ahead as ahead
    from simcore.errors import PolicyError

    def check(target):
        if dict(target.policies).get(0) == "learned":
            raise PolicyError("no learned model for these rules")
        return "tensho"

    monkeypatch.setattr(ahead, "check_target", check)
    targets, skipped = ahead.default_targets(["mine.toml"])
    assert [target.label for target in targets] == [
        "mine.toml", "mine.toml --policy 0=heuristic", "mine.toml --policy 0=pimc", "mine.toml --policy 0=ismcts"]
    assert skipped == ["mine.toml --policy 0=learned: no learned model for these rules"]


def test_a_tournament_compiles_behind_one_run_of_each_set_of_policies(tmp_path):
    from simcore.run.tournament import TournamentConfig, _kernel_targets, plan_tournament

    config = TournamentConfig(rules="tensho-ise", policies=["random", "greedy", "heuristic"], deals=10,
                              options={"tensho.card_values": "T3_hanafuda"}, out=str(tmp_path / "t"))
    manifest = plan_tournament(config)
    targets = _kernel_targets(config, manifest, list(enumerate(manifest["runs"], start=1)))
    assert [dict(target.policies) for target in targets] == [  # the first seating of each pairing
        {0: "random", 1: "greedy"}, {0: "random", 1: "heuristic"}, {0: "greedy", 1: "heuristic"}]
    assert {target.options for target in targets} == {(("tensho.card_values", "T3_hanafuda"),)}
    assert {target.rules_sha256 for target in targets} == {manifest["rules_sha256"]}


def test_compiling_behind_starts_no_helper_for_one_kernel():
    import multiprocessing

    from simcore.run.ahead import compiling_behind

    with compiling_behind([Target("tensho-ise"), Target("tensho-ise")]):  # one target, repeated
        assert multiprocessing.active_children() == []


CHILD = """
import multiprocessing, sys, time
from simcore.run.ahead import Target, compile_target, compiling_behind

later = Target("koikoi", ((0, "greedy"), (1, "greedy")))
with compiling_behind([Target("koikoi"), later]):
    deadline = time.time() + 600
    while multiprocessing.active_children() and time.time() < deadline:
        time.sleep(0.2)
    print(compile_target(later).compiled)
print(multiprocessing.active_children())
"""


@pytest.mark.slow
def test_the_helper_compiles_the_later_kernels_into_the_cache(tmp_path):
    """With an empty numba cache, the helper compiles the second target's kernel (koi-koi's fast
    kernel) while the block waits: the block then loads it, compiling nothing.  Slow: one kernel
    compiled from nothing."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"), PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "[]"]
