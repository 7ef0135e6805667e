"""A generation run killed with SIGKILL resumes without duplicating or losing samples, and ends where an
uninterrupted run ends (same samples, byte for byte)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workflow_scripts.generate.generate import main

REPO = Path(__file__).resolve().parents[2]
SAMPLING = {"n": 6, "temperature": 0.8, "top_p": 0.95, "max_new_tokens": 12}


def _journal_samples(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(1 for line in path.read_text().splitlines()[1:] if line.endswith("}"))


@pytest.mark.multiprocess
@pytest.mark.parametrize("backend", ["hf", "openai"])
def test_killed_run_resumes_without_duplicates_or_losses(backend, tiny_model_dir, prompts_file, tmp_path):
    if backend == "hf":
        # batch 1: twelve batches, so the kill lands between two of them
        entry = {"backend": "hf", "path": str(tiny_model_dir), "batch_size": 1}
    else:
        # two samples per request: a request's samples are journaled together, resumed together
        entry = {"backend": "openai", "serve_local": str(tiny_model_dir), "model": "tiny", "max_concurrency": 2,
                 "samples_per_request": 2}
    out = tmp_path / "killed" / "tiny.json"
    journal = out.with_name("tiny.json.journal.jsonl")
    command = [sys.executable, "-m", "workflow_scripts.generate.generate", "--prompts", str(prompts_file),
               "--out", str(out), "--model-name", "tiny", "--model-config", json.dumps(entry),
               "--sampling", json.dumps(SAMPLING), "--seed", "9", "--cpu-threads", "1"]  # fmt: skip
    env = os.environ | {"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while _journal_samples(journal) < 3 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    done_before_kill = _journal_samples(journal)
    assert 3 <= done_before_kill < 12, "the kill should land mid-run"
    assert not out.exists()  # a killed run leaves no output that a later step would trust

    stats = main(prompts_file, out, model_name="tiny", model_config=entry, sampling=SAMPLING, seed=9)
    assert stats["samples_resumed"] == done_before_kill
    assert stats["samples_generated_this_run"] == 12 - done_before_kill
    samples = [json.loads(line) for line in out.with_suffix(".samples.jsonl").read_text().splitlines()]
    keys = [(s["prompt_index"], s["sample_index"]) for s in samples]
    assert keys == [(p, s) for p in range(2) for s in range(6)]  # each sample once, none missing

    fresh = tmp_path / "fresh" / "tiny.json"
    main(prompts_file, fresh, model_name="tiny", model_config=entry, sampling=SAMPLING, seed=9)
    assert json.loads(out.read_text()) == json.loads(fresh.read_text())
