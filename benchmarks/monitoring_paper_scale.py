"""Time and memory of the monitoring data and feature steps on the paper config's system, for a short history.

    .venv/bin/python benchmarks/monitoring_paper_scale.py [--days 10] [--configfile config/paper.yaml]

The paper config holds four months on a 512-node dragonfly; this runs the same system for `--days`
(change point in the middle) and prints rows, runs, wall time per step and the peak resident memory,
so the cost of the full history can be judged (both steps grow about linearly with days).
"""

import argparse
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from workflow_scripts.common.config import load_config  # noqa: E402
from workflow_scripts.monitoring.features import FeatureConfig, build_features  # noqa: E402
from workflow_scripts.monitoring.synthetic import SyntheticConfig, generate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=10.0)
    parser.add_argument("--configfile", default="config/paper.yaml")
    args = parser.parse_args()
    # The tiny config first, then the given one over it, as `snakemake --configfile` reads them.
    files = dict.fromkeys([REPO / "config/config.yaml", REPO / args.configfile])
    section = load_config(*files)["monitoring"]
    synthetic = dict(section["synthetic"], days=args.days, change_point_day=args.days / 2)
    start = time.perf_counter()
    data = generate(SyntheticConfig(**synthetic), seed=1)
    data_s = time.perf_counter() - start
    start = time.perf_counter()
    features, meta = build_features(data.samples, data.topology, data.runs, data.placement,
                                    FeatureConfig(**section["features"]))  # fmt: skip
    features_s = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"system: {len(data.topology)} nodes, {args.days:g} days, {len(data.samples)} sample rows, "
          f"{len(data.runs)} runs, {len(meta)} features")  # fmt: skip
    print(f"data step {data_s:.1f} s, features step {features_s:.1f} s, peak RSS {peak_mb:.0f} MB")
    full_days = section["synthetic"]["days"]
    print(f"(the config's {full_days:g} days are {full_days / args.days:.0f}x this history)")


if __name__ == "__main__":
    main()
