"""docs/replay.md says what is true: its commands run, its deck-order and card-id tables match
the code, and the README's replay example works as written."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import main
from simcore.cards import HANAFUDA48, ISE45
from simcore.games.enshu import enums as E
from simcore.games.enshu.compile import compile_rules
from simcore.rules import load_rules

ROOT = Path(__file__).resolve().parents[1]
REPLAY_DOC = ROOT / "docs" / "replay.md"


def deck_commands(path: Path) -> list[list[str]]:
    """Every ``fudasim replay ... --deck`` command line of a Markdown file, split like a shell."""
    commands = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("fudasim replay ") and "--deck" in line:
            commands.append(shlex.split(line)[1:])
    return commands


def run_from_root(args: list[str]):
    old = os.getcwd()
    os.chdir(ROOT)  # the documented paths (docs/examples/...) are relative to the repository
    try:
        return CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.mark.parametrize("source", ["docs/replay.md", "README.md"])
def test_documented_deck_replays_run_as_written(source):
    commands = deck_commands(ROOT / source)
    assert commands, f"{source} shows no --deck example"
    for args in commands:
        assert "--decisions" in args
        result = run_from_root(args)
        assert result.exit_code == 0, (args, result.output)
        assert "Result: seat" in result.output  # played to the end with every decision used


def test_the_tensho_example_is_the_one_the_docs_describe():
    args = deck_commands(REPLAY_DOC)[0]
    result = run_from_root(args)
    assert "takes 4C Ao shi, 4Co Gasu shi from the rank-4 field triple" in result.output
    assert "seat 0 plays 10Co Gasu jū, takes 10S Surume jū" in result.output
    assert "Result: seat 0 wins" in result.output and "Back Three-Four-Five" in result.output


def test_the_canonical_deck_is_refused_as_the_docs_say():
    result = run_from_root(["replay", "tensho-ise", "--deck", ",".join(str(i) for i in range(45))])
    assert result.exit_code == 2 and "four cards of rank 1 are on the field" in result.output


def table_rows(text: str, header: str) -> list[list[str]]:
    """The body rows of the Markdown table whose header line starts with ``header``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def span(text: str) -> tuple[int, int]:
    low, high = re.match(r"(\d+)–(\d+)", text).groups()
    return int(low), int(high)


def test_enshu_deck_order_table_matches_the_rule_files():
    rows = table_rows(REPLAY_DOC.read_text(encoding="utf-8"), "| rules | players |")
    seen = set()
    for rules_cell, players_cell, field_cell, hand_cell, draw_cell in rows:
        players = int(players_cell)
        for name in rules_cell.split(", "):
            compiled = compile_rules(load_rules(name, {"enshu.players": str(players)}))
            field, hand = int(compiled.params[E.P_FIELD]), int(compiled.params[E.P_HAND])
            assert span(field_cell) == (0, field - 1), (name, players)
            assert hand_cell.startswith(f"{hand} each: {field}–{field + hand - 1}"), (name, players)
            assert hand_cell.endswith(f"{field + (players - 1) * hand}–{field + players * hand - 1}")
            draw = 48 - field - players * hand
            assert draw_cell == f"{field + players * hand}–47 ({draw})", (name, players)
            seen.add((name, players))
    expected = {(n, p) for n in ("enshu-w", "enshu-s") for p in (2, 3)} | {("enshu-c", p) for p in range(2, 6)}
    assert seen == expected


def test_card_id_tables_match_the_decks():
    text = REPLAY_DOC.read_text(encoding="utf-8")
    suits = ("clubs", "swords", "coins", "cups")
    ids_seen = []
    for row in table_rows(text, "| rank | clubs |"):
        rank = int(row[0])
        for suit, cell in zip(suits, row[1:], strict=True):
            if cell == "-":
                assert not any(c.rank == rank and c.suit == suit for c in ISE45.cards)
                continue
            number, code = re.fullmatch(r"(\d+) `(\S+)`", cell).groups()
            assert ISE45.card_id(code) == int(number)
            assert (ISE45.cards[int(number)].rank, ISE45.cards[int(number)].suit) == (rank, suit)
            ids_seen.append(int(number))
    assert sorted(ids_seen) == list(range(ISE45.size))
    ids_seen = []
    for month_cell, cards_cell in table_rows(text, "| month | ids and cards |"):
        month = int(month_cell.split()[0])
        for item in cards_cell.split(", "):
            number, name = item.split(" ", 1)
            card = HANAFUDA48.cards[int(number)]
            assert (card.name, card.rank) == (name, month)
            ids_seen.append(int(number))
    assert sorted(ids_seen) == list(range(HANAFUDA48.size))


@pytest.mark.parametrize("dealer", [0, 1])
def test_tensho_deck_order_table_matches_the_deal(dealer):
    import json

    rows = table_rows(REPLAY_DOC.read_text(encoding="utf-8"), "| positions | go to |")
    parts = {cell.split(" (")[0].split(",")[0]: span(positions) for positions, cell in rows}
    args = deck_commands(REPLAY_DOC)[0]
    deck = [int(x) for x in args[args.index("--deck") + 1].split(",")]
    trace = json.loads(run_from_root(["replay", "tensho-ise", "--deck", ",".join(map(str, deck)),
                                      "--dealer", str(dealer), "--json"]).output)
    deal = next(e for e in trace["events"] if e["type"] == "deal")

    def cards(name: str) -> list[int]:
        low, high = parts[name]
        return deck[low:high + 1]

    assert deal["field"] == sorted(cards("the field"))
    assert deal["hands"][dealer] == sorted(cards("the dealer's hand"))
    assert deal["hands"][1 - dealer] == sorted(cards("the other seat's hand"))
    assert deal["draw"] == cards("the draw pile")  # in order: the first position is turned first
    assert deal["dead"] == sorted(cards("the dead cards"))
    assert sum(high - low + 1 for low, high in parts.values()) == 45


@pytest.mark.parametrize("dealer", [0, 2])
def test_enshu_hands_go_to_the_dealer_first_then_in_turn_order(dealer):
    import json

    args = deck_commands(REPLAY_DOC)[1]
    deck = [int(x) for x in args[args.index("--deck") + 1].split(",")]
    trace = json.loads(run_from_root(["replay", "enshu-c", "--players", "3", "--deck", ",".join(map(str, deck)),
                                      "--dealer", str(dealer), "--json"]).output)
    deal = next(e for e in trace["events"] if e["type"] == "deal")
    assert deal["field"] == sorted(deck[0:6])
    for k in range(3):  # the table's 3-player row: hands at 6–12, 13–19, 20–26
        assert deal["hands"][(dealer + k) % 3] == sorted(deck[6 + 7 * k: 13 + 7 * k])
    assert deal["draw"] == deck[27:]
