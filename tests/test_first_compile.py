"""What a first run compiles: each of fudasim's numba functions once, and only the policies the
seats play (docs/performance.md, "First start").

numba compiles a called function again for every new combination of constant arguments, and the
general kernel used to compile every policy for every run; either doubled a first run's compile.
Each case plays one unit in a child process with an empty numba cache and lists numba's compile
events (``numba.core.event``) of fudasim's ``*_nb`` functions.  Slow: each child compiles a
kernel from nothing (a fast kernel, or the general kernel for one set of policy kinds).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from simcore.kernels.policy_rows import ALL_KINDS_ENV

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, sys
from numba.core import event

compiled = []


class Compiles(event.Listener):
    def on_start(self, ev):
        function = getattr(ev.data["dispatcher"], "py_func", None)
        if function is not None and function.__module__.startswith("simcore"):
            compiled.append([f"{function.__module__}.{function.__qualname__}", str(ev.data["args"])])

    def on_end(self, ev):
        pass


event.register("numba:compile", Compiles())
from simcore.games import game_of
from simcore.policies import parse_policy
from simcore.rules import load_rules

rules = load_rules(sys.argv[1])
game = game_of(rules)
compiled_rules = game.compile(rules)
specs = [parse_policy(name, game.name) for name in sys.argv[2:]]
game.play_units("kernel", compiled_rules, specs, 1, 0, 1, None)
print(json.dumps(compiled))
"""


def first_compile(tmp_path: Path, rules: str, *policies: str) -> dict[str, list[str]]:
    """Function name -> the signatures a first ``play_units`` of one unit compiled it for: every
    function of fudasim's, and the games' implementations of the round contract's stubs
    (``_apply``, ``_sample_hidden``, ...)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"), PYTHONPATH=str(ROOT))
    env.pop(ALL_KINDS_ENV, None)  # a user's run: the policies its seats play (tests/conftest.py)
    done = subprocess.run([sys.executable, "-c", CHILD, rules, *policies], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    signatures: dict[str, list[str]] = {}
    for name, args in json.loads(done.stdout.splitlines()[-1]):
        signatures.setdefault(name, []).append(args)
    return signatures


def compiled_twice(signatures: dict[str, list[str]]) -> dict[str, list[str]]:
    """The ``*_nb`` functions compiled more than once.  (A stub's implementation that numba
    inlines is compiled, and thrown away, once for each kind of caller: those are not counted.)"""
    return {name: sigs for name, sigs in signatures.items() if name.endswith("_nb") and len(sigs) > 1}


@pytest.mark.slow
@pytest.mark.parametrize("rules, policies", [("tensho-ise", ("random", "greedy")),
                                             ("enshu-c", ("random", "greedy", "random")),
                                             ("koikoi", ("random", "greedy"))],
                         ids=["tensho", "enshu", "koikoi"])
def test_a_fast_kernel_compiles_each_function_once(tmp_path, rules, policies):
    signatures = first_compile(tmp_path, rules, *policies)
    assert any(name.endswith(".play_units_nb") for name in signatures)
    assert compiled_twice(signatures) == {}


@pytest.mark.slow
@pytest.mark.parametrize(
    "rules, policies, left_out, played",
    [
        ("tensho-ise", ("heuristic", "random"), ("sample_hidden_nb", "greedy_choose_nb", "learned_choose_nb"),
         ("heuristic_choose_nb",)),
        ("tensho-ise", ("pimc:worlds=2,rollout=random", "random"), ("heuristic_choose_nb", "greedy_choose_nb"),
         ("sample_hidden_nb",)),
        ("enshu-c", ("heuristic", "random", "random"), ("_sample_hidden", "_greedy_choice", "_rollout_turns"),
         ("heuristic_choose_nb", "_heuristic_choice")),
        ("enshu-c", ("ismcts:iterations=8,rollout=random", "random", "random"),
         ("heuristic_choose_nb", "_heuristic_choice", "_greedy_choice"), ("_sample_hidden", "_rollout_turns")),
        ("koikoi", ("heuristic", "random"), ("greedy_choose_nb", "sample_hidden_nb", "learned_choose_nb"), ()),
    ],
    ids=["tensho-heuristic", "tensho-pimc", "enshu-heuristic", "enshu-ismcts", "koikoi-heuristic"],
)
def test_the_general_kernel_compiles_the_policies_played_each_once(tmp_path, rules, policies, left_out, played):
    signatures = first_compile(tmp_path, rules, *policies)
    assert any(name == "simcore.kernels.units_nb.play_units_nb" for name in signatures)
    assert compiled_twice(signatures) == {}
    names = {name.rsplit(".", 1)[-1] for name in signatures}
    assert not names & set(left_out), names & set(left_out)
    assert set(played) <= names, set(played) - names
