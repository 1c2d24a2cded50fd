"""Tune a search player's parameters against ``heuristic`` with optuna (``pip install '.[tune]'``).

Each trial plays one paired tournament (``benchmarks.strength``: the heuristic against the
candidate on the same deals, every seating) on the tuning seed, and the study maximises the
candidate's mean payoff gap per round. Every trial plays the same deals, so trials are compared
on common random numbers. optuna's TPE sampler proposes the values (seeded, so a study is
reproducible given the same results), and a finished study is resumed from its SQLite file::

    python -m benchmarks.tune_search --case tensho-set1 --policy pimc --fixed worlds=16,rollout=heuristic \\
        --tune z=0:3 --trials 12 --deals 1500 --out tune-runs

``--tune NAME=LO:HI`` searches a float in ``LO .. HI`` (``NAME=LO:HI:int`` an integer,
``NAME=LO:HI:log`` a float on a log scale), ``--choice NAME=A|B`` one of the values, ``--fixed``
sets the rest. With ``--time`` the study has two objectives, the gap (maximised) and the
candidate's time per decision (minimised, as the tournament times it), and prints the trials
on their Pareto front: what each time per decision buys. The best value of many noisy trials
is biased upward: the script replays the best trial (with ``--time``, the strongest on the
front) on ``--confirm-seed`` with ``--confirm-deals`` deals and prints that estimate too,
which is the one to quote.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

__all__ = ["candidate", "main", "parse_space"]


def parse_space(tune: list[str], choices: list[str]) -> dict[str, tuple]:
    """``{name: ("float"|"int"|"log", lo, hi) or ("choice", values)}`` from the command line."""
    space: dict[str, tuple] = {}
    for item in tune:
        name, _, rest = item.partition("=")
        parts = rest.split(":")
        if not name or len(parts) not in (2, 3):
            raise SystemExit(f"--tune {item!r}: expected NAME=LO:HI[:int|:log]")
        kind = parts[2] if len(parts) == 3 else "float"
        if kind not in ("float", "int", "log"):
            raise SystemExit(f"--tune {item!r}: the kind must be int or log, got {kind!r}")
        number = int if kind == "int" else float
        space[name] = (kind, number(parts[0]), number(parts[1]))
    for item in choices:
        name, _, rest = item.partition("=")
        if not name or not rest:
            raise SystemExit(f"--choice {item!r}: expected NAME=A|B|...")
        space[name] = ("choice", tuple(rest.split("|")))
    return space


def candidate(policy: str, fixed: str, values: dict[str, Any]) -> str:
    """The policy text of a trial: ``policy:fixed,name=value,...``."""
    items = [item for item in fixed.split(",") if item] + [
        f"{name}={round(value, 3) if isinstance(value, float) else value}" for name, value in sorted(values.items())]
    return policy + (":" + ",".join(items) if items else "")


def _suggest(trial: Any, space: dict[str, tuple]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, spec in space.items():
        if spec[0] == "choice":
            values[name] = trial.suggest_categorical(name, list(spec[1]))
        elif spec[0] == "int":
            values[name] = trial.suggest_int(name, spec[1], spec[2])
        else:
            values[name] = trial.suggest_float(name, spec[1], spec[2], log=spec[0] == "log")
    return values


def _gap(case: Any, base: str, text: str, deals: int, seed: int, out: Path, threads: int | None) -> dict:
    from benchmarks.strength import strength_rows

    folder = out / f"seed{seed}-{deals}" / text.replace(":", "_").replace(",", "_").replace("=", "-")
    (row,) = strength_rows(case, [(base, text)], deals, seed, folder, "kernel", threads)
    return row


def main(argv: list[str] | None = None) -> int:
    """Run (or resume) the study and print its trials, the best and its confirmation."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", required=True, help="a case of benchmarks.strength")
    parser.add_argument("--policy", required=True, choices=("pimc", "ismcts"))
    parser.add_argument("--fixed", default="", help="parameters every trial shares, k=v,...")
    parser.add_argument("--tune", action="append", default=[], metavar="NAME=LO:HI[:int|:log]")
    parser.add_argument("--choice", action="append", default=[], metavar="NAME=A|B")
    parser.add_argument("--base", default="heuristic")
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11, help="the tuning deals")
    parser.add_argument("--confirm-seed", type=int, default=12)
    parser.add_argument("--confirm-deals", type=int, default=0, help="0: as --deals")
    parser.add_argument("--sampler-seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--time", action="store_true", help="also minimise the time per decision")
    parser.add_argument("--out", type=Path, default=Path("tune-runs"))
    args = parser.parse_args(argv)
    try:
        import optuna
    except ImportError:
        raise SystemExit("benchmarks.tune_search needs optuna: pip install '.[tune]'") from None
    from benchmarks.strength import CASES

    if args.case not in CASES:
        parser.error(f"--case: unknown case {args.case!r} (known: {', '.join(CASES)})")
    space = parse_space(args.tune, args.choice)
    if not space:
        parser.error("nothing to tune: give --tune or --choice")
    case = CASES[args.case]
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"{args.case}-{candidate(args.policy, args.fixed, {})}-seed{args.seed}-{args.deals}{'-time' * args.time}"
    study = optuna.create_study(
        study_name=name, storage=f"sqlite:///{args.out / 'studies.sqlite3'}", load_if_exists=True,
        directions=["maximize", "minimize"] if args.time else ["maximize"],
        sampler=optuna.samplers.TPESampler(seed=args.sampler_seed))
    optuna.logging.set_verbosity(optuna.logging.WARNING)

    def objective(trial: Any) -> Any:
        text = candidate(args.policy, args.fixed, _suggest(trial, space))
        row = _gap(case, args.base, text, args.deals, args.seed, args.out, args.threads)
        mean, half = row["payoff"]
        us = float(row.get("us_stronger", math.nan))
        trial.set_user_attr("policy", text)
        trial.set_user_attr("half_width", half)
        trial.set_user_attr("us_per_decision", us)
        sys.stderr.write(f"trial {trial.number}: {text}: {mean:+.4f} ± {half:.4f}, {us:,.0f} us per decision\n")
        return (mean, us) if args.time else mean

    remaining = args.trials - len([t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE])
    if remaining > 0:
        study.optimize(objective, n_trials=remaining)
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    front = {t.number for t in study.best_trials}
    lines = ["| trial | policy | payoff gap per round (95%) | µs per decision | Pareto front |",
             "|---:|---|---:|---:|---|"]
    for t in sorted(done, key=lambda t: -t.values[0]):
        us = t.user_attrs.get("us_per_decision")
        lines.append(f"| {t.number} | `{t.user_attrs['policy']}` | {t.values[0]:+.4f} ± "
                     f"{t.user_attrs['half_width']:.4f} | {'' if us is None or us != us else f'{us:,.0f}'} | "
                     f"{'yes' if t.number in front else ''} |")
    best = max(study.best_trials, key=lambda t: t.values[0]).user_attrs["policy"]
    confirm = _gap(case, args.base, best, args.confirm_deals or args.deals, args.confirm_seed, args.out, args.threads)
    mean, half = confirm["payoff"]
    command = " ".join(["python -m benchmarks.tune_search", *(argv if argv is not None else sys.argv[1:])])
    sys.stdout.write("\n".join(lines) + "\n\n")
    sys.stdout.write(f"best: `{best}`; on seed {args.confirm_seed} ({confirm['deals']:,} deals) against "
                     f"{args.base}: {mean:+.4f} ± {half:.4f} per round\n\n`{command}`\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
