"""``fudasim compile``: the kernels of chosen runs compiled ahead, into numba's cache
(``simcore.run.ahead``)."""

from __future__ import annotations

import time

import click

from cli.errors import UserError, interrupted, reports_user_errors
from cli.options import (
    CONTEXT,
    option_overrides,
    parse_policies,
    players_option,
    policy_options,
    rule_overrides,
)

__all__ = ["compile_command"]


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{seconds:.1f} s"


@click.command("compile", context_settings=CONTEXT)
@click.argument("rules", nargs=-1, metavar="[RULES]...")
@policy_options
@option_overrides
@players_option
@click.option("--jobs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Worker processes compiling at once (default: one per core); 1 compiles in this process.")
@reports_user_errors
def compile_command(rules, policies, options, players, jobs):
    """Compile kernels ahead, so that the first runs that play them start at once.

    numba compiles each kernel the first time a run plays it (20-45 s on a 2-core machine) and
    keeps it in its cache. This compiles now, one kernel per worker process at once, the kernels
    of the runs `fudasim run RULES --policy ... --option ... --players ...` would make: with no
    --policy, those of every seat random and of seat 0 playing each of heuristic, learned, pimc
    and ismcts. RULES are
    shipped rule sets or rule files; default: tensho-ise, enshu-c and koikoi, whose kernels also
    serve the other rule sets of their games. A kernel already in the cache is only loaded.
    """
    from simcore.run.ahead import (
        Compiled,
        Target,
        check_target,
        compile_kernels,
        default_rules,
        default_targets,
    )

    names = list(dict.fromkeys(rules)) or default_rules()
    overrides = {name: tuple(sorted(rule_overrides(name, options, players).items())) for name in names}
    if policies:
        chosen = tuple(sorted(parse_policies(policies).items()))
        targets = [Target(name, chosen, overrides[name]) for name in names]
        for target in targets:
            check_target(target)
        skipped: list[str] = []
    else:
        targets, skipped = default_targets(names, overrides)
    for note in skipped:
        click.echo(f"left out {note}", err=True)
    if not targets:
        raise UserError("nothing to compile: " + "; ".join(skipped))
    wide = max(len(target.label) for target in targets) + 2
    start = time.perf_counter()
    compiled_any = [False]

    def done(result: Compiled) -> None:
        what = "compiled in" if result.compiled else "in the cache, loaded in"
        compiled_any[0] |= result.compiled
        click.echo(f"{result.target.label:<{wide}}{what} {result.seconds:.1f} s")

    count = "1 kernel" if len(targets) == 1 else f"{len(targets)} kernels"
    click.echo(f"compiling {count} into the numba cache (runs load them from there) ...")
    try:
        compile_kernels(targets, jobs, done)
    except KeyboardInterrupt as error:
        interrupted(error, "the kernels compiled so far are in the cache; the same command compiles the rest.")
    click.echo(f"{count} ready in {_duration(time.perf_counter() - start)}"
               + ("" if compiled_any[0] else " (all were in the cache already)"))
