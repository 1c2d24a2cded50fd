"""Policies see only what a player may see (guarantee 6 of docs/guarantees.md).

Each check plays a deal and a twin deal that differs only in cards hidden from the deciding seat
(the opponent's hand, the unturned draw pile and the dead cards are reshuffled among themselves),
and asserts the seat decides the same until hidden information has become visible to it.
"""

from __future__ import annotations

import random

import pytest

from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.policies import Observation, make_policy
from simcore.games.tensho.reference import RoundSetup, play_round
from simcore.policies import parse_policy
from simcore.rng import Stream, seat_stream
from simcore.rules import load_rules

HIDDEN_FIELDS = {"opponent_hand", "draw", "draw_order", "dead"}


def test_the_observation_has_no_hidden_information():
    fields = set(Observation.__dataclass_fields__)
    assert not fields & HIDDEN_FIELDS
    assert {"hand", "field", "piles", "seen", "draw_size"} <= fields


class Recorder:
    """Wraps a policy and records (turn, decision) for every decision it makes."""

    def __init__(self, inner):
        self.inner = inner
        self.log: list[tuple[str, int, object]] = []

    def __getattr__(self, name):
        method = getattr(self.inner, name)

        def call(obs: Observation, *args):
            decision = method(obs, *args)
            self.log.append((name, obs.turn, decision))
            return decision

        return call


def first_decisions(compiled, deck, policy_names, seed):
    recorders = [Recorder(make_policy(parse_policy(name), compiled, Stream(seed, 0, seat_stream(seat))))
                 for seat, name in enumerate(policy_names)]
    play_round(compiled, RoundSetup(seed=seed, round_index=0, dealer=0), recorders, deck=deck)
    return recorders[0].log


@pytest.mark.parametrize("policy", ["random", "greedy"])
@pytest.mark.parametrize("rules", ["tensho-ise", "tensho-hanafuda"])
@pytest.mark.slow
def test_the_dealers_decisions_before_turn_two_ignore_hidden_cards(policy, rules):
    compiled = compile_rules(load_rules(rules))
    generator = random.Random(1234)
    checked = 0
    for trial in range(300):
        deck = list(range(45))
        generator.shuffle(deck)
        if any(sum(1 for c in deck[:9] if compiled.rank[c] == r) == 4 for r in range(1, 13)):
            continue  # the rules would redeal this deck
        hidden = deck[15:21] + deck[22:]  # opponent's hand, draw pile below its top card, dead cards
        generator.shuffle(hidden)
        twin = deck[:15] + hidden[:6] + [deck[21]] + hidden[6:]
        a = first_decisions(compiled, deck, [policy, "random"], seed=trial)
        b = first_decisions(compiled, twin, [policy, "random"], seed=trial)
        # The dealer's opening claims and turn-1 decisions (its play, its captures with the
        # played card and with the top draw card, which is the same in both) depend only on its
        # hand and the field.
        before_opponent = [entry for entry in a if entry[1] <= 1]
        assert before_opponent == [entry for entry in b if entry[1] <= 1]
        checked += len(before_opponent)
    assert checked > 250
