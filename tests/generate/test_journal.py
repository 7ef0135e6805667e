"""The sample journal: torn last lines, duplicates, a header for other settings, damage in the middle."""

import json

import pytest

from workflow_scripts.generate.journal import SampleJournal

HEADER = {"model": "m", "sampling": {"n": 2}, "prompts_sha256": "abc"}


def _record(p, s, text="x"):
    return {"prompt_index": p, "sample_index": s, "raw": text, "body": text, "finish_reason": "stop", "new_tokens": 1}


def test_reopen_keeps_samples_and_skips_duplicates(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = SampleJournal.open(path, HEADER)
    journal.append([_record(0, 0), _record(0, 1)])
    journal.append([_record(0, 1, "again"), _record(1, 0)])  # (0, 1) is already there
    again = SampleJournal.open(path, HEADER)
    assert set(again.samples) == {(0, 0), (0, 1), (1, 0)}
    assert again.samples[(0, 1)]["raw"] == "x"
    assert len(path.read_text().splitlines()) == 1 + 3


def test_torn_last_line_is_dropped_and_truncated_before_appending(tmp_path):
    path = tmp_path / "j.jsonl"
    SampleJournal.open(path, HEADER).append([_record(0, 0)])
    with open(path, "a") as handle:
        handle.write(json.dumps(_record(0, 1))[:20])  # killed in the middle of a write
    journal = SampleJournal.open(path, HEADER)
    assert set(journal.samples) == {(0, 0)}
    journal.append([_record(0, 1)])
    lines = path.read_text().splitlines()
    assert [json.loads(line) for line in lines[1:]] == [_record(0, 0), _record(0, 1)]


def test_journal_for_other_settings_is_set_aside(tmp_path):
    path = tmp_path / "j.jsonl"
    SampleJournal.open(path, HEADER).append([_record(0, 0)])
    journal = SampleJournal.open(path, HEADER | {"sampling": {"n": 4}})
    assert journal.samples == {}
    stale = list(tmp_path.glob("j.jsonl.stale-*"))
    assert len(stale) == 1 and "(0, 0)" not in stale[0].read_text()  # the old samples are kept there, not mixed in
    assert json.loads(path.read_text().splitlines()[0])["header"]["sampling"] == {"n": 4}


def test_damage_before_the_last_line_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "j.jsonl"
    SampleJournal.open(path, HEADER).append([_record(0, 0), _record(0, 1)])
    lines = path.read_text().splitlines()
    lines[1] = "{not json"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="line 2"):
        SampleJournal.open(path, HEADER)
