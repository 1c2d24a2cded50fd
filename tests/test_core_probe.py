"""benchmarks.core_probe: its two loops compute what they claim, and bad options exit with 2."""

from __future__ import annotations

import pytest

from benchmarks.core_probe import chain, main, wide

MASK = (1 << 64) - 1


def _xorshift(x: int, steps: int) -> int:
    for _ in range(steps):
        x ^= (x << 13) & MASK
        x ^= x >> 7
        x ^= (x << 17) & MASK
    return x


def test_chain_is_one_xorshift_chain():
    assert int(chain(12345, 1000)) == _xorshift(12345, 1000)


def test_wide_runs_eight_independent_chains():
    expected = 0
    for k in range(8):
        expected ^= _xorshift(99 + k, 300)
    assert int(wide(99, 300)) == expected


@pytest.mark.parametrize("option", ["--repeat", "--threads"])
def test_a_count_below_one_is_refused(option, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([option, "0"])
    assert exit_info.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err


def test_more_threads_than_numba_has_is_refused(capsys):
    import numba

    too_many = numba.config.NUMBA_NUM_THREADS + 1
    with pytest.raises(SystemExit) as exit_info:
        main(["--threads", str(too_many)])
    assert exit_info.value.code == 2
    assert f"--threads {too_many}: numba has {numba.config.NUMBA_NUM_THREADS} thread(s)" in capsys.readouterr().err
