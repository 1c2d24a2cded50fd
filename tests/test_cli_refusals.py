"""Command lines that say two things at once are refused, in one line with exit status 2,
before anything is written: a seat's policy or a rule option given twice (every command that
takes them), ``--players`` against the player-count option."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import fudasim
from cli.main import main

TWICE_POLICY = ["--policy", "0=greedy", "--policy", "00=random"]
TWICE_OPTION = ["--option", "tensho.card_values=T1_ise", "--option", "tensho.card_values=T2_alt"]


def _refused(args: list[str], where: Path, message: str) -> None:
    result = CliRunner().invoke(main, [arg.replace("{out}", str(where / "out")) for arg in args], input="")
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("fudasim: error: ") and message in lines[0], result.output
    assert not (where / "out").exists()


@pytest.mark.parametrize("args", [
    ["run", "--rounds", "10", "-o", "{out}"],
    ["sweep", "--vary", "tensho.triple_match=one,all", "--rounds", "10", "-o", "{out}"],
    ["replay", "tensho-ise", "--seed", "1", "--round", "3"],
])
def test_a_seat_given_twice_is_refused(tmp_path, args):
    _refused([*args, *TWICE_POLICY], tmp_path, "--policy 0: seat 0 is given twice (greedy and random)")


@pytest.mark.parametrize("args", [
    ["run", "--rounds", "10", "-o", "{out}"],
    ["sweep", "--vary", "tensho.triple_match=one,all", "--rounds", "10", "-o", "{out}"],
    ["tournament", "--policies", "random,greedy", "--deals", "10", "-o", "{out}"],
    ["skill", "--policies", "random,greedy", "--deals", "10", "-o", "{out}"],
    ["replay", "tensho-ise", "--seed", "1", "--round", "3"],
    ["play", "tensho-ise", "--seed", "1"],
    ["rules", "show", "tensho-ise"],
    ["rules", "validate", "tensho-ise"],
])
def test_an_option_given_twice_is_refused(tmp_path, args):
    _refused([*args, *TWICE_OPTION], tmp_path, "--option tensho.card_values: given twice (T1_ise and T2_alt)")


def test_players_against_the_player_count_option_is_refused(tmp_path):
    _refused(["run", "enshu-c", "--players", "4", "--option", "enshu.players=3", "--rounds", "10", "-o", "{out}"],
             tmp_path, "--players 4: enshu.players=3 says otherwise")
    with pytest.raises(fudasim.FudasimError, match="players=4: enshu.players=3 says otherwise"):
        fudasim.run("enshu-c", players=4, options={"enshu.players": 3}, rounds=10, out=tmp_path / "api")
    assert not (tmp_path / "api").exists()


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("refusals")
    for name in ("a", "b"):
        result = CliRunner().invoke(main, ["run", "--rounds", "200", "-o", str(base / name), "--no-progress"])
        assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["tournament", "--policies", "random,greedy", "--deals", "50", "-o",
                                       str(base / "t"), "--no-progress"])
    assert result.exit_code == 0, result.output
    return base


@pytest.mark.parametrize(("args", "message"), [
    (["compare", "{t}", "{missing}"], "{missing}: no such run, tournament or sweep folder"),
    (["compare", "{a}", "{missing}"], "{missing}: no such run, tournament or sweep folder"),
    (["compare", "{missing}", "{t}"], "{missing}: no such run, tournament or sweep folder"),
    (["compare", "{a}", "{a}/../a"], "{a} and {a}/../a are the same folder; compare two different ones"),
    (["compare", "{t}", "{t}"], "{t} and {t} are the same folder"),
    (["compare", "{a}", "{b}", "{a}"], "{a} and {a} are the same folder"),
    (["skill", "{a}"], "{a}: a run dataset (fudasim run), not a tournament; skill reads a folder written by"),
    (["skill", "{empty}"], "{empty}: a folder, not a tournament"),
])
def test_what_is_wrong_is_named(runs, tmp_path, args, message):
    (tmp_path / "empty").mkdir()
    places = {"a": runs / "a", "b": runs / "b", "t": runs / "t", "missing": tmp_path / "missing",
              "empty": tmp_path / "empty"}

    def fill(text: str) -> str:
        for name, path in places.items():
            text = text.replace("{" + name + "}", str(path))
        return text

    result = CliRunner().invoke(main, [fill(arg) for arg in args])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].startswith("fudasim: error: " + fill(message)), lines[0]


@pytest.mark.parametrize("args", [
    ["run", "--rounds", "10", "--out", ""],
    ["run", "--rounds", "10", "-o", " "],
    ["tournament", "--policies", "random,greedy", "--deals", "10", "--out", ""],
    ["sweep", "--vary", "tensho.triple_match=one,all", "--rounds", "10", "--out", ""],
    ["skill", "--policies", "random,greedy", "--deals", "10", "--out", ""],
    ["report", "{a}", "--format", "md", "-o", ""],
    ["verify", ""],
    ["report", ""],
])
def test_an_empty_path_is_refused_not_taken_for_the_current_folder(runs, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [arg.replace("{a}", str(runs / "a")) for arg in args])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].startswith("fudasim: error: ") and "an empty path" in lines[0], lines[0]
    assert list(tmp_path.iterdir()) == []
