"""What the documentation names exists: flags, policy parameters, rule options, files, links.

Every page a user reads (README.md and docs/*.md) is scanned for what it tells a user to type or
open, and each name is checked against the code:

* every ``--flag`` and ``-f`` of a ``fudasim ...`` command line (in a code block or inline code)
  against that click command's options; a flag named alone in inline code against the options
  of every fudasim command; a flag of ``python -m benchmarks.NAME`` against that script;
* every ``POLICY:k=v,...`` against the policy registry (``parse_policy``), and every parameter
  named with its default in docs/policies.md (`` `name` (default) ``) against the parameters of
  the policies;
* every rule option (``tensho.NAME``, ``enshu.NAME``) against the games' option tables, and
  every ``OPTION=VALUE`` by loading a shipped rule set with it;
* every repository path (``simcore/...``, ``docs/...``, ...) against the tree, every relative
  link and ``docs/PAGE.md#anchor`` citation (in any tracked file) against the pages and their
  headings;
* no tracked file points a user at design notes that are not in the repository.

The Tensho and Enshu-bana pages' card, yaku and option tables are checked against the decks and
the shipped rule files.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from functools import cache
from pathlib import Path

import click
import pytest

from cli.main import main
from simcore.cards import HANAFUDA48, ISE45
from simcore.errors import FudasimError
from simcore.games.enshu.options import OPTIONS as ENSHU_OPTIONS
from simcore.games.tensho.options import OPTIONS as TENSHO_OPTIONS
from simcore.policies import POLICY_KINDS, parse_policy
from simcore.rules.loader import load_rules

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOP_DIRS = ("simcore", "cli", "analysis", "benchmarks", "tests", "docs", "fudasim")
OPTIONS = {**TENSHO_OPTIONS, **ENSHU_OPTIONS}
RULE_SETS = ("tensho-ise", "tensho-hanafuda", "enshu-w", "enshu-s", "enshu-c")


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


# --- reading the pages ----------------------------------------------------------------------


def code_of(text: str) -> list[tuple[int, str]]:
    """(line number, code) of every line of a fenced code block and every inline code span."""
    found: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            found.append((number, line))
        else:
            found += [(number, span) for span in re.findall(r"``?([^`]+)``?", line)]
    return found


def strip_comment(line: str) -> str:
    """A shell line without its trailing ``# comment``."""
    return re.sub(r"(^|\s)#.*$", "", line).strip()


def slug(heading: str) -> str:
    """The anchor a heading gets on GitHub: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    text = page.read_text(encoding="utf-8")
    fenced = False
    found = set()
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            found.add(slug(line.lstrip("#")))
    return frozenset(found)


# --- the click commands -----------------------------------------------------------------------


def click_commands(group: click.Group = main, prefix: tuple[str, ...] = ()):
    yield prefix, group
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from click_commands(command, (*prefix, name))
        else:
            yield (*prefix, name), command


def flags_of(command: click.Command) -> set[str]:
    flags = {"-h", "--help"}
    for param in command.params:
        if isinstance(param, click.Option):
            flags |= set(param.opts) | set(param.secondary_opts)
    return flags


COMMANDS = dict(click_commands())
ALL_FLAGS = set().union(*(flags_of(c) for c in COMMANDS.values()))


def fudasim_command(words: list[str]) -> tuple[tuple[str, ...], click.Command] | None:
    """The click command a ``fudasim ...`` line runs, or None if its words name no command."""
    path: tuple[str, ...] = ()
    command: click.Command = main
    for word in words:
        if not isinstance(command, click.Group):
            break
        if word not in command.commands:
            return (path, command) if path else None
        path += (word,)
        command = command.commands[word]
    return path, command


def flag_words(words: list[str]) -> list[str]:
    flags = []
    for word in words:
        word = word.strip("[]|(),;")
        if re.fullmatch(r"--?[A-Za-z][\w-]*(=.*)?", word):
            flags.append(word.split("=", 1)[0])
    return flags


def fudasim_lines():
    """(page, line number, the words after ``fudasim``) of every fudasim command line shown."""
    for page in PAGES:
        for number, code in code_of(page.read_text(encoding="utf-8")):
            code = strip_comment(code.strip().removeprefix("$ "))
            for match in re.finditer(r"(?:^|&& |\| |; )fudasim ([^|;&]*)", code):
                try:
                    words = shlex.split(match.group(1))
                except ValueError:
                    words = match.group(1).split()
                yield page, number, words


def test_every_flag_of_a_fudasim_command_line_is_an_option_of_that_command():
    problems = []
    checked = 0
    for page, number, words in fudasim_lines():
        found = fudasim_command(words)
        if found is None:
            continue
        path, command = found
        for flag in flag_words(words[len(path):]):
            checked += 1
            if flag not in flags_of(command):
                name = " ".join(path)
                problems.append(f"{page_id(page)}:{number}: fudasim {name} has no option {flag}")
    assert checked > 100
    assert not problems, "\n".join(problems)


def section_of(text: str, number: int) -> str:
    """The text of the section (between headings) that holds line ``number``."""
    lines = text.splitlines()
    start = max((i for i in range(number) if lines[i].startswith("#")), default=0)
    end = next((i for i in range(number, len(lines)) if lines[i].startswith("#")), len(lines))
    return "\n".join(lines[start:end])


def test_a_flag_named_alone_is_an_option_of_some_fudasim_command():
    """A flag in inline code of its own is a fudasim option, or an option of a benchmark script
    named in the same section."""
    problems = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for number, code in code_of(text):
            words = code.split()
            if not words or not re.fullmatch(r"--?[A-Za-z][\w-]*(=.*)?", words[0]):
                continue
            flag = words[0].split("=", 1)[0]
            scripts = set(re.findall(r"benchmarks\.(\w+)", section_of(text, number)))
            files = [ROOT / "benchmarks" / f"{name}.py" for name in scripts]
            sources = [file.read_text(encoding="utf-8") for file in files if file.exists()]
            if flag not in ALL_FLAGS and not any(f'"{flag}"' in source for source in sources):
                problems.append(f"{page_id(page)}:{number}: no fudasim command has {flag}")
    assert not problems, "\n".join(problems)


def test_every_flag_of_a_benchmark_command_line_is_one_the_script_takes():
    problems = []
    checked = 0
    for page in PAGES:
        for number, code in code_of(page.read_text(encoding="utf-8")):
            match = re.search(r"python -m benchmarks\.(\w+)(.*)", strip_comment(code))
            if not match:
                continue
            source = (ROOT / "benchmarks" / f"{match.group(1)}.py").read_text(encoding="utf-8")
            for flag in flag_words(match.group(2).split()):
                checked += 1
                if f'"{flag}"' not in source:
                    script = f"benchmarks.{match.group(1)}"
                    problems.append(f"{page_id(page)}:{number}: {script} takes no {flag}")
    assert checked > 10
    assert not problems, "\n".join(problems)


def test_report_help_names_every_kind_of_folder_report_reads():
    """``fudasim report`` reads runs, tournament folders and sweep folders: its help says so."""
    from click.testing import CliRunner

    result = CliRunner().invoke(main, ["report", "--help"], terminal_width=200)
    assert result.exit_code == 0
    for kind in ("`fudasim run`", "`fudasim tournament`", "`fudasim sweep`"):
        assert kind in " ".join(result.output.split()), kind


# --- policies ---------------------------------------------------------------------------------

KINDS = "|".join(POLICY_KINDS)
POLICY_SPEC = re.compile(rf"(?<![\w-])({KINDS}):([a-z_]+=[^\s`'\",;]+(?:,[a-z_]+=[^\s`'\",;]+)*)")


def test_every_policy_spec_shown_parses():
    problems = []
    checked = 0
    for page in PAGES:
        for number, code in code_of(page.read_text(encoding="utf-8")):
            for match in POLICY_SPEC.finditer(code):
                checked += 1
                try:
                    parse_policy(match.group(0))
                except FudasimError as error:
                    problems.append(f"{page_id(page)}:{number}: {match.group(0)}: {error}")
    assert checked > 5
    assert not problems, "\n".join(problems)


@cache
def policy_parameters() -> frozenset[str]:
    from simcore.games import known_games

    names = {p.name for kind in POLICY_KINDS.values() for p in kind.params}
    for game in known_games().values():
        for _, support in game.policies:
            names |= {p.name for p in support.params}
    return frozenset(names)


def test_every_parameter_the_policies_page_gives_a_default_exists():
    """docs/policies.md writes a parameter as `` `name` (default) ``: each is a real parameter."""
    page = ROOT / "docs" / "policies.md"
    named = re.findall(r"`([a-z_]+)` \((?:\d[\d.,]*|`[\w]+`)(?:; [^)]*)?\)", page.read_text(encoding="utf-8"))
    assert len(named) > 8
    unknown = sorted(set(named) - policy_parameters())
    assert not unknown, f"docs/policies.md names parameters no policy has: {unknown}"


# --- rule options -----------------------------------------------------------------------------

OPTION_NAME = re.compile(r"(?<![\w./-])((?:tensho|enshu)(?:\.[a-z][a-z0-9_]*)+)"
                         r"(?:\s*=\s*\"?([A-Za-z0-9_]+)\"?)?")


@cache
def accepts(option: str, value: str) -> bool:
    """Whether some shipped rule set of the option's game loads with ``option = value``."""
    for rules in RULE_SETS:
        if not rules.startswith(option.split(".")[0]):
            continue
        for players in ({}, {"enshu.players": "4"}, {"enshu.players": "2"}):
            try:
                load_rules(rules, {**players, option: value})
            except FudasimError:
                continue
            return True
    return False


def test_every_rule_option_named_exists_and_every_value_given_is_accepted():
    problems = []
    checked = 0
    for page in PAGES:
        for number, code in code_of(page.read_text(encoding="utf-8")):
            for match in OPTION_NAME.finditer(code):
                name, value = match.groups()
                if name.split(".")[-1] in ("md", "toml", "py") or code[match.end(1):][:1] == "(":
                    continue  # a file name, or a Python call on a variable of that name
                checked += 1
                if name not in OPTIONS and not any(o.startswith(name + ".") for o in OPTIONS):
                    problems.append(f"{page_id(page)}:{number}: no rule option {name}")
                elif value is not None and value != "VALUE" and not accepts(name, value):
                    problems.append(f"{page_id(page)}:{number}: {name} = {value} is refused")
    assert checked > 100
    assert not problems, "\n".join(problems)


def documented_options(page: str) -> list[str]:
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    section = text[text.index("\n## Options\n"):]
    section = section[:section.find("\n## ", 5)]
    return re.findall(r"^\| `((?:tensho|enshu)\.[\w.]+)` \|", section, flags=re.MULTILINE)


@pytest.mark.parametrize(("page", "options"),
                         [("tensho.md", TENSHO_OPTIONS), ("enshu.md", ENSHU_OPTIONS)])
def test_the_options_table_lists_every_option_of_the_game_once(page, options):
    listed = documented_options(page)
    assert sorted(listed) == sorted(options), (page, set(listed) ^ set(options))


# --- files and links --------------------------------------------------------------------------

TOP = "|".join(TOP_DIRS)
PATH = re.compile(rf"(?<![\w./-])((?:{TOP})/[\w./<>*-]*[\w>*/])")


def exists(path: str) -> bool:
    """Whether ``path`` (relative to the repository; ``<placeholder>`` parts match anything)
    exists."""
    pattern = re.sub(r"<[^>]+>", "*", path.rstrip("/"))
    if "*" in pattern:
        return any(ROOT.glob(pattern))
    return (ROOT / pattern).exists()


def test_every_repository_path_named_exists():
    problems = []
    checked = 0
    for page in PAGES:
        for number, code in code_of(page.read_text(encoding="utf-8")):
            for path in PATH.findall(code):
                path = path.split("#", 1)[0]
                checked += 1
                if not exists(path):
                    problems.append(f"{page_id(page)}:{number}: {path} is not in the repository")
    assert checked > 30
    assert not problems, "\n".join(problems)


def test_every_relative_link_reaches_a_file_and_its_heading():
    problems = []
    checked = 0
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            for target in re.findall(r"\]\(([^)\s]+)\)", line):
                if re.match(r"[a-z]+:", target):
                    continue
                checked += 1
                file_part, _, anchor = target.partition("#")
                linked = (page.parent / file_part).resolve() if file_part else page
                if not linked.exists():
                    problems.append(f"{page_id(page)}:{number}: {target}: no such file")
                elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                    problems.append(f"{page_id(page)}:{number}: {target}: no such heading")
    assert checked > 50
    assert not problems, "\n".join(problems)


@cache
def tracked_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                                check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [ROOT / name for name in listed.decode().split("\0") if name and (ROOT / name).is_file()]


def texts():
    for path in tracked_files():
        try:
            yield path, path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue


def test_every_docs_citation_in_a_tracked_file_reaches_a_page_and_its_heading():
    """Code, tests and rule files cite the docs as ``docs/PAGE.md#heading``: both exist."""
    problems = []
    checked = 0
    for path, text in texts():
        for page, anchor in re.findall(r"docs/([a-z0-9-]+\.md)(?:#([\w-]+))?", text):
            checked += 1
            target = ROOT / "docs" / page
            if not target.exists():
                problems.append(f"{path.relative_to(ROOT)}: docs/{page}: no such page")
            elif anchor and anchor not in anchors(target):
                problems.append(f"{path.relative_to(ROOT)}: docs/{page}#{anchor}: no such heading")
    assert checked > 100
    assert not problems, "\n".join(problems)


# Earlier texts of the shipped rule files, kept verbatim so that a run begun with one resumes
# with it (simcore.rules.loader.earlier_text); users read the shipped files, never these.
KEPT_AS_SHIPPED = "simcore/rules/earlier/"


def test_no_tracked_file_points_at_design_notes_outside_the_repository():
    absent = re.compile(r"\b(?:RULES|DESIGN)\.md\b|\.\./shared\b")
    found = [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
             for path, text in texts() for m in absent.finditer(text)
             if not str(path.relative_to(ROOT)).startswith(KEPT_AS_SHIPPED)]
    assert not found, "\n".join(found)


def test_pip_install_lines_install_this_clone_with_extras_it_declares():
    """A user works from a clone: ``pip install .`` or ``".[extra]"``, never the package by name."""
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
                 ["optional-dependencies"])
    problems = []
    for page in PAGES:
        for number, code in code_of(page.read_text(encoding="utf-8")):
            for match in re.finditer(r"pip install (?:-\S+ )*(\S+)", code):
                target = match.group(1).strip("'\"")
                extra = re.fullmatch(r"\.(?:\[([\w,-]+)\])?", target)
                if extra is None:
                    problems.append(f"{page_id(page)}:{number}: pip install {target}: "
                                    "not this clone")
                elif extra.group(1) and not set(extra.group(1).split(",")) <= extras:
                    problems.append(f"{page_id(page)}:{number}: no extra {extra.group(1)}")
    assert not problems, "\n".join(problems)


# --- the rules pages against the rule files ---------------------------------------------------


def table_rows(page: str, header: str) -> list[list[str]]:
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    lines = text[text.index(header):].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_tensho_card_table_matches_the_deck_the_value_tables_and_the_chaff_sets():
    rules = load_rules("tensho-ise")
    rows = table_rows("tensho.md", "| id | code | Ise name |")
    assert [int(row[0]) for row in rows] == list(range(ISE45.size))
    for row in rows:
        card = ISE45.cards[int(row[0])]
        assert row[1:5] == [f"`{card.code}`", card.name, card.hanafuda_name, card.role or "-"], row
        values = [rules.card_value_tables[t][card.id] for t in ("T1_ise", "T2_alt", "T3_hanafuda")]
        assert [int(v) for v in row[5:8]] == values, row
        sets = "".join(name for name, mask in rules.chaff_sets.items() if mask >> card.id & 1)
        assert row[8] == (sets or "-"), row


def test_tensho_yaku_table_matches_the_rule_file():
    rules = load_rules("tensho-ise")
    rows = table_rows("tensho.md", "| key | yaku | cards (ids) |")
    assert [row[0] for row in rows] == [y.key for y in rules.yaku]
    for row, yaku in zip(rows, rules.yaku, strict=True):
        assert row[1] == f"{yaku.english} (*{yaku.name}*)", row
        codes, ids = re.fullmatch(r"(.*) \((.*)\)", row[2]).groups()
        assert [ISE45.card_id(c) for c in codes.split(", ")] == list(yaku.cards), row
        assert [int(i) for i in ids.split(", ")] == list(yaku.cards), row
        assert row[3:5] == ["-" if v is None else str(v) for v in yaku.values], row


def test_enshu_card_table_matches_the_deck():
    rows = table_rows("enshu.md", "| month | cards: id, name (kind) |")
    seen = []
    for month_cell, cards_cell in rows:
        month, flower = month_cell.split(" ", 1)
        for item in cards_cell.split(", "):
            number, rest = item.split(" ", 1)
            name, kind = re.fullmatch(r"(.*?)(?: \((Bright|Animal|Ribbon)\))?", rest).groups()
            card = HANAFUDA48.cards[int(number)]
            assert (card.rank, card.name) == (int(month), f"{flower} {name}"), item
            assert (kind or "chaff").lower() == card.kind, item
            seen.append(card.id)
    assert sorted(seen) == list(range(HANAFUDA48.size))


def test_enshu_dekiyaku_table_matches_the_rule_files():
    rows = table_rows("enshu.md", "| dekiyaku | cards | W | S | C |")
    files = {variant: load_rules(f"enshu-{variant.lower()}") for variant in "WSC"}
    assert len(rows) == len(files["C"].yaku)
    for row, yaku in zip(rows, files["C"].yaku, strict=True):
        assert row[0] == f"{yaku.name}, {yaku.english}", row
        ids = []
        for part in row[1].split(", "):
            first, _, last = part.partition("–")
            ids += list(range(int(first), int(last or first) + 1))
        assert sorted(ids) == sorted(yaku.cards), row
        for variant, cell in zip("WSC", row[2:], strict=True):
            value = next(y for y in files[variant].yaku if y.key == yaku.key).value
            assert re.search(rf"(^|\D){value}(\D|$)", cell), (variant, row)
