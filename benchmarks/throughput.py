"""``python -m benchmarks.throughput ARGS``: the same as ``fudasim bench ARGS`` (the measuring is
``simcore.run.throughput``)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from cli.main import main as fudasim


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``fudasim bench`` with ``argv`` (default: this process's arguments)."""
    fudasim(["bench", *(sys.argv[1:] if argv is None else argv)], prog_name="fudasim")


if __name__ == "__main__":
    main()
