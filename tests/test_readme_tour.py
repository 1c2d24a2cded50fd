"""The README's short tour works as printed: every line, in order, from a fresh folder.

The code block under "## A short tour" is read from README.md and each line is run through the
shell, in a new temporary folder that holds only what a fresh clone gives the tour to read
(``docs/examples``), with this installation's ``fudasim`` first on ``PATH`` and this checkout first
on ``PYTHONPATH`` (as every other test that starts a command), so that the commands run the code
under test, whether the package was installed editable or not, and load the kernels the other
tests compiled from the numba cache beside it instead of compiling them again. Every line must
exit 0 without a traceback. Lines run as printed, except for the substitutions in
``SUBSTITUTIONS``, each with its reason:

* sizes: every ``--rounds N``, ``--matches N`` and ``--deals N`` above the small size of
  ``SMALL`` is cut to it (the commands do the same work on fewer rounds);
* ``--scheduler tcp://HOST:8786 --out /shared/huge``: there is no cluster at HOST and no shared
  folder in a test; ``local:2`` starts a two-worker Dask cluster on this machine, the same
  code path once the scheduler is reached, writing into the tour's folder;
* ``fudasim bench``: the full benchmark runs for many minutes; ``--quick`` is its smoke-test
  size, cut further by explicit sizes; ``--skip-compile`` leaves out the cold starts (they
  compile every kernel into an empty numba cache, minutes on their own); ``--game enshu``
  leaves out Tensho's cases, whose ismcts case plays at least 50 rounds on the reference engine
  (two minutes and more). tests/test_bench.py runs every case of every game.

``fudasim play`` runs as printed with every question answered ``1`` on its standard input (a
person would type their choices). The "Ctrl-C" the ``runs/big`` line's comment invites is not
pressed: the line runs to the end, and the next line's ``--resume`` finds the run complete.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## A short tour"

SMALL = {"--rounds": 20_000, "--matches": 200, "--deals": 2_000}
SUBSTITUTIONS = [
    ("--scheduler tcp://HOST:8786 --out /shared/huge", "--scheduler local:2 --out runs/huge"),
    (re.compile(r"^fudasim bench(?= |$)"),
     "fudasim bench --quick --skip-compile --game enshu --rounds 4000 --reference-rounds 4 "
     "--run-rounds 20000 --memory-rounds 20000 --repeat 1"),
]
ANSWERS = "1\n" * 5000  # every question of `fudasim play` answered with its first option


def tour_lines() -> list[str]:
    """The tour's commands, as printed (without their comments), in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text[text.index(HEADING):]
    block = block[block.index("```sh\n") + len("```sh\n"):]
    block = block[:block.index("```")]
    lines = [line.strip() for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def shrunk(line: str) -> str:
    """``line`` with the test's substitutions applied (see the module docstring)."""
    for flag, small in SMALL.items():
        line = re.sub(rf"(?<!\S){flag} (\d+)",
                      lambda m, f=flag, s=small: f"{f} {min(int(m.group(1)), s)}", line)
    for old, new in SUBSTITUTIONS:
        line = old.sub(new, line) if isinstance(old, re.Pattern) else line.replace(old, new)
    return line


def test_the_tour_names_only_what_its_earlier_lines_create():
    """A file or folder a tour line reads is one an earlier line writes (or the clone has)."""
    made = {"docs/examples/tensho-moves.json"}
    for line in tour_lines():
        command = line.split("#", 1)[0]
        reads = r"(?:validate|replay|report|compare|rescore|verify|run) ((?:runs/|my-)[\w./-]+)"
        for read in re.findall(reads, command):
            assert read in made, f"{line!r} reads {read}, which no earlier line makes"
        made |= set(re.findall(r"(?:--out |> )(\S+)", command))
        for read in re.findall(r"compare \S+ (runs/\S+)", command):
            assert read in made, f"{line!r} reads {read}, which no earlier line makes"


@pytest.mark.slow
def test_the_tour_runs_as_printed(tmp_path):
    fudasim = Path(sys.executable).parent / "fudasim"
    assert fudasim.exists(), f"no fudasim script next to {sys.executable}: pip install -e ."
    shutil.copytree(ROOT / "docs" / "examples", tmp_path / "docs" / "examples")
    path = f"{fudasim.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = dict(os.environ, PATH=path, COLUMNS="100", PYTHONPATH=str(ROOT))
    lines = tour_lines()
    assert len(lines) >= 25
    for line in lines:
        command = shrunk(line)
        answers = ANSWERS if command.startswith("fudasim play ") else ""
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, input=answers,
                              text=True, capture_output=True, timeout=1800)
        said = done.stdout[-2000:] + done.stderr[-2000:]
        assert done.returncode == 0, f"{command!r} exited {done.returncode}:\n{said}"
        assert "Traceback" not in done.stderr, f"{command!r}:\n{said}"
        if command.startswith("fudasim play "):
            assert "Match over" in done.stdout, said
    assert (tmp_path / "my-variant.toml").is_file()
    assert (tmp_path / "runs" / "t-T3").is_dir()
