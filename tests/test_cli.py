"""The ``fudasim`` command as a user drives it: help, the main job, replay, rules, bad input."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from tensho_cards import build_deck, card

from cli.main import main
from simcore.dataset import read_dataset, read_run_info
from simcore.errors import DealError
from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.replay import replay_deck, trace_json
from simcore.policies import parse_policy
from simcore.rules import load_rules

ROOT = Path(__file__).resolve().parents[1]


def invoke(*args: str, cwd: Path | None = None):
    runner = CliRunner()
    if cwd is None:
        return runner.invoke(main, list(args), catch_exceptions=False)
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from all_commands(command, (*prefix, name))


def test_every_command_has_help_text():
    names = []
    for path, command in all_commands(main):
        names.append(" ".join(path))
        assert command.help and len(command.help.strip()) > 20, f"fudasim {' '.join(path)} lacks help"
        result = invoke(*path, "--help")
        assert result.exit_code == 0 and "Usage:" in result.output
    assert {"run", "replay", "rules", "rules list", "rules show", "rules validate", "report", "compare",
            "rescore", "bench"} <= set(names)


def test_version():
    result = invoke("--version")
    assert result.exit_code == 0 and "fudasim" in result.output


@pytest.mark.slow
def test_run_with_no_arguments_plays_the_shipped_default(tmp_path):
    result = invoke("run", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    out = tmp_path / "fudasim-out" / "tensho-ise-seed0"
    info = read_run_info(out)
    assert info["rules_name"] == "tensho-ise" and info["policies"] == ["random", "random"]
    assert info["options"]["tensho.yaku_set_choice"] == "fixed_1" and info["complete"]
    frame = read_dataset(out, ["round", "winner"])
    assert len(frame) == info["units"] >= 100_000
    assert "rounds/s" in result.output and "end reason" in result.output and "seat 0 (random)" in result.output
    again = invoke("run", cwd=tmp_path)  # never clobbers
    assert again.exit_code == 2 and "--overwrite" in again.output


def test_run_options_policies_and_match_play(tmp_path):
    out = tmp_path / "m"
    result = invoke("run", "tensho-hanafuda", "--matches", "50", "--rounds-per-match", "3", "--seed", "9",
                    "--policy", "1=greedy:yaku_set=2", "--option", "tensho.yaku_set_choice=dealer_policy",
                    "--out", str(out), "--threads", "1")
    assert result.exit_code == 0, result.output
    info = read_run_info(out)
    assert info["policies"] == ["random", "greedy:yaku_set=2"]
    assert info["option_overrides"] == {"tensho.yaku_set_choice": "dealer_policy"}
    frame = read_dataset(out)
    assert len(frame) == 150 and frame["match"].nunique() == 50
    # greedy chooses set 2 whenever it deals
    assert (frame.loc[frame["dealer"] == 1, "yaku_set"] == 2).all()


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "no-such-rules", "--rounds", "10"], "no such rule file"),
        (["run", "--rounds", "10", "--option", "tensho.triple_match=some"], "tensho.triple_match"),
        (["run", "--rounds", "10", "--option", "tensho.nonsense=1"], "unknown option"),
        (["run", "--rounds", "10", "--option", "novalue"], "NAME=VALUE"),
        (["run", "--rounds", "10", "--policy", "0=clever"], "unknown policy"),
        (["run", "--rounds", "10", "--policy", "2=random"], "seat 2"),
        (["run", "--rounds", "10", "--policy", "0=greedy:yaku_set=3"], "yaku_set=3"),
        (["run", "--rounds", "10", "--matches", "3"], "not both"),
        (["run", "--rounds-per-match", "3", "--rounds", "10"], "needs --matches"),
        (["run", "--rounds", "10", "--resume", "--overwrite"], "contradict"),
        (["replay", "tensho-ise"], "--seed and --round"),
        (["replay", "tensho-ise", "--deck", "1,2,3"], "45"),
        (["replay", "tensho-ise", "--deck", ",".join(["0"] * 45)], "already at position"),
        (["replay", "tensho-ise", "--deck", ",".join(str(i) for i in range(44)) + ",x"], "not a card id"),
        (["replay", "tensho-ise", "--deck", ",".join(str(i) for i in range(45))], "redeal"),
        (["rules", "show", "tensho-nothing"], "no such rule file"),
        (["report", "/nonexistent/dataset"], "nonexistent"),
    ],
)
def test_bad_input_is_one_line_and_exit_status_2(args, message, tmp_path):
    result = invoke(*args, cwd=tmp_path)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.output
    assert "Traceback" not in result.output


def test_bad_input_from_a_real_process_has_no_traceback(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text((ROOT / "simcore/rules/tensho-ise.toml").read_text().replace('"3S"]', '"3X"]', 1))
    process = subprocess.run([sys.executable, "-m", "cli.main", "rules", "validate", str(bad)],
                             capture_output=True, text=True, cwd=ROOT)
    assert process.returncode == 2
    assert process.stderr.count("\n") == 1 and "Traceback" not in process.stderr
    assert str(bad) in process.stderr and "yaku[Y01].cards[2]" in process.stderr and "3X" in process.stderr


def test_rules_list_show_validate():
    listed = invoke("rules", "list").output
    assert "tensho-ise" in listed and "tensho-hanafuda" in listed
    shown = invoke("rules", "show", "tensho-hanafuda", "--option", "tensho.triple_match=one").output
    assert "Pine Crane" in shown and "tensho.triple_match" in shown and "(overridden)" in shown
    raw = invoke("rules", "show", "tensho-ise", "--raw").output
    assert raw.startswith("# Tensho")
    validated = invoke("rules", "validate", str(ROOT / "simcore/rules/tensho-ise.toml"))
    assert validated.exit_code == 0 and "ok:" in validated.output


def test_replay_of_a_run_round_matches_the_dataset(tmp_path):
    out = tmp_path / "d"
    assert invoke("run", "--rounds", "40", "--seed", "5", "--policy", "0=greedy", "--out", str(out)).exit_code == 0
    row = read_dataset(out).iloc[17]
    result = invoke("replay", "tensho-ise", "--seed", "5", "--round", "17", "--policy", "0=greedy", "--json")
    trace = json.loads(result.output)
    assert trace["winner"] == row["winner"] and trace["end_reason"] == row["end_reason"]
    assert trace["end_turn"] == row["end_turn"]
    for seat in (0, 1):
        assert sum(1 << c for c in trace["seats"][seat]["captured"]) == row[f"captured_{seat}"]
        assert trace["seats"][seat]["yaku_points"] == row[f"yaku_points_{seat}"]
    text = invoke("replay", "tensho-ise", "--seed", "5", "--round", "17", "--policy", "0=greedy").output
    assert "Turn  1" in text and "Result:" in text


def test_replay_of_a_scripted_deal(tmp_path):
    deck = build_deck([card(c) for c in ("1S", "2S", "3Co", "4Co", "5Co", "7Co", "8Co", "9Co", "10Co")],
                      [card(c) for c in ("1C", "11Cu", "12Cu", "4Cu", "5Cu", "7Cu")],
                      [card(c) for c in ("2Cu", "3Cu", "8Cu", "9Cu", "10Cu", "12Co")],
                      [card("11Co")])
    decisions = tmp_path / "moves.json"
    decisions.write_text(json.dumps([card("1C")]))  # only the first play; the rest is missing
    result = invoke("replay", "tensho-ise", "--deck", ",".join(map(str, deck)), "--decisions", str(decisions))
    assert result.exit_code == 2 and "decision 2" in result.output and "missing" in result.output
    traced = invoke("replay", "tensho-ise", "--deck", ",".join(map(str, deck)), "--json")
    assert traced.exit_code == 0
    assert json.loads(traced.output)["field_dealt"] == sorted(deck[:9])



def test_scripted_replay_accepts_forced_moves_written_out_or_left_out():
    """Only real choices need a decision; a list may also write out each seat's forced last card."""
    compiled = compile_rules(load_rules("tensho-ise"))
    specs = [parse_policy("random"), parse_policy("random")]
    generator = random.Random(8)
    replayed = 0
    while replayed < 25:
        deck = list(range(45))
        generator.shuffle(deck)
        try:
            played = replay_deck(compiled, deck, None, specs)
        except DealError:
            continue
        minimal, full = [], []
        plays_left = {0: 6, 1: 6}
        for event in played.events:
            if event["type"] in ("opening_claim", "opening_decline"):
                entry = event["cards"] if event["type"] == "opening_claim" else "decline"
                minimal.append(entry)
                full.append(entry)
            if event["type"] == "play":
                plays_left[event["seat"]] -= 1
                full.append(event["card"])
                if plays_left[event["seat"]] > 0:  # the last card in hand is forced
                    minimal.append(event["card"])
            if event["type"] in ("play", "draw") and event.get("choices", 1) > 1:
                minimal.append(event["captured"][1])
                full.append(event["captured"][1])
        expected = trace_json(compiled, played)
        for decisions in (minimal, full):
            trace = trace_json(compiled, replay_deck(compiled, deck, decisions, specs))
            assert trace["seats"] == expected["seats"] and trace["winner"] == expected["winner"]
        replayed += 1


@pytest.mark.parametrize(
    ("deck", "dealer", "message"),
    [
        ([0] * 45, 0, "deck position 1: card id 0 already at position 0"),
        (list(range(44)), 0, "deck has 44 card ids; a deal needs all 45"),
        ([*range(44), 45], 0, "deck position 44: card id 45 is outside 0..44"),
        (list(range(45)), 2, "dealer 2 is not a seat (0 or 1)"),
    ],
)
def test_replay_deck_refuses_a_deal_that_is_not_one(deck, dealer, message):
    """The Python API checks an explicit deal as ``--deck`` does, before playing anything."""
    compiled = compile_rules(load_rules("tensho-ise"))
    specs = [parse_policy("random"), parse_policy("random")]
    with pytest.raises(DealError) as error:
        replay_deck(compiled, deck, None, specs, dealer=dealer)
    assert str(error.value) == message


def test_replay_refuses_a_round_index_beyond_64_bits():
    """Round indexes are 64-bit: 2**64 would wrap to round 0's deal, so it is refused."""
    last = invoke("replay", "tensho-ise", "--seed", "1", "--round", str(2**64 - 1))
    assert last.exit_code == 0, last.output
    beyond = invoke("replay", "tensho-ise", "--seed", "1", "--round", str(2**64))
    assert beyond.exit_code == 2 and "--round" in beyond.output and "Traceback" not in beyond.output


def test_enshu_bana_runs_replays_and_validates_player_counts(tmp_path):
    out = tmp_path / "c4"
    result = invoke("run", "enshu-c", "--players", "4", "--rounds", "300", "--engine", "reference",
                    "--policy", "3=greedy", "--out", str(out))
    assert result.exit_code == 0, result.output
    info = read_run_info(out)
    assert info["game"] == "enshu" and info["players"] == 4 and info["variant"] == "C"
    assert info["policies"] == ["random", "random", "random", "greedy"]
    frame = read_dataset(out)
    assert len(frame) == 300 and {"multiplier", "active_3", "payoff_3", "teyaku_declared_0"} <= set(frame.columns)
    assert "seat 3 (greedy)" in result.output
    # payments sum to zero in every round
    assert (frame[[f"payoff_{s}" for s in range(4)]].sum(axis=1) == 0).all()
    row = frame.iloc[7]
    trace = json.loads(invoke("replay", "enshu-c", "--players", "4", "--seed", "0", "--round", "7",
                              "--policy", "3=greedy", "--json").output)
    assert trace["winner"] == row["winner"] and trace["multiplier"] == row["multiplier"]
    for message, args in [
        ("not 4", ["run", "enshu-w", "--players", "4", "--rounds", "5"]),
        ("2-player game", ["run", "tensho-ise", "--players", "3", "--rounds", "5"]),
        ("seat 3", ["run", "enshu-s", "--policy", "3=greedy", "--rounds", "5"]),
        ("48", ["replay", "enshu-s", "--deck", ",".join(str(i) for i in range(45))]),
        ("parameter yaku_set applies to tensho only, not to enshu",
         ["run", "enshu-c", "--policy", "0=greedy:yaku_set=2", "--rounds", "5", "--out", "ys"]),
        ("parameter yaku_set applies to tensho only, not to enshu",
         ["replay", "enshu-w", "--policy", "1=greedy:yaku_set=1", "--round", "0"]),
    ]:
        failed = invoke(*args, cwd=tmp_path)
        assert failed.exit_code == 2 and message in failed.output, (args, failed.output)
    assert not (tmp_path / "ys").exists()  # refused before anything was written
