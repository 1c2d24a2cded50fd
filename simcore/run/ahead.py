"""Compiling kernels ahead of the runs that play them (``fudasim compile``).

numba compiles a kernel the first time a run plays it and keeps it in its on-disk cache, so each
first run of a policy waits for its compile (docs/performance.md, "First start").
``compile_kernels`` compiles the kernels of a list of runs now, in worker processes (one per
core by default), so that the runs themselves load their kernels from the cache.

A ``Target`` is a run's rules and seats.  The kernel it plays is its game's fast kernel when every
seat plays random or greedy, else the game's general kernel for the policies its seats and their
rollouts play.  The general kernels of one game share its state machine, which numba caches
function by function: the first of a game's general targets compiles it, and the game's other
general targets follow it one by one, so that two processes never compile the same functions at
once.  The default list (``default_targets``) is each registered game's ``default_rules`` (every
rule set of a game has the same numba types, so its kernels serve the game's other rule sets) with
every seat random and with seat 0 playing each of ``DEFAULT_POLICIES``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from multiprocessing import get_context

from simcore.errors import PolicyError

__all__ = ["DEFAULT_POLICIES", "Compiled", "Target", "check_target", "compile_kernels",
           "compile_target", "compiling_behind", "default_rules", "default_targets"]

# the policies of seat 0 in the default list: random is the fast kernel, each other one a general kernel
DEFAULT_POLICIES: tuple[str, ...] = ("random", "heuristic", "learned", "pimc", "ismcts")
FAST_POLICIES = frozenset({"random", "greedy"})  # what every game's fast kernel plays


@dataclass(frozen=True)
class Target:
    """A run whose kernel to compile: its rules (a shipped rule set or a rule file), its seats'
    policies ({seat: spec}, seats not named random), option overrides and rules text
    (``RunConfig.rules_sha256``), as ``fudasim run`` takes them."""

    rules: str
    policies: tuple[tuple[int, str], ...] = ()
    options: tuple[tuple[str, str], ...] = ()
    rules_sha256: str | None = None

    @property
    def label(self) -> str:
        """The target as the arguments of ``fudasim run`` that play its kernel."""
        words = [self.rules, *(f"--option {name}={value}" for name, value in self.options),
                 *(f"--policy {seat}={spec}" for seat, spec in self.policies)]
        return " ".join(words)


@dataclass(frozen=True)
class Compiled:
    """What compiling a target's kernel took: ``seconds`` of wall time, and whether numba compiled
    anything (``compiled``) or loaded it all from its cache."""

    target: Target
    seconds: float
    compiled: bool


def default_rules() -> list[str]:
    """Each registered game's ``default_rules``."""
    from simcore.registry import get_game, known_game_names

    return [get_game(name).default_rules for name in known_game_names()]


def default_targets(rules: Iterable[str], options: Mapping[str, tuple[tuple[str, str], ...]] | None = None
                    ) -> tuple[list[Target], list[str]]:
    """Each rule set of ``rules`` (with its option overrides in ``options``, if any) with every seat
    random and with seat 0 playing each of ``DEFAULT_POLICIES`` (module docstring), and why any of
    them was left out: a policy whose model the rules have none of (``PolicyError``: a learned
    player, say, for a rule file of your own or a player count without a model)."""
    targets: list[Target] = []
    skipped: list[str] = []
    for name in rules:
        overrides = (options or {}).get(name, ())
        for policy in DEFAULT_POLICIES:
            target = Target(name, () if policy == "random" else ((0, policy),), overrides)
            try:
                check_target(target)
            except PolicyError as error:
                skipped.append(f"{target.label}: {error}")
                continue
            targets.append(target)
    return targets, skipped


def _planned(target: Target):
    """``simcore.run.runner``'s plan of a one-round run of ``target`` (its errors as the run's)."""
    from simcore.run.runner import RunConfig, plan_run

    return plan_run(RunConfig(rules=target.rules, options=dict(target.options), policies=dict(target.policies),
                              rounds=1, rules_sha256=target.rules_sha256))


def check_target(target: Target) -> str:
    """``target``'s game, after the checks a run of it makes (its rules, seats, policies and
    models): ``FudasimError`` if ``fudasim run`` would refuse it."""
    _, game, _, _ = _planned(target)
    return str(game.name)


def compile_target(target: Target) -> Compiled:
    """Compile (or load from the cache) the kernel of ``target`` by playing one round of it in
    memory, writing nothing."""
    from numba.core import event

    plan, game, compiled, specs = _planned(target)
    stride = int(plan["round_stride"])
    start = time.perf_counter()
    with event.install_recorder("numba:compile") as recorder:
        game.play_units("kernel", compiled, specs, int(plan["seed"]), 0, 1, plan["rounds_per_match"],
                        out=game.output_buffers(stride))
    return Compiled(target, time.perf_counter() - start, bool(recorder.buffer))


def _order(targets: Sequence[Target]) -> tuple[list[Target], dict[Target, Target]]:
    """The targets to start at once, the longest first (each game's first general target, then the
    fast ones), and the target that follows each of a game's general targets when it is ready
    (``(ready, after)``): a game's general kernels are compiled one after another.  Each target is
    planned here, as its run would be (``FudasimError`` before anything is compiled)."""
    first: list[Target] = []
    fast: list[Target] = []
    last: dict[str, Target] = {}
    after: dict[Target, Target] = {}
    for target in dict.fromkeys(targets):
        _, game, _, specs = _planned(target)
        if all(spec.name in FAST_POLICIES for spec in specs):  # the fast kernel plays every seat
            fast.append(target)
            continue
        if game.name in last:
            after[last[game.name]] = target
        else:
            first.append(target)
        last[game.name] = target
    return [*first, *fast], after


def compile_kernels(targets: Sequence[Target], jobs: int | None = None,
                    done: Callable[[Compiled], None] = lambda _: None) -> list[Compiled]:
    """Compile the kernels of ``targets`` in ``jobs`` worker processes (default: one per core, at
    most one per target; 1: in this process), calling ``done`` with each as it is ready; returns
    them in the order they were ready.  Every target is checked as a run checks it first
    (``FudasimError``: nothing is compiled)."""
    ready, after = _order(targets)
    total = len(ready) + len(after)
    jobs = min(jobs or os.cpu_count() or 1, max(1, total))
    results: list[Compiled] = []

    def finish(result: Compiled) -> None:
        results.append(result)
        if result.target in after:  # the game's next general kernel goes first
            ready.insert(0, after[result.target])
        done(result)

    if jobs == 1:
        while ready:
            finish(compile_target(ready.pop(0)))
        return results
    # spawned workers: a forked one would inherit this process's threads and numba state
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn"),
                             initializer=_stop_between_saves) as pool:
        running: set[Future] = set()
        try:
            while ready or running:
                while ready and len(running) < jobs:
                    running.add(pool.submit(compile_target, ready.pop(0)))
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    finish(future.result())
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return results


def _stop_between_saves() -> None:
    """A compiling process, stopped (Ctrl-C, or the end of the tournament a helper compiles for),
    first finishes a save to numba's cache under way instead of leaving a part of it behind."""
    from simcore.kernels import cache_lock

    cache_lock.stop_between_saves()


def _compile_quietly(targets: Sequence[Target]) -> None:
    """``compiling_behind``'s helper: each target's kernel in turn, at a low priority (stopped, it
    first finishes a cache save under way)."""
    _stop_between_saves()
    with suppress(OSError):
        os.nice(10)
    for target in targets:
        # a target that fails here fails again in the run that plays it, which reports it
        with suppress(Exception):
            compile_target(target)


@contextmanager
def compiling_behind(targets: Sequence[Target]) -> Iterator[None]:
    """While the block plays the runs of ``targets`` in their order (a tournament's, whose runs
    play several kernels), compile the kernels of all but the first in a helper process, the last
    first and at a low priority: numba compiles a kernel on one core, and the run that meets a
    kernel the helper has finished loads it from the cache.  Nothing with fewer than two targets;
    the helper stops when the block ends."""
    later = list(dict.fromkeys(targets))[1:]
    if not later:
        yield
        return
    helper = get_context("spawn").Process(target=_compile_quietly, args=(later[::-1],), daemon=True,
                                          name="fudasim-compile-behind")
    helper.start()
    try:
        yield
    finally:
        if helper.is_alive():
            helper.terminate()
        helper.join(10)
