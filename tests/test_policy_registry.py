"""The policy registry: names, parameters, which games and engines offer each policy.

A policy a game's kernel does not implement is refused before a run starts (and by the kernel
wrapper for any other caller), never played as another policy.
"""

from __future__ import annotations

import pytest

import simcore.games as games
from simcore.games.enshu import enums as EE
from simcore.games.enshu.kernel import policy_arrays as enshu_policy_arrays
from simcore.games.tensho import enums as E
from simcore.games.tensho.kernel import policy_arrays as tensho_policy_arrays
from simcore.policies import (
    POLICY_KINDS,
    ParamSpec,
    PolicyError,
    PolicyKind,
    PolicySupport,
    check_engine,
    parse_policy,
    policy_table,
)
from simcore.run.runner import RunConfig, run


def test_every_registered_policy_has_its_own_kernel_id():
    ids = [kind.policy_id for kind in POLICY_KINDS.values()]
    assert len(set(ids)) == len(ids)
    assert POLICY_KINDS["random"].policy_id == E.POLICY_RANDOM == EE.POLICY_RANDOM
    assert POLICY_KINDS["greedy"].policy_id == E.POLICY_GREEDY == EE.POLICY_GREEDY


def test_parameters_come_from_the_registry_and_the_game():
    spec = parse_policy("greedy:yaku_set=2", "tensho")
    assert spec.params == {"yaku_set": 2} and str(spec) == "greedy:yaku_set=2"
    assert str(parse_policy("greedy:yaku_set=1", "tensho")) == "greedy"  # defaults are not named
    assert parse_policy("greedy", "enshu").params == {}
    with pytest.raises(PolicyError, match="parameter yaku_set applies to tensho only, not to enshu"):
        parse_policy("greedy:yaku_set=2", "enshu")
    with pytest.raises(PolicyError, match=r"yaku_set=3 is not one of \(1, 2\)"):
        parse_policy("greedy:yaku_set=3")
    with pytest.raises(PolicyError, match="unknown policy 'bogus' \\(known: random, greedy"):
        parse_policy("bogus")
    with pytest.raises(PolicyError, match="unknown parameter 'depth=2' \\(parameters: none\\)"):
        parse_policy("random:depth=2", "tensho")


def test_a_parameter_is_parsed_by_its_kind_and_range():
    worlds = ParamSpec("worlds", 32, minimum=1, maximum=4096)
    assert worlds.parse("p", "64") == 64
    with pytest.raises(PolicyError, match="worlds must be an integer, got 'many'"):
        worlds.parse("p", "many")
    with pytest.raises(PolicyError, match="worlds=0 is outside 1..4096"):
        worlds.parse("p", "0")
    c = ParamSpec("c", 0.7, kind=float, minimum=0.0)
    assert c.parse("p", "1.5") == 1.5
    rollout = ParamSpec("rollout", "random", kind=str, choices=("random", "greedy"))
    with pytest.raises(PolicyError, match="rollout=best is not one of"):
        rollout.parse("p", "best")
    assert worlds.describe() == "worlds=32 (1..4096)" and rollout.describe() == "rollout=random (random|greedy)"


@pytest.fixture
def reference_only_policy(monkeypatch):
    """A policy that Tensho offers in the reference engine only, with a kernel id no kernel knows."""
    monkeypatch.setitem(POLICY_KINDS, "lookahead", PolicyKind("lookahead", 99, "a test policy"))
    tensho = games.get_game("tensho")
    offered = tensho.policies + (("lookahead", PolicySupport(engines=("reference",))),)
    monkeypatch.setattr(tensho, "policies", offered)  # the instance's own, undone after the test
    return "lookahead"


def test_a_policy_the_kernel_lacks_is_refused_before_the_run_starts(reference_only_policy, tmp_path):
    spec = parse_policy(reference_only_policy, "tensho")
    check_engine(spec, "tensho", "reference")
    with pytest.raises(PolicyError, match="the kernel engine does not implement it for tensho"):
        check_engine(spec, "tensho", "kernel")
    out = tmp_path / "run"
    with pytest.raises(PolicyError, match="lookahead: the kernel engine does not implement it"):
        run(RunConfig(rules="tensho-ise", rounds=10, policies=("lookahead", "random"), out=str(out)))
    assert not out.exists()
    with pytest.raises(PolicyError, match="not offered for enshu"):
        parse_policy(reference_only_policy, "enshu")
    assert "lookahead" in policy_table("tensho") and "lookahead" not in policy_table("enshu")


def test_the_kernel_wrappers_refuse_an_id_they_do_not_implement(reference_only_policy):
    spec = parse_policy(reference_only_policy)
    with pytest.raises(PolicyError, match="the Tensho kernel does not implement it"):
        tensho_policy_arrays([spec, parse_policy("random")])
    with pytest.raises(PolicyError, match="the Enshu-bana kernel does not implement it"):
        enshu_policy_arrays([spec, parse_policy("random"), parse_policy("random")], 3)
