"""Koi-koi in ``fudasim play``: the koi-koi decision is asked in words, the screen shows each
seat's yaku points and calls, the calls and stops are announced, and every round played is
saved in the replay's vocabulary (``"koikoi"``, ``"stop"``) and replays to its result."""

from __future__ import annotations

from simcore.games import game_of
from simcore.play import PlaySession
from simcore.policies import parse_policy
from simcore.rules import load_rules


def _session(rules: str, seed: int, prompt, shown: list[str]) -> PlaySession:
    rule_set = load_rules(rules)
    game = game_of(rule_set)
    compiled = game.compile(rule_set)
    specs = [parse_policy("heuristic", "koikoi")] * 2
    return PlaySession(game, compiled, specs, 0, seed, 3, prompt, shown.append)


def test_the_koikoi_decision_is_asked_in_words_and_the_rounds_replay():
    asked = []

    def prompt(question):
        asked.append(question)
        return len(question.options) - 1 if question.kind == "koikoi" else 0  # always koi-koi

    shown: list[str] = []
    for seed in range(8):
        match = _session("koikoi-kkj", seed, prompt, shown).play()
        for record in match.rounds:
            assert record.replay_problem is None
        if any(q.kind == "koikoi" for q in asked):
            break
    question = next(q for q in asked if q.kind == "koikoi")
    assert question.text.startswith("Your yaku are worth ") and "call koi-koi" in question.text
    assert question.options == ("stop and score", "call koi-koi")
    assert "a stop now scores" in question.screen
    text = "\n".join(shown)
    assert "calls koi-koi (1)!" in text and "makes the yaku " in text
    saved = [entry for record in match.rounds for entry in record.decisions]
    assert "koikoi" in saved
