"""The throughput benchmarks: ``fudasim bench``'s options, each game's cases, the figures of a tiny
run, the table and CSV, and the line that names what a benchmark run measured."""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import numba
import pytest
from click.testing import CliRunner

import simcore
from cli.main import main
from simcore.bench import BenchCase, bench_cases, bench_run_case
from simcore.games import get_game, known_game_names
from simcore.kernels.bits import FAST_PDEP
from simcore.rules import load_rules
from simcore.run import throughput
from simcore.run.measure import COLUMNS, Row, measured_code, print_rows, write_csv

KERNEL_METRICS = {"kernel_rounds_per_s", "kernel_rounds_per_s_median", "reference_rounds_per_s",
                  "kernel_speedup_over_reference", "kernel_rows_equal_reference"}


def test_the_benchmark_names_the_package_it_measured():
    line = measured_code()
    assert f"simcore {simcore.__version__} (engine {simcore.ENGINE_VERSION})" in line
    assert f"from {Path(simcore.__file__).resolve().parent};" in line
    assert line.endswith("pdep yes" if FAST_PDEP else "pdep no")


# --- each game's cases --------------------------------------------------------------------------


@pytest.mark.parametrize("name", known_game_names())
def test_every_registered_game_has_cases_that_its_rules_can_play(name):
    game = get_game(name)
    cases = bench_cases(name)
    assert cases and len({(c.case, c.label) for c in cases}) == len(cases)
    for case in cases:
        rule_set = load_rules(case.rules, dict(case.options))
        assert rule_set.game == name
        assert len(case.policies) == game.players(game.compile(rule_set))
    run = bench_run_case(name)
    assert run is None or load_rules(run.rules).game == name


def test_the_cases_are_those_the_figures_in_the_docs_were_measured_on():
    tensho = [(c.case, c.label, c.rounds_divisor) for c in bench_cases("tensho")]
    assert tensho == [("fixed_1", "random-random", 1), ("fixed_1", "greedy-greedy", 4),
                      ("fixed_2", "random-random", 1), ("fixed_2", "greedy-greedy", 4),
                      ("fixed_1", "heuristic-heuristic", 10), ("fixed_1", "pimc-greedy", 1000),
                      ("fixed_1", "ismcts-greedy", 2000), ("fixed_1", "learned-learned", 10)]
    enshu = [(c.case, c.label) for c in bench_cases("enshu")]
    assert [case for case, label in enshu if label.startswith("random")] == ["W 3p", "S 3p", "C 3p", "C 5p"]
    assert ("C 5p", "greedy-greedy-greedy-greedy-greedy") in enshu
    assert enshu[-2:] == [("W 3p", "pimc-greedy-greedy"),
                          ("C 5p", "learned-learned-learned-learned-learned")]
    for case in bench_cases("enshu"):
        variant, players = case.case.split()
        rule_set = load_rules(case.rules, dict(case.options))
        assert (rule_set.variant, f"{rule_set.players}p") == (variant, players)
    assert bench_run_case("tensho").rules == "tensho-ise"
    koikoi = [(c.case, c.label) for c in bench_cases("koikoi")]
    assert koikoi == [("koikoi", "random-random"), ("koikoi", "greedy-greedy"), ("koikoi-kkj", "random-random"),
                      ("koikoi-kkj", "greedy-greedy"), ("koikoi", "heuristic-heuristic"), ("koikoi", "pimc-greedy"),
                      ("koikoi", "ismcts-greedy"), ("koikoi", "learned-learned")]


def _without_bench(module):
    """``GameBase.module`` as if no game had a ``bench`` module."""

    def without(game, name):
        if name == "bench":
            raise ModuleNotFoundError(f"No module named '{game.package}.bench'", name=f"{game.package}.bench")
        return module(game, name)

    return without


def test_a_game_without_a_bench_module_is_measured_on_its_shipped_rules(monkeypatch):
    from simcore.games.base import GameBase

    monkeypatch.setattr(GameBase, "module", _without_bench(GameBase.module))
    cases = bench_cases("enshu")
    assert sorted(c.rules for c in cases) == ["enshu-c", "enshu-s", "enshu-w"]
    assert all(c.policies == ("random",) * 3 for c in cases)
    assert bench_run_case("enshu") is None


def test_a_case_without_policies_is_refused():
    with pytest.raises(ValueError, match="no policies"):
        BenchCase("x", "tensho-ise", ())


# --- fudasim bench's options --------------------------------------------------------------------


def invoke(*args: str):
    return CliRunner().invoke(main, ["bench", *args], catch_exceptions=False)


@pytest.fixture
def measured(monkeypatch):
    """Run ``fudasim bench`` without measuring: the config and CSV target it would measure with."""
    calls = []
    monkeypatch.setattr(throughput, "bench", lambda config, out=None, progress=None: calls.append((config, out)))
    return calls


def test_bench_has_click_help_with_its_options():
    result = invoke("-h")
    assert result.exit_code == 0 and result.output.startswith("Usage:")
    for flag in ("--game NAME", "--rounds N", "--repeat N", "--quick", "--skip-compile", "--csv FILE"):
        assert flag in result.output


def test_the_defaults_measure_every_game_at_full_size(measured):
    assert invoke().exit_code == 0
    (config, out), = measured
    assert config == throughput.BenchConfig() and out is None
    assert config.games == () and config.rounds == 500_000 and config.repeat == 12


def test_quick_sizes_give_way_to_sizes_given(measured, tmp_path):
    target = tmp_path / "bench.csv"
    result = invoke("--quick", "--rounds", "3000", "--game", "enshu", "--game", "enshu", "--game", "tensho",
                    "--skip-compile", "--csv", str(target))
    assert result.exit_code == 0, result.output
    (config, out), = measured
    assert config == dataclasses.replace(throughput.BenchConfig(**throughput.QUICK), rounds=3000,
                                         games=("enshu", "tensho"), skip_compile=True)
    assert out == target


@pytest.mark.parametrize("args, message", [
    (["--rounds", "0"], "Invalid value for '--rounds'"),
    (["--game", "go"], "Invalid value for '--game'"),
    (["--repeat", "x"], "Invalid value for '--repeat'"),
    (["--no-such-flag"], "No such option"),
    (["-o", "a.csv", "--csv", "b.csv"], "give -o/--out or --csv, not both"),
    (["-o", "no/such/dir/bench.csv"], "no such directory"),
])
def test_a_usage_error_is_one_line_with_exit_status_2(args, message, measured):
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.output.startswith("fudasim: error:") and result.output.count("\n") == 1
    assert message in result.output and not measured


def test_policies_pick_the_cases_and_an_unknown_label_is_refused(measured):
    result = invoke("--game", "tensho", "--policies", "learned-learned", "--policies", "pimc-greedy")
    assert result.exit_code == 0, result.output
    assert measured[0][0].policies == ("learned-learned", "pimc-greedy")
    refused = invoke("--game", "koikoi", "--policies", "learned")
    assert refused.exit_code == 2 and refused.output.count("\n") == 1 and len(measured) == 1
    assert refused.output.startswith("fudasim: error: --policies learned: no case of koikoi has these seats (its cases:")
    assert "learned-learned" in refused.output


def test_policies_measure_only_their_cases_and_no_run():
    config = throughput.BenchConfig(games=("tensho",), policies=("greedy-greedy",), rounds=300, reference_rounds=30,
                                    repeat=1, least_rounds=20, least_reference_rounds=4)
    notes = []
    rows = throughput.measure(config, progress=notes.append)
    wanted = [case for case in bench_cases("tensho") if case.label == "greedy-greedy"]
    assert len(notes) == len(wanted) == 2  # both yaku sets
    assert rows and {row.policies for row in rows} == {"greedy-greedy"}
    assert {row.case for row in rows} == {case.case for case in wanted}


def test_an_existing_csv_is_replaced_only_with_overwrite(measured, tmp_path):
    target = tmp_path / "bench.csv"
    target.write_text("earlier figures\n")
    refused = invoke("-o", str(target))
    assert refused.exit_code == 2 and "--overwrite" in refused.output and not measured
    assert invoke("--out", str(target), "--overwrite").exit_code == 0 and measured[0][1] == target


def test_the_per_game_scripts_are_the_command_with_one_game(measured, capsys):
    from benchmarks import enshu_bench, tensho_bench

    for module, name in ((tensho_bench, "tensho"), (enshu_bench, "enshu")):
        module.main(["--quick"])
        assert measured[-1][0].games == (name,) and measured[-1][0].rounds == throughput.QUICK["rounds"]
    with pytest.raises(SystemExit) as done:
        tensho_bench.main(["--repeat", "0"])
    assert done.value.code == 2 and "--repeat" in capsys.readouterr().err


# --- the figures of a tiny run ------------------------------------------------------------------


@pytest.mark.slow
def test_a_tiny_run_measures_every_case_of_every_game_and_finds_the_rows_identical():
    config = throughput.BenchConfig(rounds=300, reference_rounds=30, repeat=2, runs=False, least_rounds=20,
                                    least_reference_rounds=4)
    notes = []
    rows = throughput.measure(config, progress=notes.append)
    assert {row.game for row in rows} == set(known_game_names())
    threads = numba.config.NUMBA_NUM_THREADS
    for name in known_game_names():
        for case in bench_cases(name):
            figures = {(row.metric, row.threads): row.value for row in rows
                       if (row.game, row.case, row.policies) == (name, case.case, case.label)}
            assert {metric for metric, _ in figures} == KERNEL_METRICS | (
                {"thread_scaling", "thread_scaling_median"} if threads > 1 else set())
            assert figures[("kernel_rows_equal_reference", "1")] == 1.0
            assert figures[("kernel_rounds_per_s", "1")] >= figures[("kernel_rounds_per_s_median", "1")] > 0
            assert figures[("kernel_speedup_over_reference", "1")] == pytest.approx(
                figures[("kernel_rounds_per_s", "1")] / figures[("reference_rounds_per_s", "1")])
    assert len(notes) == sum(len(bench_cases(name)) for name in known_game_names())
    assert numba.get_num_threads() == threads


@pytest.mark.slow
def test_a_tiny_run_of_one_game_measures_fudasim_run_in_child_processes(tmp_path):
    config = throughput.BenchConfig(games=("tensho",), run_rounds=2_000, memory_rounds=3_000, skip_compile=True)
    rows = throughput.run_figures("tensho", bench_run_case("tensho"), config, tmp_path)
    assert [(row.metric, row.threads) for row in rows] == [
        ("end_to_end_rounds_per_s", str(numba.config.NUMBA_NUM_THREADS)), ("peak_rss_mib", "300 rounds"),
        ("peak_rss_mib", "3000 rounds"), ("warm_start_run_1000_rounds_s", "")]
    assert all(row.game == "tensho" and row.value > 0 for row in rows)
    assert rows[0].case == "fixed_1" and rows[0].policies == "random-random"
    assert list(tmp_path.iterdir()) == []  # every run's dataset removed


# --- the table and the CSV ----------------------------------------------------------------------


ROWS = [Row("kernel_rounds_per_s", 3_140_000.0, "rounds/s", "tensho", "random-random", "fixed_1", "1"),
        Row("thread_scaling", 1.99, "x", "enshu", "greedy-greedy-greedy-greedy-greedy", "C 5p", "2/1"),
        Row("warm_start_run_1000_rounds_s", 1.05, "s", "tensho")]


def test_the_table_aligns_every_column(capsys):
    print_rows(ROWS)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["metric", "game", "policies", "case", "threads", "value", "unit"]
    assert lines[1].split() == ["kernel_rounds_per_s", "tensho", "random-random", "fixed_1", "1", "3,140,000",
                                "rounds/s"]
    assert lines[2].split()[-2:] == ["1.99", "x"] and "C 5p" in lines[2]
    value_ends = [lines[0].index("value") + len("value")]
    value_ends += [len(line) - len(row.unit) - 1 for line, row in zip(lines[1:], ROWS, strict=True)]
    assert len(set(value_ends)) == 1  # right-aligned values
    assert len({line.index(ROWS[1].case) for line in lines[2:3]} | {lines[0].index("case")}) == 1


def test_the_csv_has_one_row_per_figure(tmp_path):
    target = tmp_path / "bench.csv"
    write_csv(ROWS, target)
    with open(target, newline="") as handle:
        read = list(csv.DictReader(handle))
    assert tuple(read[0]) == COLUMNS == ("metric", "game", "policies", "case", "threads", "value", "unit")
    assert [Row(**{**r, "value": float(r["value"])}) for r in read] == ROWS
