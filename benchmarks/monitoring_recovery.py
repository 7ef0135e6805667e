"""How often the monitoring pipeline recovers what the synthetic generator planted, over several seeds.

    .venv/bin/python benchmarks/monitoring_recovery.py [--seeds 1 2 3 4] [--configfile config/config.yaml]

Runs data -> features -> models -> analysis -> summary in-process (the functions the rules call) on the
config's monitoring section with each seed, and prints per seed: each "Done when" check (pass/FAIL),
the pooled importance Spearman, the change point's distance in days, and the stage times in seconds
(indicative only on shared cores). The last line gives the pass rate of each check. One seed that
passes is not evidence; this is what the summary's checks mean across the generator's randomness.
"""

import argparse
import sys
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from workflow_scripts.common.config import load_config  # noqa: E402
from workflow_scripts.common.io import _jsonable  # noqa: E402
from workflow_scripts.monitoring.analysis import AnalysisConfig, analyse  # noqa: E402
from workflow_scripts.monitoring.features import FeatureConfig, build_features  # noqa: E402
from workflow_scripts.monitoring.models import PerformanceModelConfig, fit_models  # noqa: E402
from workflow_scripts.monitoring.summary import summarise  # noqa: E402
from workflow_scripts.monitoring.synthetic import SyntheticConfig, generate  # noqa: E402


def run_once(section: dict, seed: int) -> tuple[dict, dict]:
    times = {}
    start = time.perf_counter()
    data = generate(SyntheticConfig(**section["synthetic"]), seed)
    times["data"] = time.perf_counter() - start
    start = time.perf_counter()
    features, meta = build_features(data.samples, data.topology, data.runs, data.placement,
                                    FeatureConfig(**section["features"]))  # fmt: skip
    times["features"] = time.perf_counter() - start
    start = time.perf_counter()
    predictions, bundle = fit_models(features, meta, PerformanceModelConfig(**section["models"]), seed)
    times["models"] = time.perf_counter() - start
    start = time.perf_counter()
    with threadpool_limits(limits=1):
        analysis = analyse(features, meta, predictions, bundle, AnalysisConfig(**section["analysis"]), seed)
    times["analysis"] = time.perf_counter() - start
    return summarise(_jsonable(analysis), data.truth), times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--configfile", default="config/config.yaml")
    args = parser.parse_args()
    # The tiny config first, then the given one over it, as `snakemake --configfile` reads them.
    files = dict.fromkeys([REPO / "config/config.yaml", REPO / args.configfile])
    section = load_config(*files)["monitoring"]
    passes: dict[str, int] = {}
    for seed in args.seeds:
        summary, times = run_once(section, seed)
        checks = {name: check["passed"] for name, check in summary["checks"].items()}
        for name, ok in checks.items():
            passes[name] = passes.get(name, 0) + int(ok)
        print(f"seed {seed}: " + ", ".join(f"{name}={'pass' if ok else 'FAIL'}" for name, ok in checks.items()))
        days = summary["change_point_recovery"]["distance_days"]["pooled"]
        print(f"  spearman pooled {summary['importance_spearman']['pooled']:.2f}, nearest change point "
              f"{'none found' if days is None else f'{days:.2f} days off'}, stage s: "
              + ", ".join(f"{k} {v:.1f}" for k, v in times.items()))  # fmt: skip
    print("pass rate: " + ", ".join(f"{name} {count}/{len(args.seeds)}" for name, count in passes.items()))


if __name__ == "__main__":
    main()
