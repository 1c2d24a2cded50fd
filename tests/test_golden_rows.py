"""Golden rows: sha256 digests of the rows of a fixed set of runs, pinned in ``golden_rows.json``.

The parity tests prove that the kernel and the reference engine agree; they cannot see a change
made to both alike, or to the writer. These digests can: every column of every row of each run
below (read back from the Parquet shards the runner wrote) must hash to the pinned value. A
refactor that moves code must leave every digest as it is; a deliberate change of the rows
goes with a new ``ENGINE_VERSION`` and regenerated digests::

    python tests/test_golden_rows.py --regenerate

The runs cover every shipped rule set, every value of every choice option (each against the
defaults, with greedy against random so that the decisions matter), match play, both policy
mixes, one and two threads, shard sizes that do not divide the run, and the reference engine.

Each run's policy texts are read as a dataset records them (``simcore.policies.recorded_text``):
a parameter a text does not name stands for the value it stood for when the digest was pinned,
whatever its default is now. So a pinned ``pimc:worlds=3`` is the pimc of random rollouts it
always was, and a changed default that changed an old dataset's rows would fail here.
"""

from __future__ import annotations

import hashlib
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

GOLDEN_FILE = Path(__file__).with_name("golden_rows.json")
KERNEL_ROUNDS = 1500
REFERENCE_ROUNDS = 120


def _base_runs() -> list[dict]:
    runs = []
    for rules in ("tensho-ise", "tensho-hanafuda"):
        for policies in (("random", "random"), ("greedy", "random"), ("random", "greedy:yaku_set=2")):
            runs.append({"rules": rules, "policies": list(policies)})
        runs.append({"rules": rules, "matches": 120, "rounds_per_match": 12, "policies": ["greedy", "greedy"]})
    for rules, counts in (("enshu-w", (2, 3)), ("enshu-s", (2, 3)), ("enshu-c", (2, 3, 4, 5))):
        for players in counts:
            greedy = ["greedy"] + ["random"] * (players - 1)
            runs.append({"rules": rules, "options": {"enshu.players": str(players)}, "policies": greedy})
        runs.append({"rules": rules, "matches": 60, "rounds_per_match": 12, "policies": ["random", "greedy"]
                     + ["random"] * (max(counts) - 2), "options": {"enshu.players": str(max(counts))}})
    for rules in ("koikoi", "koikoi-kkj"):
        for policies in (("random", "random"), ("greedy", "random"), ("random", "heuristic")):
            runs.append({"rules": rules, "policies": list(policies)})
        runs.append({"rules": rules, "matches": 120, "rounds_per_match": 8, "policies": ["heuristic", "random"]})
    return runs


# Options that act only between the rounds of a match: pinned in match play.
MATCH_OPTIONS = ("tensho.match_tie", "tensho.match_scoring", "enshu.next_dealer", "enshu.s.match_scoring",
                 "koikoi.exhausted_dealer", "koikoi.early_end")


def _option_runs() -> list[dict]:
    """Every non-default value of every choice option, one run each, greedy against random."""
    from simcore.errors import RulesError
    from simcore.games.enshu.options import OPTIONS as ENSHU_OPTIONS
    from simcore.games.koikoi.options import OPTIONS as KOIKOI_OPTIONS
    from simcore.games.tensho.options import OPTIONS as TENSHO_OPTIONS
    from simcore.rules import load_rules

    def applies(rules: str, options: dict[str, str]) -> bool:
        try:
            load_rules(rules, options)
        except RulesError:
            return False  # an option of another variant, or a player count the file refuses
        return True

    runs = []
    for name, spec in TENSHO_OPTIONS.items():
        for value in spec.choices or ():
            if value != spec.default:
                run = {"rules": "tensho-ise", "options": {name: value}, "policies": ["greedy", "random"]}
                runs.append(_in_matches(run) if name in MATCH_OPTIONS else run)
    for name, spec in ENSHU_OPTIONS.items():
        if name == "enshu.players":
            continue
        variant = {"w": "enshu-w", "s": "enshu-s", "c": "enshu-c"}.get(name.split(".")[1], None)
        files = [variant] if variant else ["enshu-w", "enshu-s", "enshu-c"]
        for value in spec.choices or ():
            if value == spec.default:
                continue
            for rules in files:
                players = "2" if name == "enshu.deal_2p" else ("4" if rules == "enshu-c" else "3")
                if not applies(rules, {name: value, "enshu.players": players}):
                    continue
                run = {"rules": rules, "options": {name: value, "enshu.players": players},
                       "policies": ["greedy"] + ["random"] * (int(players) - 1)}
                runs.append(_in_matches(run) if name in MATCH_OPTIONS else run)
    for name, spec in KOIKOI_OPTIONS.items():
        for value in spec.choices or ():
            if value != spec.default:
                run = {"rules": "koikoi", "options": {name: value}, "policies": ["greedy", "random"]}
                runs.append(_in_matches(run) if name in MATCH_OPTIONS else run)
    return runs


def _in_matches(run: dict) -> dict:
    return dict(run, matches=100, rounds_per_match=12)


def _machinery_runs() -> list[dict]:
    """The same run on one and two threads and with odd shard sizes must give the same digest."""
    return [
        {"rules": "tensho-ise", "policies": ["greedy", "random"], "threads": 1, "units_per_shard": 377},
        {"rules": "tensho-ise", "policies": ["greedy", "random"], "threads": 2, "units_per_shard": 1000},
        {"rules": "enshu-c", "options": {"enshu.players": "5"}, "policies": ["greedy"] + ["random"] * 4,
         "threads": 1, "units_per_shard": 333},
        {"rules": "enshu-c", "options": {"enshu.players": "5"}, "policies": ["greedy"] + ["random"] * 4,
         "threads": 2, "units_per_shard": 1000},
        {"rules": "koikoi-kkj", "matches": 120, "rounds_per_match": 8, "policies": ["heuristic", "random"],
         "threads": 1, "units_per_shard": 37},
        {"rules": "koikoi-kkj", "matches": 120, "rounds_per_match": 8, "policies": ["heuristic", "random"],
         "threads": 2, "units_per_shard": 100},
    ]


def _reference_runs() -> list[dict]:
    runs = []
    for rules, players in (("tensho-ise", 2), ("tensho-hanafuda", 2), ("enshu-w", 3), ("enshu-s", 2),
                           ("enshu-c", 5), ("koikoi", 2), ("koikoi-kkj", 2)):
        options = {"enshu.players": str(players)} if rules.startswith("enshu") else {}
        for engine in ("kernel", "reference"):
            runs.append({"rules": rules, "options": options, "policies": ["greedy"] + ["random"] * (players - 1),
                         "engine": engine, "rounds": REFERENCE_ROUNDS})
    return runs


SEARCH_ROUNDS = 40


def _search_runs() -> list[dict]:
    """The general kernel: every policy it plays (heuristic, pimc, ismcts, omniscient), every
    rollout policy and objective, beside random and greedy seats, in rounds and in matches."""
    searches = ("pimc:worlds=3", "pimc:worlds=2,rollout=greedy,objective=score",
                "pimc:worlds=2,rollout=heuristic", "pimc:worlds=3,rollout=greedy,objective=margin",
                "ismcts:iterations=12",
                "ismcts:iterations=10,rollout=greedy,objective=score,c=0.5",
                "ismcts:iterations=8,rollout=heuristic", "omniscient:worlds=2,rollout=greedy",
                # the strong settings' parts: a second stage, a threshold, common draws, paired roots
                "pimc:worlds=4,confirm=8,rollout=heuristic,crn=1,z=1.5", "pimc:worlds=3,rollout=random,crn=1,z=0.5",
                "ismcts:iterations=16,root=paired,tree=own,rollout=heuristic,c=1.4,norm=1,z=1.5,confirm=8",
                "ismcts:iterations=12,tree=own,rollout=greedy,norm=1,z=1,objective=score",
                # a new node's first child the rollout policy's move (random: drawn); progressive widening
                "ismcts:iterations=16,root=paired,tree=own,rollout=heuristic,c=1.4,norm=1,z=1.5,confirm=8,"
                "expand=rollout",
                "ismcts:iterations=12,tree=all,rollout=random,expand=rollout,widen=3",
                "ismcts:iterations=24,root=paired,tree=own,rollout=heuristic,expand=rollout,widen=2,confirm=4",
                # inference: worlds drawn again until the other seats' plays agree with the rollout policy's
                "pimc:worlds=4,confirm=8,rollout=heuristic,crn=1,z=1.5,infer=6",
                "ismcts:iterations=16,root=paired,tree=own,rollout=greedy,confirm=4,infer=4")
    runs = []
    for rules, players in (("tensho-ise", 2), ("tensho-hanafuda", 2), ("enshu-w", 3), ("enshu-s", 2),
                           ("enshu-c", 4), ("koikoi", 2), ("koikoi-kkj", 2)):
        options = {"enshu.players": str(players)} if rules.startswith("enshu") else {}
        others = ["greedy", "random", "heuristic", "random"][:players - 1]
        runs.append({"rules": rules, "options": options, "policies": ["heuristic"] + others,
                     "rounds": 10 * SEARCH_ROUNDS})
        for search in searches:
            runs.append({"rules": rules, "options": options, "policies": [search] + others,
                         "rounds": SEARCH_ROUNDS})
        runs.append({"rules": rules, "options": options, "matches": 4, "rounds_per_match": 3,
                     "policies": others[::-1] + ["pimc:worlds=2,rollout=heuristic"]})
    runs.append({"rules": "enshu-c", "options": {"enshu.players": "5"}, "rounds": SEARCH_ROUNDS,
                 "policies": ["ismcts:iterations=8", "heuristic", "pimc:worlds=2", "greedy", "random"]})
    return runs


def golden_runs() -> list[dict]:
    """Every pinned run, each a dict of ``RunConfig`` fields (plus ``rounds`` defaults)."""
    return _base_runs() + _option_runs() + _machinery_runs() + _reference_runs() + _search_runs()


def run_key(spec: dict) -> str:
    """The run's name in ``golden_rows.json``: what changes rows (not threads, shards or engine)."""
    parts = [spec["rules"]]
    for name, value in sorted(spec.get("options", {}).items()):
        parts.append(f"{name}={value}")
    if "matches" in spec:
        parts.append(f"matches={spec['matches']}x{spec['rounds_per_match']}")
    else:
        parts.append(f"rounds={spec.get('rounds', KERNEL_ROUNDS)}")
    parts.append("policies=" + "/".join(spec["policies"]))
    return " ".join(parts)


def rows_digest(out: Path) -> str:
    """sha256 over every column of every row of a dataset, in schema order, shards in name order.

    Dictionary columns hash their decoded strings, so the digest names what a reader sees.
    """
    tables = [pq.read_table(path) for path in sorted(out.glob("part-*.parquet"))]
    table = pa.concat_tables(tables)
    digest = hashlib.sha256()
    for field in table.schema:
        column = table.column(field.name).combine_chunks()
        digest.update(f"{field.name}:{field.type}:{len(column)}\n".encode())
        if pa.types.is_dictionary(field.type):
            digest.update("\x1f".join(str(v) for v in column.to_pylist()).encode())
        else:
            digest.update(np.ascontiguousarray(column.to_numpy(zero_copy_only=False)).tobytes())
    return digest.hexdigest()


def play(spec: dict, out: Path) -> str:
    """Run one pinned run into ``out`` and return its rows' digest."""
    from simcore.policies import HiddenCardsWarning, recorded_text
    from simcore.rules import load_rules
    from simcore.run.runner import RunConfig, run

    game = load_rules(spec["rules"], dict(spec.get("options", {}))).game
    config = RunConfig(
        rules=spec["rules"], options=dict(spec.get("options", {})), seed=20261201,
        rounds=None if "matches" in spec else spec.get("rounds", KERNEL_ROUNDS),
        matches=spec.get("matches"), rounds_per_match=spec.get("rounds_per_match"),
        policies=tuple(recorded_text(text, game) for text in spec["policies"]), engine=spec.get("engine", "kernel"),
        threads=spec.get("threads"), units_per_shard=spec.get("units_per_shard", 500), out=str(out),
    )
    with warnings.catch_warnings():  # an omniscient seat is announced; its rows are pinned all the same
        warnings.simplefilter("ignore", HiddenCardsWarning)
        run(config)
    return rows_digest(out)


def _pinned() -> dict[str, str]:
    return json.loads(GOLDEN_FILE.read_text(encoding="utf-8"))


def _id(spec: dict) -> str:
    extra = [f"{k}={spec[k]}" for k in ("engine", "threads", "units_per_shard") if k in spec]
    return " ".join([run_key(spec)] + extra)


def _marked_runs() -> list:
    """Every pinned run; the option, reference-engine and search runs are marked slow (the base and
    machinery runs of every game stay in the fast subset, ``-m "not slow"``)."""
    slow = [pytest.param(spec, marks=pytest.mark.slow)
            for spec in _option_runs() + _reference_runs() + _search_runs()]
    return [*_base_runs(), *_machinery_runs(), *slow]


@pytest.mark.parametrize("spec", _marked_runs(), ids=_id)
def test_rows_match_the_pinned_digest(spec, tmp_path):
    pinned = _pinned()
    key = run_key(spec)
    assert key in pinned, f"no pinned digest for {key!r}: regenerate golden_rows.json"
    assert play(spec, tmp_path / "run") == pinned[key]


@pytest.mark.slow
def test_the_pinned_digests_tell_runs_apart():
    """A digest that several runs share would hide a change: the options must all matter."""
    pinned = _pinned()
    assert set(pinned) == {run_key(spec) for spec in golden_runs()}
    assert len(_marked_runs()) == len(golden_runs())  # every pinned run is also checked
    values = list(pinned.values())
    # A few option values change no row in a short greedy run (e.g. a tie-break that never
    # decides); most must. The count is pinned so that a collapse of the digests is noticed.
    assert len(set(values)) >= 0.8 * len(values)


def _regenerate(missing_only: bool = False) -> None:
    import tempfile

    digests: dict[str, str] = _pinned() if missing_only else {}
    with tempfile.TemporaryDirectory() as directory:
        for number, spec in enumerate(golden_runs()):
            if missing_only and run_key(spec) in digests:
                continue
            digest = play(spec, Path(directory) / f"run{number}")
            key = run_key(spec)
            if digests.setdefault(key, digest) != digest:
                raise SystemExit(f"{key}: runs that must agree gave different rows")
    GOLDEN_FILE.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(digests)} digests written to {GOLDEN_FILE}")


if __name__ == "__main__":
    if sys.argv[1:] not in (["--regenerate"], ["--add-missing"]):
        raise SystemExit("usage: python tests/test_golden_rows.py --regenerate | --add-missing")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    _regenerate(missing_only=sys.argv[1] == "--add-missing")
