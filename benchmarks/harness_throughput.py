"""Throughput of the PCGBench evaluation harness, its overhead, and how reproducible its numbers are.

    .venv/bin/python benchmarks/harness_throughput.py [--problems reduce_sum_of_min_pairs,transform_relu]
                                                      [--models serial,omp] [--samples 3] [--reps 3]

On the reference generations (`--samples` identical copies per prompt, as a model sampling at low
temperature produces) and the mutant generations (all mutants but the infinite loop, whose cost is the
timeout in every evaluator), it measures:
1. harness: a cold build cache, 2 compiler processes, sandboxed runs -> samples per minute;
2. bare: the same work without the harness: each distinct source compiled and linked once (sequentially),
   each distinct program run directly (no sandbox, same arguments, environment and priority) at the same
   resource configurations, once, as the harness runs identical samples once -> the harness's overhead is (harness with 1 compiler process - bare) / bare: confining
   every compile and link, sandboxing every run, the cache's bookkeeping, validating the output. The two
   alternate for `--rounds` rounds (ABAB...), so that load drifting on a shared machine reaches both; the
   overhead is the median of the rounds' ratios. (Not CPU time: a sandboxed program's CPU time does not
   reach this process's children's usage, as it is reaped inside its PID namespace.)
3. naive: the way common harnesses work: the whole driver compiled together with each sample, one sample
   at a time, no cache, every sample run (identical or not), unsandboxed (same arguments) -> throughput ratio
   harness / naive. The ratio depends on how many samples are copies: the report gives the number of
   distinct programs, and the ratio when every sample is run (`share_identical_runs: false`) beside it;
4. compile phase alone with 1 and with 2 compiler processes (cold caches) -> parallel gain;
5. the reference generations evaluated twice -> same verdicts? median absolute relative difference of the
   speedups (target: within 10%), overall and per execution model and thread count.
Targets (the harness's design goals): overhead < 15%, >= 3x the naive throughput, near-linear compile gain
from 1 to 2 cores, reproducibility within 10%. Timings on a shared machine are indicative only: the load average at the
start and the end is recorded with them. Prints a table and writes
results/pcgbench/benchmarks/harness_throughput.json. Problems with extra type declarations are not
supported by the naive single-translation-unit build (the driver repeats them) and are refused.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import pandas as pd  # noqa: E402

from workflow_scripts.common import write_json  # noqa: E402
from workflow_scripts.measure import (  # noqa: E402
    BuildCache,
    BuildConfig,
    BuildRequest,
    can_raise_priority,
    driver_program,
    priority_argv,
    resource_sweep,
    suite,
    toolchains,
)
from workflow_scripts.pcgbench import EvaluateConfig, Sample, evaluation, generators, prompt_record  # noqa: E402

RUN_TIMEOUT_S = 20.0


def make_samples(problems, exec_models, samples):
    made = {"reference": [], "mutants": []}
    mutants = [m for m in generators.MUTANTS if m != "infinite_loop"]
    by_name = {problem.name: problem for problem in problems}
    records = [prompt_record(problem, exec_model) for problem in problems for exec_model in exec_models]
    for generator in made:
        filled, _ = generators.generate(records, generator, samples=samples, mutants=mutants)
        made[generator] += [Sample(generator=generator, problem=by_name[r["name"]], exec_model=r["parallelism_model"],
                                   sample_index=i, body=body)
                            for r in filled for i, body in enumerate(r["outputs"])]  # fmt: skip
    return made


def timed(fn, *args, **kwargs):
    """(value, wall seconds) of one call."""
    started = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - started


def run_args(sample, exe, config, cfg):
    """The harness's own argv and environment for one run (its RunProtocol's command), for the other evaluators."""
    return cfg.protocol(ranks=config.ranks, threads=config.threads).command(sample.problem, sample.exec_model, exe)


def run_direct(argv, env, timeout_s, nice):
    """Run without the sandbox (the bare and naive evaluators; reference and mutant code only, never hostile
    programs), at the harness's priority and still under rlimits, so the 100 GB allocation mutant is refused
    as it is in the sandbox."""
    priority = priority_argv(nice) if nice < 0 and can_raise_priority() else []
    limits = ["prlimit", f"--as={4096 << 20}", "--cpu=120", f"--fsize={64 << 20}", "--"]
    try:
        return subprocess.run(priority + limits + argv, env=dict(os.environ, **env), capture_output=True,
                              timeout=timeout_s, start_new_session=True).returncode  # fmt: skip
    except subprocess.TimeoutExpired:
        return None


def harness(samples, cache_dir, out_dir, cfg_kwargs, jobs, share=True):
    cfg = EvaluateConfig(cache_dir=cache_dir, jobs=jobs, run_timeout_s=RUN_TIMEOUT_S, share_identical_runs=share,
                         **cfg_kwargs)  # fmt: skip
    (rows, _), seconds = timed(evaluation.evaluate_samples, samples, out_dir, cfg)
    return rows, seconds


def bare(samples, work, driver_dir, cfg):
    """Each distinct source compiled + linked once, each distinct program run directly at every configuration."""
    started = time.perf_counter()
    exes = {}  # program_id (the harness's identity of programs) -> (its first sample, executable or None)
    for sample in samples:
        if sample.program_id in exes:
            continue
        src, obj, exe = work / f"s{len(exes)}.cpp", work / f"s{len(exes)}.o", work / f"s{len(exes)}"
        src.write_text(suite.sample_source(sample.problem, sample.exec_model, sample.body))
        ok = subprocess.run(toolchains.compile_sample_argv(sample.problem, sample.exec_model, src, obj),
                            capture_output=True).returncode == 0  # fmt: skip
        driver = driver_program.build_driver(sample.problem, sample.exec_model, driver_dir)
        ok = ok and subprocess.run(toolchains.link_argv(sample.problem, sample.exec_model, obj, driver, exe),
                                   capture_output=True).returncode == 0  # fmt: skip
        exes[sample.program_id] = (sample, exe if ok else None)
    for sample, exe in exes.values():
        if exe is None or not suite.uses_exec_model(sample.exec_model, sample.body)[0]:
            continue
        for config in resource_sweep(sample.exec_model, cfg.max_cores):
            argv, env = run_args(sample, exe, config, cfg)
            if run_direct(argv, env, RUN_TIMEOUT_S, cfg.run_nice) != 0:
                break
    return time.perf_counter() - started


def naive(samples, work, cfg):
    """ParEval's way: driver + sample compiled as one translation unit per sample, no cache, no parallelism."""
    started = time.perf_counter()
    for index, sample in enumerate(samples):
        problem, exec_model = sample.problem, sample.exec_model
        src, exe = work / f"naive{index}.cpp", work / f"naive{index}"
        src.write_text(driver_program.driver_source(problem, exec_model) + "\n" + suite.sample_source(problem, exec_model, sample.body))
        template = toolchains.compile_sample_argv(problem, exec_model, src, exe)
        compile_argv = [a for a in template if a != "-c"] + [f"-I{suite.DATA_ROOT}"]
        link = toolchains.link_argv(problem, exec_model, Path("sample.o"), Path("driver.o"), exe)
        compile_argv += link[link.index("-o") + 2:]  # the libraries the link step adds (Kokkos)
        if subprocess.run(compile_argv, capture_output=True).returncode != 0:
            continue
        for config in resource_sweep(exec_model, cfg.max_cores):
            argv, env = run_args(sample, exe, config, cfg)
            if run_direct(argv, env, RUN_TIMEOUT_S, cfg.run_nice) != 0:
                break
    return time.perf_counter() - started


def compile_phase(samples, work, driver_dir, jobs):
    cache = BuildCache(BuildConfig(cache_dir=work / f"compile_j{jobs}", jobs=jobs))
    cache.drivers = driver_dir  # drivers prebuilt: this measures the samples' compiles
    _, seconds = timed(cache.build_all, [BuildRequest(problem=s.problem, exec_model=s.exec_model, body=s.body)
                                            for s in samples])  # fmt: skip
    return seconds


def fresh_cache(work, name, driver_dir):
    """A cold build cache whose driver objects are prebuilt (every evaluator uses the same drivers)."""
    cache = work / name
    cache.mkdir()
    shutil.copytree(driver_dir, cache / "drivers")
    return cache


def speedup_differences(first: pd.DataFrame, second: pd.DataFrame) -> tuple[bool, pd.DataFrame, dict[str, float]]:
    """Same verdicts?, the passing (sample, configuration) rows with both speedups and |s2 - s1| / s1, and
    its median per model/threads."""
    keys = ["problem", "model", "sample_index", "ranks", "threads"]
    merged = first.merge(second, on=keys, suffixes=("_1", "_2"))
    same_verdicts = bool(len(merged) == len(first) == len(second) and (merged["verdict_1"] == merged["verdict_2"]).all())
    ok = merged[(merged["verdict_1"] == "ok") & (merged["verdict_2"] == "ok")].copy()
    ok["rel"] = (ok["speedup_2"] - ok["speedup_1"]).abs() / ok["speedup_1"]
    by_config = {f"{m}/r{int(r)}t{int(t)}": float(g["rel"].median()) for (m, r, t), g in ok.groupby(["model", "ranks", "threads"])}
    return same_verdicts, ok[keys + ["speedup_1", "speedup_2", "rel"]], by_config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems", default="reduce_sum_of_min_pairs,transform_relu")
    parser.add_argument("--models", default="serial,omp")
    parser.add_argument("--samples", type=int, default=3, help="identical reference samples per prompt")
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--rounds", type=int, default=3, help="alternating harness / bare rounds for the overhead")
    parser.add_argument("--out", default=str(REPO / "results/pcgbench/benchmarks/harness_throughput.json"))
    args = parser.parse_args()
    problems = [suite.get_problem(name) for name in args.problems.split(",")]
    refused = [p.name for p in problems if any(p.types_for(m) for m in args.models.split(","))]
    if refused:
        sys.exit(f"--problems: {refused} declare types; the naive single-TU build cannot include them twice")
    exec_models = args.models.split(",")
    cfg_kwargs = {"max_cores": 2, "warmup": 1, "reps": args.reps}
    cfg = EvaluateConfig(run_timeout_s=RUN_TIMEOUT_S, **cfg_kwargs)  # the run settings every evaluator shares
    made = make_samples(problems, exec_models, args.samples)
    everything = made["reference"] + made["mutants"]
    report = {"problems": args.problems, "models": exec_models, "samples_per_prompt": args.samples,
              "reference_samples": len(made["reference"]), "mutant_samples": len(made["mutants"]),
              "distinct_programs": len({s.program_id for s in everything}),
              "validations": cfg.validations, "run_nice": cfg.run_nice, "load_average_start": os.getloadavg()[0]}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="pcgbench_bench_") as tmp:
        work = Path(tmp)
        driver_dir = work / "drivers"
        for sample in everything:  # drivers first: every evaluator uses the same driver objects
            driver_program.build_driver(sample.problem, sample.exec_model, driver_dir)
        for name, samples in made.items():
            rows, seconds = harness(samples, fresh_cache(work, f"cache_{name}", driver_dir), work / f"out_{name}",
                                       cfg_kwargs, jobs=2)  # fmt: skip
            report[f"harness_{name}_s"] = seconds
            report[f"harness_{name}_samples_per_min"] = 60 * len(samples) / seconds
            report[f"harness_{name}_verdicts"] = rows.drop_duplicates("sample_id")["verdict"].value_counts().to_dict()
        harness_2 = report["harness_reference_s"] + report["harness_mutants_s"]
        # The same with every sample run, copies included: the ratio a set without copies would see.
        _, every_s = harness(everything, fresh_cache(work, "cache_every", driver_dir), work / "out_every", cfg_kwargs,
                             jobs=2, share=False)  # fmt: skip
        report["harness_every_sample_s"] = every_s
        # Overhead: the same work with 1 compiler process against the bare compile + run, alternating.
        rounds = []
        for number in range(args.rounds):
            _, harness_s = harness(everything, fresh_cache(work, f"cache_j1_{number}", driver_dir),
                                                work / f"out_j1_{number}", cfg_kwargs, jobs=1)  # fmt: skip
            bare_dir = work / f"bare_{number}"
            bare_dir.mkdir()
            _, bare_s = timed(bare, everything, bare_dir, driver_dir, cfg)
            rounds.append({"harness_s": harness_s, "bare_s": bare_s})
        naive_dir = work / "naive"
        naive_dir.mkdir()
        _, naive_s = timed(naive, everything, naive_dir, cfg)
        report.update(harness_total_s=harness_2, overhead_rounds=rounds, naive_s=naive_s,
                      overhead_vs_bare=statistics.median(r["harness_s"] / r["bare_s"] - 1 for r in rounds),
                      naive_ratio=naive_s / harness_2, samples_per_min=60 * len(everything) / harness_2,
                      naive_ratio_every_sample_run=naive_s / every_s,
                      naive_samples_per_min=60 * len(everything) / naive_s)  # fmt: skip
        compile_1 = compile_phase(everything, work, driver_dir, jobs=1)
        compile_2 = compile_phase(everything, work, driver_dir, jobs=2)
        report.update(compile_1job_s=compile_1, compile_2job_s=compile_2, compile_gain_1_to_2=compile_1 / compile_2)
        # Reproducibility: the reference generations again, warm cache, fresh results.
        again, _ = harness(made["reference"], work / "cache_reference", work / "out_reference_again", cfg_kwargs,
                              jobs=2)  # fmt: skip
        earlier_log = work / "out_reference" / "samples.jsonl"
        earlier = pd.DataFrame([r for line in earlier_log.read_text().splitlines() for r in json.loads(line)["rows"]])
        same_verdicts, pairs, by_config = speedup_differences(earlier, again)
        rel = pairs["rel"].tolist()
        report.update(repeat_same_verdicts=same_verdicts, repeat_speedups=pairs.to_dict(orient="records"),
                      repeat_speedup_median_abs_rel_diff=statistics.median(rel) if rel else None,
                      repeat_speedup_median_abs_rel_diff_by_config=by_config)  # fmt: skip
    report["load_average_end"] = os.getloadavg()[0]
    write_json(args.out, report)
    print(f"{'samples':32s} {len(made['reference'])} reference + {len(made['mutants'])} mutants "
          f"({args.problems}; {','.join(exec_models)}): {report['distinct_programs']} distinct programs")
    for name in ("reference", "mutants"):
        print(f"{'harness ' + name:32s} {report[f'harness_{name}_s']:7.1f} s  "
              f"{report[f'harness_{name}_samples_per_min']:7.1f} samples/min")
    print(f"{'harness, both (2 compile jobs)':32s} {harness_2:7.1f} s  {report['samples_per_min']:7.1f} samples/min")
    print(f"{'naive evaluator':32s} {naive_s:7.1f} s  {report['naive_samples_per_min']:7.1f} samples/min  "
          f"-> harness is {report['naive_ratio']:.2f}x (target >= 3x)")
    print(f"{'harness, every sample run':32s} {every_s:7.1f} s  -> {report['naive_ratio_every_sample_run']:.2f}x the "
          f"naive evaluator (copies run again: no shared runs)")
    for number, r in enumerate(rounds):
        print(f"{f'round {number}: harness 1 job / bare':32s} {r['harness_s']:7.1f} s / {r['bare_s']:.1f} s")
    print(f"{'harness overhead over bare':32s} {100 * report['overhead_vs_bare']:+.1f}% (median of the rounds; "
          f"target < 15%)")
    print(f"{'compile phase 1 -> 2 jobs':32s} {compile_1:7.1f} s -> {compile_2:.1f} s  -> gain "
          f"{report['compile_gain_1_to_2']:.2f}x (target near 2x)")
    print(f"{'reference evaluated twice':32s} same verdicts: {same_verdicts}; median |rel diff| of speedups "
          f"{report['repeat_speedup_median_abs_rel_diff']:.3f} (target <= 0.10); by config: "
          + ", ".join(f"{k} {v:.3f}" for k, v in by_config.items()))
    print(f"(timings on a shared machine are indicative only: load average {report['load_average_start']:.1f} at the "
          f"start, {report['load_average_end']:.1f} at the end, on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
