"""One harness for every registered game: each check runs on every shipped rule set of every game
in ``simcore.games.REGISTRY`` at every player count its rules allow, so a new game gets all of
it by being registered.

- parity: the kernel and the reference engine write the same output matrices, every cell;
- cards: at every pause of a round (forward model), every card is in exactly one place;
- the forward model: replaying the recorded actions reproduces the round; a clone is
  independent; ``sample_hidden`` keeps what the deciding seat has seen and its observation;
- information hiding: each policy decides alike when only the cards it cannot see change;
- the learned player (small random models): both engines write the same rows, and its features
  and choices are the same in every world its seat cannot tell apart, in both engines;
- machinery: 1 or 2 threads, any shard size, and a resume after lost shards give the same rows.

Game-specific checks (rules worked out by hand, closed-form probabilities, an independent
oracle) live in the per-game test files.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from learned_models import write_models

from simcore.dataset import read_dataset, read_run_info
from simcore.games import Game, get_game, known_game_names
from simcore.policies import parse_policy
from simcore.reference.forward import State, play_through
from simcore.rng import Stream
from simcore.rules import load_rules, shipped_rules
from simcore.run.runner import RunConfig, run

SEED = 20261201


def _cases() -> list[tuple[str, str, int]]:
    """(game, shipped rule set, players) for every registered game and allowed player count."""
    cases = []
    for rules_name in shipped_rules():
        rules = load_rules(rules_name)
        if rules.game not in known_game_names():
            continue
        game = get_game(rules.game)
        for players in range(2, game.max_players + 1):
            if game.players_problem(rules, players) is None:
                cases.append((rules.game, rules_name, players))
    return cases


CASES = _cases()
IDS = [f"{rules}-{players}p" for _, rules, players in CASES]


def _setup(game_name: str, rules_name: str, players: int):
    game: Game = get_game(game_name)
    overrides = {} if game.players_option is None else {game.players_option: str(players)}
    compiled = game.compile(load_rules(rules_name, overrides))
    # seat 1 greedy, the others random: both built-in policies in every game
    specs = [parse_policy("greedy" if seat == 1 else "random", game.name) for seat in range(players)]
    return game, compiled, specs, overrides


def test_every_registered_game_is_covered():
    assert {game for game, _, _ in CASES} == set(known_game_names())


@pytest.mark.parametrize(("game_name", "rules_name", "players"), CASES, ids=IDS)
@pytest.mark.slow
def test_kernel_and_reference_write_the_same_rows(game_name, rules_name, players):
    game, compiled, specs, _ = _setup(game_name, rules_name, players)
    for rounds_per_match in (None, 4):
        units = 150 if rounds_per_match is None else 30
        kernel = game.play_units("kernel", compiled, specs, SEED, 11, units, rounds_per_match)
        reference = game.play_units("reference", compiled, specs, SEED, 11, units, rounds_per_match)
        for kernel_matrix, reference_matrix in zip(kernel, reference, strict=True):
            np.testing.assert_array_equal(kernel_matrix, reference_matrix)


def _places_check(state: State, deck_size: int, where: str) -> None:
    places = state.card_places()
    if not any(places.values()):
        return  # before the deal
    union = 0
    for name, cards in places.items():
        assert union & cards == 0, f"{where}: a card of {name} is in another place too"
        union |= cards
    assert union == (1 << deck_size) - 1, f"{where}: cards missing from every place"


def _played(game: Game, compiled, specs, round_index: int, players: int, deck_size: int):
    """Play a round through its forward model, checking the cards at every pause; returns the
    state and the (state before, decision, action) of every decision."""
    state = game.new_state(compiled, SEED, round_index, round_index % players)
    policies = game.seat_policies(compiled, specs, SEED, round_index)
    steps = []
    while not state.is_terminal():
        _places_check(state, deck_size, f"round {round_index}, before {state.decision().kind}")
        decision = state.decision()
        assert decision.seat == state.current_seat() and decision.actions
        assert list(decision.actions) == state.legal_actions()
        action = game.ask_policy(policies[decision.seat], state, decision)
        steps.append((state.clone(), decision, action))
        state.apply(action)
    _places_check(state, deck_size, f"round {round_index}, at its end")
    assert state.decision() is None and state.current_seat() == -1
    return state, steps


@pytest.mark.parametrize(("game_name", "rules_name", "players"), CASES, ids=IDS)
@pytest.mark.slow
def test_the_forward_model_conserves_cards_replays_and_hides(game_name, rules_name, players):
    game, compiled, specs, _ = _setup(game_name, rules_name, players)
    deck_size = len(compiled.rules.deck.cards)
    kinds = set()
    for r in range(30):
        state, steps = _played(game, compiled, specs, r, players, deck_size)
        assert len(state.returns()) == players
        # replaying the recorded actions on a fresh state gives the same round
        again = game.new_state(compiled, SEED, r, r % players)
        for _, decision, action in steps:
            assert again.decision() == decision
            again.apply(action)
        assert again.returns() == state.returns() and again.card_places() == state.card_places()
        for k, (before, decision, _) in enumerate(steps):
            kinds.add(decision.kind)
            seat = decision.seat
            # a clone is independent of its original
            snapshot = (before.card_places(), before.decision())
            copy = before.clone()
            play_through(copy, game.seat_policies(compiled, specs, SEED, r), game.ask_policy)
            assert (before.card_places(), before.decision()) == snapshot
            # a world for the deciding seat: what it saw stays, the rest is dealt anew
            world = before.sample_hidden(seat, Stream(SEED, r, 9000 + k))
            assert world.observation(seat) == before.observation(seat)
            assert world.decision() == decision
            _places_check(world, deck_size, f"round {r}, world {k}")
            # and its policy decides alike there (guarantee 6 of docs/guarantees.md)
            real = game.ask_policy(game.seat_policies(compiled, specs, SEED, r)[seat], before, decision)
            sampled = game.ask_policy(game.seat_policies(compiled, specs, SEED, r)[seat], world, decision)
            assert real == sampled, (r, k, decision.kind)
    assert "play" in kinds


@pytest.mark.parametrize(("game_name", "rules_name", "players"), CASES, ids=IDS)
@pytest.mark.slow
def test_threads_shards_and_resume_give_the_same_rows(tmp_path, game_name, rules_name, players):
    game, _, specs, overrides = _setup(game_name, rules_name, players)
    base = dict(rules=rules_name, options=overrides, policies=tuple(str(s) for s in specs), rounds=1200, seed=SEED)
    run(RunConfig(**base, threads=1, units_per_shard=1200, out=str(tmp_path / "one")))
    run(RunConfig(**base, threads=2, units_per_shard=250, out=str(tmp_path / "two")))
    for shard in ("part-000001.parquet", "part-000004.parquet"):
        (tmp_path / "two" / shard).unlink()
    run(RunConfig(**base, threads=1, units_per_shard=250, out=str(tmp_path / "two"), resume=True))
    one, two = read_dataset(tmp_path / "one"), read_dataset(tmp_path / "two")
    assert list(one.columns) == game.schema(players).names
    pd.testing.assert_frame_equal(one, two)
    assert read_run_info(tmp_path / "two")["complete"] is True


def _learned(tmp_path, game: Game, compiled, players: int, seed: int):
    """The policy text of small random models for every case the rules play."""
    from simcore.learned import learning

    module = learning(game.name)
    assert module is not None, f"{game.name} offers no learned player"
    return write_models(tmp_path, game.name, [c for c in module.blocks(compiled) if c is not None], seed)


@pytest.mark.parametrize(("game_name", "rules_name", "players"), CASES, ids=IDS)
@pytest.mark.slow
def test_the_learned_player_writes_the_same_rows_in_both_engines(tmp_path, game_name, rules_name, players):
    game, compiled, _, _ = _setup(game_name, rules_name, players)
    learned = parse_policy(_learned(tmp_path, game, compiled, players, seed=players), game.name)
    heuristic = parse_policy("heuristic", game.name)
    specs = [learned if seat % 2 == 0 else heuristic for seat in range(players)]
    for rounds_per_match in (None, 3):
        units = 60 if rounds_per_match is None else 8
        kernel = game.play_units("kernel", compiled, specs, SEED, 5, units, rounds_per_match)
        reference = game.play_units("reference", compiled, specs, SEED, 5, units, rounds_per_match)
        for kernel_matrix, reference_matrix in zip(kernel, reference, strict=True):
            np.testing.assert_array_equal(kernel_matrix, reference_matrix)


@pytest.mark.parametrize(("game_name", "rules_name", "players"), CASES, ids=IDS)
@pytest.mark.slow
def test_the_learned_player_sees_only_its_observation(tmp_path, game_name, rules_name, players):
    from simcore.kernels.learned_nb import hidden_check_nb
    from simcore.learned import learned_table, learning

    game, compiled, _, _ = _setup(game_name, rules_name, players)
    learned = parse_policy(_learned(tmp_path, game, compiled, players, seed=11), game.name)
    specs = [learned] * players
    # the reference engine: the same decision in the real position and in sampled worlds
    checked = 0
    for r in range(12):
        state = game.new_state(compiled, SEED, r, r % players)
        policies = game.seat_policies(compiled, specs, SEED, r)
        k = 0
        while (decision := state.decision()) is not None:
            real = game.ask_policy(policies[decision.seat], state, decision)
            if len(decision.actions) >= 2:
                for w in range(2):
                    world = state.sample_hidden(decision.seat, Stream(SEED, r, 9000 + 2 * k + w))
                    assert game.ask_policy(policies[decision.seat], world, decision) == real, (r, k, decision.kind)
                checked += 1
            state.apply(real)
            k += 1
    assert checked > 50
    # the kernel: the same features, weight row and choice in sampled worlds
    module = learning(game.name)
    assert module is not None
    table = learned_table(game.name, compiled, learned)
    heuristic = np.asarray(module.aux_table(compiled), dtype=np.int64)
    scratch = np.zeros((64, len(module.FEATURES)), dtype=np.int64)
    rules = module.kernel_rules(compiled)
    total = 0
    for r in range(12):
        decisions, differences = hidden_check_nb(rules, np.uint64(SEED), np.int64(r), table, heuristic,
                                                 np.int64(3), scratch)
        assert differences == 0, (r, differences)
        total += decisions
    assert total > 50


@pytest.mark.parametrize(("game_name", "rules_name", "players"), CASES, ids=IDS)
@pytest.mark.slow
def test_a_model_weighing_only_the_heuristics_choice_plays_the_heuristic(tmp_path, game_name, rules_name, players):
    """Every game's first feature is 1 for the heuristic's own choice: weight on it alone, the
    learned player is the heuristic, decision for decision (its rows, against heuristic seats)."""
    from simcore.learned import learning
    from simcore.models import Model, save_model

    game, compiled, _, _ = _setup(game_name, rules_name, players)
    module = learning(game.name)
    assert module is not None
    row = [1] + [0] * (len(module.FEATURES) - 1)
    for case in {c for c in module.blocks(compiled) if c is not None}:
        save_model(Model(game.name, case, 1, tuple(module.FEATURES), tuple(module.KINDS),
                         [list(row) for _ in module.KINDS]), tmp_path / f"{game.name}-{case}.v1.json")
    heuristic = parse_policy("heuristic", game.name)
    learned = [parse_policy(f"learned:model={tmp_path},version=1", game.name)] + [heuristic] * (players - 1)
    expected = game.play_units("kernel", compiled, [heuristic] * players, SEED, 0, 600, None)
    for engine, units in (("kernel", 600), ("reference", 40)):
        rows = game.play_units(engine, compiled, learned, SEED, 0, units, None)
        for got, want in zip(rows, expected, strict=True):
            np.testing.assert_array_equal(got, want[:, :units])
