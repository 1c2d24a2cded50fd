"""A first run compiles the kernel: the run says so while it waits, and times the rounds apart
from the compile (issue: the cold start looked like a hang, and its summary reported the compile
as throughput).

The compile is stood in for by an engine whose first call is slow, so the test takes a second,
not the half-minute of a real compile.
"""

from __future__ import annotations

import time

from cli.main import _summary_text
from simcore.games import get_game
from simcore.run.runner import RunConfig, run
from simcore.run.shards import COMPILING_NOTICE_AFTER

SLOW_FIRST_CALL = COMPILING_NOTICE_AFTER + 0.6


def _slow_first_call(monkeypatch):
    game_class = type(get_game("tensho"))
    original = game_class.play_units
    calls = []

    def play_units(self, *args, **kwargs):
        if not calls:
            time.sleep(SLOW_FIRST_CALL)
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(game_class, "play_units", play_units)
    return calls


def test_a_slow_first_call_is_announced_and_timed_apart(monkeypatch, tmp_path, capsys):
    calls = _slow_first_call(monkeypatch)
    summary = run(RunConfig(rules="tensho-ise", rounds=2000, seed=3, out=str(tmp_path / "run"), progress=True))
    err = capsys.readouterr().err
    assert "compiling the kernel (first run only" in err
    assert summary.compile_seconds >= SLOW_FIRST_CALL
    assert summary.seconds < summary.compile_seconds  # the rounds' time leaves the compile out
    assert len(calls) >= 2  # the warm-up, then the run's own shards
    assert "s compiling the kernel (first run only)" in _summary_text(summary)


def test_a_warm_engine_says_nothing_of_compiling(tmp_path, capsys):
    run(RunConfig(rules="tensho-ise", rounds=500, seed=3, out=str(tmp_path / "warm"), progress=True))
    capsys.readouterr()
    summary = run(RunConfig(rules="tensho-ise", rounds=2000, seed=3, out=str(tmp_path / "run"), progress=True))
    err = capsys.readouterr().err
    assert "compiling" not in err
    assert summary.compile_seconds < COMPILING_NOTICE_AFTER
    assert "compiling" not in _summary_text(summary)


def test_the_warm_up_changes_no_row(tmp_path):
    """The warm-up plays unit 0 into buffers of its own: the rows are those the engine writes
    for the run's units, pinned in tests/golden_rows.json."""
    import json
    from pathlib import Path

    from test_golden_rows import golden_runs, play, run_key

    pinned = json.loads((Path(__file__).with_name("golden_rows.json")).read_text(encoding="utf-8"))
    spec = next(s for s in golden_runs() if s["rules"] == "tensho-ise" and s["policies"] == ["greedy", "random"]
                and "options" not in s and "matches" not in s and "threads" not in s)
    assert play(spec, tmp_path / "run") == pinned[run_key(spec)]
