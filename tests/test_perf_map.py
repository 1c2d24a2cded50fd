"""``benchmarks.perf_map``: the map it writes names each compiled function at its address."""

from __future__ import annotations

import weakref

import numba as nb

from benchmarks.perf_map import jit_symbols, main, write_map


def test_the_map_gives_each_function_its_address_and_the_room_up_to_the_next(tmp_path):
    path = tmp_path / "perf.map"
    write_map({0x3000: "c", 0x1000: "a", 0x1800: "b"}, path)
    assert path.read_text().splitlines() == ["1000 800 a", "1800 1800 b", "3000 10000 c"]


class _Referent:
    pass


def test_a_function_compiled_in_this_process_is_named_at_its_address():
    """Among the live objects it looks through, a weak proxy whose referent is gone (asking its
    type raises) is passed over."""
    referent = _Referent()
    dead = weakref.proxy(referent)
    del referent

    @nb.njit
    def perf_map_probe(x):
        return x * 3 + 1

    assert perf_map_probe(2) == 7
    symbols = jit_symbols()
    named = [address for address, name in symbols.items() if "perf_map_probe" in name]
    assert named, "the probe is missing from the map"
    assert all(address > 0 for address in named)
    assert dead is not None  # kept alive until the symbols are read


def test_without_a_command_it_prints_its_use_and_fails(capsys):
    assert main([]) == 2
    assert "perf record" in capsys.readouterr().out
