"""Fuzzed command lines: every one ends in exit 0, or exit 2 with one error line, never a traceback.

Arguments for ``run``, ``rules validate``, ``rules show``, ``replay`` and ``report`` are drawn
from values that are valid, out of range, of the wrong type, or paths that are missing, not
files, not rule files, too large or not datasets.  ``fudasim`` errors are one line
(``fudasim: error: ...``); click's own usage errors print the usage, then one ``Error:`` line.
One real subprocess checks the same end to end.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli.main import main
from simcore.rules import MAX_RULES_BYTES

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    """Paths the arguments may name: rule files good and bad, datasets, a plain directory."""
    base = tmp_path_factory.mktemp("cli-fuzz")
    shipped = (resources.files("simcore.rules") / "enshu-s.toml").read_text(encoding="utf-8")
    (base / "good.toml").write_text(shipped, encoding="utf-8")
    (base / "garbage.toml").write_bytes(b"\x00\xff[[[ = \n")
    (base / "big.toml").write_text(shipped + "#" * MAX_RULES_BYTES, encoding="utf-8")
    (base / "huge-values.toml").write_text(shipped.replace("chaff = 0", "chaff = 3000000000"), encoding="utf-8")
    (base / "decisions.json").write_text('["yes", 3, "no"]', encoding="utf-8")
    (base / "not-json.json").write_text("{", encoding="utf-8")
    (base / "dir").mkdir()
    runner = CliRunner()
    for name, rules in (("tensho-ds", "tensho-ise"), ("enshu-ds", "enshu-c")):
        result = runner.invoke(main, ["run", rules, "--rounds", "12", "--out", str(base / name), "--no-progress"])
        assert result.exit_code == 0, result.output
    return base


RULES = ["tensho-ise", "tensho-hanafuda", "enshu-w", "enshu-s", "enshu-c", "nope", "", "bad\nname", "{good.toml}",
         "{garbage.toml}", "{big.toml}", "{huge-values.toml}", "{dir}", "{missing.toml}", "{tensho-ds}"]
COUNTS = ["0", "1", "2", "3", "-1", "x", "1e3", ""]
SEEDS = ["0", "7", "-1", "18446744073709551615", "18446744073709551616", "x"]
POLICIES = ["0=greedy", "1=random", "4=greedy", "0=nope", "x", "=", "0=greedy:yaku_set=2", "0=greedy:yaku_set=3",
            "1=greedy:foo=1", "0=random:yaku_set=1", "0=gre\nedy", "0=greedy:yaku_set=\t2"]
OPTIONS = ["tensho.triple_match=one", "tensho.rounds=0", "tensho.rounds=2", "tensho.match_scoring=yaku_points",
           "enshu.players=9", "enshu.players=5", "enshu.w.stake=1000000", "enshu.c.dropout_pass_cap=1000",
           "tensho.instant_win_score=-1", "nope=1", "x", "=", "enshu.s.multipliers=5_3_3", "tensho.tri\nple=one",
           "tensho.triple_match=o\nne"]
PLAYERS = ["2", "3", "4", "5", "6", "x"]
ROUNDS = ["0", "3", "-1", "18446744073709551615", "99999999999999999999", "x"]

COMMON = {"--policy": POLICIES, "--option": OPTIONS, "--players": PLAYERS}
FLAGS = {
    "run": {**COMMON, "--rounds": COUNTS, "--matches": COUNTS, "--rounds-per-match": ["1", "2", "0", "1001"],
            "--seed": SEEDS, "--engine": ["kernel", "reference", "gpu"], "--threads": ["1", "0"],
            "--shard-rounds": ["1", "0", "5"], "--resume": None, "--overwrite": None,
            "--out": ["{out}", "{garbage.toml}", "{dir}", "{tensho-ds}", "{enshu-ds}"]},
    "compile": {**COMMON, "--jobs": ["1", "0", "x"]},
    "rules show": {"--option": OPTIONS, "--players": PLAYERS, "--raw": None},
    "rules validate": {"--option": OPTIONS},
    "replay": {**COMMON, "--seed": SEEDS, "--round": ROUNDS,
               "--rounds-per-match": ["1", "2", "0"], "--deck": ["0,1,2", "x", ",".join(map(str, range(45))),
                                                                  ",".join(map(str, range(48))), ""],
               "--dealer": ["0", "1", "4", "9"], "--decisions": ["{decisions.json}", "{not-json.json}",
                                                                  "{missing.json}", "{dir}"],
               "--json": None},
    "report": {"--format": ["text", "md", "json", "csv", "pdf", "html"],
               "--output": ["-", "{out}.txt", "{tensho-ds}/x.csv", "{garbage.toml}", "{dir}"],
               "--overwrite": None, "--confidence": ["0.9", "2", "x"]},
}
DATASETS = ["{tensho-ds}", "{enshu-ds}", "{dir}", "{garbage.toml}", "{missing}", "tensho-ise"]


@st.composite
def command_lines(draw):
    command = draw(st.sampled_from(sorted(FLAGS)))
    args = command.split()
    if command == "report":
        args.append(draw(st.sampled_from(DATASETS)))
    elif command == "rules validate":
        args += draw(st.lists(st.sampled_from(RULES), min_size=1, max_size=3))
    else:
        args.append(draw(st.sampled_from(RULES)))
    flags = FLAGS[command]
    for flag in draw(st.lists(st.sampled_from(sorted(flags)), max_size=5)):
        args.append(flag)
        if flags[flag] is not None:
            args.append(draw(st.sampled_from(flags[flag])))
    if command == "replay" and draw(st.booleans()):  # a round of a run, most often a real one
        args += ["--seed", draw(st.sampled_from(["7", *SEEDS])), "--round", draw(st.sampled_from(["3", *ROUNDS]))]
    if command == "run" and "--rounds" not in args and "--matches" not in args:
        args += ["--rounds", "2"]  # keep every run small
    if command == "compile" and "--jobs" not in args:
        args += ["--jobs", "1"]  # in this process: no worker processes to start for kernels in the cache
    return args


def fill(args: list[str], base: Path, out: Path) -> list[str]:
    def one(arg: str) -> str:
        if arg.startswith("{out}"):
            return str(out) + arg[len("{out}"):]
        if arg.startswith("{"):
            name, _, rest = arg[1:].partition("}")
            return str(base / name) + rest
        return arg

    return [one(arg) for arg in args]


def assert_clean_end(exit_code: int, stderr: str, stdout: str, args) -> None:
    assert "Traceback" not in stderr and "Traceback" not in stdout, (args, stderr)
    assert exit_code in (0, 2), (args, exit_code, stderr)
    if exit_code == 2:
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert lines, args
        assert len(lines) == 1 and lines[0].startswith("fudasim: error: "), (args, stderr)


@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow,
                                                   HealthCheck.function_scoped_fixture])
@given(command_lines())
@pytest.mark.slow
def test_fuzzed_command_lines_end_in_exit_0_or_one_error_line(places, tmp_path_factory, args):
    work = tmp_path_factory.mktemp("cwd")
    argv = fill(args, places, work / "out")
    runner = CliRunner()
    with contextlib.chdir(work):  # relative outputs (a report's default file) land in the call's own folder
        result = runner.invoke(main, argv)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{argv}: {result.exception!r}") from result.exception
    assert_clean_end(result.exit_code, result.stderr, result.stdout, argv)


@pytest.mark.slow
def test_a_real_process_reports_a_bad_rule_file_in_one_line(places):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for path, args in ((places / "huge-values.toml", ["rules", "validate"]),
                       (places / "big.toml", ["run", "--rounds", "1"])):
        done = subprocess.run([sys.executable, "-m", "cli.main", *args, str(path)], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
        assert_clean_end(done.returncode, done.stderr, done.stdout, args)
        assert done.returncode == 2 and done.stderr.startswith(f"fudasim: error: {path}: "), done.stderr
