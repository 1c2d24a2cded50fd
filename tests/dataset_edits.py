"""Edits of a written dataset that keep its manifest consistent, for tests that need a run as
another build of fudasim would have written it."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

from simcore.dataset import file_digest


def rewrite_run_metadata(out: Path, **changed) -> None:
    """Set ``changed`` keys in the manifest and in every shard's ``fudasim.run`` metadata, and
    update the manifest's sizes and checksums to the rewritten shards."""
    out = Path(out)
    manifest = json.loads((out / "_run.json").read_text())
    manifest.update(changed)
    for entry in manifest["shard_files"]:
        shard = out / entry["file"]
        table = pq.read_table(shard)
        metadata = dict(table.schema.metadata)
        metadata[b"fudasim.run"] = json.dumps({**json.loads(metadata[b"fudasim.run"]), **changed}).encode()
        pq.write_table(table.replace_schema_metadata(metadata), shard)
        entry["bytes"], entry["sha256"] = file_digest(shard)
    (out / "_run.json").write_text(json.dumps(manifest))
