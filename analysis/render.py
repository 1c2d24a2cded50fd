"""Render reports: aligned terminal tables, Markdown, self-contained HTML, JSON and CSV.

A report is a list of ``analysis.tables.Table``.  The text, Markdown and HTML forms show each
estimate as one cell, ``value [low, high]``, with rates in percent (a mean or a difference whose
interval is symmetric at the precision shown prints as ``value ±half``; a rate always shows its
bounds) and a ``*`` on estimates flagged as resting on too little data.  A sample-size column that is the same on every row moves into the caption.
JSON and CSV keep every numeric column as it is in the DataFrames.
"""

from __future__ import annotations

import base64
import html
import json
import math
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from analysis.tables import Table

if TYPE_CHECKING:
    from analysis.summary import RunSummary

__all__ = ["Report", "Figure", "display_frame", "render", "render_text", "render_markdown", "render_html",
           "render_json", "render_csv", "FORMATS", "TEXT_WIDTH"]

FORMATS = ("text", "md", "html", "json", "csv")
TEXT_WIDTH = 100
SIZE_COLUMNS = ("n", "rounds", "rounds_played", "seat_rounds", "matches", "paired_rounds")
VALUE_SUFFIXES = ("_rate", "_mean", "_diff", "")

# Row kinds shown in percent: a rate, and a difference of two rates (in percentage points).
RATE_KINDS = ("rate", "rate_diff")


@dataclass
class Figure:
    """A plot as PNG bytes, with its caption.

    ``table`` names the table the plot illustrates: the HTML report shows the plot directly under
    it (plots of no table shown come at the end).
    """

    name: str
    caption: str
    png: bytes
    table: str | None = None


@dataclass
class Report:
    """What ``fudasim report``, ``compare`` and ``rescore`` print: tables, warnings, plots."""

    title: str
    tables: list[Table]
    warnings: list[str] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # shown first, under the title, in every format
    metadata: dict[str, Any] = field(default_factory=dict)
    summary: RunSummary | None = None  # the raw counts behind a single run's report
    # What an incomplete dataset left out (read with allow_incomplete), each "INCOMPLETE: ...":
    # the text form prints them first, each on lines of its own above the title.
    incomplete: list[str] = field(default_factory=list)

    def table(self, name: str) -> Table:
        """The table called ``name`` (``KeyError`` if the report has none)."""
        for table in self.tables:
            if table.name == name:
                return table
        raise KeyError(name)

    def frames(self) -> dict[str, pd.DataFrame]:
        """Every table's DataFrame by name, for notebooks."""
        return {t.name: t.frame for t in self.tables}


def hidden_notices(datasets: list[Any]) -> list[str]:
    """The notices of datasets whose seats include a policy that sees hidden cards (``omniscient``),
    each prefixed with the dataset's label when there are several."""
    from simcore.policies import hidden_notice

    out = []
    for dataset in datasets:
        notice = hidden_notice([str(p) for p in dataset.policies])
        if notice is not None:
            out.append(notice if len(datasets) == 1 else f"{dataset.label}: {notice}")
    return out


# --- cells --------------------------------------------------------------------------------------


@dataclass
class _Group:
    label: str
    value: str
    low: str
    high: str
    small: str | None
    percent: bool | None  # None: per-row, from the frame's ``kind`` column


def _groups(frame: pd.DataFrame) -> list[_Group]:
    out = []
    for column in frame.columns:
        if not column.endswith("_low"):
            continue
        base = column[: -len("_low")]
        if f"{base}_high" not in frame.columns:
            continue
        for suffix in VALUE_SUFFIXES:
            if f"{base}{suffix}" in frame.columns and f"{base}{suffix}" != column:
                value = f"{base}{suffix}"
                break
        else:
            continue
        if suffix == "_rate":
            percent: bool | None = True
        elif suffix == "_mean":
            percent = False
        else:
            percent = None if "kind" in frame.columns else False
        small = f"{base}_small" if f"{base}_small" in frame.columns else None
        out.append(_Group(base, value, column, f"{base}_high", small, percent))
    return out


def _decimals(half_widths: np.ndarray) -> int:
    """Decimals so that the interval's half-width shows with one or two significant digits."""
    finite = half_widths[np.isfinite(half_widths) & (half_widths > 0)]
    if not len(finite):
        return 1
    width = float(np.median(finite))
    return int(min(4, max(0, 1 - math.floor(math.log10(width)))))


def _interval_cells(values, lows, highs, smalls, decimals: int, unit: str, bounds: bool = False) -> list[str]:
    """``value [low, high]`` cells; ``value ±half`` where the interval is symmetric at the precision
    shown, unless ``bounds`` (a proportion: its Wilson interval is asymmetric, so always its bounds)."""
    cells = []
    for value, low, high, small in zip(values, lows, highs, smalls, strict=True):
        if not np.isfinite(value):
            cells.append("-")
            continue
        text = f"{value:.{decimals}f}"
        if np.isfinite(low) and np.isfinite(high) and low == high == value:
            pass  # no variation at all (e.g. identical in both runs): the value says everything
        elif np.isfinite(low) and np.isfinite(high):
            up = round(high - value, decimals)
            down = round(value - low, decimals)
            if not bounds and abs(up - down) < 0.5 * 10.0**-decimals and up > 0:
                text += f" ±{up:.{decimals}f}"
            else:
                text += f" [{low:.{decimals}f}, {high:.{decimals}f}]"
        cells.append(text + unit + ("*" if small else ""))
    return cells


def _format_number(value: Any) -> str:
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "-"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        return f"{value:.4g}"
    return str(value)


def _format_p(value: Any) -> str:
    if value is None or not np.isfinite(value):
        return "-"
    if value < 0.001:
        return "<0.001"
    return f"{value:.3f}"


def display_frame(table: Table) -> tuple[pd.DataFrame, str]:
    """The table as strings for display, and a caption line naming constant sample sizes."""
    shown, caption, _ = _display(table)
    return shown, caption


def _display(table: Table) -> tuple[pd.DataFrame, str, list[str]]:
    """``display_frame``, and for each shown column the frame's column it comes from."""
    frame = table.frame.reset_index(drop=True)
    groups = _groups(frame)
    consumed: set[str] = set()
    cells: dict[str, list[str]] = {}
    headers: dict[str, str] = {}
    order: list[str] = []
    group_at = {g.value: g for g in groups}
    for g in groups:
        consumed.update({g.value, g.low, g.high})
        if g.small:
            consumed.add(g.small)
    if "kind" in frame.columns:
        consumed.add("kind")
    consumed.update(c for c in frame.columns if c.endswith("_small"))
    consumed.update(getattr(table, "hidden", []) or [])
    caption = []
    for column in frame.columns:
        if column in SIZE_COLUMNS and len(frame) > 1 and frame[column].nunique() == 1:
            caption.append(f"{column.replace('_', ' ')} = {_format_number(frame[column].iloc[0])} on every row")
            consumed.add(column)
    percent_rows_of = {}
    percent_half_widths = []
    for g in groups:
        if g.percent is None:
            percent_rows = frame["kind"].isin(RATE_KINDS).to_numpy()
        else:
            percent_rows = np.full(len(frame), g.percent)
        percent_rows_of[g.label] = percent_rows
        half = (frame[g.high].to_numpy(dtype=np.float64) - frame[g.low].to_numpy(dtype=np.float64)) * 50.0
        percent_half_widths.append(half[percent_rows])
    # One precision for every percentage in a table, so that columns compare at a glance.
    percent_decimals = _decimals(np.concatenate(percent_half_widths)) if percent_half_widths else 1
    for column in frame.columns:
        if column in group_at:
            g = group_at[column]
            values = frame[g.value].to_numpy(dtype=np.float64)
            lows = frame[g.low].to_numpy(dtype=np.float64)
            highs = frame[g.high].to_numpy(dtype=np.float64)
            smalls = frame[g.small].to_numpy(dtype=bool) if g.small else np.zeros(len(frame), dtype=bool)
            percent_rows = percent_rows_of[g.label]
            scale = np.where(percent_rows, 100.0, 1.0)
            out = [""] * len(frame)
            # a difference of rates (the column a change, or the row a gap between two rates) is in
            # percentage points
            points = np.full(len(frame), g.value.endswith("_diff"))
            if "kind" in frame.columns:
                points |= (frame["kind"] == "rate_diff").to_numpy()
            for is_percent, is_points in ((True, False), (True, True), (False, None)):
                chosen = percent_rows == is_percent
                if is_points is not None:
                    chosen &= points == is_points
                rows = np.flatnonzero(chosen)
                if not len(rows):
                    continue
                v, lo, hi = values[rows] * scale[rows], lows[rows] * scale[rows], highs[rows] * scale[rows]
                decimals = percent_decimals if is_percent else _decimals((hi - lo) / 2.0)
                if g.percent or not is_percent:
                    unit = ""
                else:
                    unit = " pp" if is_points else "%"
                # a rate (not a difference of rates) always shows its bounds: a Wilson interval is
                # asymmetric, and inside [0, 100]
                bounds = bool(is_percent and is_points is False)
                cells_shown = _interval_cells(v, lo, hi, smalls[rows], decimals, unit, bounds)
                for row, text in zip(rows, cells_shown, strict=True):
                    out[row] = text
            key = g.label
            cells[key] = out
            headers[key] = g.label.replace("_", " ") + (" %" if g.percent else "")
            order.append(key)
        elif column not in consumed:
            if column.startswith("p_value") or column.endswith("_p"):
                cells[column] = [_format_p(v) for v in frame[column]]
            else:
                cells[column] = [_format_number(v) for v in frame[column].tolist()]
            headers[column] = column.replace("_", " ")
            order.append(column)
    shown = pd.DataFrame({headers[k]: cells[k] for k in order}, index=range(len(frame)))
    return shown, "; ".join(caption), order


def _is_numeric_text(text: str) -> bool:
    stripped = text.replace(",", "").replace("%", "").replace("*", "").replace("<", "").strip()
    head = stripped.split(" ")[0] if stripped else ""
    try:
        float(head)
    except ValueError:
        return head == "-"
    return True


# --- text ---------------------------------------------------------------------------------------


def _fit(columns: list[list[str]], headers: list[str], width: int, keep: tuple[int, ...] = ()) -> list[int]:
    widths = [max([len(h)] + [len(c) for c in col]) for h, col in zip(headers, columns, strict=True)]
    gap = 2
    # Shrink the widest text (non-numeric) columns, with an ellipsis, until the table fits; the
    # columns in ``keep`` (a row's labels) only when no other is left to shrink.
    textual = [i for i, col in enumerate(columns) if col and not all(_is_numeric_text(c) for c in col)]
    for shrinkable in ([i for i in textual if i not in keep], [i for i in textual if i in keep]):
        while sum(widths) + gap * (len(widths) - 1) > width and shrinkable:
            widest = max(shrinkable, key=lambda i: widths[i])
            if widths[widest] <= max(8, len(headers[widest])):
                shrinkable.remove(widest)
                continue
            widths[widest] -= 1
    return widths


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def _fits(widths: list[int], width: int, gap: int = 2) -> bool:
    return sum(widths) + gap * (len(widths) - 1) <= width


def _blocks(widths: list[int], width: int, keys: list[int] | None = None, gap: int = 2) -> list[list[int]]:
    """Column indices per printed block: all columns if they fit, else the key columns (the
    row's labels) repeated in every block, each with as many of the other columns as fit (a wide
    comparison wraps instead of overflowing, and every row of every block says what it is)."""
    keys = [0] if keys is None else keys
    if _fits(widths, width, gap) or len(widths) <= len(keys) + 1:
        return [list(range(len(widths)))]
    base = sum(widths[i] for i in keys) + gap * (len(keys) - 1)
    blocks, current, used = [], list(keys), base
    for index in range(len(widths)):
        if index in keys:
            continue
        if len(current) > len(keys) and used + gap + widths[index] > width:
            blocks.append(current)
            current, used = list(keys), base
        current.append(index)
        used += gap + widths[index]
    blocks.append(current)
    return blocks


def _key_columns(table: Table, sources: list[str], numeric: list[bool]) -> list[int]:
    """The shown columns that label a row: ``table.keys``, else the text columns before the
    first numeric one (the first column alone in a table of text only)."""
    if table.keys is not None:
        keys = [sources.index(k) for k in table.keys if k in sources][: max(1, len(sources) - 1)]
        if keys:
            return keys
    if not any(numeric):
        return [0]
    count = 0
    while count < len(numeric) - 1 and not numeric[count]:
        count += 1
    return list(range(max(1, count)))


def _runs(values: list[str]) -> list[tuple[int, int]]:
    """``(start, stop)`` of each run of equal consecutive values."""
    runs, start = [], 0
    for index in range(1, len(values) + 1):
        if index == len(values) or values[index] != values[start]:
            runs.append((start, index))
            start = index
    return runs


def _grid(headers: list[str], columns: list[list[str]], numeric: list[bool], keys: list[int], rows: range,
          blocks: list[list[int]], width: int) -> list[str]:
    """The lines of ``rows`` of a table in column ``blocks``: header, rule, one line per row
    (a long last text column wraps onto lines of its own), a blank line between blocks."""
    lines: list[str] = []
    for number, picked in enumerate(blocks):
        # Within a block, shrink text columns (with an ellipsis) if it is still too wide.
        block_widths = _fit([columns[i] for i in picked], [headers[i] for i in picked], width,
                            tuple(position for position, i in enumerate(picked) if i in keys))
        widths = dict(zip(picked, block_widths, strict=True))

        def row(values: list[str], picked: list[int] = picked, widths: dict[int, int] = widths) -> str:
            parts = []
            more: list[str] = []
            for index in picked:
                value = values[index]
                if index == picked[-1] and not numeric[index] and len(value) > widths[index]:
                    # the last column of text wraps onto lines of its own rather than losing its end
                    value, *more = textwrap.wrap(value, widths[index], break_long_words=True) or [""]
                value = _clip(value, widths[index])
                parts.append(value.rjust(widths[index]) if numeric[index] else value.ljust(widths[index]))
            indent = sum(widths[i] + 2 for i in picked[:-1])
            return "\n".join(["  ".join(parts).rstrip()] + [" " * indent + line for line in more])

        if number:
            lines.append("")
        lines.append(row(headers))
        lines.append("  ".join("-" * widths[i] for i in picked))
        for i in rows:
            lines.append(row([col[i] for col in columns]))
    return lines


def text_table(table: Table, width: int = TEXT_WIDTH) -> str:
    """One table as plain text of at most about ``width`` columns, with its caption.

    A table too wide for ``width`` is printed in blocks of columns, each repeating the columns
    that label a row (``Table.keys``).  Of several such labels, one that is the same on every
    row moves into the caption; and when the first is the same over runs of rows (a comparison
    per alternative, per combination, per pairing), each run gets a line of its own naming that
    label, and its rows follow under it.
    """
    shown, caption, sources = _display(table)
    headers = list(shown.columns)
    columns = [shown[h].tolist() for h in headers]
    natural = [max([len(h)] + [len(c) for c in col]) for h, col in zip(headers, columns, strict=True)]
    numeric = [bool(col) and all(_is_numeric_text(c) for c in col) for col in columns]
    keys = _key_columns(table, sources, numeric)
    if not _fits(natural, width) and len(shown) > 1:
        constant = [i for i in keys if len(set(columns[i])) == 1][: len(keys) - 1]
        if constant:
            said = [f"{headers[i]} = {columns[i][0]} on every row" for i in constant]
            caption = "; ".join([caption, *said] if caption else said)
            kept = [i for i in range(len(headers)) if i not in constant]
            keys = [kept.index(i) for i in keys if i not in constant]
            headers, columns = [headers[i] for i in kept], [columns[i] for i in kept]
            natural, numeric = [natural[i] for i in kept], [numeric[i] for i in kept]
    lines = textwrap.wrap(table.title, width=width)
    lines.append("=" * min(width, len(table.title)))
    note = " ".join(x for x in (table.note, (caption + ".") if caption else "") if x)
    if note:
        lines += textwrap.wrap(note, width=width)
    runs = _runs(columns[keys[0]]) if len(keys) > 1 else []
    if _fits(natural, width) or not runs or 2 * len(runs) > len(shown):
        lines += _grid(headers, columns, numeric, keys, range(len(shown)), _blocks(natural, width, keys), width)
        return "\n".join(lines)
    # One section per run of the first label, which its heading names; the other labels repeat.
    group = keys[0]
    rest = [i for i in range(len(headers)) if i != group]
    sub_keys = [rest.index(i) for i in keys[1:]]
    sub_headers, sub_columns = [headers[i] for i in rest], [columns[i] for i in rest]
    sub_numeric, sub_natural = [numeric[i] for i in rest], [natural[i] for i in rest]
    blocks = _blocks(sub_natural, width, sub_keys)
    for number, (start, stop) in enumerate(runs):
        if number:
            lines.append("")
        lines += textwrap.wrap(f"{headers[group]}: {columns[group][start]}", width=width, subsequent_indent="  ")
        lines += _grid(sub_headers, sub_columns, sub_numeric, sub_keys, range(start, stop), blocks, width)
    return "\n".join(lines)


def _incomplete(report: Report) -> list[str]:
    """Each of ``report.incomplete`` as ``INCOMPLETE: [label: ]what was read``."""
    out = []
    for note in report.incomplete:
        label, marked, rest = note.partition("INCOMPLETE: ")
        out.append(f"INCOMPLETE: {label}{rest}" if marked else f"INCOMPLETE: {note}")
    return out


def render_text(report: Report, width: int = TEXT_WIDTH) -> str:
    """A report as plain text (what ``--format text`` prints)."""
    parts = []
    for note in _incomplete(report):
        parts += textwrap.wrap(note, width=width, subsequent_indent="  ") + [""]
    parts += textwrap.wrap(report.title, width=width) + [""]
    for notice in report.notices:
        parts += textwrap.wrap("NOTE: " + notice, width=width, subsequent_indent="  ") + [""]
    for table in report.tables:
        parts += [text_table(table, width), ""]
    for warning in report.warnings:
        parts += textwrap.wrap("warning: " + warning, width=width, subsequent_indent="  ")
    return "\n".join(parts).rstrip() + "\n"


# --- Markdown -----------------------------------------------------------------------------------


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(report: Report) -> str:
    """A report as Markdown (``--format md``)."""
    parts = [f"# {report.title}", ""]
    parts += [f"**{n}**\n" for n in _incomplete(report)]
    parts += [f"**Note: {n}**\n" for n in report.notices]
    for table in report.tables:
        shown, caption = display_frame(table)
        parts.append(f"## {table.title}")
        parts.append("")
        note = " ".join(x for x in (table.note, (caption + ".") if caption else "") if x)
        if note:
            parts += [note, ""]
        numeric = [len(shown) > 0 and all(_is_numeric_text(c) for c in shown[h]) for h in shown.columns]
        parts.append("| " + " | ".join(_md_escape(h) for h in shown.columns) + " |")
        parts.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
        for i in range(len(shown)):
            parts.append("| " + " | ".join(_md_escape(v) for v in shown.iloc[i].tolist()) + " |")
        parts.append("")
    if report.warnings:
        parts += ["## Warnings", ""] + [f"* {w}" for w in report.warnings] + [""]
    return "\n".join(parts)


# --- HTML ---------------------------------------------------------------------------------------

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 70em;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { padding: 0.2em 0.7em; border-bottom: 1px solid #e4e4e4; }
th { text-align: left; background: #f4f4f4; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
p.note { color: #555; max-width: 60em; } .warnings { background: #fff6e0; border: 1px solid #e8c36a;
padding: 0.5em 1em; } p.notice { background: #fde8e8; border: 1px solid #d66; padding: 0.5em 1em; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: 0.9em; }
img { max-width: 100%; height: auto; }
"""


def _html_figure(figure: Figure) -> str:
    esc = html.escape
    data = base64.b64encode(figure.png).decode("ascii")
    return (f'<figure id="{esc(figure.name)}"><img alt="{esc(figure.caption)}" '
            f'src="data:image/png;base64,{data}"><figcaption>{esc(figure.caption)}</figcaption></figure>')


def render_html(report: Report) -> str:
    """One self-contained HTML page: inline CSS, tables, and plots as embedded PNGs.

    Each plot sits directly under the table it illustrates (``Figure.table``).
    """
    esc = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             f"<title>{esc(report.title)}</title>", f"<style>{_STYLE}</style>", "</head>", "<body>",
             f"<h1>{esc(report.title)}</h1>"]
    parts += [f'<p class="notice"><strong>{esc(n)}</strong></p>' for n in _incomplete(report)]
    parts += [f'<p class="notice"><strong>Note: {esc(n)}</strong></p>' for n in report.notices]
    if report.warnings:
        parts.append('<div class="warnings"><strong>Warnings</strong><ul>')
        parts += [f"<li>{esc(w)}</li>" for w in report.warnings]
        parts.append("</ul></div>")
    shown_tables = {table.name for table in report.tables}
    for table in report.tables:
        shown, caption = display_frame(table)
        parts.append(f'<h2 id="{esc(table.name)}">{esc(table.title)}</h2>')
        note = " ".join(x for x in (table.note, (caption + ".") if caption else "") if x)
        if note:
            parts.append(f'<p class="note">{esc(note)}</p>')
        numeric = [len(shown) > 0 and all(_is_numeric_text(c) for c in shown[h]) for h in shown.columns]
        parts.append("<table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in shown.columns) + "</tr></thead><tbody>")
        for i in range(len(shown)):
            cells = "".join(f'<td class="num">{esc(v)}</td>' if n else f"<td>{esc(v)}</td>"
                            for v, n in zip(shown.iloc[i].tolist(), numeric, strict=True))
            parts.append(f"<tr>{cells}</tr>")
        parts.append("</tbody></table>")
        parts += [_html_figure(figure) for figure in report.figures if figure.table == table.name]
    loose = [figure for figure in report.figures if figure.table not in shown_tables]
    if loose:
        parts.append('<h2 id="plots">Plots</h2>')
        parts += [_html_figure(figure) for figure in loose]
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"


# --- JSON and CSV -------------------------------------------------------------------------------


def _json_value(value: Any) -> Any:
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value) if np.isfinite(value) else None
    return value


def render_json(report: Report) -> str:
    """A report as JSON (``--format json``): title, warnings, metadata and every table's rows."""
    out = {
        "title": report.title,
        "incomplete": _incomplete(report),
        "notices": report.notices,
        "metadata": report.metadata,
        "warnings": report.warnings,
        "tables": [
            {
                "name": t.name,
                "title": t.title,
                "note": t.note,
                "columns": list(t.frame.columns),
                "rows": [{k: _json_value(v) for k, v in row.items()} for row in t.frame.to_dict(orient="records")],
            }
            for t in report.tables
        ],
    }
    return json.dumps(out, indent=2, ensure_ascii=False, default=str) + "\n"


def render_csv(report: Report) -> str:
    """All tables stacked in one CSV: a ``table`` column, then the union of the tables' columns."""
    frames = []
    for table in report.tables:
        frame = table.frame.copy()
        frame.insert(0, "table", table.name)
        frames.append(frame.astype(object))
    if not frames:
        return ""
    stacked = pd.concat(frames, ignore_index=True, sort=False)
    return stacked.to_csv(index=False)


def render(report: Report, output_format: str, width: int = TEXT_WIDTH) -> str:
    """A report in ``output_format``, one of ``FORMATS`` (text, md, html, json, csv)."""
    if output_format == "text":
        return render_text(report, width)
    if output_format == "md":
        return render_markdown(report)
    if output_format == "html":
        return render_html(report)
    if output_format == "json":
        return render_json(report)
    if output_format == "csv":
        return render_csv(report)
    raise ValueError(f"unknown format {output_format!r} (known: {', '.join(FORMATS)})")
