"""Wall time of `snakemake disttrain_tensor3d` and `snakemake disttrain_moe` from the default config, each
in a fresh temporary copy of the repository, and the measured optimizer memory per tile size.

    .venv/bin/python benchmarks/disttrain_layers_targets.py

Target: each target under 2 minutes on 2 cores. Prints, per target, the wall time, the time of
each rule (from its benchmark file) and whether it met the target; then the MoE optimizer's measured peak
transient memory for each tile size. Timings on shared cores are indicative: run it on an idle machine.
"""

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
COPIED = ("Snakefile", "rules", "workflow_scripts", "config", "data", "profiles", "requirements.txt")
TARGET_S = 120.0


def run_target(target: str) -> tuple[float, Path]:
    root = Path(tempfile.mkdtemp(prefix=f"{target}-"))
    for name in COPIED:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, root / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.exists():
            shutil.copy2(src, root / name)
    start = time.perf_counter()
    result = subprocess.run([SNAKEMAKE, "--cores", "2", target], cwd=root, capture_output=True, text=True)
    wall_s = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{target} failed:\n{result.stderr[-3000:]}")
    return wall_s, root


def main() -> None:
    for target, study in (("disttrain_tensor3d", "tensor3d"), ("disttrain_moe", "moe")):
        wall_s, root = run_target(target)
        verdict = "meets" if wall_s < TARGET_S else "MISSES"
        print(f"{target}: {wall_s:.1f} s wall ({verdict} the {TARGET_S:.0f} s target)")
        for tsv in sorted((root / "results/disttrain" / study / "benchmarks").glob("*.tsv")):
            seconds = float(tsv.read_text().splitlines()[1].split("\t")[0])
            print(f"  rule step {tsv.stem:<28} {seconds:7.1f} s")  # validate, project, summary, figure_<name>
        if study == "moe":
            validation = json.loads((root / "results/disttrain/moe/validation.json").read_text())
            for point in validation["optimizer"]["points"]:
                print(f"  optimizer tile {point['tile_elems']:>9,} elements: peak transient "
                      f"{point['peak_transient_bytes'] / 1e6:7.2f} MB (one fp32 tile {point['fp32_tile_bytes'] / 1e6:.2f} MB)")
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
