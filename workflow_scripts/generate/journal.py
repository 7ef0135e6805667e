"""Append-as-you-go sample journal: what makes a killed generation run resumable.

One JSON line per finished sample, flushed and fsynced before the next batch starts, so a run
killed at any moment loses at most the samples that were still being generated. The first line is a
header naming what the journal is for (prompt set hash, model, sampling settings, batch layout); a
journal whose header does not match the current run is set aside (renamed `.stale`), never mixed in.

Reading tolerates the one kind of damage a kill can do: a last line cut short. That tail is dropped
and the file truncated to its last complete line before anything is appended, so a new line never
glues onto a fragment. A sample present twice (a kill between writing a batch and marking it done,
then a rerun of that batch) is counted once: samples are keyed by (prompt_index, sample_index).

    journal = SampleJournal.open(path, header)
    done = journal.samples            # {(prompt_index, sample_index): record}
    journal.append([record, ...])     # each record has prompt_index and sample_index
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

SampleKey = tuple[int, int]


@dataclass(kw_only=True)
class SampleJournal:
    path: Path
    header: dict[str, Any]
    samples: dict[SampleKey, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def open(cls, path: str | os.PathLike, header: dict[str, Any]) -> SampleJournal:
        """Open (or create) the journal at `path` for a run described by `header`; load what it holds."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        journal = cls(path=path, header=json.loads(json.dumps(header)))
        if path.exists():
            journal._load()
        if not path.exists():
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(json.dumps({"header": journal.header}, sort_keys=True) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        return journal

    def _load(self) -> None:
        raw = self.path.read_bytes()
        good_end = raw.rfind(b"\n") + 1  # everything after the last newline is a torn write
        if good_end < len(raw):
            logger.warning("journal %s: dropping a partial last line (%d bytes) left by a killed run",
                           self.path, len(raw) - good_end)  # fmt: skip
            with open(self.path, "r+b") as handle:
                handle.truncate(good_end)
        lines = raw[:good_end].decode("utf-8").splitlines()
        if not lines:
            self.path.unlink()
            return
        try:
            found = json.loads(lines[0]).get("header")
        except json.JSONDecodeError:
            found = None
        if found != self.header:
            stale = self.path.with_name(f"{self.path.name}.stale-{time.strftime('%Y%m%dT%H%M%S')}")
            logger.warning("journal %s was written for other settings; moved to %s and starting afresh "
                           "(differences: %s)", self.path, stale, _differences(found, self.header))  # fmt: skip
            self.path.rename(stale)
            return
        for number, line in enumerate(lines[1:], start=2):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{self.path}: line {number} is not JSON ({err.msg}); the journal is damaged "
                                 "beyond a torn last line: delete it to regenerate every sample") from err  # fmt: skip
            self.samples.setdefault((record["prompt_index"], record["sample_index"]), record)
        logger.info("journal %s: resuming with %d samples already generated", self.path, len(self.samples))

    def append(self, records: list[dict[str, Any]]) -> None:
        """Write finished samples (skipping any already journaled) and make them durable."""
        new = [r for r in records if (r["prompt_index"], r["sample_index"]) not in self.samples]
        if not new:
            return
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write("".join(json.dumps(r, sort_keys=True) + "\n" for r in new))
            handle.flush()
            os.fsync(handle.fileno())
        for record in new:
            self.samples[(record["prompt_index"], record["sample_index"])] = record


def _differences(found: dict[str, Any] | None, wanted: dict[str, Any]) -> str:
    if not isinstance(found, dict):
        return "no readable header"
    keys = sorted(set(found) | set(wanted))
    return ", ".join(f"{k}: {found.get(k)!r} -> {wanted.get(k)!r}" for k in keys if found.get(k) != wanted.get(k))
