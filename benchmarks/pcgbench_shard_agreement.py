"""Do a sharded and an unsharded PCGBench evaluation give the same speedups? Within the run-to-run spread?

    .venv/bin/python benchmarks/pcgbench_shard_agreement.py [--config config/config.yaml] [--problems a,b,...]
                                                            [--models serial,omp,mpi] [--rounds 3]

The test (tests/pcgbench/test_shards.py) holds the verdicts, details and counts of merged shards equal to
one unsharded evaluation's; speedups are timings, which a test on a loaded machine cannot compare. This script
does: it evaluates the references of the problems (by default the config's; one sample per problem and model)
`rounds` times each way, alternating, with the config's pcgbench.evaluate settings and one warm build cache:
unsharded (evaluation.evaluate_generations) and sharded by model and problem (evaluation.evaluate_shard per shard,
then evaluation.merge). For every timed row (sample and resource count) it takes each way's median speedup over
its rounds and the run-to-run spread of all 2 x rounds speedups, (max - min) / median, and prints:
- the verdicts of every round (which must agree: the script exits 1 otherwise);
- per row, the two medians and whether the sharded median lies within the unsharded rounds' range;
- the medians of |sharded - unsharded| / unsharded and of the spread over the rows, and in how many rows the
  difference is within the row's spread; each way's own median spread.
Measured on the 2-core machine (config/config.yaml's 12 problems x serial, omp, mpi: 36 references, 60 timed rows,
3 rounds each way, 6 min 49 s): 36 ok in all six evaluations; median |difference| 0.020 against a median spread of
0.075; the difference within the row's spread in 59 of 60 rows (the other: histogram_bins_by_10 omp at 2 threads,
1.68x unsharded and 1.98x sharded, difference 0.180 against a spread of 0.178).
Writes results/pcgbench/benchmarks/shard_agreement.json.
"""

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import pandas as pd  # noqa: E402

from workflow_scripts.common import write_json  # noqa: E402
from workflow_scripts.common.config import load_config  # noqa: E402
from workflow_scripts.measure import get_problem, reference_body  # noqa: E402
from workflow_scripts.pcgbench import evaluation, evaluation_settings, prompt_record, shards  # noqa: E402


def write_generations(path: Path, problems: list[str], exec_models: list[str]) -> None:
    records = []
    for name in problems:
        for exec_model in exec_models:
            problem = get_problem(name)
            records.append(dict(prompt_record(problem, exec_model), outputs=[reference_body(problem, exec_model)]))
    path.write_text(json.dumps(records))


def unsharded(generations: Path, out: Path, cfg: evaluation.EvaluateConfig) -> pd.DataFrame:
    evaluation.evaluate_generations(generations, out, cfg, generator="gen")
    return pd.read_parquet(out / "results.parquet")


def sharded(generations: Path, out: Path, cfg: evaluation.EvaluateConfig, plan: list[shards.Shard]) -> pd.DataFrame:
    for shard in plan:
        evaluation.evaluate_shard(generations, out / "shards" / shard.name, cfg, "gen", shard)
    evaluation.merge(generations, [out / "shards" / s.name for s in plan], out, cfg, "gen")
    return pd.read_parquet(out / "results.parquet")


def row_key(row) -> str:
    return f"{row.problem}/{row.model} ranks={row.ranks} threads={row.threads}"


def spread(values: list[float]) -> float:
    """Run-to-run spread of a row's speedups: (max - min) / median."""
    return (max(values) - min(values)) / statistics.median(values)


def compare_speedups(verdicts: dict, speedups: dict[str, dict[str, list[float]]], first: str, second: str) -> dict:
    """Print and return how two ways of evaluating agree: `verdicts` {(way, round): {sample_id: verdict}} must be the
    same in every evaluation; per timed row of `speedups` {way: {row: [speedup per round]}}, each way's median, the
    difference of `second`'s from `first`'s (relative) and the spread of all the row's speedups,
    (max - min) / median."""
    agree = len({tuple(sorted(v.items())) for v in verdicts.values()}) == 1
    print(f"verdicts agree across all {len(verdicts)} evaluations: {agree}")
    table = []
    for key in sorted(speedups[first]):
        base, other = speedups[first][key], speedups[second].get(key, [])
        if len(other) != len(base):
            agree = False
            print(f"  {key}: timed {len(base)} times {first}, {len(other)} {second}")
            continue
        both = base + other
        median_base, median_other = statistics.median(base), statistics.median(other)
        table.append({"row": key, first: median_base, second: median_other,
                      "difference": abs(median_other - median_base) / median_base,
                      "spread": spread(both),
                      f"within_{first}_range": min(base) <= median_other <= max(base)})  # fmt: skip
    print(f"{'row':48s} {first:>10s} {second:>10s} {'|diff|':>7s} {'spread':>7s} within")
    for row in table:
        print(f"{row['row']:48s} {row[first]:10.3f} {row[second]:10.3f} {row['difference']:7.3f} "
              f"{row['spread']:7.3f} {row[f'within_{first}_range']}")  # fmt: skip
    # Each way's own run-to-run spread per row: whether one of them measures more steadily than the other.
    own_spread = {way: statistics.median(spread(v) for v in speedups[way].values()) for way in (first, second)}
    summary = {"verdicts_agree": agree, "rows": table,
               "median_difference": statistics.median(r["difference"] for r in table),
               "median_spread": statistics.median(r["spread"] for r in table),
               "median_spread_within": own_spread,
               "within_spread": sum(r["difference"] <= r["spread"] for r in table),
               f"within_{first}_range": sum(r[f"within_{first}_range"] for r in table)}  # fmt: skip
    print(f"median |{second} - {first}| / {first} {summary['median_difference']:.3f}; median run-to-run spread "
          f"{summary['median_spread']:.3f}; |difference| within the row's spread in {summary['within_spread']} of "
          f"{len(table)} rows; {second} median within the {first} rounds' range in "
          f"{summary[f'within_{first}_range']}")  # fmt: skip
    print("median run-to-run spread within each way: " + ", ".join(f"{w} {v:.3f}" for w, v in own_spread.items()))
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="config/config.yaml")
    parser.add_argument("--problems", help="comma-separated names (default: the config's pcgbench.problems)")
    parser.add_argument("--models", default="serial,omp,mpi")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    config = load_config(REPO / "config" / "config.yaml", REPO / args.config)
    problems = args.problems.split(",") if args.problems else list(config["pcgbench"]["problems"])
    exec_models = args.models.split(",")
    plan = shards.plan(exec_models, problems, by_model=True, problems_per_shard=1)
    verdicts, speedups = {}, {"unsharded": {}, "sharded": {}}
    with tempfile.TemporaryDirectory(prefix="shard-agreement-") as tmp:
        work = Path(tmp)
        generations = work / "gen.json"
        write_generations(generations, problems, exec_models)
        cfg = evaluation.EvaluateConfig(**dict(evaluation_settings(config), cache_dir=work / "cache", jobs=2),
                                        seed=config["seed"])  # fmt: skip
        # the builds, cached for every round
        evaluation.evaluate_generations(generations, work / "warm-up", cfg, generator="gen")
        for round_ in range(args.rounds):
            for way in ("unsharded", "sharded"):
                started = time.perf_counter()
                out = work / f"{way}-{round_}"
                rows = unsharded(generations, out, cfg) if way == "unsharded" else sharded(generations, out, cfg, plan)
                print(f"round {round_ + 1} {way}: {time.perf_counter() - started:.1f} s, "
                      f"{rows.drop_duplicates('sample_id')['verdict'].value_counts().to_dict()}")  # fmt: skip
                verdicts[(way, round_)] = {r.sample_id: r.verdict for r in rows.itertuples()}
                for r in rows[rows["verdict"] == "ok"].itertuples():
                    speedups[way].setdefault(row_key(r), []).append(float(r.speedup))
    summary = compare_speedups(verdicts, speedups, "unsharded", "sharded")
    summary = {"problems": problems, "models": exec_models, "rounds": args.rounds, **summary}
    write_json(REPO / "results" / "pcgbench" / "benchmarks" / "shard_agreement.json", summary)
    sys.exit(0 if summary["verdicts_agree"] else 1)


if __name__ == "__main__":
    main()
