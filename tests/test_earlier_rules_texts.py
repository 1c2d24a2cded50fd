"""Earlier texts of the shipped rule files (``simcore/rules/earlier``): a run, tournament or sweep
records its rules text's sha256, and one begun before a shipped file's comments changed resumes
with the text it began with, so every shard of it carries that text."""

from __future__ import annotations

import hashlib
import json
import tomllib
from importlib import resources

import pyarrow.parquet as pq
import pytest

from simcore.dataset import read_dataset, verify_dataset
from simcore.rules import earlier_text, load_rules, loader, shipped_rules
from simcore.run import runner, tournament
from simcore.run.runner import RunConfig, RunError, run
from simcore.run.tournament import TournamentConfig, run_tournament, verify_tournament

FOLDER = resources.files("simcore.rules") / loader.EARLIER_FOLDER


def _earlier() -> list[tuple[str, str, str]]:
    """(shipped name, sha256, text) of every earlier text."""
    out = []
    for entry in sorted(FOLDER.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            text = entry.read_text(encoding="utf-8")
            out.append((entry.name[: -len(".toml")].rsplit("-", 1)[0], hashlib.sha256(text.encode()).hexdigest(),
                        text))
    return out


EARLIER = _earlier()
ISE = next(sha for name, sha, _ in EARLIER if name == "tensho-ise")


class Stop(Exception):
    pass


def test_each_earlier_text_is_named_by_its_digest_and_holds_todays_rules():
    assert {name for name, _, _ in EARLIER} >= {"tensho-ise", "tensho-hanafuda", "enshu-w", "enshu-s", "enshu-c"}
    for entry in FOLDER.iterdir():
        if entry.name.endswith(".toml"):
            name, _, digest = entry.name[: -len(".toml")].rpartition("-")
            assert name in shipped_rules(), entry.name
            assert hashlib.sha256(entry.read_text(encoding="utf-8").encode()).hexdigest()[:16] == digest, entry.name
    for name, sha, text in EARLIER:
        today = load_rules(name)
        assert sha != today.sha256
        assert tomllib.loads(text) == tomllib.loads(today.text), f"{name}: the earlier text's rules differ"
        assert earlier_text(name, sha) == text
        assert earlier_text(name, today.sha256) is None
        assert load_rules(name, recorded_sha256=sha).text == text
        assert load_rules(name, recorded_sha256="0" * 64).text == today.text
    assert earlier_text("no-such-rules", ISE) is None and earlier_text("tensho-hanafuda", ISE) is None


def test_a_rule_file_of_ones_own_is_never_replaced_by_an_earlier_shipped_text(tmp_path, monkeypatch):
    """Only a shipped name resumes with an earlier text: a user's file (even one named like a
    shipped set, in the folder the command runs in) is loaded as it is now."""
    monkeypatch.chdir(tmp_path)
    mine = tmp_path / "tensho-ise.toml"
    mine.write_text(load_rules("tensho-ise").text + "# mine\n", encoding="utf-8")
    for ref in (str(mine), "tensho-ise.toml"):
        assert load_rules(ref, recorded_sha256=ISE).text == mine.read_text(encoding="utf-8")


def _stop_after_first_shard(monkeypatch):
    commit = runner.ManifestWriter.commit

    def once(self, index, entry):
        commit(self, index, entry)
        raise Stop

    monkeypatch.setattr(runner.ManifestWriter, "commit", once)


def _rules_texts(out) -> set[str]:
    return {pq.read_schema(shard).metadata[b"fudasim.rules"].decode() for shard in out.glob("part-*.parquet")}


def test_a_run_begun_with_an_earlier_text_resumes_with_it(tmp_path, monkeypatch):
    size = dict(rules="tensho-ise", rounds=6, units_per_shard=2, seed=5, engine="reference")
    whole = tmp_path / "whole"
    run(RunConfig(out=str(whole), rules_sha256=ISE, **size))
    stopped = tmp_path / "stopped"
    with monkeypatch.context() as patch:
        _stop_after_first_shard(patch)
        with pytest.raises(Stop):
            run(RunConfig(out=str(stopped), rules_sha256=ISE, **size))
    assert len(list(stopped.glob("part-*.parquet"))) == 1
    with monkeypatch.context() as patch:  # as if the earlier text were not kept: refused, as before
        patch.setattr(loader, "earlier_text", lambda name, sha: None)
        with pytest.raises(RunError, match="different rules_sha256"):
            run(RunConfig(out=str(stopped), resume=True, **size))
    run(RunConfig(out=str(stopped), resume=True, **size))  # the command line's --resume: no sha given
    assert verify_dataset(stopped) == []
    assert json.loads((stopped / "_run.json").read_text())["rules_sha256"] == ISE
    assert _rules_texts(stopped) == _rules_texts(whole) == {earlier_text("tensho-ise", ISE)}
    assert read_dataset(stopped).equals(read_dataset(whole))


def test_a_tournament_begun_with_an_earlier_text_finishes_with_it(tmp_path, monkeypatch):
    config = TournamentConfig(rules="tensho-ise", policies=("random", "greedy"), deals=4, seed=3, engine="reference",
                              out=str(tmp_path / "t"))
    began = []

    def stop_at_second_run(line: str) -> None:
        began.append(line)
        if len(began) == 2:
            raise Stop

    with monkeypatch.context() as patch:  # the tournament as planned before the file changed
        patch.setattr(tournament, "load_rules", lambda rules, options: load_rules(rules, options, ISE))
        with pytest.raises(Stop):
            run_tournament(config, announce=stop_at_second_run)
    result = run_tournament(TournamentConfig(**{**config.__dict__, "resume": True}))
    assert result.runs_skipped == 1 and result.runs_played == 1
    problems, _, _, _ = verify_tournament(tmp_path / "t")
    assert problems == []
    assert result.manifest["rules_sha256"] == ISE
    for entry in result.manifest["runs"]:
        path = tmp_path / "t" / entry["name"]
        assert json.loads((path / "_run.json").read_text())["rules_sha256"] == ISE
        assert _rules_texts(path) == {earlier_text("tensho-ise", ISE)}
