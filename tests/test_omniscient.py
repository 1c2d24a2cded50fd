"""``omniscient``: the measurement-only player that sees the hidden cards (issue: skill measures).

It must really use the hidden cards (so it is an upper bound), play only where a seat names it,
warn once per run, be recorded in the dataset's metadata, and be named at the top of every report.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from analysis.compare import compare_runs
from analysis.render import render
from analysis.report import build_report
from simcore.games import get_game
from simcore.policies import (
    POLICY_KINDS,
    HiddenCardsWarning,
    hidden_notice,
    parse_policy,
    sees_hidden,
)
from simcore.rng import Stream
from simcore.rules import load_rules
from simcore.run.runner import RunConfig, run


def test_only_omniscient_sees_hidden_cards():
    assert [name for name, kind in POLICY_KINDS.items() if kind.sees_hidden] == ["omniscient"]
    assert sees_hidden("omniscient:worlds=3") and not sees_hidden("pimc:worlds=3")
    assert hidden_notice(["random", "greedy"]) is None
    assert "seat 1 (omniscient)" in hidden_notice(["random", "omniscient"])


@pytest.mark.parametrize(("game_name", "rules_name"), [("tensho", "tensho-ise"), ("enshu", "enshu-w")])
@pytest.mark.slow
def test_it_decides_from_the_real_cards(game_name, rules_name):
    # where pimc would decide alike in the real position and in a world dealt anew, the
    # omniscient player does not always: it reads the cards the seat cannot see
    game = get_game(game_name)
    compiled = game.compile(load_rules(rules_name))
    spec = parse_policy("omniscient:worlds=2,rollout=greedy", game_name)
    seats = game.players(compiled)
    differ = 0
    for r in range(12):
        state = game.new_state(compiled, 5, r, r % seats)
        greedy = game.seat_policies(compiled, [parse_policy("greedy", game_name)] * seats, 5, r)
        step = 0
        while (decision := state.decision()) is not None:
            if decision.kind == "play" and len(decision.actions) > 2:
                world = state.sample_hidden(decision.seat, Stream(5, r, 800 + step))
                answers = [game.ask_policy(game.seat_policies(compiled, [spec] * seats, 5, 900 + step)[decision.seat],
                                           position, decision) for position in (state, world)]
                differ += answers[0] != answers[1]
            state.apply(game.ask_policy(greedy[decision.seat], state, decision))
            step += 1
    assert differ > 0


@pytest.mark.slow
def test_a_run_warns_once_records_it_and_every_report_says_so(tmp_path):
    config = RunConfig(rules="tensho-ise", rounds=30, seed=3, engine="reference",
                       policies={1: "omniscient:worlds=2"}, out=str(tmp_path / "om"))
    with pytest.warns(HiddenCardsWarning) as caught:
        run(config)
    assert len(caught) == 1
    assert json.loads((tmp_path / "om" / "_run.json").read_text())["sees_hidden"] == [1]
    run(RunConfig(rules="tensho-ise", rounds=30, seed=3, engine="reference", out=str(tmp_path / "fair")))
    assert "sees_hidden" not in json.loads((tmp_path / "fair" / "_run.json").read_text())
    report = build_report(tmp_path / "om")
    for fmt in ("text", "md", "html", "json"):
        text = render(report, fmt)
        first = text.index("sees the hidden cards")
        assert first < text.index("winner") if "winner" in text else True
        assert first < len(text) // 4, fmt
    assert build_report(tmp_path / "fair").notices == []
    compared = compare_runs([tmp_path / "fair", tmp_path / "om"])
    assert len(compared.notices) == 1 and compared.notices[0].startswith("om: seat 1")


@pytest.mark.slow
def test_the_command_line_warns_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "cli.main", "run", "tensho-ise", "--engine", "reference",
                           "--rounds", "5", "--policy", "0=omniscient:worlds=1", "-o", str(tmp_path / "x")],
                          capture_output=True, text=True, check=True)
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warnings == ["fudasim: warning: seat 0 (omniscient:worlds=1) sees the hidden cards (omniscient, "
                        "for measurement only): these are not fair players' results"]


def test_it_is_never_chosen_for_a_seat_that_does_not_name_it():
    # the default seat policy, the skill command's default chain and the strength script's chain
    from benchmarks.strength import DEFAULT_CHAIN as STRENGTH_CHAIN
    from cli.skill import DEFAULT_CHAIN as SKILL_CHAIN
    from simcore.run.runner import RunConfig

    assert RunConfig().policies == ()
    assert not any(sees_hidden(p) for p in SKILL_CHAIN)
    assert "omniscient" not in STRENGTH_CHAIN
