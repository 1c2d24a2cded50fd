"""The dataset schemas are the ones the docs state: names, Arrow types, order and nullability.

The expected schemas are read from the column tables of docs/dataset.md (Tensho),
docs/enshu.md (Enshu-bana, 2 to 5 players) and docs/koikoi.md (koi-koi), and compared with the
schemas the writer uses and with the schema of a shard the writer actually wrote. Renaming, retyping, reordering or dropping
a column in the writer, or making it nullable, fails here until the docs say the same.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from cli.main import main
from simcore.games.enshu import record as dataset_enshu
from simcore.games.koikoi import record as koikoi_dataset
from simcore.games.tensho import record as tensho_dataset

DOCS = Path(__file__).resolve().parents[1] / "docs"

ARROW_TYPES = {
    "int8": pa.int8(),
    "int16": pa.int16(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "uint64": pa.uint64(),
    "bool": pa.bool_(),
    "dictionary (int8 → string)": pa.dictionary(pa.int8(), pa.string()),
}
NOT_NULL = "No column is ever null: every field is declared non-nullable."


def documented_schema(doc: str, heading: str, seat_suffix: str, seats: int) -> pa.Schema:
    """The schema the column table under ``heading`` states, per-seat rows expanded for ``seats``."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    section = text[text.index(heading):]
    section = section[: section.find("\n## ", 1)] if "\n## " in section[1:] else section
    assert " ".join(NOT_NULL.split()) in " ".join(section.split()), f"{doc}: the nullability sentence is gone"
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| column | type |"))
    fields = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        name_cell, type_cell = [cell.strip() for cell in line.strip("|").split("|")][:2]
        name = re.fullmatch(r"`([a-z_]+)`", name_cell).group(1)
        arrow_type = ARROW_TYPES[type_cell]
        if name.endswith(seat_suffix):
            stem = name[: -len(seat_suffix)]
            fields += [pa.field(f"{stem}_{seat}", arrow_type, nullable=False) for seat in range(seats)]
        else:
            fields.append(pa.field(name, arrow_type, nullable=False))
    return pa.schema(fields)


def assert_same_schema(actual: pa.Schema, expected: pa.Schema) -> None:
    assert actual.names == expected.names  # names and order
    for got, want in zip(actual, expected, strict=True):
        assert got.type == want.type, (got.name, got.type, want.type)
        assert got.nullable == want.nullable, (got.name, "nullable")


def test_tensho_schema_is_the_documented_one():
    expected = documented_schema("dataset.md", "## Columns (Tensho)", "_q", 2)
    assert len(expected) == 13 + 9 * 2  # 13 per round, 9 per seat
    assert_same_schema(tensho_dataset.LAYOUT.schema(2), expected)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_enshu_schema_is_the_documented_one(players):
    expected = documented_schema("enshu.md", "## The per-round record", "_s", players)
    assert len(expected) == 20 + 16 * players  # 20 per round, 16 per seat
    assert_same_schema(dataset_enshu.LAYOUT.schema(players), expected)


def test_koikoi_schema_is_the_documented_one():
    expected = documented_schema("koikoi.md", "## Dataset columns", "_s", 2)
    assert len(expected) == 13 + 8 * 2  # 13 per round, 8 per seat
    assert_same_schema(koikoi_dataset.LAYOUT.schema(2), expected)


@pytest.mark.parametrize(("rules", "players", "doc", "heading", "suffix"), [
    ("tensho-ise", None, "dataset.md", "## Columns (Tensho)", "_q"),
    ("enshu-c", 4, "enshu.md", "## The per-round record", "_s"),
    ("enshu-w", 2, "enshu.md", "## The per-round record", "_s"),
    ("koikoi-kkj", None, "koikoi.md", "## Dataset columns", "_s"),
])
def test_a_written_shard_has_the_documented_schema(tmp_path, rules, players, doc, heading, suffix):
    """What the writer puts on disk, read back by Parquet, not only what ``schema()`` returns."""
    out = tmp_path / "d"
    args = ["run", rules, "--rounds", "8", "--engine", "reference", "--out", str(out)]
    if players:
        args += ["--players", str(players)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    written = pq.read_schema(out / "part-000000.parquet")
    assert_same_schema(written, documented_schema(doc, heading, suffix, players or 2))
