"""Fuzzed rule files: every mutation of a shipped file loads, or fails with one clean line.

Each example takes a shipped rule file, applies a few structural mutations to its parsed tables
(a deleted key, a value of the wrong type, a huge or negative number, a duplicated entry, a
supersession cycle, an unknown card, an unknown key) and writes it back as TOML, then perhaps
damages the bytes (truncation, garbage).  Loading must either succeed or raise ``RulesError``
whose message is one line starting with the file's path; any other exception is a bug.  A file
that loads must also play: both engines, a few rounds, identical rows.
"""

from __future__ import annotations

import copy
import json
import math
import re
import tomllib
from importlib import resources

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.games import game_of
from simcore.games.enshu import record as dataset_enshu
from simcore.games.enshu.options import OPTIONS as ENSHU_OPTIONS
from simcore.games.koikoi import record as dataset_koikoi
from simcore.games.koikoi.options import OPTIONS as KOIKOI_OPTIONS
from simcore.games.tensho import record as dataset
from simcore.games.tensho.options import OPTIONS as TENSHO_OPTIONS
from simcore.policies import parse_policy
from simcore.rules import RulesError, load_rules, shipped_rules

SHIPPED = sorted(shipped_rules())
TEXTS = {name: (resources.files("simcore.rules") / f"{name}.toml").read_text(encoding="utf-8") for name in SHIPPED}
DATA = {name: tomllib.loads(text) for name, text in TEXTS.items()}


# --- a TOML writer for the parsed tables (everything inline, one top-level key a line) ---------


def _key(key: str) -> str:
    return json.dumps(key, ensure_ascii=False)


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value))


def dumps(data: dict) -> str:
    return "".join(f"{_key(k)} = {_value(v)}\n" for k, v in data.items())


def test_the_writer_round_trips_every_shipped_file():
    for name, data in DATA.items():
        assert tomllib.loads(dumps(data)) == data, name


# --- mutations -----------------------------------------------------------------------------------


def _paths(node, prefix=()):
    """Every path (tuple of keys and indices) below ``node``."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        yield prefix + (key,)
        yield from _paths(child, prefix + (key,))


def _parent(data, path):
    node = data
    for key in path[:-1]:
        node = node[key]
    return node


HUGE_AND_NEGATIVE = [0, -1, -7, 1, 2, 12, 45, 48, 64, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, 10**30,
                     -(2**31), -(2**63), 150_000_000, 800_000_000, 3_000_000_000]
HUGE_NUMBERS = [n for n in HUGE_AND_NEGATIVE if n > 100]
WRONG_TYPES = st.one_of(
    st.text(max_size=6), st.booleans(), st.floats(allow_nan=True, allow_infinity=True),
    st.builds(list), st.builds(dict), st.lists(st.integers(-3, 50), max_size=3),  # fresh objects: later
    st.dictionaries(st.text(max_size=3), st.integers(0, 5), max_size=2),  # mutations may change them
)
UNKNOWN_CARDS = ["99X", "13C", "Pine Nothing", "", 45, 48, 63, 64, -1, 10**20, 1.5, True]


def delete_key(draw, data):
    path = draw(st.sampled_from(list(_paths(data))))
    del _parent(data, path)[path[-1]]


def wrong_type(draw, data):
    path = draw(st.sampled_from(list(_paths(data))))
    _parent(data, path)[path[-1]] = draw(WRONG_TYPES)


def huge_number(draw, data):
    paths = [p for p in _paths(data) if isinstance(_parent(data, p)[p[-1]], int)] or list(_paths(data))
    path = draw(st.sampled_from(paths))
    _parent(data, path)[path[-1]] = draw(st.sampled_from(HUGE_AND_NEGATIVE) | st.integers())


def duplicate_entry(draw, data):
    lists = [p for p in _paths(data) if isinstance(_parent(data, p)[p[-1]], list) and _parent(data, p)[p[-1]]]
    if lists:
        entries = _parent(data, path := draw(st.sampled_from(lists)))[path[-1]]
        entries.insert(draw(st.integers(0, len(entries))), copy.deepcopy(draw(st.sampled_from(entries))))


def supersession_cycle(draw, data):
    tables = data.get("supersession")
    entries = data.get("yaku") if isinstance(data.get("yaku"), list) else []
    keys = [y["key"] for y in entries if isinstance(y, dict) and isinstance(y.get("key"), str)]
    if not isinstance(tables, dict) or not tables or len(keys) < 2:
        return
    mode = draw(st.sampled_from(sorted(tables)))
    if not isinstance(tables[mode], dict):
        return
    chain = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=4, unique=True))
    for a, b in zip(chain, chain[1:] + chain[:1], strict=True):  # a cycle; one key: self-supersession
        tables[mode].setdefault(a, [])
        if isinstance(tables[mode][a], list):
            tables[mode][a].append(b)


def unknown_card(draw, data):
    card_lists = [p for p in _paths(data) if p[-1] in ("cards",) or (len(p) == 2 and p[0] == "chaff_sets")]
    card_lists = [p for p in card_lists if isinstance(_parent(data, p)[p[-1]], list) and _parent(data, p)[p[-1]]]
    if card_lists:
        cards = _parent(data, path := draw(st.sampled_from(card_lists)))[path[-1]]
        cards[draw(st.integers(0, len(cards) - 1))] = draw(st.sampled_from(UNKNOWN_CARDS))


def unknown_key(draw, data):
    tables = [()] + [p for p in _paths(data) if isinstance(_parent(data, p)[p[-1]], dict)]
    path = draw(st.sampled_from(tables))
    table = data if not path else _parent(data, path)[path[-1]]
    table[draw(st.sampled_from(["extra", "Value", "set3", "kind2", "yaku"]))] = draw(st.integers(0, 3))


MUTATIONS = [delete_key, wrong_type, huge_number, duplicate_entry, supersession_cycle, unknown_card, unknown_key]


@st.composite
def mutated_files(draw):
    name = draw(st.sampled_from(SHIPPED))
    data = copy.deepcopy(DATA[name])
    for mutation in draw(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=3)):
        mutation(draw, data)
    content = dumps(data).encode("utf-8")
    damage = draw(st.sampled_from(["none", "none", "none", "truncate", "garbage", "bytes"]))
    if damage == "truncate":
        content = content[:draw(st.integers(0, len(content)))]
    elif damage == "garbage":
        at = draw(st.integers(0, len(content)))
        content = content[:at] + draw(st.binary(min_size=1, max_size=8)) + content[at:]
    elif damage == "bytes":
        content = draw(st.binary(max_size=64))
    return name, content


def assert_loads_or_fails_cleanly(path, overrides=None):
    """The rule set, or None after a one-line ``RulesError`` naming the file (or the --option)."""
    try:
        return load_rules(str(path), overrides)
    except RulesError as error:
        message = str(error)
        assert "\n" not in message and "\r" not in message, message
        assert message.startswith((f"{path}: ", "--option ") if overrides else f"{path}: "), message
        return None


def play_both(rules, units: int = 3) -> None:
    """Both engines on a few independent rounds and a few short matches: identical rows."""
    game = game_of(rules)
    compiled = game.compile(rules)
    specs = [parse_policy("greedy" if seat == 0 else "random", game.name) for seat in range(rules.players)]
    for rounds_per_match in (None, 2):
        kernel = game.play_units("kernel", compiled, specs, 11, 0, units, rounds_per_match)
        reference = game.play_units("reference", compiled, specs, 11, 0, units, rounds_per_match)
        assert np.array_equal(kernel[0], reference[0]) and np.array_equal(kernel[1], reference[1])
        columns = game.columns(kernel[0], kernel[1], rules.players)
        assert_columns_hold_the_engines_numbers(game, kernel[0], columns, rules.players)
        game.table(columns, {}, rules.text, rules.players)


def assert_columns_hold_the_engines_numbers(game, ints, columns, players) -> None:
    """No int8/16/32 column wrapped a number the engines computed in int64."""
    layout = {"tensho": dataset, "enshu": dataset_enshu, "koikoi": dataset_koikoi}[game.name].LAYOUT
    valid = ints[layout.valid] == 1
    for name, index, _ in layout.scalar_int:
        assert np.array_equal(columns[name].astype(np.int64), ints[index, valid]), name
    for name, index, _ in layout.seat_int:
        for seat in range(players):
            assert np.array_equal(columns[f"{name}_{seat}"].astype(np.int64), ints[index + seat, valid]), name


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_files())
@pytest.mark.slow
def test_mutated_rule_files_load_or_fail_with_one_line(tmp_path_factory, example):
    name, content = example
    path = tmp_path_factory.mktemp("fuzz") / f"{name}.toml"
    path.write_bytes(content)
    assert_loads_or_fails_cleanly(path)


# --- files that validate also play ----------------------------------------------------------


OPTION_SPECS = {**TENSHO_OPTIONS, **ENSHU_OPTIONS, **KOIKOI_OPTIONS}


def _numbers(data):
    """Paths of the integer leaves a rule's numbers live in (not option or deal sizes)."""
    for path in _paths(data):
        value = _parent(data, path)[path[-1]]
        if isinstance(value, int) and not isinstance(value, bool) and path[0] in (
                "card_values", "card_points", "yaku", "teyaku"):
            yield path


def _path_of(data, key: str):
    """The path of an error message's key (``yaku[Y01].set1``, ``card_values.T1_ise.default``...)."""
    if key.startswith(("yaku[", "teyaku[")):
        table, _, rest = key.partition("[")
        entry_key, _, rest = rest.partition("].")
        index = next(i for i, entry in enumerate(data[table]) if entry.get("key") == entry_key)
        head, _, tail = rest.partition(".")
        return (table, index, head) + ((tail,) if tail else ())
    first, _, rest = key.partition(".")
    if first == "card_values":
        table, _, rest = rest.partition(".")
        return (first, table) + tuple(rest.split(".", 1))
    return (first, rest)


@st.composite
def plausible_files(draw):
    """A shipped file with other option choices and numbers up to far beyond any real rule file."""
    name = draw(st.sampled_from(SHIPPED))
    data = copy.deepcopy(DATA[name])
    prefix = data["game"]["name"]  # the game's options table: [tensho], [enshu], [koikoi]
    section = data[prefix]
    for _ in range(draw(st.integers(0, 4))):
        tables = [(section, prefix)] + [(v, f"{prefix}.{k}") for k, v in section.items() if isinstance(v, dict)]
        table, where = draw(st.sampled_from(tables))
        keys = [k for k, v in table.items() if not isinstance(v, dict) and f"{where}.{k}" in OPTION_SPECS]
        key = draw(st.sampled_from(keys))
        spec = OPTION_SPECS[f"{where}.{key}"]
        if spec.choices:
            table[key] = draw(st.sampled_from(spec.choices))
    numbers = list(_numbers(data))  # none in a koi-koi file: its points are bounded options
    for path in draw(st.lists(st.sampled_from(numbers), max_size=4)) if numbers else ():
        _parent(data, path)[path[-1]] = draw(st.integers(1, 10**7) | st.sampled_from(HUGE_NUMBERS))
    return name, data


@settings(max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(plausible_files())
@pytest.mark.slow
def test_a_file_that_validates_plays_and_the_ranges_errors_give_are_honest(tmp_path_factory, example):
    """A number out of range is set to the top of the range its error gives, which must then pass
    (or fail on another number); the file that finally validates plays in both engines."""
    name, data = example
    path = tmp_path_factory.mktemp("plausible") / f"{name}.toml"
    rules = None
    for _ in range(12):
        path.write_text(dumps(data), encoding="utf-8")
        try:
            rules = load_rules(str(path))
            break
        except RulesError as error:
            message = str(error)
            assert "\n" not in message and message.startswith(f"{path}: "), message
            key, _, problem = message[len(f"{path}: "):].partition(": ")
            found = re.match(r"(-?\d+) is out of range (-?\d+)\.\.(-?\d+) \(", problem)
            if not found:
                return  # a negative or otherwise invalid number: refused, as it should be
            value_path = _path_of(data, key)
            assert _parent(data, value_path)[value_path[-1]] == int(found.group(1)), (key, message)
            _parent(data, value_path)[value_path[-1]] = int(found.group(3))
    assert rules is not None
    play_both(rules)


# --- bugs the fuzzing found ---------------------------------------------------------------------


def test_unknown_key_in_an_enshu_variant_table_is_named_not_a_key_error(tmp_path):
    path = tmp_path / "enshu-c.toml"
    path.write_text(TEXTS["enshu-c"].replace("[enshu.c]\n", "[enshu.c]\nkind2 = 1\n", 1), encoding="utf-8")
    with pytest.raises(RulesError, match=rf"^{re.escape(str(path))}: enshu\.c\.kind2: unknown option "):
        load_rules(str(path))


@pytest.mark.parametrize("name, old", [("enshu-w", '"Pine Crane"'), ("tensho-ise", '"1S"')])
def test_a_card_named_by_a_superscript_digit_is_an_unknown_card(tmp_path, name, old):
    path = tmp_path / f"{name}.toml"
    path.write_text(TEXTS[name].replace(old, '"¹"', 1), encoding="utf-8")
    with pytest.raises(RulesError, match="unknown card '¹'"):
        load_rules(str(path))


def test_a_key_with_a_newline_is_named_on_one_line(tmp_path):
    path = tmp_path / "tensho-ise.toml"
    path.write_text(TEXTS["tensho-ise"].replace("[tensho]\n", '[tensho]\n"instant_wi\\n_check" = 1\n', 1),
                    encoding="utf-8")
    with pytest.raises(RulesError) as caught:
        load_rules(str(path))
    assert str(caught.value).startswith(f"{path}: tensho.instant_wi\\n_check: unknown key (allowed: ")
    assert "\n" not in str(caught.value)
