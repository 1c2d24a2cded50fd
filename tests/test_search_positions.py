"""The search players' decisions pinned on chosen positions, with the reason for each answer.

The kernel is checked against the reference engine round by round, so a rule changed alike in
both engines passes those checks; these tests fail on it. Each position is a Tensho (Ise)
round of seed 9 played by ``heuristic`` in both seats up to the decision named; the searching
seat draws from its own stream of the round, so its worlds are those ``worlds()`` deals here
(heuristic rollouts draw nothing). The gains and squares below are the paired sums
``sum(v[i] - v[base])`` and ``sum((v[i] - v[base])^2)`` over those worlds, with ``v`` +1, 0 or -1
(``objective=win``), checked by ``worlds()`` itself; the answers follow from them by the rules of
``simcore.search``'s module docstring, worked out in the comments.
"""

from __future__ import annotations

import pytest

from simcore.games import get_game
from simcore.kernels.internal import python_entry
from simcore.kernels.search_nb import deviates_nb, outscores_nb
from simcore.policies import parse_policy
from simcore.rng import Stream, seat_stream
from simcore.rules import load_rules
from simcore.search import deviates, outscores

SEED = 9
GAME = get_game("tensho")
COMPILED = GAME.compile(load_rules("tensho-ise", {}))
HEURISTIC = parse_policy("heuristic", "tensho", recorded=True)


def position(round_index: int, step: int):
    """The round after ``step`` decisions of heuristic play: (state, decision, heuristic's index)."""
    state = GAME.new_state(COMPILED, SEED, round_index, round_index % 2)
    players = GAME.seat_policies(COMPILED, [HEURISTIC, HEURISTIC], SEED, round_index)
    for _ in range(step):
        decision = state.decision()
        state.apply(GAME.ask_policy(players[decision.seat], state, decision))
    decision = state.decision()
    base = list(decision.actions).index(GAME.ask_policy(players[decision.seat], state, decision))
    return state, decision, base


def worlds(state, decision, count: int, stream: Stream, played: list[int] | None = None) -> list[list[int]]:
    """The objective of each action (``played`` ones only, else every one) in ``count`` worlds dealt
    from ``stream``, the rest of the round played by heuristic in both seats."""
    rollout = GAME.seat_policies(COMPILED, [HEURISTIC, HEURISTIC], 0, 0)[0]
    out = []
    for _ in range(count):
        world = state.sample_hidden(decision.seat, stream)
        row = []
        for i, action in enumerate(decision.actions):
            if played is not None and i not in played:
                row.append(0)
                continue
            copy = world.clone()
            copy.apply(action)
            while (pending := copy.decision()) is not None:
                copy.apply(GAME.ask_policy(rollout, copy, pending))
            payoff = int(copy.returns()[decision.seat])
            row.append((payoff > 0) - (payoff < 0))
        out.append(row)
    return out


def sums(values: list[list[int]], base: int) -> tuple[list[int], list[int]]:
    gains = [sum(v[i] - v[base] for v in values) for i in range(len(values[0]))]
    squares = [sum((v[i] - v[base]) ** 2 for v in values) for i in range(len(values[0]))]
    return gains, squares


def decide(text: str, round_index: int, state, decision) -> int:
    """The reference engine's answer of policy ``text`` in its seat, as an index of the actions."""
    spec = parse_policy(text, "tensho")
    searcher = GAME.seat_policies(COMPILED, [spec, spec], SEED, round_index)[decision.seat]
    return list(decision.actions).index(GAME.ask_policy(searcher, state, decision))


def own_stream(round_index: int, seat: int) -> Stream:
    return Stream(SEED, round_index, seat_stream(seat))


@pytest.mark.parametrize("engine", ["reference", "kernel"])
def test_the_deviation_tests_on_numbers_worked_by_hand(engine):
    dev = deviates if engine == "reference" else python_entry(deviates_nb)
    out = outscores if engine == "reference" else python_entry(outscores_nb)
    # gain 3, squares 5, 4 worlds: 3^2 * 3 = 27 against z^2 (4 * 5 - 9) = 11 z^2
    assert dev(3, 5, 4, 1.0) and dev(3, 5, 4, 1.5) and not dev(3, 5, 4, 1.6)
    assert not dev(0, 0, 4, 0.0) and not dev(-1, 1, 4, 0.0)  # no gain, no deviation
    assert dev(1, 1, 4, 0.0) and dev(1, 1, 1, 5.0)  # z = 0: any gain; one world: no spread to judge
    # means 6/4 = 1.5 and 0/4; variances (10 - 6 * 1.5) / 3 = 1/3 and 4/3; the difference's
    # variance 1/12 + 1/3 = 5/12, against 1.5^2 = 2.25: passes z = 2 (1.67), fails z = 2.5 (2.60)
    assert out(6, 10, 4, 0, 4, 4, 2.0) and not out(6, 10, 4, 0, 4, 4, 2.5)
    assert not out(0, 4, 4, 6, 10, 4, 0.1)  # behind the base
    assert not out(6, 10, 4, 0, 0, 1, 0.0)  # the base visited once: no variance, no deviation


def test_a_tie_goes_to_the_rollout_policys_own_move():
    # Round 3, decision 7: four cards to play; heuristic plays the fourth (index 3). In all 8
    # worlds every card gives the same result, so every gain is 0: no option beats the base,
    # and pimc plays heuristic's card, not the first (index 0).
    state, decision, base = position(3, 7)
    assert len(decision.actions) == 4 and base == 3
    values = worlds(state, decision, 8, own_stream(3, decision.seat))
    assert sums(values, base) == ([0, 0, 0, 0], [0, 0, 0, 0])
    for text in ("pimc:depth=0,worlds=8,rollout=heuristic,z=0,confirm=0", "pimc:depth=0,worlds=8,rollout=heuristic,z=1",
                 "pimc:depth=0,worlds=8,rollout=heuristic,z=0,confirm=8"):
        assert decide(text, 3, state, decision) == 3, text


def test_z_keeps_the_rollout_policys_move_unless_the_gain_is_clear():
    # Round 1, decision 2: six cards; heuristic plays index 2. Over 8 worlds card 1 gains 2
    # (squares 12) and card 5 loses 4; the rest tie. Card 1 passes z when
    # 2^2 * 7 = 28 >= z^2 * (8 * 12 - 2^2) = 92 z^2, i.e. for z up to 0.55.
    state, decision, base = position(1, 2)
    assert len(decision.actions) == 6 and base == 2
    values = worlds(state, decision, 8, own_stream(1, decision.seat))
    assert sums(values, base) == ([0, 2, 0, 0, 0, -4], [0, 12, 0, 0, 0, 8])
    assert decide("pimc:depth=0,worlds=8,rollout=heuristic,z=0,confirm=0", 1, state, decision) == 1
    assert decide("pimc:depth=0,worlds=8,rollout=heuristic,z=0.5,confirm=0", 1, state, decision) == 1
    assert decide("pimc:depth=0,worlds=8,rollout=heuristic,z=0.6,confirm=0", 1, state, decision) == 2
    assert decide("pimc:depth=0,worlds=8,rollout=heuristic,z=1,confirm=0", 1, state, decision) == 2


def test_confirm_plays_the_best_looking_move_on_more_worlds_before_taking_it():
    # The same position: the first 8 worlds pick card 1 (gain 2, squares 12). The next 16
    # worlds of the stream play card 1 against heuristic's card 2 only, and there card 1 loses
    # 4 (squares 8): over all 24 worlds it loses 2, so at any z pimc keeps heuristic's card 2,
    # where pimc without confirm and z = 0 took card 1.
    state, decision, base = position(1, 2)
    stream = own_stream(1, decision.seat)
    worlds(state, decision, 8, stream)
    gains, squares = sums(worlds(state, decision, 16, stream, played=[1, 2]), base)
    assert (gains[1], squares[1]) == (-4, 8)
    for z in (0.0, 1.0):
        assert decide(f"pimc:depth=0,worlds=8,confirm=16,race=0,rollout=heuristic,z={z}", 1, state, decision) == 2, z


def test_race_judges_the_confirming_worlds_block_by_block():
    # The same position and worlds: over the 16 confirming worlds card 1's paired difference from
    # card 2 is 0 but in the 7th and the 16th (-2 each). Its gain over all worlds so far (8 + k)
    # is 2, squares 12, through the 6th; 0 (squares 16) from the 7th; -2 after the 16th.
    state, decision, base = position(1, 2)
    stream = own_stream(1, decision.seat)
    worlds(state, decision, 8, stream)
    values = worlds(state, decision, 16, stream, played=[1, 2])
    assert [v[1] - v[2] for v in values] == [0] * 6 + [-2] + [0] * 8 + [-2]
    text = "pimc:depth=0,worlds=8,confirm=16,rollout=heuristic"
    # z = 0, race = 4: after the first block the gain, 2, is positive and passes 2z = 0: card 1 is
    # taken there, where the whole 24 worlds (race = 0, or race = 16) keep heuristic's card 2
    assert decide(f"{text},z=0,race=4", 1, state, decision) == 1
    assert decide(f"{text},z=0,race=1", 1, state, decision) == 1
    assert decide(f"{text},z=0,race=0", 1, state, decision) == 2
    assert decide(f"{text},z=0,race=16", 1, state, decision) == 2
    # z = 1, race = 4: after 4, 2^2 * 11 = 44 < 2^2 * (12 * 12 - 2^2) = 560, it goes on; after 8
    # the gain is 0: card 2, without the last 8 worlds (4 draws a world)
    spec = parse_policy(f"{text},z=1,race=4", "tensho")
    searcher = GAME.seat_policies(COMPILED, [spec, spec], SEED, 1)[decision.seat]
    assert list(decision.actions).index(GAME.ask_policy(searcher, state, decision)) == 2
    assert searcher.stream.draws == 4 * (8 + 8)


def test_ismcts_z_keeps_the_rollout_policys_move_where_the_options_tie():
    # Round 3, decision 7 again: every card gives the same result in every world, so no child's
    # mean beats heuristic's card by any margin. The most visited child (z = 0) is another card;
    # with z = 1 ismcts keeps heuristic's card.
    state, decision, base = position(3, 7)
    text = "ismcts:iterations=40,root=ucb,norm=0,rollout=heuristic,c=1.4,tree=own,expand=first,z="
    assert decide(text + "0", 3, state, decision) == 1
    assert decide(text + "1", 3, state, decision) == base == 3


def test_ismcts_with_paired_roots_leaves_a_tie_to_the_rollout_policys_move():
    # Round 3, decision 7: every card ties in pimc's worlds. With root=paired and tree=own every
    # card meets the same 12 worlds, the seat's later decisions taken by the tree, the other
    # seat's by heuristic, and no card gains over heuristic's: ismcts keeps card 3 even at
    # z = 0, where the most visited child of root=ucb is card 1 (above).
    state, decision, base = position(3, 7)
    text = "ismcts:iterations=48,root=paired,tree=own,rollout=heuristic,c=1.4,confirm=0,expand=first,z="
    assert decide(text + "0", 3, state, decision) == base == 3
    assert decide(text + "10", 3, state, decision) == 3


def test_a_new_ismcts_node_tries_the_rollout_policys_move_first():
    # Round 1, decision 2: six cards; heuristic plays index 2. In the first world of the seat's
    # stream, with heuristic taking every later decision, card 1 wins and every other card loses.
    state, decision, base = position(1, 2)
    assert len(decision.actions) == 6 and base == 2
    values = worlds(state, decision, 1, own_stream(1, decision.seat))
    assert values == [[-1, 1, -1, -1, -1, -1]]
    # root=paired with 6 iterations deals that one world and descends once below each card. The
    # seat's later decisions are new nodes, and with expand=rollout a new node's first child is
    # heuristic's move: every card is valued by heuristic play, card 1 gains 2, and it is taken
    # (z = 0), as pimc takes it in that one world. With expand=first the seat's later decisions
    # take the first legal card instead, no card gains over heuristic's, and card 2 stays.
    text = "ismcts:iterations=6,root=paired,tree=own,rollout=heuristic,confirm=0,z=0,expand="
    assert decide(text + "rollout", 1, state, decision) == 1
    assert decide("pimc:depth=0,worlds=1,rollout=heuristic,confirm=0,z=0", 1, state, decision) == 1
    assert decide(text + "first", 1, state, decision) == base == 2
    # root=ucb with one iteration makes one root child, which is then the most visited: heuristic's
    # card with expand=rollout, the first card with expand=first.
    text = "ismcts:iterations=1,root=ucb,tree=own,rollout=heuristic,z=0,expand="
    assert decide(text + "rollout", 1, state, decision) == base == 2
    assert decide(text + "first", 1, state, decision) == 0


def test_ismcts_expands_the_rollout_policys_move_first_by_default():
    assert parse_policy("ismcts", "tensho").params["expand"] == "rollout"
    assert parse_policy("ismcts", "tensho", recorded=True).params["expand"] == "first"
