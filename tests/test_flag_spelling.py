"""One spelling per flag across commands: the same thing is spelled the same way everywhere, and
every command that writes a file takes ``-o/--out`` (the older ``--output`` still works)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from cli.main import main

OUTPUT_SPELLINGS = {"-o", "--out", "--output"}


def commands(group: click.Group = main, prefix: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from commands(command, (*prefix, name))
        else:
            yield " ".join((*prefix, name)), command


def options_of(command: click.Command) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option)]


def test_every_command_that_writes_a_file_takes_o_and_out_and_output():
    writers = []
    for name, command in commands():
        for option in options_of(command):
            spelled = set(option.opts) | set(option.secondary_opts)
            if spelled & OUTPUT_SPELLINGS:
                assert OUTPUT_SPELLINGS <= spelled, (name, option.opts)
                writers.append(name)
    assert {"run", "report", "compare", "rescore"} <= set(writers)


@pytest.mark.parametrize("concept", ["--seed", "--policy", "--option", "--players", "--format", "--overwrite",
                                     "--round", "--rounds-per-match", "--out"])
def test_a_flag_is_spelled_one_way_in_every_command(concept):
    """Wherever a command has the flag, it has all its spellings and the same parameter name."""
    seen = {}
    for name, command in commands():
        for option in options_of(command):
            if concept in option.opts:
                seen[name] = (tuple(sorted(option.opts)), option.multiple)
    assert seen, concept
    assert len(set(seen.values())) == 1, seen


def test_bench_takes_o_and_out_and_output_and_the_old_csv():
    result = CliRunner().invoke(main, ["bench", "--help"], catch_exceptions=False)
    assert result.exit_code == 0
    assert "-o, --out, --output FILE" in result.output and "--csv FILE" in result.output


@pytest.mark.slow
def test_out_and_output_do_the_same(tmp_path: Path):
    runner = CliRunner()
    for flag in ("-o", "--out", "--output"):
        target = tmp_path / f"run{flag.strip('-')}"
        result = runner.invoke(main, ["run", "--rounds", "30", "--seed", "3", "--engine", "reference", flag,
                                      str(target)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        assert (target / "part-000000.parquet").is_file()
    dataset = str(tmp_path / "runo")
    written = []
    for flag in ("-o", "--out", "--output"):
        target = tmp_path / f"report{flag.strip('-')}.csv"
        result = runner.invoke(main, ["report", dataset, "--format", "csv", flag, str(target)],
                               catch_exceptions=False)
        assert result.exit_code == 0, result.output
        written.append(target.read_text(encoding="utf-8"))
    assert written[0] == written[1] == written[2] and written[0]
    compared = tmp_path / "compare.md"
    result = runner.invoke(main, ["compare", dataset, str(tmp_path / "runout"), "--format", "md", "-o",
                                  str(compared)], catch_exceptions=False)
    assert result.exit_code == 0 and compared.is_file()


def test_replay_format_json_is_the_json_flag():
    runner = CliRunner()
    args = ["replay", "tensho-ise", "--seed", "2", "--round", "5"]
    by_format = runner.invoke(main, [*args, "--format", "json"], catch_exceptions=False)
    by_flag = runner.invoke(main, [*args, "--json"], catch_exceptions=False)
    assert by_format.exit_code == 0 and by_format.output == by_flag.output
    assert by_format.output.lstrip().startswith("{")


def test_rules_validate_takes_players_like_run_replay_and_show():
    runner = CliRunner()
    ok = runner.invoke(main, ["rules", "validate", "enshu-c", "--players", "5"], catch_exceptions=False)
    assert ok.exit_code == 0 and "5 players" in ok.output
    refused = runner.invoke(main, ["rules", "validate", "enshu-w", "--players", "5"], catch_exceptions=False)
    assert refused.exit_code == 2 and "not 5" in refused.output
    players_flags = {name for name, command in commands()
                     if any("--players" in option.opts for option in options_of(command))}
    assert {"run", "replay", "rules show", "rules validate"} <= players_flags
