"""Lines for people: text wrapped at spaces without splitting a name (``fudasim play``).

``keep`` joins the words of a unit (a card's name, a yaku with its progress, an option of a
numbered list) so that ``wrap`` never breaks a line inside it; ``plain`` turns the units back into
ordinary words.  ``wrap`` does that on its way out.
"""

from __future__ import annotations

import textwrap

__all__ = ["KEEP", "keep", "plain", "wrap"]

KEEP = "\u00a0"  # joins the words of a card or yaku name so that a wrapped line never splits it


def plain(text: str) -> str:
    """``text`` with the units ``keep`` made back into words."""
    return text.replace(KEEP, " ")


def keep(text: str) -> str:
    """``text`` as one unit for ``wrap``: a line is never broken inside it."""
    return text.replace(" ", KEEP)


def wrap(text: str, width: int, indent: str = "    ") -> str:
    """``text`` broken at spaces into lines of at most ``width`` characters where its words allow,
    every line after the first indented by ``indent`` more than the first; ``keep`` marks units."""
    if not text.strip():
        return text
    lead = text[:len(text) - len(text.lstrip(" "))]
    return plain("\n".join(textwrap.wrap(text, width, subsequent_indent=lead + indent, break_long_words=False,
                                         break_on_hyphens=False)))
