"""The Tensho general kernel (``simcore.kernels.units_nb`` over ``state_nb``) against the
fast kernel and the reference engine.

* with random and greedy seats only, the general kernel writes the fast kernel's rows, on every
  shipped rule set, under every option that changes play, and in match play;
* at every pause of a round the state machine holds the reference ``RoundState``'s cards and
  legal action keys, and ``sample_hidden_nb`` deals the same world from the same stream draws;
* with the search players, the general kernel writes the reference engine's rows.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pytest

from simcore.games.tensho import kernel as K
from simcore.games.tensho import state_nb as S
from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.decisions import action_key
from simcore.games.tensho.heuristic_nb import pack_observation
from simcore.games.tensho.reference import RoundSetup, RoundState
from simcore.games.tensho.reference import play_units as reference_play_units
from simcore.kernels.internal import python_entry
from simcore.policies import parse_policy
from simcore.record import C_WINNER
from simcore.rng import Stream, stream_state
from simcore.rules import load_rules

# the kernel's parts compiled for numba callers only, called from here through python_entry
S_ = SimpleNamespace(**{name: python_entry(getattr(S, name)) for name in ("new_round_nb", "apply_nb", "sample_hidden_nb",
                                                                       "observe_nb")})

PLAY_CHANGING_OPTIONS = [
    {},
    {"tensho.triple_match": "one"},
    {"tensho.double_match": "highest_value_first"},
    {"tensho.capture_mandatory": "false"},
    {"tensho.opening_claim_scope": "one_triple"},
    {"tensho.field_four_of_rank": "stuck"},
    {"tensho.field_four_of_rank": "opening_rule_applies"},
    {"tensho.six_on_field": "dealer_captures"},
    {"tensho.six_in_hand": "bank_at_deal"},
    {"tensho.instant_win_check": "end_of_turn"},
    {"tensho.supersession": "none"},
    {"tensho.supersession": "all_subsets"},
    {"tensho.supersession": "young_old_only", "tensho.yaku_set_choice": "fixed_2"},
    {"tensho.ten_horse_king": "10_9_12"},
    {"tensho.no_yaku_tiebreak": "values_only"},
    {"tensho.final_tie": "dealer_wins"},
    {"tensho.final_tie": "non_dealer_wins"},
    {"tensho.yaku_set_choice": "random"},
    {"tensho.yaku_set_choice": "alternate"},
    {"tensho.yaku_set_choice": "dealer_policy"},
    {"tensho.card_values": "T2_alt", "tensho.chaff_set": "D"},
    {"tensho.deal_procedure": "physical"},
    {"tensho.match_scoring": "yaku_points"},
]
OPTION_IDS = [",".join(f"{k[7:]}={v}" for k, v in o.items()) or "default" for o in PLAY_CHANGING_OPTIONS]


def _compiled(rules: str, options: dict):
    return compile_rules(load_rules(rules, options))


def _assert_same(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> None:
    for name, x, y in (("ints", a[0], b[0]), ("masks", a[1], b[1])):
        bad = np.flatnonzero((x != y).any(axis=0))
        assert bad.size == 0, f"{name} differ in {bad.size} rows, first row {bad[0]}: {x[:, bad[0]]} vs {y[:, bad[0]]}"


# --- the general kernel with random and greedy seats == the fast kernel -----------------------


@pytest.mark.parametrize("options", PLAY_CHANGING_OPTIONS, ids=OPTION_IDS)
# (Random seats alone: the fast kernel plays them and the general kernel never does, and random seats
# play in both mixes below; tests/test_kernel_parity.py checks the fast kernel's random seats.)
@pytest.mark.parametrize("policies", [("greedy", "random"), ("random", "greedy:yaku_set=2")],
                         ids=lambda p: "-".join(p))
def test_general_kernel_equals_fast_kernel(options, policies):
    compiled = _compiled("tensho-ise", options)
    specs = [parse_policy(p, "tensho") for p in policies]
    fast = K.play_units(compiled, specs, 31, 5, 1500, None)
    general = K.play_units_general(compiled, specs, 31, 5, 1500, None)
    _assert_same(fast, general)


@pytest.mark.parametrize("options", [{}, {"tensho.back_two_card": "rain_man"}], ids=["default", "rain_man"])
def test_general_kernel_equals_fast_kernel_in_the_hanafuda_skin(options):
    compiled = _compiled("tensho-hanafuda", options)
    specs = [parse_policy("random", "tensho"), parse_policy("greedy", "tensho")]
    _assert_same(K.play_units(compiled, specs, 8, 0, 1500, None),
                 K.play_units_general(compiled, specs, 8, 0, 1500, None))


@pytest.mark.parametrize(
    "options, rounds_per_match",
    [
        ({}, 12),
        ({"tensho.match_tie": "extra_round"}, 6),
        ({"tensho.match_scoring": "yaku_points", "tensho.match_tie": "extra_round"}, 3),
        ({"tensho.yaku_set_choice": "dealer_policy"}, 12),
    ],
)
def test_general_kernel_equals_fast_kernel_in_match_play(options, rounds_per_match):
    compiled = _compiled("tensho-ise", options)
    specs = [parse_policy("greedy:yaku_set=2", "tensho"), parse_policy("random", "tensho")]
    fast = K.play_units(compiled, specs, 3, 0, 120, rounds_per_match)
    general = K.play_units_general(compiled, specs, 3, 0, 120, rounds_per_match)
    _assert_same(fast, general)


# --- the state machine == the reference forward model, pause by pause -------------------------


KIND_CODES = {"yaku_set": 0, "opening_claim": 1, "bank_six": 2, "play": 3, "capture": 4}


def reference_view(state: RoundState) -> dict:
    decision = state.pending
    view = {
        "hands": list(state.hands), "piles": list(state.piles), "field": state.field, "seen": state.seen,
        "dead": state.dead, "draw": list(state.draw), "turn": state.turn, "yaku_set": state.yaku_set,
        "claimed": state.claimed, "in_play": state.in_play, "hand_dealt": list(state.hand_dealt),
        "done": state.result is not None,
    }
    if decision is None:
        view["decision"] = None
    else:
        view["decision"] = (KIND_CODES[decision.kind], decision.seat,
                            [action_key(decision, a) for a in decision.actions])
    if state.result is not None:
        view["payoff"] = list(state.result.payoff)
        view["winner"] = state.result.winner
    return view


def kernel_view(st: np.ndarray) -> dict:
    top = int(st[S.ST_DRAW_TOP])
    view = {
        "hands": [int(st[S.ST_HAND]), int(st[S.ST_HAND + 1])],
        "piles": [int(st[S.ST_PILE]), int(st[S.ST_PILE + 1])],
        "field": int(st[S.ST_FIELD]), "seen": int(st[S.ST_SEEN]), "dead": int(st[S.ST_DEAD]),
        "draw": [int(x) for x in st[S.ST_DRAW + top:S.ST_DRAW + S.DRAW_SIZE]], "turn": int(st[S.ST_TURN]),
        "yaku_set": int(st[S.ST_YAKU_SET]), "claimed": int(st[S.ST_CLAIMED]), "in_play": int(st[S.ST_IN_PLAY]),
        "hand_dealt": [int(st[S.ST_HAND_DEALT]), int(st[S.ST_HAND_DEALT + 1])], "done": bool(st[S.ST_DONE]),
    }
    if st[S.ST_KIND] < 0:
        view["decision"] = None
    else:
        n = int(st[S.ST_N])
        view["decision"] = (int(st[S.ST_KIND]), int(st[S.ST_DSEAT]),
                            [int(k) for k in st[S.ST_KEYS:S.ST_KEYS + n]])
    if st[S.ST_DONE]:
        view["payoff"] = [int(st[S.ST_PAYOFF]), int(st[S.ST_PAYOFF + 1])]
        view["winner"] = int(st[S.ST_WINNER])
    return view


class Machine:
    """One round of the numba state machine, driven from Python."""

    def __init__(self, compiled, seed: int, round_index: int, dealer: int) -> None:
        self.rules = S.rule_table(compiled)
        self.seed = np.uint64(seed)
        self.st = np.zeros(S.ST_SIZE, dtype=np.int64)
        self.ids = np.zeros(S.IDS_SIZE, dtype=np.int64)
        self.dstates = np.zeros(4, dtype=np.uint64)
        S_.new_round_nb(self.st, self.seed, np.int64(round_index), np.int64(dealer), np.int64(round_index),
                       np.int64(0), np.int64(0), np.int64(0), self.rules, self.ids, self.dstates)

    def apply(self, index: int) -> None:
        S_.apply_nb(self.st, np.int64(index), self.seed, self.rules, self.ids, self.dstates)

    def sample_hidden(self, seat: int, states: np.ndarray) -> np.ndarray:
        world = np.zeros(S.ST_SIZE, dtype=np.int64)
        S_.sample_hidden_nb(self.st, world, np.int64(seat), states, np.int64(0), self.rules, self.ids)
        return world


SM_CASES = [("tensho-ise", o) for o in PLAY_CHANGING_OPTIONS] + [("tensho-hanafuda", {})]


@pytest.mark.parametrize("rules, options", SM_CASES, ids=[f"{r}-{i}" for r, i in zip(
    [c[0] for c in SM_CASES], OPTION_IDS + ["default"], strict=True)])
@pytest.mark.slow
def test_state_machine_follows_the_reference_at_every_pause(rules, options):
    compiled = _compiled(rules, options)
    chooser = random.Random(17)
    pauses = 0
    kinds = set()
    for round_index in range(40):
        seed = 1000 + round_index
        dealer = round_index % 2
        reference = RoundState(compiled, RoundSetup(seed=seed, round_index=round_index, dealer=dealer,
                                                     alternate_index=round_index))
        machine = Machine(compiled, seed, round_index, dealer)
        while True:
            view = reference_view(reference)
            assert kernel_view(machine.st) == view, f"round {round_index}, pause {pauses}"
            if reference.pending is None:
                break
            kinds.add(reference.pending.kind)
            pauses += 1
            decision = reference.pending
            obs = np.zeros(16, dtype=np.int64)
            S_.observe_nb(machine.st, np.int64(decision.seat), obs)
            card = decision.info["card"] if decision.kind == "capture" else -1
            packed = pack_observation(reference.observe(decision.seat), card)
            assert obs[:packed.size].tolist() == packed.tolist(), f"round {round_index}, pause {pauses}"
            for seat in (0, 1):
                stream = Stream(seed, round_index, 99 + seat)
                states = np.array(stream_state(seed, round_index, 99 + seat), dtype=np.uint64)
                world = machine.sample_hidden(seat, states)
                expected = reference.sample_hidden(seat, stream)
                assert kernel_view(world) == reference_view(expected), f"round {round_index}, seat {seat}"
                assert [int(w) for w in states] == stream.s
            index = chooser.randrange(len(reference.pending.actions))
            reference.apply(reference.pending.actions[index])
            machine.apply(index)
    assert pauses > 100
    assert {"play"} <= kinds


# --- the general kernel == the reference engine, search players included ----------------------

SEARCH_MIXES = [
    ("tensho-ise", {}, ("heuristic", "random"), 150, None),
    ("tensho-ise", {}, ("greedy", "heuristic:yaku_set=2,risk=5"), 150, None),
    ("tensho-ise", {"tensho.yaku_set_choice": "dealer_policy", "tensho.capture_mandatory": "false"},
     ("heuristic", "heuristic"), 150, None),
    ("tensho-ise", {}, ("pimc:worlds=2", "greedy"), 8, None),
    ("tensho-ise", {}, ("greedy", "ismcts:iterations=8"), 16, None),
    ("tensho-ise", {}, ("pimc:worlds=2,rollout=heuristic", "heuristic"), 8, None),
    ("tensho-ise", {}, ("ismcts:iterations=8,rollout=heuristic,objective=score", "pimc:worlds=1,rollout=greedy"), 4,
     None),
    ("tensho-ise", {"tensho.yaku_set_choice": "dealer_policy", "tensho.six_in_hand": "bank_at_deal",
                    "tensho.capture_mandatory": "false", "tensho.field_four_of_rank": "opening_rule_applies"},
     ("pimc:worlds=2", "ismcts:iterations=8,c=1.5,rollout=greedy"), 5, None),
    ("tensho-ise", {"tensho.match_scoring": "yaku_points", "tensho.match_tie": "extra_round"},
     ("ismcts:iterations=8,objective=score", "pimc:worlds=2,rollout=greedy"), 3, 3),
    ("tensho-ise", {"tensho.yaku_set_choice": "dealer_policy"},
     ("greedy:yaku_set=2", "ismcts:iterations=8,rollout=heuristic"), 2, 12),
    ("tensho-ise", {"tensho.capture_mandatory": "false"}, ("omniscient:worlds=2", "pimc:worlds=2"), 5, None),
    ("tensho-ise", {}, ("heuristic", "omniscient:worlds=1,rollout=heuristic,objective=score"), 8, None),
    ("tensho-hanafuda", {"tensho.double_match": "highest_value_first", "tensho.triple_match": "one"},
     ("ismcts:iterations=8", "greedy"), 12, None),
    ("tensho-ise", {}, ("pimc:worlds=3,rollout=random,crn=1,z=0", "greedy"), 12, None),
    ("tensho-ise", {}, ("heuristic", "pimc:worlds=6,rollout=heuristic,crn=0,z=0.8"), 5, None),
    ("tensho-ise", {}, ("pimc:worlds=5,rollout=greedy,crn=1,z=1.5,objective=score", "omniscient:worlds=3,crn=1,z=0.5"),
     8, None),
    ("tensho-ise", {}, ("ismcts:iterations=12,objective=score,norm=1,c=1.4", "greedy"), 12, None),
    ("tensho-ise", {}, ("pimc:worlds=3,confirm=5,z=0.5,rollout=heuristic", "pimc:worlds=2,confirm=3,crn=1,z=0"), 12,
     None),
    ("tensho-ise", {"tensho.yaku_set_choice": "dealer_policy", "tensho.six_in_hand": "bank_at_deal"},
     ("ismcts:iterations=16,tree=own,rollout=heuristic,z=0.5,c=1.4", "ismcts:iterations=12,tree=own,rollout=greedy"),
     10, None),
    ("tensho-ise", {}, ("ismcts:iterations=24,root=paired,tree=own,rollout=heuristic,z=0.5",
                        "ismcts:iterations=9,root=paired,rollout=greedy,c=1.4"), 10, None),
    ("tensho-ise", {}, ("ismcts:iterations=12,root=paired,tree=own,rollout=heuristic,z=0.5,confirm=6",
                        "ismcts:iterations=8,root=paired,rollout=greedy,confirm=3"), 10, None),
    ("tensho-ise", {}, ("ismcts:iterations=20,rollout=heuristic,z=0.5", "ismcts:iterations=16,rollout=greedy,z=2"),
     10, None),
]


@pytest.mark.parametrize("rules, options, policies, units, rounds_per_match", SEARCH_MIXES,
                         ids=[f"{m[0]}-{'-'.join(m[2])}" for m in SEARCH_MIXES])
@pytest.mark.slow
def test_general_kernel_equals_reference_engine(rules, options, policies, units, rounds_per_match):
    compiled = _compiled(rules, options)
    specs = [parse_policy(p, "tensho") for p in policies]
    kernel_rows = K.play_units(compiled, specs, 19, 3, units, rounds_per_match)
    reference_rows = reference_play_units(compiled, specs, 19, 3, units, rounds_per_match)
    _assert_same(reference_rows, kernel_rows)


def test_search_players_decide_and_beat_random():
    """The kernel's search players play real decisions: against random they win most rounds."""
    compiled = _compiled("tensho-ise", {})
    for policy in ("pimc:worlds=4", "ismcts:iterations=40,rollout=greedy", "heuristic"):
        specs = [parse_policy(policy, "tensho"), parse_policy("random", "tensho")]
        ints, _ = K.play_units(compiled, specs, 5, 0, 200, None)
        wins = int((ints[C_WINNER] == 0).sum())
        losses = int((ints[C_WINNER] == 1).sum())
        assert wins > 1.2 * losses, (policy, wins, losses)


def test_the_general_kernel_gives_the_same_rows_on_one_thread_and_one_signature_per_kinds():
    from simcore.games.tensho.state_nb import TenshoRules
    from simcore.kernels.units_nb import play_units_nb

    compiled = _compiled("tensho-ise", {})
    specs = [parse_policy("pimc:worlds=2", "tensho"), parse_policy("heuristic", "tensho")]
    one = K.play_units(compiled, specs, 2**63 + 9, 0, 30, None)
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        again = K.play_units(compiled, specs, 2**63 + 9, 0, 30, None)
    finally:
        numba.set_num_threads(before)
    _assert_same(one, again)
    # the tournament's timing of decisions plays the same decisions through the same kernel
    from simcore.kernels.clock import HAS_COUNTER

    for timed in (HAS_COUNTER, False):
        spent = K.time_decisions(compiled, specs, 2**63 + 9, 0, 30, timed)
        assert spent.shape == (2, 2) and spent[:, 0].min() > 30 and (spent[:, 1].min() > 0) == timed
    assert (K.time_decisions(compiled, specs, 2**63 + 9, 0, 30, False)[:, 0] == spent[:, 0]).all()
    # one compiled kernel for the game and these policy kinds (arguments 11 to 16), whatever the
    # seed and the threads (every game's rules type has its own)
    kinds = [sig[11:17] for sig in play_units_nb.signatures if sig[0].instance_class is TenshoRules]
    assert len(kinds) == len(set(kinds))
