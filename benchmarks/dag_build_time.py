"""How long Snakemake takes to build the whole DAG (dry run) for each config.

    .venv/bin/python benchmarks/dag_build_time.py [--repeats 3]

Target: the paper config's dry run in under 20 s on a 2-core machine.
Prints the median and spread (min-max) of the wall-clock time of `snakemake -n all` per config.
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def time_dry_run(configfile: str) -> tuple[float, int]:
    start = time.perf_counter()
    result = subprocess.run(
        [SNAKEMAKE, "all", "-n", "--cores", "1", f"--configfile={configfile}", "--quiet", "rules"],
        cwd=REPO, capture_output=True, text=True,
    )  # fmt: skip
    if result.returncode != 0:
        sys.exit(f"dry run of {configfile} failed:\n{result.stderr[-2000:]}")
    return time.perf_counter() - start, result.stdout.count("\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'config':<22} {'median_s':>9} {'min_s':>7} {'max_s':>7}  target")
    for configfile, target_s in (("config/config.yaml", None), ("config/paper.yaml", 20.0)):
        times = [time_dry_run(configfile)[0] for _ in range(args.repeats)]
        verdict = "" if target_s is None else ("< 20 s: ok" if statistics.median(times) < target_s else "MISSED 20 s")
        print(f"{configfile:<22} {statistics.median(times):9.2f} {min(times):7.2f} {max(times):7.2f}  {verdict}")


if __name__ == "__main__":
    main()
