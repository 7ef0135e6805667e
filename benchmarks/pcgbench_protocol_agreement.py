"""Do two revisions of PCGBench's harness give honest samples the same verdicts and speedups?

    .venv/bin/python benchmarks/pcgbench_protocol_agreement.py --against REV [--config config/config.yaml]
                                                               [--problems a,b,...] [--models serial,omp,mpi]
                                                               [--rounds 3]

A change of the run protocol (drivers/main.hpp, run.py) must leave honest samples their verdicts and their
speedups within the run-to-run spread. This script evaluates the references of the problems (by default the
config's; one sample per problem and model) `rounds` times with the code of revision REV (extracted with `git
archive`) and with the working tree's, alternating, each in a process of its own with its own warm build cache
and the config's pcgbench.evaluate settings, and compares them as pcgbench_shard_agreement.compare_speedups does:
the verdicts of every evaluation (which must agree: exit 1 otherwise), per timed row the two medians, and how
many rows differ by less than their spread, and each revision's own run-to-run spread. Writes
results/pcgbench/benchmarks/protocol_agreement.json.

Measured for protocol v9 against v8 (--against 6aad831 --rounds 2; the config's 12 problems x serial, omp, mpi, 36
references, 60 timed rows) on 2 cores on 2026-12-07: 36 ok in all 4 evaluations; median |v9 - v8| / v8 0.026 against a
median spread of 0.084; the difference within the row's spread in 59 of 60 rows (the other: scan_max_subarray's MPI
reference at 2 ranks on the 2 cores, 0.81x under v8 and 1.27x under v9, 0.561 against 0.559); each revision's own
spread 0.018 (v8) and 0.026 (v9). An evaluation of the 36 took 74-77 s under v8 and 65-67 s under v9 (builds cached).

Measured on the 2-core machine for protocol v4 against v3 (--against c6174da; config/config.yaml's 12 problems x
serial, omp, mpi: 36 references, 60 timed rows, 3 rounds each way), twice: 36 ok in all 6 evaluations both times;
median |v4 - v3| / v3 0.024 and 0.038 against a median spread of 0.098 and 0.129; the difference within the row's
spread in 60 and 59 of 60 rows (the other: scan_max_subarray omp at 2 threads, 1.43x under v3 and 1.88x under v4,
0.316 against 0.303). Each revision's own spread (second invocation): v3 0.073, v4 0.054. One row moves the same
way in both: dense_la_axpy's MPI reference on 1 rank was 1.27-1.43x its own serial baseline under v3 (the sample on
the input just copied for it, the baseline on one generated before that copy and the call) and 1.00-1.07x under
v4 (both on an input just generated).
"""

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import pandas as pd  # noqa: E402
from pcgbench_shard_agreement import compare_speedups, row_key, write_generations  # noqa: E402

from workflow_scripts.common import write_json  # noqa: E402
from workflow_scripts.common.config import load_config  # noqa: E402

# One evaluation, run inside the tree under test (its own workflow_scripts), with the settings of the config given.
EVALUATE = """
import sys
from pathlib import Path
from workflow_scripts.common.config import load_config
try:  # the evaluation's library is evaluation.py since its step (evaluate.py) is apart
    from workflow_scripts.pcgbench import evaluation
    evaluate_generations = evaluation.evaluate_generations
except ImportError:  # a revision before: the library was evaluate.py, its main the evaluation of one file
    from workflow_scripts.pcgbench import evaluate as evaluation
    evaluate_generations = evaluation.main
defaults, config_path, generations, out, cache = map(Path, sys.argv[1:])
config = load_config(defaults, config_path)
# The engine's settings are the section `measure` since it has one; a revision before read them in pcgbench.evaluate.
settings = {**config.get("measure", {}), **config["pcgbench"]["evaluate"]}
cfg = evaluation.EvaluateConfig(**dict(settings, cache_dir=cache, jobs=2), seed=config["seed"])
evaluate_generations(generations, out, cfg, generator="gen")
"""


def evaluate_in(tree: Path, config: str, generations: Path, out: Path, cache: Path) -> pd.DataFrame:
    """One evaluation with the code of `tree`, its own config schema and defaults, and `config` (a path relative to
    the tree: each revision reads its own; an absolute one is read by both)."""
    argv = [sys.executable, "-c", EVALUATE, str(tree / "config" / "config.yaml"), str(tree / config), str(generations),
            str(out), str(cache)]  # fmt: skip
    subprocess.run(argv, cwd=tree, env=os.environ | {"PYTHONPATH": str(tree)}, check=True, stdout=subprocess.DEVNULL)
    return pd.read_parquet(out / "results.parquet")


def extract(revision: str, into: Path) -> Path:
    archive = into / "tree.tar"
    with archive.open("wb") as f:
        subprocess.run(["git", "-C", str(REPO), "archive", revision], stdout=f, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", required=True, help="the git revision to compare the working tree with")
    parser.add_argument("--config", default="config/config.yaml")
    parser.add_argument("--problems", help="comma-separated names (default: the config's pcgbench.problems)")
    parser.add_argument("--models", default="serial,omp,mpi")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    config = load_config(REPO / "config" / "config.yaml", REPO / args.config)
    problems = args.problems.split(",") if args.problems else list(config["pcgbench"]["problems"])
    exec_models = args.models.split(",")
    ways = {args.against: None, "working tree": REPO}
    verdicts, speedups = {}, {way: {} for way in ways}
    with tempfile.TemporaryDirectory(prefix="protocol-agreement-") as tmp:
        work = Path(tmp)
        ways[args.against] = extract(args.against, work)
        generations = work / "gen.json"
        write_generations(generations, problems, exec_models)
        for i, tree in enumerate(ways.values()):  # the builds, cached for every round
            evaluate_in(tree, args.config, generations, work / f"warm-up-{i}", work / f"cache-{i}")
        for round_ in range(args.rounds):
            for i, (way, tree) in enumerate(ways.items()):
                started = time.perf_counter()
                rows = evaluate_in(tree, args.config, generations, work / f"{i}-{round_}", work / f"cache-{i}")
                print(f"round {round_ + 1} {way}: {time.perf_counter() - started:.1f} s, "
                      f"{rows.drop_duplicates('sample_id')['verdict'].value_counts().to_dict()}")  # fmt: skip
                verdicts[(way, round_)] = {r.sample_id: r.verdict for r in rows.itertuples()}
                for r in rows[rows["verdict"] == "ok"].itertuples():
                    speedups[way].setdefault(row_key(r), []).append(float(r.speedup))
    summary = compare_speedups(verdicts, speedups, args.against, "working tree")
    summary = {"against": args.against, "problems": problems, "models": exec_models, "rounds": args.rounds, **summary}
    write_json(REPO / "results" / "pcgbench" / "benchmarks" / "protocol_agreement.json", summary)
    sys.exit(0 if summary["verdicts_agree"] else 1)


if __name__ == "__main__":
    main()
