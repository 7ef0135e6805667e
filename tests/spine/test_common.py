"""Unit tests of workflow_scripts.common: atomic writes, provenance, seeding, logging."""

import json
import logging
import os
import random
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

from workflow_scripts.common import (
    Provenance,
    atomic_path,
    configure_logging,
    read_json,
    seed_everything,
    write_json,
    write_text,
)
from workflow_scripts.common.provenance import provenance_path


def test_write_json_roundtrip_and_no_temp_left(tmp_path):
    target = tmp_path / "sub" / "a.json"
    write_json(target, {"x": np.float64(1.5), "y": [np.int64(2)], "z": float("nan"), "t": torch.tensor(3.0)})
    assert read_json(target) == {"x": 1.5, "y": [2], "z": None, "t": 3.0}
    assert [p.name for p in target.parent.iterdir()] == ["a.json"]


def test_failed_write_keeps_the_good_artifact(tmp_path):
    target = tmp_path / "a.json"
    write_json(target, {"good": True})
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half written")
            raise RuntimeError("writer crashed")
    assert read_json(target) == {"good": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


def test_atomic_path_keeps_the_suffix_for_format_sniffing_writers(tmp_path):
    with atomic_path(tmp_path / "fig.png") as tmp:
        assert tmp.suffix == ".png"
        tmp.write_bytes(b"png")
    assert (tmp_path / "fig.png").read_bytes() == b"png"


def test_writer_that_forgets_its_file_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="did not create"):
        with atomic_path(tmp_path / "x.bin") as tmp:
            tmp.unlink()
    assert not (tmp_path / "x.bin").exists()


def test_killed_write_leaves_no_artifact(tmp_path):
    """A process killed (SIGKILL, no cleanup) while writing leaves nothing under the artifact's name."""
    target = tmp_path / "big.txt"
    script = textwrap.dedent(
        f"""
        import os, sys, time
        from workflow_scripts.common import atomic_path
        with atomic_path({str(target)!r}) as tmp:
            with open(tmp, "w") as handle:
                handle.write("partial" * 1000)
                handle.flush()
                print("writing", flush=True)
                time.sleep(60)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=os.getcwd())
    assert proc.stdout.readline().strip() == "writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert not target.exists()
    leftovers = list(tmp_path.iterdir())
    assert all(p.name.startswith(".tmp-big.txt-") for p in leftovers)


def test_read_json_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "a": 1,\n  oops\n}\n')
    with pytest.raises(ValueError, match=r"bad.json: malformed JSON at line 3"):
        read_json(bad)


def test_provenance_record_beside_artifact(tmp_path):
    artifact = write_text(tmp_path / "out.txt", "hello\n")
    prov = Provenance.start(step="test.step", config={"lr": 0.1}, seed=7)
    (record_path,) = prov.finish(artifact, rows=3)
    assert record_path == provenance_path(artifact) == tmp_path / "out.txt.prov.json"
    record = json.loads(record_path.read_text())
    assert record["config"] == {"lr": 0.1}
    assert record["seed"] == 7
    assert record["step"] == "test.step"
    assert record["rows"] == 3
    assert record["artifact"] == "out.txt"
    assert record["packages"]["torch"].startswith("2.13.0")
    assert record["code_version"] and record["host"]
    assert record["started"] <= record["finished"]


def test_provenance_refuses_a_missing_artifact(tmp_path):
    prov = Provenance.start(step="s")
    with pytest.raises(FileNotFoundError, match="was not written"):
        prov.finish(tmp_path / "never.json")


def test_seed_everything_reproduces_and_offsets_by_rank():
    def draw():
        return random.random(), float(np.random.rand()), float(torch.rand(1))

    assert seed_everything(11) == 11
    first = draw()
    seed_everything(11)
    assert draw() == first
    assert seed_everything(11, rank=3) == 14
    assert draw() != first


def test_configure_logging_writes_rule_log(tmp_path):
    log = tmp_path / "logs" / "rule.log"
    configure_logging(log)
    logging.getLogger("workflow_scripts.test").info("message for the log")
    for handler in logging.getLogger().handlers:
        handler.flush()
    assert "message for the log" in log.read_text()
    logging.basicConfig(force=True)  # leave pytest's logging as it was


def test_artifacts_get_the_usual_permissions_not_private_temp_ones(tmp_path):
    target = write_text(tmp_path / "shared.txt", "x")
    assert target.stat().st_mode & 0o777 == 0o666 & ~_current_umask()


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
