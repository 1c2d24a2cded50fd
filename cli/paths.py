"""The path parameter every command uses: ``click.Path`` that refuses an empty value.

An empty path is the current directory to ``pathlib``, so ``--out ''`` would write a dataset
(or read one) there; the user meant something else, and is told so in one line.
"""

from __future__ import annotations

from typing import Any

import click

__all__ = ["PathParam"]


class PathParam(click.Path):
    """``click.Path`` that refuses an empty (or blank) value."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The path, or a usage error for an empty one."""
        if isinstance(value, str) and not value.strip():
            self.fail("an empty path; name a file or folder (. for the current one)", param, ctx)
        return super().convert(value, param, ctx)
