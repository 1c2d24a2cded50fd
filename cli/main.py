"""The ``fudasim`` command: a thin click layer over simcore and analysis.

Every user error (bad rules file, option, policy, path, deck or decision) is one line on stderr
and exit status 2, never a traceback.
"""

from __future__ import annotations

import json
import shlex
import sys
import warnings
from pathlib import Path

import click

import simcore
from cli.errors import UserError, interrupted, reports_user_errors, stops_on_sigterm
from cli.options import (
    CONTEXT,
    compiled_with_specs,
    most_players,
    option_overrides,
    parse_policies,
    players_option,
    policy_options,
    rule_overrides,
)
from cli.paths import PathParam


class FudasimGroup(click.Group):
    """The command group: click's own usage errors (an unknown option, a bad value, a missing
    argument) come out as one line too, ``fudasim: error: ...`` with exit status 2."""

    def main(self, *args, **kwargs):
        """Run the command line; click's usage errors become one line with exit status 2."""
        kwargs["standalone_mode"] = False
        warnings.formatwarning = _one_line_warning
        try:
            return super().main(*args, **kwargs)
        except click.exceptions.Exit as done:  # --help, --version
            sys.exit(done.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        except click.UsageError as error:
            where = f" (see '{error.ctx.command_path} -h')" if error.ctx is not None else ""
            message = " ".join(error.format_message().split())
            click.echo(f"fudasim: error: {message}{where}", err=True)
            sys.exit(2)
        except click.ClickException as error:
            error.show()
            sys.exit(error.exit_code)


def _one_line_warning(message, category, filename, lineno, line=None) -> str:
    """A warning on the command line as one line (e.g. a seat that sees hidden cards)."""
    return f"fudasim: warning: {message}\n"


@click.group(cls=FudasimGroup, context_settings=CONTEXT)
@click.version_option(simcore.__version__, "--version", prog_name="fudasim")
def main() -> None:
    """fudasim: Monte Carlo simulation of Tensho, Enshu-bana and koi-koi, written to Parquet."""


# --- run ---------------------------------------------------------------------------------------


@main.command(context_settings=CONTEXT)
@click.argument("rules", required=False, default="tensho-ise", metavar="[RULES]")
@click.option("--rounds", type=click.IntRange(min=1), default=None,
              help="Independent rounds to play (default 1,000,000), each dealt by seat round % 2.")
@click.option("--matches", type=click.IntRange(min=1), default=None,
              help="Play matches instead: the round winner deals next.")
@click.option("--rounds-per-match", type=click.IntRange(min=1), default=None,
              help="Rounds in a match (default: the rules' tensho.rounds).")
@click.option("--seed", type=click.IntRange(min=0, max=2**64 - 1), default=0, show_default=True)
@policy_options
@option_overrides
@players_option
@click.option("--engine", type=click.Choice(["kernel", "reference"]), default="kernel", show_default=True,
              help="The numba kernel, or the pure-Python reference engine (identical rows, slower).")
@click.option("--threads", type=click.IntRange(min=1), default=None,
              help="Kernel threads (default: all cores; with --scheduler, per task, default 1).")
@click.option("-o", "--out", "--output", "out", type=PathParam(file_okay=False, path_type=Path), default=None,
              help="Dataset directory (default fudasim-out/RULES-seedS), or an object store prefix such as "
                   "s3://BUCKET/PREFIX (docs/distributed.md). Every command that writes spells this -o/--out; "
                   "--output is accepted too.")
@click.option("--resume", is_flag=True, help="Finish an interrupted run in --out.")
@click.option("--overwrite", is_flag=True, help="Replace an existing dataset in --out.")
@click.option("--shard-rounds", type=click.IntRange(min=1), default=None,
              help="Units (rounds or matches) per Parquet shard (default: about 262,144 rounds; "
                   "4,194,304 with --summary).")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: when stderr is a terminal).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the shards as tasks on Dask distributed: tcp://HOST:8786 (a running scheduler; --out "
                   "must be on a file system, or object store, every worker can write) or local:N (N worker processes on this "
                   "machine, started and closed by the run). Same rows as a local run (docs/distributed.md).")
@click.option("--summary", is_flag=True,
              help="Keep per shard the exact counts the reports need instead of the rows (docs/summary-runs.md).")
@click.option("--paired-with", "paired_with", type=PathParam(file_okay=False, path_type=Path), default=None,
              metavar="BASELINE", help="With --summary: also keep the per-round differences from the run in "
                                       "BASELINE (same seed and deck), so `fudasim compare BASELINE OUT` is paired.")
@reports_user_errors
def run(rules, rounds, matches, rounds_per_match, seed, policies, options, players, engine, threads, out, resume,
        overwrite, shard_rounds, progress, scheduler, summary, paired_with):
    """Play rounds (or matches) and write one row per round to a Parquet dataset.

    RULES is a shipped rule set (see `fudasim rules list`) or a rule file; default tensho-ise.
    """
    from simcore.run.runner import RunConfig
    from simcore.run.runner import run as run_simulation

    if resume and overwrite:
        raise UserError("--resume and --overwrite contradict each other; give one")
    config = RunConfig(
        rules=rules, options=rule_overrides(rules, options, players), seed=seed, rounds=rounds, matches=matches,
        rounds_per_match=rounds_per_match, policies=parse_policies(policies), engine=engine,
        threads=threads, out=str(out) if out else None, resume=resume, overwrite=overwrite,
        units_per_shard=shard_rounds,
        progress=sys.stderr.isatty() if progress is None else progress,
        command=shlex.join(["fudasim", *sys.argv[1:]]), scheduler=scheduler,
        summary=summary, paired_with=str(paired_with) if paired_with is not None else None,
    )
    try:
        with stops_on_sigterm():
            summary = run_simulation(config)
    except KeyboardInterrupt as error:
        interrupted(error, "the shards written so far are complete. Finish with the same command and --resume.")
    click.echo(_summary_text(summary))


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def _match_outcomes(summary) -> tuple[int, list[int], int] | None:
    """Matches played, won by each seat, and tied, over the whole dataset of a match run (what
    the report's Match outcomes table counts); None for a run of independent rounds."""
    import numpy as np

    from analysis.reader import AnalysisError, open_run
    from analysis.summary import match_winners
    from analysis.summary_io import summarise_run
    from simcore.dataset import DatasetError, read_dataset

    try:
        dataset = open_run(summary.out)
        if dataset.rounds_per_match is None:
            return None
        if dataset.summary:  # counts, not rows: the summary shards keep the match outcomes
            counts = summarise_run(dataset).matches
            return None if counts is None else (counts.matches, list(counts.seat_wins), counts.draws)
        points = [f"match_points_{seat}" for seat in range(summary.seats)]
        if not all(name in dataset.schema.names for name in ["match_end", *points]):
            return None
        rows = read_dataset(summary.out, columns=["match_end", *points])
    except (AnalysisError, DatasetError):
        return None
    winners = match_winners(rows.loc[rows["match_end"].astype(bool), points].to_numpy(dtype=np.int64))
    return len(winners), [int((winners == seat).sum()) for seat in range(summary.seats)], int((winners < 0).sum())


COMPILE_NOTE_SECONDS = 1.0  # a warm-up this long was numba compiling, not loading, the kernel


def _summary_text(summary) -> str:
    """The table printed after a run; after a resume it covers the whole dataset."""
    shards = _plural(summary.shards_written, "shard")
    if summary.shards_skipped:
        shards += f" computed now, {summary.shards_skipped:,} already present"
    lines = [f"Wrote {summary.out}  ({shards})"]
    matches = _match_outcomes(summary)
    n = summary.rounds
    computed = summary.rounds - summary.rounds_present
    if computed:
        rate = computed / summary.seconds if summary.seconds > 0 else float("inf")
        lines.append(f"{computed:,} rounds in {summary.seconds:.2f} s ({rate:,.0f} rounds/s)")
        if summary.compile_seconds >= COMPILE_NOTE_SECONDS:
            lines[-1] += f", after {summary.compile_seconds:.1f} s compiling the kernel (first run only)"
    else:
        lines.append("Nothing left to play.")
    if summary.rounds_present:
        lines.append(f"The whole dataset: {n:,} rounds (the tables below count them all)")
    if not n:
        return "\n".join(lines)
    lines.append("")
    sat_out = bool((summary.seat_rounds < n).any() or summary.dealer_rounds < n)
    # as wide as the longest label: a long policy or yaku name is never cut or run into the numbers
    labels = [f"seat {seat} ({policy})" for seat, policy in enumerate(summary.policies)]
    wide = max([28, *(len(label) + 2 for label in labels)])
    header = f"{'winner':<{wide}}{'rounds':>12}{'share':>9}"
    lines.append(header + (f"{'rounds played':>16}" if sat_out else ""))

    def row(label: str, wins: int, played: int) -> str:
        share = f"{wins / played:>9.2%}" if played else f"{'-':>9}"
        return f"{label:<{wide}}{wins:>12,}{share}" + (f"{played:>16,}" if sat_out else "")

    for seat in range(summary.seats):
        lines.append(row(f"seat {seat} ({summary.policies[seat]})", int(summary.wins[seat]),
                         int(summary.seat_rounds[seat])))
    lines.append(row("the dealer", summary.dealer_wins, summary.dealer_rounds))
    lines.append(f"{'no winner (draw or void)':<{wide}}{summary.draws:>12,}{summary.draws / n:>9.2%}")
    if sat_out:
        lines.append("(a seat's share is of the rounds it played; seats sit rounds out here)")
    if matches is not None and matches[0]:
        played, wins, draws = matches
        lines.append("")
        lines.append(f"{'match winner':<{wide}}{'matches':>12}{'share':>9}")
        for seat, won in enumerate(wins):
            lines.append(f"{f'seat {seat} ({summary.policies[seat]})':<{wide}}{won:>12,}{won / played:>9.2%}")
        lines.append(f"{'no winner (drawn match)':<{wide}}{draws:>12,}{draws / played:>9.2%}")
    lines.append("")
    lines.append(f"{'end reason':<{wide}}{'rounds':>12}{'share':>9}")
    for code, name in enumerate(summary.end_reason_names):
        count = int(summary.end_reasons[code])
        if count:
            lines.append(f"{name:<{wide}}{count:>12,}{count / n:>9.2%}")
    if summary.yaku_counts.size:
        totals = summary.yaku_counts.sum(axis=0)
        order = [int(i) for i in totals.argsort()[::-1] if totals[i] > 0][:8]
        if order:
            # as wide as the longest name shown: a name is never cut ("Boar, Butterflies, Rain Man")
            named = max([34, *(len(summary.yaku_names[bit]) + 2 for bit in order)])
            lines.append("")
            lines.append(f"{'most frequent yaku (any seat)':<{named}}{'rounds':>12}{'per round':>11}")
            for bit in order:
                lines.append(f"{summary.yaku_names[bit]:<{named}}{int(totals[bit]):>12,}{totals[bit] / n:>11.4f}")
    return "\n".join(lines)


# --- verify ------------------------------------------------------------------------------------


@main.command(context_settings=CONTEXT)
@click.argument("dataset", type=PathParam(path_type=Path))
@click.option("--deep", is_flag=True, help="Also decode every shard and check its rows against its unit range.")
def verify(dataset, deep):
    """Check a dataset against its manifest: missing, extra, foreign, truncated or changed shards,
    shards of another run, duplicate or missing units, an unfinished run.

    Prints one line per problem, then a verdict.  Exit status 0: intact; 1: problems found;
    2: DATASET is not a fudasim dataset.
    """
    from simcore.dataset import DatasetError, check_dataset
    from simcore.run.tournament import is_tournament
    from simcore.storage import display

    if is_tournament(dataset):
        from cli.tournament import verify_tournament_folder

        verify_tournament_folder(dataset, deep)
        return
    try:
        check = check_dataset(dataset, checksums=True, deep=deep)
        dataset = display(dataset)  # s3://... as given (a Path collapses its //)
    except DatasetError as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"{error.filename or dataset}: {error.strerror or error}") from None
    for note in check.notes:
        click.echo(f"note: {note}")
    for _, line in check.problems:
        click.echo(line)
    shards = _plural(check.expected_shards, "shard")
    if check.problems:
        click.echo(f"{dataset}: {_plural(len(check.problems), 'problem')} found "
                   f"(a damaged shard is recomputed by `fudasim run ... --out {dataset} --resume`)")
        sys.exit(1)
    checked = ("sizes, checksums and rows" if deep else "sizes and checksums") if check.listed else "shard metadata"
    rows = check.rounds(list(check.shards.values()))
    kind = ""
    if check.manifest.get("summary") is True:  # the shards hold counts: their rounds are in their metadata
        kind = " summarised"
        checked = checked.replace("rows", "cells")
    click.echo(f"{dataset}: OK, complete: {shards}, {rows:,}{kind} rounds ({checked} checked)")


# --- replay ------------------------------------------------------------------------------------


@main.command(context_settings=CONTEXT)
@click.argument("source", metavar="DATASET|RULES")
@click.option("--seed", type=click.IntRange(min=0, max=2**64 - 1), default=None,
              help="Seed of the run (with RULES; a DATASET names its own).")
@click.option("--round", "round_index", type=click.IntRange(min=0, max=2**64 - 1), default=None,
              help="Round index in the run.")
@click.option("--rounds-per-match", type=click.IntRange(min=1), default=None,
              help="With RULES: the run was match play with this many rounds per match.")
@click.option("--deck", default=None, metavar="IDS",
              help="Replay an explicit deal: every card id (45 Tensho, 48 Enshu-bana), comma-separated, "
                   "in deal order (docs/replay.md).")
@click.option("--dealer", type=click.IntRange(0, most_players() - 1), default=None,
              help="Dealer seat of an explicit deal (default 0).")
@click.option("--decisions", type=PathParam(dir_okay=False, path_type=Path), default=None,
              help="JSON list of decisions for an explicit deal (docs/replay.md).")
@click.option("--redraw", type=PathParam(dir_okay=False, path_type=Path), default=None,
              help="Enshu-bana C, 4-5 players: JSON list of the draw pile's card ids, top first, after the "
                   "dropped hands were shuffled into it (fudasim play saves it as PREFIX.redraw.json).")
@click.option("--record", type=PathParam(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Replay a whole match from a game record, in the record format of the rules' game "
                   "(docs/replay.md); exit status 1 at the first move or result that differs from the rules.")
@policy_options
@option_overrides
@players_option
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: the readable trace; json: the machine-readable trace.")
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
@reports_user_errors
def replay(source, seed, round_index, rounds_per_match, deck, dealer, decisions, redraw, record, policies, options,
           players, output_format, as_json):
    """Play one round again and print its trace.

    \b
    fudasim replay DATASET --round R          a round of a run, with that run's rules, options,
                                              policies, players and match settings
    fudasim replay RULES --seed S --round R   a round of a run of RULES (give its --policy,
                                              --option, --players, --rounds-per-match too)
    fudasim replay RULES --deck IDS [--decisions FILE]   an explicit deal (docs/replay.md)
    fudasim replay RULES --record FILE        a match played by people, from its game record
    """
    as_json = as_json or output_format == "json"
    if _is_dataset_path(source):
        _replay_dataset(Path(source), round_index, as_json, seed=seed, rounds_per_match=rounds_per_match,
                        deck=deck, dealer=dealer, decisions=decisions, redraw=redraw, record=record,
                        policies=policies, options=options, players=players)
        return
    if record is not None:
        given = {"--seed": seed, "--round": round_index, "--rounds-per-match": rounds_per_match, "--deck": deck,
                 "--dealer": dealer, "--decisions": decisions, "--redraw": redraw, "--policy": policies or None}
        unwanted = [flag for flag, value in given.items() if value is not None]
        if unwanted:
            raise UserError(f"{unwanted[0]}: --record replays the record's own deals and moves; give only RULES, "
                            "--option and --format with it")
        _replay_record(source, record, options, players, as_json)
        return
    compiled, game, specs = compiled_with_specs(source, options, players, policies)
    replay_module = game.replay()
    if deck is not None:
        if seed is not None or round_index is not None:
            raise UserError("give either --deck or --seed with --round, not both")
        decision_list = None
        if decisions is not None:
            try:
                decision_list = json.loads(decisions.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise UserError(f"--decisions {decisions}: no such file") from None
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                raise UserError(f"--decisions {decisions}: not valid JSON: {error}") from None
        from simcore.reference.replay import parse_deck

        cards = parse_deck(deck, compiled.rules.deck.size)
        extra = {}
        if redraw is not None:
            if not replay_module.REDRAW:
                raise UserError(f"--redraw: {game.title} never redraws the draw pile mid-round")
            try:
                order = json.loads(redraw.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise UserError(f"--redraw {redraw}: no such file") from None
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                raise UserError(f"--redraw {redraw}: not valid JSON: {error}") from None
            if not isinstance(order, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in order):
                raise UserError(f"--redraw {redraw}: expected a JSON list of card ids")
            extra["redraw"] = order
        result = replay_module.replay_deck(compiled, cards, decision_list, specs, dealer=dealer or 0, **extra)
    else:
        if seed is None or round_index is None:
            raise UserError("give --seed and --round (a round of a run), or --deck (an explicit deal), "
                            "or a DATASET directory with --round")
        if decisions is not None or redraw is not None:
            raise UserError("--decisions and --redraw go with --deck")
        result = replay_module.replay_from_run(compiled, specs, seed, round_index, rounds_per_match)
    if as_json:
        click.echo(json.dumps(replay_module.trace_json(compiled, result), indent=2, ensure_ascii=False))
    else:
        click.echo(replay_module.format_trace(compiled, result))


MAX_RECORD_BYTES = 64 * 1024 * 1024  # far more than any game record; a stray huge file is refused unread


def _replay_record(source: str, record: Path, options, players, as_json: bool) -> None:
    """``fudasim replay RULES --record FILE``: the match of a game record, move by move, under the
    rules; exit status 1 at the first divergence, 2 for a record that cannot be read."""
    compiled, game, _ = compiled_with_specs(source, options, players, ())
    # an optional member of a game's replay: a game without a record format has none
    replay_record = getattr(game.replay(), "replay_record", None)
    if replay_record is None:
        raise UserError(f"--record: {game.title} has no game-record format to replay")
    try:
        with record.open("rb") as file:
            data = file.read(MAX_RECORD_BYTES + 1)
    except FileNotFoundError:
        raise UserError(f"--record {record}: no such file") from None
    if len(data) > MAX_RECORD_BYTES:
        raise UserError(f"--record {record}: larger than a game record may be ({MAX_RECORD_BYTES:,} bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UserError(f"--record {record}: not UTF-8 text: {error}") from None
    outcome = replay_record(compiled, text, str(record))
    if as_json:
        click.echo(json.dumps(outcome.json(compiled), indent=2, ensure_ascii=False))
    else:
        click.echo(outcome.text(compiled))
    if outcome.divergence is not None:
        click.echo(f"fudasim: {record} differs from {compiled.rules.name}: {outcome.divergence}", err=True)
        sys.exit(1)


def _is_dataset_path(source: str) -> bool:
    """A directory, or a Parquet shard, or a URI (s3://...) is a dataset; anything else names rules."""
    from simcore.storage import is_uri

    if is_uri(source):
        return True
    path = Path(source)
    return path.is_dir() or (path.suffix == ".parquet" and path.is_file())


def _replay_dataset(path: Path, round_index, as_json: bool, **given) -> None:
    """``fudasim replay DATASET --round R``: the run's own settings; its row checked."""
    from analysis.reader import AnalysisError, open_run
    from simcore.run.replay_dataset import (
        dataset_row,
        open_run_replay,
        record_row,
        row_differences,
    )

    flags = {"seed": "--seed", "rounds_per_match": "--rounds-per-match", "deck": "--deck", "dealer": "--dealer",
             "decisions": "--decisions", "redraw": "--redraw", "record": "--record", "policies": "--policy",
             "options": "--option", "players": "--players"}
    for key, flag in flags.items():
        if given[key] not in (None, ()):
            raise UserError(f"{flag}: {path} is a dataset, which sets its own seed, rules, options, policies, "
                            f"players and match settings; give only --round (and --format)")
    if round_index is None:
        raise UserError(f"{path} is a dataset: give --round R, the round to replay")
    try:
        # The replay needs only the run's metadata; the row it is checked against comes from an
        # intact shard only (a missing or damaged one is left out, and the output says so).  The
        # replay checks that row itself, so the shards are not all hashed for it.
        run = open_run(path, allow_incomplete=True, checksums=False)
        run.require_rows("replay")
    except AnalysisError as error:
        raise UserError(str(error)) from None
    replayer = open_run_replay(path, run.run_info, run.rules_text)
    result = replayer.replay(round_index)
    replay_module = replayer.game.replay()
    replayed_row = record_row(replayer.game, replayer.compiled, result)
    stored_row = dataset_row(run.files, round_index)
    differences = [] if stored_row is None else row_differences(replayed_row, stored_row)
    if as_json:
        trace = replay_module.trace_json(replayer.compiled, result)
        trace["dataset"] = str(path)
        trace["row"] = replayed_row
        trace["row_in_dataset"] = stored_row is not None
        trace["row_differences"] = differences
        click.echo(json.dumps(trace, indent=2, ensure_ascii=False))
    else:
        click.echo(replay_module.format_trace(replayer.compiled, result))
        if stored_row is None:
            click.echo(f"\n{path} has no row for round {round_index} (its shard is missing or damaged: "
                       f"see fudasim verify {path}); "
                       "this is the round as the run would play it.")
        elif not differences:
            click.echo(f"\nThe replay agrees with {path}'s row for round {round_index} in every column.")
    if differences:
        click.echo(f"fudasim: warning: the replay differs from {path}'s row for round {round_index} in "
                   f"{', '.join(differences)}; check the dataset with fudasim verify", err=True)
        sys.exit(1)


# --- rules -------------------------------------------------------------------------------------


@main.group(context_settings=CONTEXT)
def rules():
    """List, show and validate rule sets."""


@rules.command("list", context_settings=CONTEXT)
def rules_list():
    """The shipped rule sets."""
    from simcore.rules import shipped_rules

    for name, title in shipped_rules().items():
        click.echo(f"{name:<20}{title}")


@rules.command("show", context_settings=CONTEXT)
@click.argument("rules")
@option_overrides
@players_option
@click.option("--raw", is_flag=True, help="Print the rule file's text.")
@reports_user_errors
def rules_show(rules, options, players, raw):
    """Options, yaku tables and card values of a rule set (shipped name or file)."""
    from simcore.rules import load_rules

    rule_set = load_rules(rules, rule_overrides(rules, options, players))
    if raw:
        click.echo(rule_set.text, nl=False)
        return
    click.echo(_describe_rules(rule_set))


def _describe_rules(rule_set) -> str:
    from simcore.games import game_of
    from simcore.policies import decision_kinds

    lines = [f"{rule_set.title}  [{rule_set.name}, {rule_set.source}]"]
    if rule_set.description:
        lines.append(rule_set.description)
    lines.append(f"deck {rule_set.deck.key}, {rule_set.players} players, sha256 {rule_set.sha256[:16]}")
    lines.append("")
    lines.append("options:")
    for name, value in rule_set.options.items():
        mark = "  (overridden)" if name in rule_set.overrides else ""
        lines.append(f"  {name:<32} {value}{mark}")
    game = game_of(rule_set)
    lines.extend(game.describe_rules(rule_set))
    lines.extend(_learned_models(game, rule_set))
    lines += ["", f"decision kinds (pimc:search=KIND+...): {', '.join(decision_kinds(game.name))}"]
    return "\n".join(lines)


def _learned_models(game, rule_set) -> list[str]:
    """The shipped models of the learned player (``--policy learned``), those these rules play marked."""
    from simcore.learned import learning
    from simcore.models import (
        guide_models,
        played_model,
        played_value_model,
        shipped_models,
        value_models,
    )
    from simcore.policies import parse_policy

    module = learning(game.name)
    if module is None:
        return []
    played = set(module.blocks(game.compile(rule_set)))
    models = shipped_models(game.name)
    version = int(parse_policy("learned", game.name).params["version"])
    lines = ["", f"learned models (--policy learned, version {version}, plays each case's newest version at or "
                 "below it):"]
    if not models:
        lines.append("  none shipped")
    for m in models:
        mark = "  (these rules play it)" if m.case in played and played_model(game.name, m.case, version) == m else ""
        lines.append(f"  {m.case:<8} version {m.version}{mark}")
    values = value_models(game.name)
    value = int(parse_policy("pimc", game.name).params["value"])
    lines += ["", f"value models (pimc and ismcts with depth=N, value {value}, each case's newest version at or "
                  "below it):"]
    if not values:
        lines.append("  none shipped")
    for m in values:
        mark = ("  (these rules read it)" if m.case in played and played_value_model(game.name, m.case, value) == m
                else "")
        lines.append(f"  {m.case:<8} version {m.version}{mark}")
    guides = guide_models(game.name)
    if guides:
        lines += ["", "guide models (pimc:guide=VERSION, each case's newest version at or below it):"]
        for m in guides:
            mark = "  (these rules' case)" if m.case in played else ""
            lines.append(f"  {m.case:<8} version {m.version}{mark}")
    return lines


@rules.command("validate", context_settings=CONTEXT)
@click.argument("files", nargs=-1, required=True)
@option_overrides
@players_option
@reports_user_errors
def rules_validate(files, options, players):
    """Check rule files; one line per file, exit status 2 on the first invalid one."""
    from simcore.rules import load_rules

    for path in files:
        rule_set = load_rules(path, rule_overrides(path, options, players))
        click.echo(f"ok: {path} ({rule_set.game}, {len(rule_set.yaku)} yaku, {rule_set.players} players)")


# --- bench -------------------------------------------------------------------------------------


def _known_game_names() -> list[str]:
    from simcore.games import known_game_names

    return known_game_names()


@main.command(context_settings=CONTEXT)
@click.option("--game", "games", multiple=True, type=click.Choice(_known_game_names()), metavar="NAME",
              help=f"Measure this registered game ({', '.join(_known_game_names())}; repeatable; "
                   "default: every one).")
@click.option("--rounds", type=click.IntRange(min=1), default=None, metavar="N",
              help="Kernel rounds per measurement; each game's cases play this or a share of it "
                   "(default 500,000; --quick 50,000).")
@click.option("--reference-rounds", type=click.IntRange(min=1), default=None, metavar="N",
              help="Reference-engine rounds per case, before the case's share (default 2,000; --quick 200).")
@click.option("--run-rounds", type=click.IntRange(min=1), default=None, metavar="N",
              help="Rounds of the end-to-end run, or a game's share of them (default 10,000,000; "
                   "--quick 200,000).")
@click.option("--memory-rounds", type=click.IntRange(min=1), default=None, metavar="N",
              help="Rounds of the longer peak-memory run (default 20,000,000; --quick 400,000).")
@click.option("--repeat", type=click.IntRange(min=1), default=None, metavar="N",
              help="Timed kernel runs per thread count: best and median (default 12; --quick 1).")
@click.option("--quick", is_flag=True, help="Small sizes, for a smoke test (sizes given explicitly still apply).")
@click.option("--skip-compile", is_flag=True, help="Leave out the cold start (a compile with an empty numba cache).")
@click.option("--policies", "policies", multiple=True, metavar="LABEL",
              help="Measure only the kernel cases with these seats, as the table's policies column names them "
                   "(e.g. learned-learned, pimc-greedy; repeatable), and not fudasim run's figures.")
@click.option("-o", "--out", "--output", "out", type=PathParam(dir_okay=False, path_type=Path), default=None,
              help="Also write the rows as CSV to this file (columns metric, game, policies, case, threads, "
                   "value, unit). --output is accepted too.")
@click.option("--csv", "csv_out", type=PathParam(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="The same as -o/--out.")
@click.option("--overwrite", is_flag=True, help="Replace an existing output file.")
@reports_user_errors
def bench(games, rounds, reference_rounds, run_rounds, memory_rounds, repeat, quick, skip_compile, policies, out,
          csv_out, overwrite):
    """Throughput benchmarks of every registered game: kernel vs reference, threads, end to end,
    memory, start-up.

    Prints a line naming the code measured, then one table: for each game's cases (its rule
    sets, options and player counts, with random and with greedy seats) the kernel's best and
    median rounds/s on one and all threads, thread scaling, the reference engine and the
    kernel's speed-up over it on identical rows; then for each game `fudasim run`'s end-to-end
    rate, peak memory, warm and cold start (docs/performance.md).
    """
    from simcore.run.throughput import QUICK, BenchConfig
    from simcore.run.throughput import bench as run_bench

    if out is not None and csv_out is not None:
        raise UserError("give -o/--out or --csv, not both")
    target = out if out is not None else csv_out
    if target is not None:
        if target.exists() and not overwrite:
            raise UserError(f"{target}: already exists (use --overwrite to replace it)")
        if not target.parent.is_dir():
            raise UserError(f"{target}: no such directory {target.parent}")
    given = {"rounds": rounds, "reference_rounds": reference_rounds, "run_rounds": run_rounds,
             "memory_rounds": memory_rounds, "repeat": repeat}
    sizes = {**(QUICK if quick else {}), **{key: value for key, value in given.items() if value is not None}}
    try:
        config = BenchConfig(games=tuple(dict.fromkeys(games)), skip_compile=skip_compile,
                             policies=tuple(dict.fromkeys(policies)), **sizes)
    except ValueError as error:
        raise UserError(str(error)) from None
    run_bench(config, target, progress=lambda note: click.echo(f"measuring {note}", err=True))


from cli.analysis_commands import compare, report, rescore  # noqa: E402  (registered below)
from cli.compile_kernels import compile_command  # noqa: E402
from cli.skill import skill  # noqa: E402
from cli.sweep import sweep  # noqa: E402
from cli.tournament import tournament  # noqa: E402
from cli.train import train  # noqa: E402

main.add_command(report)
main.add_command(compare)
main.add_command(rescore)
main.add_command(tournament)
main.add_command(train)
main.add_command(skill)
main.add_command(sweep)
main.add_command(compile_command)

from cli.play import play  # noqa: E402  (registered below)

main.add_command(play)


if __name__ == "__main__":
    main()
