"""The Enshu-bana general kernel: its state machine against ``reference.RoundState``, its rows
against the fast kernel (random and greedy) and against the reference engine (search players).

* ``state_nb`` pauses where the reference pauses, with the same action keys
  (``reference.action_key``) and the same packed observation (``heuristic_nb.pack_observation``),
  and ends with the same row, on every shipped rule set and player count and under the options
  that change the order of play;
* ``sample_hidden_nb`` deals the same world as ``RoundState.sample_hidden`` from the same stream
  (the same hands, draw pile, set-aside cards and pending decision, the stream left in the same
  state), and both worlds play on to the same row (their own deal and rules streams agree);
* the general kernel writes the fast kernel's rows for random and greedy seats, independent
  rounds and match play;
* with ``heuristic``, ``pimc`` and ``ismcts`` seats (rollouts of every kind) it writes the
  reference engine's rows (small search budgets: the reference search is slow).
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import numba
import numpy as np
import pytest
from test_enshu_kernel_parity import PLAY_CHANGING_OPTIONS, _option_id

from simcore.games.enshu import enums as E
from simcore.games.enshu import state_nb as S
from simcore.games.enshu.compile import compile_rules
from simcore.games.enshu.decisions import action_key
from simcore.games.enshu.heuristic_nb import OBS_SIZE, pack_observation
from simcore.games.enshu.kernel import play_units, play_units_general, rule_tables
from simcore.games.enshu.record import LAYOUT
from simcore.games.enshu.reference import RoundSetup, new_state
from simcore.games.enshu.reference import play_units as reference_play_units
from simcore.kernels.internal import python_entry
from simcore.policies import parse_policy
from simcore.record import C_MATCH, C_MATCH_END, C_ROUND_IN_MATCH
from simcore.rng import Stream
from simcore.rules.loader import load_rules

# the kernel's parts compiled for numba callers only, called from here through python_entry
S_ = SimpleNamespace(**{name: python_entry(getattr(S, name)) for name in ("observe_nb", "new_workspace_nb")})

PLAYER_COUNTS = {"enshu-w": (2, 3), "enshu-s": (2, 3), "enshu-c": (2, 3, 4, 5)}
GRID = [(rules, players) for rules, counts in PLAYER_COUNTS.items() for players in counts]
GRID_IDS = [f"{rules[6:]}-{players}p" for rules, players in GRID]

# options that change where the round pauses or what it asks
ORDER_OPTIONS = [
    ("enshu-w", 3, {"enshu.w.triplet_declare": "always"}),
    ("enshu-w", 3, {"enshu.uchikiri_check": "after_each_capture", "enshu.capture_three": "one"}),
    ("enshu-s", 3, {"enshu.s.teyaku": "off"}),
    ("enshu-c", 3, {"enshu.c.kotsu_small_games": "false", "enshu.c.fuke_on_uchikiri": "true"}),
    ("enshu-c", 5, {"enshu.c.dropped_hands": "set_aside", "enshu.c.exposure": "junk_only_for_group_B"}),
    ("enshu-c", 4, {"enshu.c.icp_four_check": "at_teyaku_active_hands", "enshu.c.dropout_pass_cap": 1}),
]
ORDER_IDS = [f"{r[6:]}-{n}p-" + ",".join(f"{k[6:]}={v}" for k, v in o.items()) for r, n, o in ORDER_OPTIONS]


def compiled_for(rules: str, players: int, options: dict | None = None):
    return compile_rules(load_rules(rules, {"enshu.players": players, **(options or {})}))


class Machine:
    """A ``state_nb`` round driven from Python (the arrays and the scratch it needs)."""

    def __init__(self, compiled) -> None:
        self.rt = rule_tables(compiled)
        self.ws = S_.new_workspace_nb(self.rt[8].shape[1])
        self.si, self.sm = S.new_state_arrays()

    def start(self, setup: RoundSetup) -> Machine:
        points = np.zeros(E.MAX_SEATS, dtype=np.int64)
        points[:len(setup.match_points)] = setup.match_points
        S.new_round_nb(self.si, self.sm, self.rt, self.ws, np.uint64(setup.seed), np.int64(setup.round_index),
                       np.int64(setup.dealer), np.int64(setup.match), np.int64(setup.round_in_match), points)
        return self

    def keys(self) -> list[int]:
        return [int(k) for k in self.si[S.I_KEYS:S.I_KEYS + self.si[S.I_PEND_N]]]

    def done(self) -> bool:
        return bool(self.si[S.I_DONE])

    def apply(self, index: int) -> None:
        S.apply_nb(self.si, self.sm, self.rt, self.ws, np.int64(index))

    def observe(self, seat: int) -> np.ndarray:
        obs = np.zeros(OBS_SIZE, dtype=np.int64)
        S_.observe_nb(self.si, self.sm, self.rt, np.int64(seat), obs)
        return obs

    def sample_hidden(self, seat: int, stream: Stream) -> tuple[Machine, list[int]]:
        """The world for ``seat`` drawn from (a copy of) ``stream``; returns it and the stream's
        state words afterwards."""
        words = np.array(stream.s, dtype=np.uint64)
        other = Machine.__new__(Machine)
        other.rt, other.ws = self.rt, self.ws
        other.si, other.sm = S.new_state_arrays()
        S.sample_hidden_nb(self.si, self.sm, self.rt, self.ws, np.int64(seat), words, np.int64(0), other.si, other.sm)
        return other, [int(w) for w in words]

    def row(self) -> tuple[np.ndarray, np.ndarray]:
        ints = np.zeros((E.N_INT_COLUMNS, 1), dtype=np.int64)
        masks = np.zeros((E.N_MASK_COLUMNS, 1), dtype=np.uint64)
        S.write_row_nb(self.si, self.sm, self.rt, ints, masks, np.int64(0))
        return ints, masks


def reference_row(state) -> tuple[np.ndarray, np.ndarray]:
    ints = np.zeros((E.N_INT_COLUMNS, 1), dtype=np.int64)
    masks = np.zeros((E.N_MASK_COLUMNS, 1), dtype=np.uint64)
    state.result.match_points = [0] * state.result.players  # the unit loop's
    LAYOUT.fill_row(ints, masks, 0, state.result)
    # the match columns are the unit loop's
    for column in (C_MATCH, C_ROUND_IN_MATCH, C_MATCH_END):
        ints[column, 0] = 0
    ints[E.C_MATCH_POINTS:E.C_MATCH_POINTS + E.MAX_SEATS, 0] = 0
    return ints, masks


def assert_same_pause(state, machine: Machine, where: str) -> None:
    decision = state.decision()
    assert machine.done() == (decision is None), where
    if decision is None:
        return
    assert int(machine.si[S.I_PEND_SEAT]) == decision.seat, where
    assert machine.keys() == [action_key(decision, a) for a in decision.actions], where
    card, source = (decision.info["card"], decision.info["source"]) if decision.kind == "capture" else (-1, None)
    for seat in range(state.n):
        expected = pack_observation(state.observe(seat), card, source)
        np.testing.assert_array_equal(machine.observe(seat), expected, err_msg=f"{where}, seat {seat}")


def assert_same_end(state, machine: Machine, where: str) -> None:
    want_ints, want_masks = reference_row(state)
    ints, masks = machine.row()
    np.testing.assert_array_equal(ints, want_ints, err_msg=where)
    np.testing.assert_array_equal(masks, want_masks, err_msg=where)


def play_both(state, machine: Machine, rng: random.Random, where: str, on_pause=None) -> None:
    """Play the reference state and the machine with the same (arbitrary) choices to the end."""
    step = 0
    while True:
        assert_same_pause(state, machine, f"{where}, pause {step}")
        decision = state.decision()
        if decision is None:
            break
        if on_pause is not None:
            on_pause(state, machine, step)
        index = rng.randrange(len(decision.actions))
        state.apply(decision.actions[index])
        machine.apply(index)
        step += 1
    assert_same_end(state, machine, where)


def lockstep(compiled, rounds: int, seed: int, on_pause=None) -> None:
    machine = Machine(compiled)
    players = compiled.players
    for r in range(rounds):
        setup = RoundSetup(seed=seed, round_index=r, match=r // 3, round_in_match=r % 3, dealer=r % players,
                                match_points=tuple((r * 7 + 3 * s) % 11 - 5 for s in range(players)))
        state = new_state(compiled, setup)
        machine.start(setup)
        play_both(state, machine, random.Random(seed * 1000 + r), f"round {r}", on_pause)


@pytest.mark.parametrize("rules, players", GRID, ids=GRID_IDS)
@pytest.mark.slow
def test_state_machine_pauses_with_the_reference_keys_and_observations(rules, players):
    lockstep(compiled_for(rules, players), rounds=40, seed=5)


@pytest.mark.parametrize("rules, players, options", ORDER_OPTIONS, ids=ORDER_IDS)
@pytest.mark.slow
def test_state_machine_follows_the_reference_under_options_that_change_the_order(rules, players, options):
    lockstep(compiled_for(rules, players, options), rounds=30, seed=17)


@pytest.mark.parametrize("case", PLAY_CHANGING_OPTIONS, ids=[_option_id(case) for case in PLAY_CHANGING_OPTIONS])
@pytest.mark.slow
def test_state_machine_follows_the_reference_under_every_option_that_changes_play(case):
    rules, players, options = case
    lockstep(compiled_for(rules, players, options), rounds=12, seed=41)


def check_sample_hidden(compiled, rounds: int, seed: int) -> None:
    """At some pauses, a world for some seat: the same in both engines, and both play on alike."""
    picker = random.Random(seed)
    checked = []

    def on_pause(state, machine, step):
        if picker.random() > 0.3:
            return
        seat = picker.randrange(state.n)
        stream = Stream(seed, 10_000 + step, 99)
        mirror = Stream(seed, 10_000 + step, 99)
        world = state.sample_hidden(seat, stream)
        machine_world, words = machine.sample_hidden(seat, mirror)
        assert words == stream.s, "the stream is left in another state"
        for s in range(state.n):
            assert int(machine_world.sm[S.M_HANDS + s]) == world.hands[s]
            assert int(machine_world.sm[S.M_HAND_DEALT + s]) == world.hand_dealt[s]
            assert int(machine_world.sm[S.M_TEYAKU_DEALT + s]) == world.teyaku_dealt[s]
        start, length = machine_world.si[S.I_DRAW_START], machine_world.si[S.I_DRAW_LEN]
        assert [int(c) for c in machine_world.si[S.I_DRAW + start:S.I_DRAW + start + length]] == world.draw
        assert int(machine_world.sm[S.M_SET_ASIDE]) == world.set_aside
        checked.append(seat)
        play_both(world, machine_world, random.Random(step), f"world at pause {step} for seat {seat}")

    lockstep(compiled, rounds, seed, on_pause)
    assert len(set(checked)) == compiled.players


@pytest.mark.parametrize("rules, players", GRID, ids=GRID_IDS)
@pytest.mark.slow
def test_sample_hidden_deals_the_reference_world(rules, players):
    check_sample_hidden(compiled_for(rules, players), rounds=6, seed=31)


@pytest.mark.parametrize("case", PLAY_CHANGING_OPTIONS, ids=[_option_id(case) for case in PLAY_CHANGING_OPTIONS])
@pytest.mark.slow
def test_sample_hidden_deals_the_reference_world_under_every_option_that_changes_play(case):
    rules, players, options = case
    check_sample_hidden(compiled_for(rules, players, options), rounds=4, seed=37)


def mixed(players: int, first: str, second: str) -> list:
    return [parse_policy(first if s % 2 == 0 else second) for s in range(players)]


@pytest.mark.parametrize("rounds_per_match", [None, 4])
@pytest.mark.parametrize("rules, players", GRID, ids=GRID_IDS)
@pytest.mark.slow
def test_general_kernel_writes_the_fast_kernel_rows_for_random_and_greedy(rules, players, rounds_per_match):
    compiled = compiled_for(rules, players)
    units = 400 if rounds_per_match is None else 100
    for specs in (mixed(players, "random", "greedy"), mixed(players, "greedy", "random"),
                  mixed(players, "greedy", "greedy")):
        fast = play_units(compiled, specs, 3, 10, units, rounds_per_match)
        general = play_units_general(compiled, specs, 3, 10, units, rounds_per_match)
        np.testing.assert_array_equal(general[0], fast[0])
        np.testing.assert_array_equal(general[1], fast[1])


@pytest.mark.parametrize("case", PLAY_CHANGING_OPTIONS, ids=[_option_id(case) for case in PLAY_CHANGING_OPTIONS])
@pytest.mark.slow
def test_general_kernel_writes_the_fast_kernel_rows_under_every_option_that_changes_play(case):
    rules, players, options = case
    compiled = compiled_for(rules, players, options)
    specs = mixed(players, "random", "greedy")
    fast = play_units(compiled, specs, 8, 0, 300, None)
    general = play_units_general(compiled, specs, 8, 0, 300, None)
    np.testing.assert_array_equal(general[0], fast[0])
    np.testing.assert_array_equal(general[1], fast[1])


SEARCH_MIXES = [
    ("enshu-w", 3, ["pimc:worlds=2", "greedy", "random"], None, 4),
    ("enshu-w", 2, ["ismcts:iterations=8", "pimc:worlds=2,rollout=greedy"], None, 3),
    ("enshu-s", 3, ["random", "ismcts:iterations=8,rollout=greedy", "greedy"], None, 3),
    ("enshu-c", 3, ["pimc:worlds=2,objective=win", "greedy", "ismcts:iterations=8,c=1.5"], None, 3),
    ("enshu-c", 5, ["pimc:worlds=2", "greedy", "random", "ismcts:iterations=8", "random"], None, 2),
    ("enshu-s", 2, ["pimc:worlds=2,rollout=greedy", "ismcts:iterations=8,objective=win"], 2, 2),
    ("enshu-w", 3, ["pimc:worlds=2,rollout=heuristic", "greedy", "ismcts:iterations=8,rollout=heuristic"], None, 2),
    ("enshu-c", 4, ["heuristic:deny_weight=0", "pimc:worlds=2,rollout=heuristic", "greedy", "heuristic"], None, 2),
    ("enshu-c", 3, ["omniscient:worlds=2", "pimc:worlds=2", "greedy"], None, 3),
    ("enshu-w", 2, ["omniscient:worlds=3,rollout=greedy", "heuristic"], 2, 2),
    ("enshu-s", 3, ["pimc:worlds=3,rollout=random,crn=1,z=0", "heuristic", "greedy"], None, 3),
    ("enshu-c", 3, ["pimc:worlds=5,rollout=heuristic,z=1.0", "greedy", "omniscient:worlds=2,rollout=random,crn=1,z=0.5"],
     None, 3),
    ("enshu-w", 3, ["ismcts:iterations=12,norm=1,c=1.4,rollout=heuristic", "greedy", "pimc:worlds=4,z=0.7"], None, 2),
    ("enshu-c", 3, ["pimc:worlds=2,confirm=4,rollout=heuristic,z=0.5", "pimc:worlds=3,confirm=2,crn=1", "greedy"],
     None, 3),
    ("enshu-c", 5, ["ismcts:iterations=14,tree=own,rollout=heuristic,norm=1,z=0.5", "heuristic", "greedy",
                    "ismcts:iterations=10,tree=own,rollout=greedy", "random"], None, 2),
    ("enshu-w", 2, ["ismcts:iterations=12,tree=own,rollout=random", "greedy"], 2, 2),
    ("enshu-s", 3, ["ismcts:iterations=20,root=paired,tree=own,rollout=heuristic,norm=1,z=0.5", "greedy",
                    "ismcts:iterations=7,root=paired,rollout=random"], None, 2),
    ("enshu-c", 3, ["ismcts:iterations=10,root=paired,tree=own,rollout=heuristic,norm=1,z=0.5,confirm=5", "heuristic",
                    "ismcts:iterations=6,root=paired,confirm=4,tree=all,rollout=greedy"], None, 2),
    ("enshu-c", 5, ["ismcts:iterations=10,norm=1,objective=score", "heuristic", "random", "greedy", "heuristic"], None, 2),
    ("enshu-s", 2, ["ismcts:iterations=16,norm=1,z=0.5,rollout=heuristic", "ismcts:iterations=12,z=1,rollout=greedy"],
     None, 3),
]


@pytest.mark.parametrize("rules, players, policies, rounds_per_match, units", SEARCH_MIXES,
                         ids=[f"{r[6:]}-{n}p-" + "-".join(p) for r, n, p, _, _ in SEARCH_MIXES])
@pytest.mark.slow
def test_general_kernel_writes_the_reference_rows_with_search_players(rules, players, policies, rounds_per_match,
                                                                      units):
    compiled = compiled_for(rules, players)
    specs = [parse_policy(p, "enshu") for p in policies]
    kernel = play_units(compiled, specs, 12, 5, units, rounds_per_match)
    reference = reference_play_units(compiled, specs, 12, 5, units, rounds_per_match)
    np.testing.assert_array_equal(kernel[0], reference[0])
    np.testing.assert_array_equal(kernel[1], reference[1])


@pytest.mark.parametrize("rounds_per_match", [None, 3])
@pytest.mark.parametrize("rules, players", GRID, ids=GRID_IDS)
@pytest.mark.slow
def test_general_kernel_writes_the_reference_rows_with_heuristic_seats(rules, players, rounds_per_match):
    compiled = compiled_for(rules, players)
    for first, second in (("heuristic", "random"), ("greedy", "heuristic:card_weight=300,field_risk=0")):
        specs = [parse_policy(p, "enshu") for p in (first, second, first, second, first)[:players]]
        units = 60 if rounds_per_match is None else 15
        kernel = play_units(compiled, specs, 21, 3, units, rounds_per_match)
        reference = reference_play_units(compiled, specs, 21, 3, units, rounds_per_match)
        np.testing.assert_array_equal(kernel[0], reference[0])
        np.testing.assert_array_equal(kernel[1], reference[1])


@pytest.mark.parametrize("rules, players, options", ORDER_OPTIONS, ids=ORDER_IDS)
@pytest.mark.slow
def test_general_kernel_writes_the_reference_rows_with_heuristic_seats_under_options(rules, players, options):
    compiled = compiled_for(rules, players, options)
    specs = [parse_policy("heuristic" if s % 2 == 0 else "random", "enshu") for s in range(players)]
    kernel = play_units(compiled, specs, 2, 0, 60, None)
    reference = reference_play_units(compiled, specs, 2, 0, 60, None)
    np.testing.assert_array_equal(kernel[0], reference[0])
    np.testing.assert_array_equal(kernel[1], reference[1])


def test_search_rows_do_not_depend_on_the_thread_count():
    compiled = compiled_for("enshu-c", 4)
    specs = [parse_policy(p, "enshu") for p in ("pimc:worlds=3", "heuristic", "ismcts:iterations=16", "greedy")]
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = play_units(compiled, specs, 6, 0, 16, None)
    finally:
        numba.set_num_threads(threads)
    many = play_units(compiled, specs, 6, 0, 16, None)
    for k in range(2):
        np.testing.assert_array_equal(one[k], many[k])


def test_search_rows_do_not_depend_on_how_units_are_split():
    compiled = compiled_for("enshu-w", 3)
    specs = [parse_policy(p, "enshu") for p in ("pimc:worlds=3", "ismcts:iterations=20", "greedy")]
    whole = play_units(compiled, specs, 4, 0, 12, None)
    parts = [play_units(compiled, specs, 4, 0, 5, None), play_units(compiled, specs, 4, 5, 7, None)]
    for k in range(2):
        np.testing.assert_array_equal(whole[k], np.concatenate([parts[0][k], parts[1][k]], axis=1))


def test_the_general_kernel_compiles_one_signature_per_set_of_policy_kinds(monkeypatch):
    from simcore.games.enshu.kernel import _general_args
    from simcore.games.enshu.state_nb import EnshuRules
    from simcore.kernels.policy_rows import ALL_KINDS_ENV, PolicyKinds
    from simcore.kernels.units_nb import play_units_nb

    runs = [(compiled_for("enshu-w", 2), [parse_policy("random"), parse_policy("heuristic", "enshu")]),
            (compiled_for("enshu-c", 4), [parse_policy(p, "enshu") for p in ("heuristic", "random") * 2]),
            (compiled_for("enshu-c", 5, {"enshu.c.dropped_hands": "set_aside"}),
             [parse_policy(p, "enshu") for p in ("ismcts:iterations=4", "greedy", "pimc:worlds=1", "random",
                                                 "omniscient:worlds=1")])]
    # a user's run compiles the policies its seats and their rollouts play, whatever the rules: the
    # first two runs the heuristic only; the third's searches roll out with the heuristic (their
    # default rollout)
    monkeypatch.delenv(ALL_KINDS_ENV, raising=False)
    kinds = [_general_args(compiled, specs)[1][4] for compiled, specs in runs]
    assert kinds[0] == kinds[1] == PolicyKinds(greedy=None, heuristic=True, pimc=None, ismcts=None, learned=None,
                                               evaluate=None)
    assert kinds[2] == PolicyKinds(greedy=True, heuristic=True, pimc=True, ismcts=True, learned=None, evaluate=None)
    # under the tests' setting (tests/conftest.py) every run is the one kernel with every policy:
    # the rules and the seats add no signature of their own
    monkeypatch.setenv(ALL_KINDS_ENV, "1")
    for seed, (compiled, specs) in enumerate(runs):
        play_units_general(compiled, specs, 2**64 - 1 - seed, 7, 2, 3 if seed == 2 else None)
    signatures = [sig for sig in play_units_nb.signatures if sig[0].instance_class is EnshuRules]
    fields = len(PolicyKinds._fields)
    assert [sig[11:11 + fields] for sig in signatures] == [tuple(numba.typeof(True) for _ in range(fields))]


def hidden_shuffled(machine: Machine, seat: int, rng: random.Random) -> Machine:
    """A copy of the machine's state with the cards ``seat`` cannot see dealt anew at random:
    the other hands' unexposed cards and the draw pile (its order too), each place its size."""
    other = Machine.__new__(Machine)
    other.rt, other.ws = machine.rt, machine.ws
    other.si, other.sm = machine.si.copy(), machine.sm.copy()
    n = int(machine.rt[0][E.P_PLAYERS])
    start, length = int(machine.si[S.I_DRAW_START]), int(machine.si[S.I_DRAW_LEN])
    hidden = {s: int(machine.sm[S.M_HANDS + s]) & ~int(machine.sm[S.M_EXPOSED + s]) for s in range(n) if s != seat}
    cards = [c for mask in hidden.values() for c in range(64) if mask >> c & 1]
    cards += [int(c) for c in machine.si[S.I_DRAW + start:S.I_DRAW + start + length]]
    rng.shuffle(cards)
    at = 0
    for s, mask in hidden.items():
        size = bin(mask).count("1")
        kept = int(machine.sm[S.M_HANDS + s]) & ~mask
        other.sm[S.M_HANDS + s] = np.uint64(kept | sum(1 << c for c in cards[at:at + size]))
        at += size
    other.si[S.I_DRAW + start:S.I_DRAW + start + length] = cards[at:]
    return other


@pytest.mark.parametrize("rules, players", [("enshu-w", 3), ("enshu-c", 4)], ids=["w-3p", "c-4p"])
def test_search_decisions_do_not_change_when_only_hidden_cards_change(rules, players):
    """Guarantee 6 of docs/guarantees.md in the kernel: a pimc or ismcts decision is a function of
    what its seat may see (and its stream), however the hidden cards lie."""
    from simcore.games.enshu.state_nb import EnshuRules
    from simcore.kernels.policy_ids import (
        OBJECTIVE_SCORE,
        POLICY_GREEDY,
        POLICY_ISMCTS,
        POLICY_PIMC,
        POLICY_RANDOM,
    )
    from simcore.kernels.policy_rows import (
        F_C,
        N_FLOATS,
        N_PARAMS,
        P_BUDGET,
        P_OBJECTIVE,
        P_POLICY,
        P_ROLLOUT,
        PolicyKinds,
    )
    from simcore.kernels.search_nb import decide_once_nb
    from simcore.search import log_table

    compiled = compiled_for(rules, players)
    machine = Machine(compiled)
    kernel_rules = EnshuRules(*machine.rt)
    rng = random.Random(3)
    tables = np.zeros((E.MAX_SEATS + 1, 1), dtype=np.int64)
    floats = np.zeros((E.MAX_SEATS, N_FLOATS))
    floats[:, F_C] = 0.7
    logs = log_table(64)
    # every policy search() asks
    kinds = PolicyKinds(greedy=True, heuristic=None, pimc=True, ismcts=True, learned=None, evaluate=None)

    def search(state: Machine, seat: int, policy: int, budget: int, rollout: int, words: np.ndarray) -> int:
        params = np.zeros((E.MAX_SEATS + 1, N_PARAMS), dtype=np.int64)
        params[seat, [P_POLICY, P_BUDGET, P_ROLLOUT, P_OBJECTIVE]] = policy, budget, rollout, OBJECTIVE_SCORE
        return decide_once_nb(kernel_rules, np.uint64(8), (state.si, state.sm), params, floats, tables, logs, words,
                              *kinds)

    decided = 0
    changed = 0
    for r in range(6):
        machine.start(RoundSetup(seed=8, round_index=r, dealer=r % players))
        while not machine.done():
            seat = int(machine.si[S.I_PEND_SEAT])
            if machine.si[S.I_PEND_N] > 1 and machine.si[S.I_PEND_KIND] in (S.KIND_PLAY, S.KIND_CAPTURE):
                answers = set()
                for k in range(3):
                    state = machine if k == 0 else hidden_shuffled(machine, seat, rng)
                    changed += k > 0 and not (np.array_equal(state.sm, machine.sm)
                                              and np.array_equal(state.si, machine.si))
                    words = np.array(Stream(8, r, 40 + seat).s * (E.MAX_SEATS + 1), dtype=np.uint64)
                    pimc = search(state, seat, POLICY_PIMC, 3, POLICY_RANDOM, words)
                    ismcts = search(state, seat, POLICY_ISMCTS, 24, POLICY_GREEDY, words)
                    answers.add((pimc, ismcts, tuple(int(w) for w in words[4 * seat:4 * seat + 4])))
                assert len(answers) == 1
                decided += 1
            machine.apply(rng.randrange(int(machine.si[S.I_PEND_N])))
    assert decided > 20 and changed > decided
