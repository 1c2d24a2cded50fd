"""The strength table's summary (benchmarks/strength.py): which policy is strongest in a case and
whether it beats the heuristic by at least as much as the heuristic beats greedy, from hand-made
result rows."""

from benchmarks.strength import margins, strongest


def _row(weak: str, strong: str, mean: float, half: float, case: str = "C") -> dict:
    return {"case": case, "weaker": weak, "stronger": strong, "payoff": (mean, half)}


ROWS = [
    _row("greedy", "heuristic", 22.5, 6.9),
    _row("heuristic", "pimc", 13.5, 5.7),
    _row("heuristic", "pimc:worlds=64,confirm=64", 27.4, 6.3),
    _row("heuristic", "ismcts", 8.6, 9.0),
    _row("greedy", "heuristic", 0.129, 0.026, case="T"),
    _row("heuristic", "pimc", 0.044, 0.013, case="T"),
    _row("heuristic", "learned", -0.01, 0.02, case="T"),
]


def test_the_strongest_policy_is_ahead_of_every_policy_it_met():
    # heuristic beats greedy but loses to the searches; of those the larger gap over the heuristic wins
    assert strongest(ROWS) == [("C", "pimc:worlds=64,confirm=64", "clear"), ("T", "pimc", "clear")]
    # a policy ahead whose interval holds 0 is not resolved
    assert strongest([_row("heuristic", "ismcts", 8.6, 9.0)]) == [("C", "ismcts", "not resolved")]


def test_its_gap_over_the_heuristic_is_set_against_the_heuristics_over_greedy():
    assert margins(ROWS, "C", "pimc:worlds=64,confirm=64") == ("+27.400 ± 6.300", "+22.500 ± 6.900", "yes")
    assert margins(ROWS, "C", "pimc")[2] == "no"
    assert margins(ROWS, "T", "pimc")[2] == "no"
    # a case without the greedy -> heuristic pair says nothing of the margin
    assert margins([_row("heuristic", "pimc", 1.0, 0.1)], "C", "pimc") == ("+1.000 ± 0.100", "", "")
