"""How long each of the survey, AxoNN and sparse disttrain targets takes from the default config (budget: 2 minutes on 2 cores).

    .venv/bin/python benchmarks/disttrain_targets.py [disttrain_survey disttrain_axonn disttrain_sparse]

Copies the workflow into a temporary folder, runs each target from scratch there (the network calibration
included, as a fresh checkout would), and prints per target: wall seconds, the CPU seconds of its jobs (from
Snakemake's benchmark files), the load average while it ran, and whether it met the budget. On a machine
that others share, the wall time says more about them than about the target; the CPU seconds do not.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUDGET_S = 120.0
TARGETS = ("disttrain_survey", "disttrain_axonn", "disttrain_sparse")


def cpu_seconds(results: Path) -> float:
    total = 0.0
    for tsv in results.glob("disttrain/*/benchmarks/*.tsv"):
        header, row = tsv.read_text().splitlines()[:2]
        total += float(dict(zip(header.split("\t"), row.split("\t"), strict=True))["cpu_time"])
    return total


def main(targets) -> None:
    snakemake = Path(sys.executable).parent / "snakemake"
    print(f"{'target':<20} {'wall_s':>8} {'cpu_s':>8} {'load1':>6}  within {BUDGET_S:.0f} s")
    for target in targets:
        with tempfile.TemporaryDirectory() as tmp:
            for part in ("Snakefile", "rules", "workflow_scripts", "config", "data", "profiles", "requirements.txt"):
                source = REPO / part
                (shutil.copytree if source.is_dir() else shutil.copy)(source, Path(tmp) / part)
            started = time.perf_counter()
            out = subprocess.run([str(snakemake), "--cores", "2", target], cwd=tmp, capture_output=True, text=True)
            wall_s = time.perf_counter() - started
            if out.returncode != 0:
                print(f"{target:<20} failed:\n{out.stderr[-2000:]}")
                continue
            cpu_s = cpu_seconds(Path(tmp) / "results")
            print(f"{target:<20} {wall_s:8.1f} {cpu_s:8.1f} {os.getloadavg()[0]:6.1f}  {wall_s <= BUDGET_S}")


if __name__ == "__main__":
    main(sys.argv[1:] or TARGETS)
