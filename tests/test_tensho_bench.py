"""benchmarks.tensho_bench: the line that names what a benchmark run measured."""

from __future__ import annotations

from pathlib import Path

import simcore
from benchmarks.tensho_bench import measured_code
from simcore.kernels.bits import FAST_PDEP


def test_the_benchmark_names_the_package_it_measured():
    line = measured_code()
    assert f"simcore {simcore.__version__} (engine {simcore.ENGINE_VERSION})" in line
    assert f"from {Path(simcore.__file__).resolve().parent};" in line
    assert line.endswith("pdep yes" if FAST_PDEP else "pdep no")
