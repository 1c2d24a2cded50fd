"""Load and validate rule files into frozen dataclasses.

A rule file is TOML (see the shipped ``tensho-ise.toml``).  ``load_rules`` resolves a shipped
name or a path, applies ``--option NAME=VALUE`` overrides, validates everything and raises
``RulesError`` with one line naming the file, the key and the problem.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from simcore.cards import DECKS, Deck, mask_of
from simcore.rules.schema import SKIN_DEFAULTS, TENSHO_OPTIONS, OptionSpec

__all__ = ["MAX_RULES_BYTES", "RulesError", "Yaku", "RuleSet", "load_rules", "load_rules_text", "shipped_rules",
           "parse_option_overrides"]

INSTANT = "instant"
MAX_YAKU = 64
# The largest rule file accepted: the shipped ones are under 10 KiB, and the text is stored with
# every dataset, so a stray huge file is refused before it is parsed.
MAX_RULES_BYTES = 256 * 1024


class RulesError(ValueError):
    """A rule file or rule option is invalid; the message is one line naming file, key, problem.

    Characters that are not printable (a newline in a quoted TOML key, say) are written as
    escapes, so the message stays one line whatever the file holds.
    """

    def __init__(self, message: str) -> None:
        super().__init__("".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message)))


@dataclass(frozen=True)
class Yaku:
    index: int
    key: str
    name: str
    english: str
    face: str
    cards: tuple[int, ...]
    mask: int
    values: tuple[int | str | None, ...]  # per yaku set: points, "instant", or None (absent)

    def in_set(self, yaku_set: int) -> bool:
        return self.values[yaku_set - 1] is not None

    def is_instant(self, yaku_set: int) -> bool:
        return self.values[yaku_set - 1] == INSTANT

    def points(self, yaku_set: int) -> int:
        value = self.values[yaku_set - 1]
        return value if isinstance(value, int) else 0


class RuleSetLookups:
    """Lookups shared by every game's rule set (needs ``options``, ``yaku``, ``deck``, ``skin``)."""

    def option(self, name: str) -> str | int:
        return self.options[name]

    def yaku_by_key(self, key: str):
        for yaku in self.yaku:
            if yaku.key == key:
                return yaku
        raise KeyError(key)

    def card_label(self, card_id: int) -> str:
        return self.deck.label(card_id, self.skin)


@dataclass(frozen=True)
class RuleSet(RuleSetLookups):
    """A validated rule set with every option resolved."""

    name: str
    source: str  # path or "shipped:NAME"
    text: str
    sha256: str
    game: str
    title: str
    description: str
    deck: Deck
    players: int
    deal_field: int
    deal_hand: int
    deal_draw: int
    deal_dead: int
    options: dict[str, str | int]
    overrides: dict[str, str | int]
    card_value_tables: dict[str, tuple[int, ...]]
    chaff_sets: dict[str, int]
    yaku: tuple[Yaku, ...]
    supersession_tables: dict[str, dict[str, tuple[str, ...]]]

    @property
    def skin(self) -> str:
        return str(self.options.get("tensho.skin", "hanafuda"))

    @property
    def card_values(self) -> tuple[int, ...]:
        return self.card_value_tables[str(self.options["tensho.card_values"])]

    @property
    def chaff_mask(self) -> int:
        return self.chaff_sets[str(self.options["tensho.chaff_set"])]

    @property
    def supersession(self) -> dict[str, tuple[str, ...]]:
        return self.supersession_tables.get(str(self.options["tensho.supersession"]), {})



SHIPPED_PACKAGE = "simcore.rules"


def shipped_rules() -> dict[str, str]:
    """Shipped rule names and their one-line titles."""
    out = {}
    for entry in sorted(resources.files(SHIPPED_PACKAGE).iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".toml"):
            try:
                data = tomllib.loads(entry.read_text(encoding="utf-8"))
                title = str(data.get("game", {}).get("title", ""))
            except tomllib.TOMLDecodeError:
                title = "(unreadable)"
            out[entry.name[: -len(".toml")]] = title
    return out


def _refuse_large(source: str, size: int) -> None:
    if size > MAX_RULES_BYTES:
        raise RulesError(f"{source}: {size:,} bytes is larger than a rule file may be "
                         f"({MAX_RULES_BYTES:,} bytes)")


def _read_source(ref: str) -> tuple[str, str, str]:
    """(name, source label, text) of a shipped name or a path."""
    path = Path(ref)
    if ref in shipped_rules() and not path.exists():
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
    names = ", ".join(shipped_rules())
    raise RulesError(f"{ref}: no such rule file or shipped rule set (shipped: {names})")


def parse_option_overrides(pairs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Parse ``NAME=VALUE`` strings from ``--option``."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise RulesError(f"--option {pair!r}: expected NAME=VALUE, e.g. tensho.triple_match=one")
        out[name.strip()] = value.strip()
    return out


def load_rules(ref: str, overrides: dict[str, Any] | None = None) -> RuleSet:
    """Load a shipped rule set (by name) or a rule file (by path) and validate it.

    Parameters
    ----------
    ref : str
        A shipped rule set's name (``tensho-ise``) or the path of a rule file.
    overrides : dict, optional
        Option values (``{"tensho.triple_match": "one"}``) that replace the file's.

    Returns
    -------
    RuleSet or EnshuRuleSet
        The validated rule set, with every option resolved.

    Raises
    ------
    RulesError
        One line naming the file, the key and the problem.
    """
    name, source, text = _read_source(ref)
    return load_rules_text(text, name, source, overrides)


def load_rules_text(text: str, name: str, source: str, overrides: dict[str, Any] | None = None) -> RuleSet:
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
    RuleSet or EnshuRuleSet
        The validated rule set.
    """
    _refuse_large(source, len(text.encode("utf-8")))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"{source}: not valid TOML: {error}") from None
    game = data.get("game", {}).get("name") if isinstance(data.get("game"), dict) else None
    if game == "enshu":
        from simcore.games.enshu.rules import (
            build_enshu,  # Enshu-bana rule files have their own schema
        )

        return build_enshu(name, source, text, data, dict(overrides or {}))
    return _build(name, source, text, data, dict(overrides or {}))


class _Checker:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, problem: str) -> RulesError:
        return RulesError(f"{self.source}: {key}: {problem}")

    def table(self, data: dict, key: str, allowed: set[str], required: bool = True) -> dict:
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

    def integer(self, value: Any, key: str, minimum: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"expected an integer, got {value!r}")
        if value < minimum:
            raise self.fail(key, f"must be at least {minimum}, got {value}")
        return value

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise self.fail(key, f"expected a string, got {value!r}")
        return value

    def cards(self, deck: Deck, value: Any, key: str) -> tuple[int, ...]:
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


TOP_KEYS = {"game", "deal", "tensho", "card_values", "chaff_sets", "yaku", "supersession"}
YAKU_KEYS = {"key", "name", "english", "face", "cards", "cards_if", "set1", "set2"}
FACES = {"front", "back", "mixed"}
YAKU_SETS = 2


def _build(name: str, source: str, text: str, data: dict, overrides: dict[str, Any]) -> RuleSet:
    check = _Checker(source)
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise check.fail(unknown[0], f"unknown key (allowed: {', '.join(sorted(TOP_KEYS))})")

    game = check.table(data, "game", {"name", "title", "deck", "players", "description"})
    game_name = check.string(game.get("name"), "game.name")
    if game_name != "tensho":
        raise check.fail("game.name", f"unknown game {game_name!r} (supported: tensho, enshu)")
    deck_key = check.string(game.get("deck"), "game.deck")
    if deck_key not in DECKS:
        raise check.fail("game.deck", f"unknown deck {deck_key!r} (known: {', '.join(DECKS)})")
    deck = DECKS[deck_key]
    if deck_key != "ise45":
        raise check.fail("game.deck", f"Tensho is played with the ise45 deck, not {deck_key!r}")
    players = check.integer(game.get("players"), "game.players", minimum=2)
    if players != 2:
        raise check.fail("game.players", f"Tensho is a two-player game, got {players}")

    deal = check.table(data, "deal", {"field", "hand", "draw", "dead"})
    sizes = {k: check.integer(deal.get(k), f"deal.{k}") for k in ("field", "hand", "draw", "dead")}
    if sizes != {"field": 9, "hand": 6, "draw": 18, "dead": 6}:
        raise check.fail("deal", "Tensho deals field 9, hands 6 and 6, draw 18, dead 6 (RULES.md 2.2)")

    options = _options(check, data, overrides)

    tables = check.table(data, "card_values", set())
    card_value_tables: dict[str, tuple[int, ...]] = {}
    value_keys: dict[str, list[str]] = {}  # per table, the key each card's value comes from
    for table_key, table in tables.items():
        where = f"card_values.{table_key}"
        if not isinstance(table, dict):
            raise check.fail(where, "expected a table with `default` and `values`")
        extra = sorted(set(table) - {"default", "values"})
        if extra:
            raise check.fail(f"{where}.{extra[0]}", "unknown key (allowed: default, values)")
        default = check.integer(table.get("default", 0), f"{where}.default")
        values = [default] * deck.size
        value_keys[table_key] = [f"{where}.default"] * deck.size
        listed = table.get("values", {})
        if not isinstance(listed, dict):
            raise check.fail(f"{where}.values", "expected a table of card = value")
        for ref, value in listed.items():
            try:
                card_id = deck.card_id(ref)
            except KeyError as error:
                raise check.fail(f"{where}.values.{ref}", error.args[0]) from None
            values[card_id] = check.integer(value, f"{where}.values.{ref}")
            value_keys[table_key][card_id] = f"{where}.values.{ref}"
        card_value_tables[table_key] = tuple(values)

    chaff_tables = check.table(data, "chaff_sets", set())
    chaff_sets = {
        key: mask_of(check.cards(deck, value, f"chaff_sets.{key}")) for key, value in chaff_tables.items()
    }

    for option_name, available, what in [
        ("tensho.card_values", card_value_tables, "card_values"),
        ("tensho.chaff_set", chaff_sets, "chaff_sets"),
    ]:
        chosen = str(options[option_name])
        if chosen not in available:
            raise check.fail(option_name, f"{chosen!r} has no table [{what}.{chosen}] in this file")

    yaku = _yaku(check, deck, data.get("yaku"), options)

    supersession_data = check.table(data, "supersession", set(), required=False)
    keys = {y.key for y in yaku}
    supersession_tables: dict[str, dict[str, tuple[str, ...]]] = {}
    mode_spec = TENSHO_OPTIONS["tensho.supersession"]
    for mode, table in supersession_data.items():
        where = f"supersession.{mode}"
        if mode not in (mode_spec.choices or ()):
            raise check.fail(where, f"unknown supersession mode (allowed: {', '.join(mode_spec.choices or ())})")
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
        supersession_tables[mode] = resolved
    chosen_mode = str(options["tensho.supersession"])
    if chosen_mode != "none" and chosen_mode not in supersession_tables:
        raise check.fail("tensho.supersession", f"{chosen_mode!r} has no table [supersession.{chosen_mode}]")
    _check_tensho_bounds(source, value_keys, card_value_tables, yaku, options)

    return RuleSet(
        name=name,
        source=source,
        text=text,
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        game=game_name,
        title=str(game.get("title", name)),
        description=str(game.get("description", "")),
        deck=deck,
        players=players,
        deal_field=sizes["field"],
        deal_hand=sizes["hand"],
        deal_draw=sizes["draw"],
        deal_dead=sizes["dead"],
        options=options,
        overrides={k: options[k] for k in overrides},
        card_value_tables=card_value_tables,
        chaff_sets=chaff_sets,
        yaku=yaku,
        supersession_tables=supersession_tables,
    )


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


def refuse_supersession_cycle(check: _Checker, where: str, table: dict[str, tuple[str, ...]]) -> None:
    """Refuse a supersession table in which yaku cancel one another in a cycle (none would score).

    Parameters
    ----------
    check : _Checker
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


def _check_tensho_bounds(source: str, value_keys: dict[str, list[str]],
                         card_value_tables: dict[str, tuple[int, ...]], yaku: tuple[Yaku, ...],
                         options: dict[str, str | int]) -> None:
    """Every sum of the file's numbers fits its type (see ``simcore.rules.bounds``).

    Card values: a pile's total (all cards at worst) is the int32 column ``card_points_*``.
    Yaku points: a set's total is the int32 column ``yaku_points_*``; 12 times a yaku's points
    over its cards is the greedy policy's int32 weight; with ``tensho.match_scoring = yaku_points`` a match of up to
    ``MAX_MATCH_ROUNDS`` rounds (twice that with ``tensho.match_tie = extra_round``) sums the
    round scores into the int32 column ``match_points_*``.
    """
    from simcore.rules.bounds import INT32_MAX, MAX_MATCH_ROUNDS, Number, Reach, check_bounds

    numbers: dict[str, Number] = {}
    for table_key, keys in value_keys.items():
        for card_id, key in enumerate(keys):
            numbers[key] = Number(key, card_value_tables[table_key][card_id], 0)
    set_keys: list[list[str]] = [[] for _ in range(YAKU_SETS)]
    card_count: dict[str, int] = {}
    for y in yaku:
        for s in range(YAKU_SETS):
            if isinstance(y.values[s], int):
                key = f"yaku[{y.key}].set{s + 1}"
                numbers[key] = Number(key, int(y.values[s]), 1)
                set_keys[s].append(key)
                card_count[key] = len(y.cards)
    instant_score = int(options["tensho.instant_win_score"])
    by_points = options["tensho.match_scoring"] == "yaku_points"
    match_rounds = MAX_MATCH_ROUNDS * (2 if options["tensho.match_tie"] == "extra_round" else 1)

    def reaches(values: dict[str, int]) -> list[Reach]:
        out = []
        for table_key, keys in value_keys.items():
            out.append(Reach(f"card_points_* (int32, table {table_key} over a pile)",
                             sum(values[k] for k in keys), INT32_MAX))
        for s, keys in enumerate(set_keys):
            total = sum(values[k] for k in keys)
            out.append(Reach(f"yaku_points_* (int32, the yaku of set {s + 1})", total, INT32_MAX))
            out.append(Reach(f"the greedy policy's yaku weight (int32, 12 x points / cards of a yaku of set {s + 1})",
                             max((12 * values[k] // card_count[k] for k in keys), default=0), INT32_MAX))
            if by_points:
                out.append(Reach(f"match_points_* (int32, {match_rounds:,} rounds of set {s + 1})",
                                 match_rounds * max(total, instant_score), INT32_MAX))
        return out

    check_bounds(source, list(numbers.values()), reaches)


def _options(check: _Checker, data: dict, overrides: dict[str, Any]) -> dict[str, str | int]:
    section = check.table(data, "tensho", {spec.name.split(".", 1)[1] for spec in TENSHO_OPTIONS.values()})
    values: dict[str, str | int] = {}
    for key, raw in section.items():
        spec = TENSHO_OPTIONS[f"tensho.{key}"]
        values[spec.name] = _parse_option(check, spec, raw, f"tensho.{key}")
    for option_name, raw in overrides.items():
        spec = TENSHO_OPTIONS.get(option_name)
        if spec is None:
            known = ", ".join(sorted(TENSHO_OPTIONS))
            raise RulesError(f"--option {option_name}: unknown option (known: {known})")
        try:
            values[option_name] = spec.parse(raw)
        except ValueError as error:
            raise RulesError(f"--option {option_name}: {error}") from None
    skin = str(values.get("tensho.skin", TENSHO_OPTIONS["tensho.skin"].default))
    for spec in TENSHO_OPTIONS.values():
        if spec.name not in values:
            values[spec.name] = SKIN_DEFAULTS.get(skin, {}).get(spec.name, spec.default)
    return values


def _parse_option(check: _Checker, spec: OptionSpec, raw: Any, key: str) -> str | int:
    try:
        return spec.parse(raw)
    except ValueError as error:
        raise check.fail(key, str(error)) from None


def _yaku(check: _Checker, deck: Deck, entries: Any, options: dict[str, str | int]) -> tuple[Yaku, ...]:
    if not isinstance(entries, list) or not entries:
        raise check.fail("yaku", "expected one or more [[yaku]] tables")
    if len(entries) > MAX_YAKU:
        raise check.fail("yaku", f"at most {MAX_YAKU} yaku fit the uint64 yaku bitset, got {len(entries)}")
    out: list[Yaku] = []
    seen_keys: set[str] = set()
    seen_names: set[str] = set()
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise check.fail(f"yaku[{index}]", "expected a table")
        key = check.string(entry.get("key"), f"yaku[{index}].key")
        where = f"yaku[{key}]"
        unknown = sorted(set(entry) - YAKU_KEYS)
        if unknown:
            raise check.fail(f"{where}.{unknown[0]}", f"unknown key (allowed: {', '.join(sorted(YAKU_KEYS))})")
        if key in seen_keys:
            raise check.fail(where, "duplicate yaku key")
        seen_keys.add(key)
        name = check.string(entry.get("name"), f"{where}.name")
        if name in seen_names:
            raise check.fail(f"{where}.name", f"duplicate yaku name {name!r}")
        seen_names.add(name)
        english = check.string(entry.get("english", name), f"{where}.english")
        face = check.string(entry.get("face", "mixed"), f"{where}.face")
        if face not in FACES:
            raise check.fail(f"{where}.face", f"{face!r} is not one of {', '.join(sorted(FACES))}")
        cards = check.cards(deck, entry.get("cards"), f"{where}.cards")
        cards_if = entry.get("cards_if", {})
        if not isinstance(cards_if, dict):
            raise check.fail(f"{where}.cards_if", "expected a table of \"option=value\" = [cards]")
        for condition, alternative in cards_if.items():
            option_name, sep, option_value = condition.partition("=")
            spec = TENSHO_OPTIONS.get(option_name)
            if not sep or spec is None:
                raise check.fail(f"{where}.cards_if.{condition}", "expected \"OPTION=VALUE\" naming a known option")
            try:
                spec.parse(option_value)
            except ValueError as error:
                raise check.fail(f"{where}.cards_if.{condition}", str(error)) from None
            alternative_cards = check.cards(deck, alternative, f"{where}.cards_if.{condition}")
            if str(options[option_name]) == option_value:
                cards = alternative_cards
        if len(cards) < 2:
            raise check.fail(f"{where}.cards", "a yaku needs at least two cards")
        values: list[int | str | None] = []
        for yaku_set in range(1, YAKU_SETS + 1):
            raw = entry.get(f"set{yaku_set}")
            if raw is None:
                values.append(None)
            elif raw == INSTANT:
                values.append(INSTANT)
            elif isinstance(raw, int) and not isinstance(raw, bool) and raw > 0:
                values.append(raw)
            else:
                raise check.fail(f"{where}.set{yaku_set}", f"expected positive points or \"instant\", got {raw!r}")
        if all(v is None for v in values):
            raise check.fail(where, "belongs to no yaku set (give set1 and/or set2)")
        out.append(Yaku(index, key, name, english, face, cards, mask_of(cards), tuple(values)))
    for a in out:
        for b in out[a.index + 1 :]:
            if a.mask == b.mask and any(x is not None and y is not None for x, y in zip(a.values, b.values, strict=True)):
                raise check.fail(f"yaku[{b.key}].cards", f"same cards as yaku {a.key} in the same set (duplicate yaku)")
    return tuple(out)
