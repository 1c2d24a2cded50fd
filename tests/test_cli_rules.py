"""``fudasim rules show`` prints every card-value table; ``--players`` errors name ``--players``."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest
from click.testing import CliRunner

from cli.main import main
from simcore.cards import HANAFUDA48, ISE45


def shipped_data(name: str) -> dict:
    return tomllib.loads((resources.files("simcore.rules") / f"{name}.toml").read_text(encoding="utf-8"))


def test_rules_show_prints_each_card_value_of_every_table():
    result = CliRunner().invoke(main, ["rules", "show", "tensho-ise"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for key, table in shipped_data("tensho-ise")["card_values"].items():
        heading = next(i for i, line in enumerate(lines) if line.strip().startswith(f"{key} (total "))
        block = []
        for line in lines[heading + 1:]:
            if not line.startswith("    "):
                break
            block.append(line.strip())
        shown = {}
        for line in block[:-1]:
            for item in line.split(", "):
                label, _, value = item.rpartition(": ")
                shown[label] = int(value)
        assert block[-1] == f"every other card: {table['default']}"
        expected = {f"{code} {ISE45.cards[ISE45.card_id(code)].name}": value
                    for code, value in table["values"].items() if value != table["default"]}
        assert shown == expected
        total = sum(table["values"].values()) + table["default"] * (ISE45.size - len(table["values"]))
        assert lines[heading].strip().startswith(f"{key} (total {total})")


def test_rules_show_marks_the_table_in_force():
    result = CliRunner().invoke(main, ["rules", "show", "tensho-ise", "--option", "tensho.card_values=T2_alt"])
    assert result.exit_code == 0, result.output
    in_force = [line.strip() for line in result.output.splitlines() if "(in force)" in line]
    assert len(in_force) == 1 and in_force[0].startswith("T2_alt (total ")


def test_rules_show_marks_only_the_model_version_learned_plays():
    # C with 3 players ships versions 1, 2, 4, 5 and 6; `--policy learned` (version 6) plays version 6
    result = CliRunner().invoke(main, ["rules", "show", "enshu-c", "--players", "3"])
    assert result.exit_code == 0, result.output
    models = result.output.split("learned models (--policy learned, version 6,")[1].splitlines()[1:]
    marked = [line.split() for line in models if "(these rules play it)" in line]
    assert [line[:3] for line in marked] == [["c3", "version", "6"]]
    assert ["c3", "version", "1"] in [line.split() for line in models]
    # with 5 players it plays C 5p's newest, version 3
    result = CliRunner().invoke(main, ["rules", "show", "enshu-c", "--players", "5"])
    marked = [line.split()[:3] for line in result.output.splitlines() if "(these rules play it)" in line]
    assert marked[0] == ["c5", "version", "3"]


@pytest.mark.parametrize("name", ["enshu-w", "enshu-s", "enshu-c"])
def test_rules_show_prints_enshu_card_points_by_kind(name):
    data = shipped_data(name)
    bright = int(data["enshu"].get("bright_value", 20))
    points = {"bright": bright, **data["card_points"]}
    counts = {kind: sum(1 for card in HANAFUDA48.cards if card.kind == kind) for kind in points}
    result = CliRunner().invoke(main, ["rules", "show", name])
    assert result.exit_code == 0, result.output
    expected = ("card points: " + ", ".join(f"{kind} {points[kind]} ({counts[kind]} cards)"
                                            for kind in ("bright", "animal", "ribbon", "chaff"))
                + f"; total {sum(points[kind] * counts[kind] for kind in points)}")
    assert expected in result.output.splitlines()


@pytest.mark.parametrize("args, named", [
    (["rules", "show", "enshu-w", "--players", "4"], "--players 4: "),
    (["run", "enshu-s", "--players", "5", "--rounds", "2"], "--players 5: "),
    (["replay", "enshu-w", "--players", "4", "--seed", "1", "--round", "0"], "--players 4: "),
    (["rules", "show", "enshu-w", "--option", "enshu.players=4"], "--option enshu.players: "),
])
def test_unsupported_player_count_names_where_it_came_from(args, named):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"fudasim: error: {named}this rule set is played by 2 or 3 players"), lines[0]
