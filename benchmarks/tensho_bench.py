"""Tensho's throughput figures alone: ``fudasim bench --game tensho`` (``simcore.run.throughput``).

Run with ``python -m benchmarks.tensho_bench [OPTIONS]``; the options are ``fudasim bench``'s.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> None:
    """``fudasim bench --game tensho ARGS``.

    Parameters
    ----------
    argv : sequence of str, optional
        ``fudasim bench``'s options (default: the command line's).
    """
    from cli.main import main as fudasim

    fudasim(["bench", "--game", "tensho", *(sys.argv[1:] if argv is None else argv)], prog_name="fudasim")


if __name__ == "__main__":
    main()
