"""How long `snakemake rlpf` takes from the default config, given the hpccoder model (budget: 10 minutes, 2 cores).

    .venv/bin/python benchmarks/rlpf_target.py [RESULTS_DIR_WITH_HPCCODER_MODEL] [--keep WORKDIR]

Copies the workflow and results/hpccoder/{model,tokenizer} into a temporary folder, runs `snakemake --cores 2 rlpf` there
from scratch (every program measured anew: the measurement cache starts empty), and prints per rule the wall
and CPU seconds from Snakemake's benchmark files, the total wall time, the load average, and whether it met
the budget. With --keep the run happens in WORKDIR (created; must not exist) and stays there, so its
results/rlpf/summary.json and per_kernel.csv can be read afterwards. On a machine that others share the wall time says more about them than about the target (the
reward times OpenMP programs, whose threads wait for cores others hold); the CPU seconds say less about them.
"""

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUDGET_S = 600.0


def main(results_root: Path, keep: Path | None = None) -> None:
    model = results_root / "hpccoder" / "model"
    if not model.is_dir():
        sys.exit(f"no HPC-Coder model at {model}: run `snakemake hpccoder` first")
    snakemake = Path(sys.executable).parent / "snakemake"
    if keep is not None:
        keep.mkdir(parents=True)  # refuses an existing folder: a stale cache would hide the measurement cost
    with contextlib.nullcontext(str(keep)) if keep is not None else tempfile.TemporaryDirectory() as tmp:
        for part in ("Snakefile", "rules", "workflow_scripts", "config", "data", "profiles", "requirements.txt"):
            source = REPO / part
            (shutil.copytree if source.is_dir() else shutil.copy)(source, Path(tmp) / part)
        for part in ("model", "tokenizer"):  # copytree keeps modification times: nothing upstream reruns
            shutil.copytree(model.parent / part, Path(tmp) / "results" / "hpccoder" / part)
        started = time.perf_counter()
        out = subprocess.run([str(snakemake), "--cores", "2", "rlpf"], cwd=tmp, capture_output=True, text=True)
        wall_s = time.perf_counter() - started
        if out.returncode != 0:
            sys.exit(f"snakemake rlpf failed:\n{out.stderr[-3000:]}")
        print(f"{'rule':<22} {'wall_s':>8} {'cpu_s':>8}")
        for tsv in sorted((Path(tmp) / "results" / "rlpf" / "benchmarks").glob("*.tsv")):
            header, row = tsv.read_text().splitlines()[:2]
            rec = dict(zip(header.split("\t"), row.split("\t"), strict=True))
            print(f"{tsv.stem:<22} {float(rec['s']):8.1f} {float(rec['cpu_time']):8.1f}")
        print(f"{'total (snakemake)':<22} {wall_s:8.1f}   load1 {os.getloadavg()[0]:.1f}   within {BUDGET_S:.0f} s: "
              f"{wall_s <= BUDGET_S}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", type=Path, default=REPO / "results")
    parser.add_argument("--keep", type=Path, default=None, help="run here and keep the results")
    args = parser.parse_args()
    main(args.results, args.keep)
