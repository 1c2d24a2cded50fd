"""Load and validate rule files into frozen dataclasses.

A rule file is TOML (see the shipped ``*.toml``).  ``load_rules`` resolves a shipped name or a
path, ``load_rules_text`` takes the text itself (as a dataset stores it); both apply
``--option NAME=VALUE`` overrides and hand the file to the game its ``[game] name`` names (the
registry of ``simcore.games``), which validates everything and raises ``RulesError`` with one
line naming the file, the key and the problem.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simcore.errors import RulesError
from simcore.registry import get_game, known_game_names

if TYPE_CHECKING:
    from simcore.cards import Deck

__all__ = ["EARLIER_FOLDER", "MAX_RULES_BYTES", "BaseRuleSet", "BaseYaku", "RulesError", "RuleSetLookups", "earlier_text",
           "is_shipped", "load_rules", "load_rules_text", "shipped_names", "shipped_rules", "parse_option_overrides"]

# The largest rule file accepted: the shipped ones are under 10 KiB, and the text is stored with
# every dataset, so a stray huge file is refused before it is parsed.
MAX_RULES_BYTES = 256 * 1024

class RuleSetLookups:
    """Lookups shared by every game's rule set (needs ``options``, ``yaku``, ``deck``, ``skin``)."""

    if TYPE_CHECKING:
        # What the lookups read; each game's rule set (a frozen dataclass) defines them.
        options: dict[str, str | int]
        yaku: tuple[Any, ...]
        deck: Deck

        @property
        def skin(self) -> str: ...

    def option(self, name: str) -> str | int:
        """The resolved value of the option called ``name`` (``KeyError`` if there is none)."""
        return self.options[name]

    def yaku_by_key(self, key: str) -> Any:
        """The yaku whose key is ``key`` (``KeyError`` if there is none)."""
        for yaku in self.yaku:
            if yaku.key == key:
                return yaku
        raise KeyError(key)

    def card_label(self, card_id: int) -> str:
        """The name of card ``card_id`` in this rule set's skin."""
        return self.deck.label(card_id, self.skin)


@dataclass(frozen=True)
class BaseYaku:
    """The fields of every game's yaku (a game's ``Yaku`` adds its cards and values): its bit in
    the dataset's yaku bitsets, its key in rule files, its name, and its name in English."""

    index: int
    key: str
    name: str
    english: str


@dataclass(frozen=True)
class BaseRuleSet(RuleSetLookups):
    """The fields of every game's rule set (``simcore.rules.checks.file_fields`` fills all but
    ``players``); a game's ``RuleSet`` adds its own."""

    name: str
    source: str  # a path, or "NAME.toml" (shipped)
    text: str
    sha256: str
    game: str
    title: str
    description: str
    deck: Deck
    players: int
    options: dict[str, str | int]
    overrides: dict[str, str | int]

SHIPPED_PACKAGE = "simcore.rules"


def shipped_names() -> list[str]:
    """Shipped rule names, sorted (``shipped_rules`` without reading the files)."""
    return sorted(entry.name[: -len(".toml")] for entry in resources.files(SHIPPED_PACKAGE).iterdir()
                  if entry.name.endswith(".toml"))


def shipped_rules() -> dict[str, str]:
    """Shipped rule names and their one-line titles."""
    out = {}
    for name in shipped_names():
        try:
            data = tomllib.loads((resources.files(SHIPPED_PACKAGE) / f"{name}.toml").read_text(encoding="utf-8"))
            title = str(data.get("game", {}).get("title", ""))
        except tomllib.TOMLDecodeError:
            title = "(unreadable)"
        out[name] = title
    return out


# Earlier texts of shipped rule files, kept verbatim as ``NAME-SHA.toml`` (SHA: the first 16 hex
# digits of the text's sha256) after a change that left the rules as they were (a comment): a run,
# tournament or sweep records its rules file's sha256, and one started with an earlier text
# resumes with that text, so every shard of it carries the same rules text.
EARLIER_FOLDER = "earlier"


def is_shipped(ref: str) -> bool:
    """Whether ``load_rules(ref)`` loads a shipped rule set (a name no path shadows)."""
    return ref in shipped_names() and not Path(ref).exists()


def earlier_text(name: str, sha256: str) -> str | None:
    """The earlier text of shipped rule set ``name`` whose sha256 is ``sha256``, or None."""
    if len(sha256) != 64 or name not in shipped_names():
        return None
    entry = resources.files(SHIPPED_PACKAGE) / EARLIER_FOLDER / f"{name}-{sha256[:16]}.toml"
    if not entry.is_file():
        return None
    text = entry.read_text(encoding="utf-8")
    return text if hashlib.sha256(text.encode("utf-8")).hexdigest() == sha256 else None


def _refuse_large(source: str, size: int) -> None:
    if size > MAX_RULES_BYTES:
        raise RulesError(f"{source}: {size:,} bytes is larger than a rule file may be "
                         f"({MAX_RULES_BYTES:,} bytes)")


def _read_source(ref: str) -> tuple[str, str, str]:
    """(name, source label, text) of a shipped name or a path."""
    path = Path(ref)
    if is_shipped(ref):
        text = (resources.files(SHIPPED_PACKAGE) / f"{ref}.toml").read_text(encoding="utf-8")
        return ref, f"{ref}.toml", text
    if path.is_file():
        try:
            _refuse_large(str(path), path.stat().st_size)
            with path.open("rb") as file:  # at most one byte more than the cap, whatever the file does
                data = file.read(MAX_RULES_BYTES + 1)
            _refuse_large(str(path), len(data))
            return path.stem, str(path), data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise RulesError(f"{path}: cannot read: {error}") from None
    if path.exists():
        raise RulesError(f"{path}: not a file")
    names = ", ".join(shipped_names())
    raise RulesError(f"{ref}: no such rule file or shipped rule set (shipped: {names})")


def parse_option_overrides(pairs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Parse ``NAME=VALUE`` strings from ``--option``."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise RulesError(f"--option {pair!r}: expected NAME=VALUE, e.g. tensho.triple_match=one")
        if name.strip() in out:  # the last would silently win: the run would not be the one asked for
            raise RulesError(f"--option {name.strip()}: given twice ({out[name.strip()]} and {value.strip()}); "
                             f"give each option once")
        out[name.strip()] = value.strip()
    return out


def load_rules(ref: str, overrides: dict[str, Any] | None = None, recorded_sha256: str | None = None) -> Any:
    """Load a shipped rule set (by name) or a rule file (by path) and validate it.

    Parameters
    ----------
    ref : str
        A shipped rule set's name (``tensho-ise``) or the path of a rule file.
    overrides : dict, optional
        Option values (``{"tensho.triple_match": "one"}``) that replace the file's.
    recorded_sha256 : str, optional
        The sha256 a run being resumed recorded: where ``ref`` is a shipped name and that is the
        sha256 of an earlier text of the file (``earlier_text``), that text is loaded.

    Returns
    -------
    a game's RuleSet
        The validated rule set, with every option resolved.

    Raises
    ------
    RulesError
        One line naming the file, the key and the problem.
    """
    name, source, text = _read_source(ref)
    if recorded_sha256 is not None and is_shipped(ref):
        text = earlier_text(name, recorded_sha256) or text
    return load_rules_text(text, name, source, overrides)


def load_rules_text(text: str, name: str, source: str, overrides: dict[str, Any] | None = None) -> Any:
    """Validate the text of a rule file (e.g. as stored in a dataset), as ``load_rules`` does.

    Parameters
    ----------
    text : str
        The rule file's text; at most ``MAX_RULES_BYTES`` bytes of UTF-8.
    name : str
        The rule set's name (a file's stem).
    source : str
        What error messages call the text (a path, or e.g. ``DATASET: fudasim.rules``).
    overrides : dict, optional
        Option values that replace the file's.

    Returns
    -------
    a game's RuleSet
        The validated rule set.
    """
    _refuse_large(source, len(text.encode("utf-8")))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"{source}: not valid TOML: {error}") from None

    game = data.get("game")
    if not isinstance(game, dict):
        raise RulesError(f"{source}: game: " + ("missing table" if game is None else
                                                f"expected a table, got {type(game).__name__}"))
    game_name = game.get("name")
    if not isinstance(game_name, str):
        raise RulesError(f"{source}: game.name: expected a string, got {game_name!r}")
    if game_name not in known_game_names():
        raise RulesError(f"{source}: game.name: unknown game {game_name!r} "
                         f"(supported: {', '.join(known_game_names())})")
    return get_game(game_name).build_rules(name, source, text, data, dict(overrides or {}))
