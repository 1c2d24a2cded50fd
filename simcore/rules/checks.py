"""Validators every game's rule loader uses: the ``Checker`` that raises one-line errors naming
the file and the key, and the supersession-cycle check."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from typing import Any

from simcore.cards import Deck
from simcore.errors import RulesError

__all__ = ["Checker", "file_fields", "refuse_supersession_cycle", "supersession_cycle", "supersession_table"]


def file_fields(name: str, source: str, text: str, game_name: str, game: dict, deck: Deck,
                options: dict[str, str | int], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of every game's rule set that say which file it is (``name``, ``source``, its
    ``text`` and that text's sha256), what its ``[game]`` table calls it, its deck, and its
    options with those of them set by ``--option`` (``overrides``)."""
    return {
        "name": name,
        "source": source,
        "text": text,
        "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "game": game_name,
        "title": str(game.get("title", name)),
        "description": str(game.get("description", "")),
        "deck": deck,
        "options": options,
        "overrides": {k: options[k] for k in overrides},
    }


class Checker:
    """Checks a rule file's values; ``fail`` makes the one-line ``RulesError``."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, problem: str) -> RulesError:
        """The ``RulesError`` naming the file, ``key`` and ``problem`` (for the caller to raise)."""
        return RulesError(f"{self.source}: {key}: {problem}")

    def table(self, data: dict, key: str, allowed: set[str], required: bool = True) -> dict:
        """The table ``data[key]`` (``{}`` if optional and absent); its keys must be among ``allowed`` (empty: any)."""
        value = data.get(key)
        if value is None:
            if required:
                raise self.fail(key, "missing table")
            return {}
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a table, got {type(value).__name__}")
        unknown = sorted(set(value) - allowed) if allowed else []
        if unknown:
            raise self.fail(f"{key}.{unknown[0]}", f"unknown key (allowed: {', '.join(sorted(allowed))})")
        return value

    def header(self, data: dict, top_keys: set[str], game_keys: set[str], name: str, title: str,
               deck: Deck) -> dict:
        """The ``[game]`` table of a rule file of the game ``name`` (``title`` in messages), played
        with ``deck``: the file's tables must be among ``top_keys`` and the game table's keys among
        ``game_keys``."""
        unknown = sorted(set(data) - top_keys)
        if unknown:
            raise self.fail(unknown[0], f"unknown key (allowed: {', '.join(sorted(top_keys))})")
        game = self.table(data, "game", game_keys)
        game_name = self.string(game.get("name"), "game.name")
        if game_name != name:
            raise self.fail("game.name", f"expected {name}, got {game_name!r}")
        deck_key = self.string(game.get("deck"), "game.deck")
        if deck_key != deck.key:
            raise self.fail("game.deck", f"{title} is played with the {deck.key} deck, not {deck_key!r}")
        return game

    def two_players(self, game: dict, title: str) -> None:
        """Refuse a ``[game]`` table whose ``players`` is not 2."""
        players = self.integer(game.get("players"), "game.players", minimum=2)
        if players != 2:
            raise self.fail("game.players", f"{title} is a two-player game, got {players}")

    def integer(self, value: Any, key: str, minimum: int = 0) -> int:
        """``value`` if it is an integer of at least ``minimum``."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"expected an integer, got {value!r}")
        if value < minimum:
            raise self.fail(key, f"must be at least {minimum}, got {value}")
        return value

    def string(self, value: Any, key: str) -> str:
        """``value`` if it is a string."""
        if not isinstance(value, str):
            raise self.fail(key, f"expected a string, got {value!r}")
        return value

    def keyed_entries(self, entries: list[Any], table: str, allowed: set[str]) -> Iterator[tuple[str, str, dict]]:
        """Each ``[[table]]`` entry as ``(key, where, entry)``: a table with a string ``key``, no
        key outside ``allowed`` and no key twice (``where`` is ``table[KEY]`` for messages)."""
        seen: set[str] = set()
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise self.fail(f"{table}[{index}]", "expected a table")
            key = self.string(entry.get("key"), f"{table}[{index}].key")
            where = f"{table}[{key}]"
            unknown = sorted(set(entry) - allowed)
            if unknown:
                raise self.fail(f"{where}.{unknown[0]}", f"unknown key (allowed: {', '.join(sorted(allowed))})")
            if key in seen:
                raise self.fail(where, f"duplicate {table} key")
            seen.add(key)
            yield key, where, entry

    def conditional(self, entry: dict, key: str, where: str, specs: Mapping[str, Any],
                    options: Mapping[str, str | int]) -> Iterator[tuple[str, Any, bool]]:
        """The entries of a conditional table ``key`` of ``entry`` (``{"OPTION=VALUE" = alternative}``,
        e.g. a yaku's ``cards_if``): for each, its key for messages, the alternative (for the caller
        to check) and whether the option has that value in ``options``. ``specs`` are the game's
        ``OPTIONS``; an unknown option or a value it cannot take is refused."""
        table = entry.get(key, {})
        if not isinstance(table, dict):
            raise self.fail(f"{where}.{key}", 'expected a table of "OPTION=VALUE" = alternative')
        for condition, alternative in table.items():
            option_name, sep, option_value = condition.partition("=")
            spec = specs.get(option_name)
            if not sep or spec is None:
                raise self.fail(f"{where}.{key}.{condition}", 'expected "OPTION=VALUE" naming a known option')
            try:
                spec.parse(option_value)
            except ValueError as error:
                raise self.fail(f"{where}.{key}.{condition}", str(error)) from None
            in_force = option_name in options and str(options[option_name]) == option_value
            yield f"{where}.{key}.{condition}", alternative, in_force

    def option_values(self, data: dict, section: str, specs: Mapping[str, Any],
                      overrides: Mapping[str, Any]) -> dict[str, str | int]:
        """The options a rule file's table ``section`` gives (``[koikoi]``: ``five_brights = 10`` is
        ``koikoi.five_brights``), then the ``--option`` ``overrides``, each parsed by its spec of
        ``specs`` (the game's ``OPTIONS``); an unknown option or a bad value is refused in one
        line. Options given nowhere are left out (the caller supplies defaults)."""
        table = self.table(data, section, {name.split(".", 1)[1] for name in specs})
        values: dict[str, str | int] = {}
        for key, raw in table.items():
            try:
                values[f"{section}.{key}"] = specs[f"{section}.{key}"].parse(raw)
            except ValueError as error:
                raise self.fail(f"{section}.{key}", str(error)) from None
        for name, raw in overrides.items():
            if name not in specs:
                raise RulesError(f"--option {name}: unknown option (known: {', '.join(sorted(specs))})")
            try:
                values[name] = specs[name].parse(raw)
            except ValueError as error:
                raise RulesError(f"--option {name}: {error}") from None
        return values

    def cards(self, deck: Deck, value: Any, key: str) -> tuple[int, ...]:
        """The card ids of a list of card references, each listed once."""
        if not isinstance(value, list):
            raise self.fail(key, f"expected a list of cards, got {value!r}")
        ids = []
        for position, ref in enumerate(value):
            try:
                card_id = deck.card_id(ref)
            except KeyError as error:
                raise self.fail(f"{key}[{position}]", error.args[0]) from None
            if card_id in ids:
                raise self.fail(f"{key}[{position}]", f"card {ref!r} is listed twice")
            ids.append(card_id)
        return tuple(ids)


def supersession_cycle(table: dict[str, tuple[str, ...]]) -> list[str] | None:
    """A cycle of yaku cancelling one another in a supersession table, or None.

    Parameters
    ----------
    table : dict
        ``{yaku key: keys of the yaku it cancels}``.

    Returns
    -------
    list of str or None
        The keys along the first cycle found, its first key repeated at the end
        (``["Y25", "Y29", "Y25"]``; a yaku cancelling itself gives ``[key, key]``).
    """
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(key: str, path: list[str]) -> list[str] | None:
        state[key] = 1
        path.append(key)
        for other in table.get(key, ()):
            if state.get(other) == 1:
                return path[path.index(other):] + [other]
            if other not in state:
                found = visit(other, path)
                if found:
                    return found
        path.pop()
        state[key] = 2
        return None

    for key in table:
        if key not in state:
            found = visit(key, [])
            if found:
                return found
    return None


def refuse_supersession_cycle(check: Checker, where: str, table: dict[str, tuple[str, ...]]) -> None:
    """Refuse a supersession table in which yaku cancel one another in a cycle (none would score).

    Parameters
    ----------
    check : Checker
        The file's checker (names the file in the message).
    where : str
        The table's key, e.g. ``supersession.set_specific_subsets``.
    table : dict
        ``{yaku key: keys of the yaku it cancels}``.

    Raises
    ------
    RulesError
        ``FILE: WHERE.KEY: supersession cycle KEY -> ... -> KEY: ...``.
    """
    cycle = supersession_cycle(table)
    if cycle:
        raise check.fail(f"{where}.{cycle[0]}", f"supersession cycle {' -> '.join(cycle)}: "
                                                "a yaku cannot cancel a yaku that (in turn) cancels it")


def supersession_table(check: Checker, where: str, table: Any, keys: Any) -> dict[str, tuple[str, ...]]:
    """Validate one ``[supersession.MODE]`` table (``YAKU = [cancelled yaku]``) against the yaku
    ``keys`` of the file: known keys, lists of keys, no yaku cancelling itself, no cycle."""
    if not isinstance(table, dict):
        raise check.fail(where, "expected a table of YAKU = [cancelled yaku]")
    resolved = {}
    for key, cancelled in table.items():
        if key not in keys:
            raise check.fail(f"{where}.{key}", "unknown yaku key")
        if not isinstance(cancelled, list) or not all(isinstance(c, str) for c in cancelled):
            raise check.fail(f"{where}.{key}", "expected a list of yaku keys")
        for other in cancelled:
            if other not in keys:
                raise check.fail(f"{where}.{key}", f"unknown yaku key {other!r}")
            if other == key:
                raise check.fail(f"{where}.{key}", "a yaku cannot cancel itself")
        resolved[key] = tuple(cancelled)
    refuse_supersession_cycle(check, where, resolved)
    return resolved
