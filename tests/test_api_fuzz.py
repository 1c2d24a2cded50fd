"""Fuzzed calls of the Python API: each returns, or raises ``FudasimError`` with one line.

``fudasim.run``, ``fudasim.load`` and ``fudasim.open_dataset`` get arguments drawn from values
that are valid, out of range, of the wrong type (a float count, a string seed, a list of
options), or paths that are empty, missing, not datasets or not folders, as
``tests/test_cli_fuzz.py`` does for the command line.  A call that returns wrote a dataset that
the library reads back (whole-number counts in its manifest); a call that raises left an existing
dataset as it was.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fudasim
from simcore.dataset import RUN_FILE, read_manifest


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    """A small dataset, a summary run, a plain folder and a file that is not a rule file."""
    base = tmp_path_factory.mktemp("api-fuzz")
    fudasim.run("tensho-ise", rounds=12, seed=3, out=base / "dataset")
    fudasim.run("tensho-ise", rounds=12, seed=3, out=base / "summary", summary=True)
    (base / "dir").mkdir()
    (base / "garbage.toml").write_bytes(b"\x00\xff[[[ = \n")
    return base


# "{name}" is a path under the fixture's folder; "{out}" a fresh folder for this call.
RUN_VALUES = {
    "rules": ["tensho-ise", "nope", "", 5, None, "{garbage.toml}", "{dir}", Path("tensho-ise")],
    "rounds": [None, 1, 3, np.int64(2), 0, -1, 1.5, "3", "abc", True],
    "matches": [None, 1, 2, 0, 2.0, "x"],
    "rounds_per_match": [None, 1, 2, 0, 1.5, 1001],
    "seed": [0, 7, np.uint64(5), -1, 2**64 - 1, 2**64, 1.5, "1", None, False],
    "policies": [None, {0: "greedy"}, ["random", "greedy"], ("greedy",), {0: "nonsense"}, "greedy",
                 {"0": "greedy"}, {0: None}, [1], 5, {5: "greedy"}, {-1: "greedy"}, {True: "greedy"}],
    "options": [None, {"tensho.triple_match": "one"}, {"tensho.triple_match": "some"}, {"nope": 1}, {1: 2},
                [("tensho.triple_match", "one")], {"tensho.rounds": 2}, {"tensho.triple_match": None},
                {"tensho.capture_mandatory": True}],
    "players": [None, 2, 3, 1, 2.5, "2"],
    "out": ["{out}", "", 5, "{garbage.toml}", "{dataset}", "{dir}"],
    "engine": ["kernel", "reference", "gpu", 5, None],
    "threads": [None, 1, 0, 1.5, "1"],
    "resume": [False, True, "no", None, 1],
    "overwrite": [False, "yes", 0],
    "shard_rounds": [None, 1, 5, 0, "1", 2.5],
    "progress": [False, None, "x"],
    "scheduler": [None, 5, "", "foo://bar", "tcp://"],
    "summary": [False, True, "y"],
    "paired_with": [None, 5, "", "{missing}"],
}
LOAD_VALUES = {
    "path": ["{dataset}", "{summary}", "{dir}", "{missing}", "", 5, None, "{garbage.toml}"],
    "columns": [None, ["winner"], ("winner", "payoff_0"), [], "winner", [1], ["nope"], 5],
    "yaku": ["bits", "names", "both", "english", 5, None],
    "cards": [False, True, "y", None],
    "allow_incomplete": [False, True, 1, "no"],
}


def _fill(value, base: Path, out: Path):
    if isinstance(value, str) and value.startswith("{"):
        return out if value == "{out}" else base / value[1:-1]
    return value


def _one_line_error(error: BaseException) -> None:
    assert isinstance(error, fudasim.FudasimError), repr(error)
    assert str(error) and "\n" not in str(error), repr(error)


@st.composite
def run_calls(draw):
    names = draw(st.lists(st.sampled_from(sorted(RUN_VALUES)), max_size=5, unique=True))
    kwargs = {name: draw(st.sampled_from(RUN_VALUES[name])) for name in names}
    if "rounds" not in kwargs and "matches" not in kwargs:
        kwargs["rounds"] = 3  # keep every run small
    if "matches" in kwargs and "rounds_per_match" not in kwargs:
        kwargs["rounds_per_match"] = 2
    kwargs.setdefault("out", "{out}")
    return kwargs


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(run_calls())
@pytest.mark.slow
def test_fuzzed_runs_return_or_raise_one_line(places, tmp_path_factory, kwargs):
    out = tmp_path_factory.mktemp("call") / "out"
    given_args = {name: _fill(value, places, out) for name, value in kwargs.items()}
    rules = given_args.pop("rules", "tensho-ise")
    manifest_before = (places / "dataset" / RUN_FILE).read_bytes()
    try:
        run = fudasim.run(rules, **given_args)
    except Exception as error:  # noqa: BLE001 - what is raised is the point
        _one_line_error(error)
        assert (places / "dataset" / RUN_FILE).read_bytes() == manifest_before, "a refused call changed a dataset"
        return
    manifest = read_manifest(run.path)
    assert all(type(manifest[key]) is int for key in ("seed", "units", "units_per_shard", "shards"))
    if not manifest.get("summary"):
        assert len(fudasim.load(run.path, ["round"])) == run.rounds


@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.fixed_dictionaries({}, optional={name: st.sampled_from(values) for name, values in LOAD_VALUES.items()}),
       st.booleans())
def test_fuzzed_loads_return_a_frame_or_raise_one_line(places, kwargs, as_dataset):
    given_args = {name: _fill(value, places, places / "unused") for name, value in kwargs.items()}
    path = given_args.pop("path", places / "dataset")
    try:
        if as_dataset:
            opened = fudasim.open_dataset(path, **({"allow_incomplete": given_args["allow_incomplete"]}
                                                   if "allow_incomplete" in given_args else {}))
            assert opened.schema.names
        else:
            frame = fudasim.load(path, **given_args)
            assert isinstance(frame, pd.DataFrame) and len(frame) == 12
    except Exception as error:  # noqa: BLE001 - what is raised is the point
        _one_line_error(error)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"rounds": 1.5}, "rounds=1.5: expected a whole number"),
    ({"rounds": "abc"}, "rounds='abc': expected a whole number"),
    ({"seed": "1"}, "seed='1': expected a whole number"),
    ({"threads": 1.5}, "threads=1.5"),
    ({"out": ""}, "out='': an empty path"),
    ({"options": [("tensho.triple_match", "one")]}, "options=[("),
    ({"summary": "yes"}, "summary='yes': expected True or False"),
])
def test_a_bad_argument_is_named_before_anything_is_written(tmp_path, monkeypatch, kwargs, message):
    monkeypatch.chdir(tmp_path)
    kwargs = {"rounds": 10, "out": tmp_path / "out", **kwargs}
    with pytest.raises(fudasim.FudasimError, match=message.replace("(", r"\(").replace("[", r"\[")):
        fudasim.run("tensho-ise", **kwargs)
    assert list(tmp_path.iterdir()) == []
