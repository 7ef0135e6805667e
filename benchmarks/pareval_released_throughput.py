"""Throughput on real LLM outputs: the same slice of ParEval's released outputs scored by this harness and by
ParEval's own, twice each, one after the other, with the verdict agreement between them.

    .venv/bin/python benchmarks/pareval_released_throughput.py --pareval-drivers PAREVAL/drivers
                                                               [--limit 500] [--seed 46] [--max-cores 2]
                                                               [--models serial,omp,mpi,mpi+omp,kokkos]
                                                               [--pareval-kokkos PAREVAL/tpl/kokkos/build]

The slice: --limit outputs (500 by default) of data/pareval_released/ (pareval_results.load_results: the outputs
that carry ParEval's own verdict, of the CPU execution models serial, omp, mpi, mpi+omp and kokkos), drawn with
--seed in draw_slice: round robin over the strata (task, execution model) (translation: omp, mpi, kokkos from the
seven models of ParEval's translation run; generation: the five CPU models from CodeLlama-34B's), within a stratum
every problem once before any twice; its models (LLMs) fall as the draw gives them. The outputs are real: they do
not build, crash, hang and race in the proportions the models produced them (the slice's released verdicts are
printed). Written as one file in ParEval's results format (the released records and verdicts, outputs of one
(problem, execution model, source model) in one record) for this harness, and the same in its generations format
(outputs as strings) for ParEval's.

The runs, one after the other, ParEval's first in each round:
1. ParEval's harness (--pareval-drivers: the drivers/ folder of a ParEval checkout, copied here; tqdm in this
   Python or --pareval-python), cold as benchmarks/pareval_cold_start.py runs it (run_pareval: its driver
   objects built inside the timed window, then run-all.py, which compiles every output afresh), at its own
   problem sizes (drivers/problem-sizes.json) and its own limits (build 30 s, run 120 s), with launch configs at
   this harness's thread and rank counts (pareval_launch_configs: --max-cores) and mpirun in place of srun. Its
   Kokkos outputs build against --pareval-kokkos, linked in as ParEval's tpl/kokkos/build; by default the Kokkos
   this project builds (ensure_kokkos), 3.4, which lacks headers ParEval's Kokkos drivers include
   (missing_kokkos_headers: it warns that every Kokkos output will then fail ParEval's build). ParEval runs what
   it is given with no sandbox; here run-all.py runs in bubblewrap with the file system read-only but for its
   scratch folder (its TMPDIR too) and no network (one bwrap for the whole run: its start costs milliseconds).
2. This harness: `python -m workflow_scripts.pcgbench agreement SLICE --out DIR` (agreement.py: the samples
   evaluated by evaluation.evaluate_samples with the race check on, at --size paper, ParEval's sizes), cold as
   pareval_cold_start.py's cold run: an empty build cache and an empty machine cache (driver objects and
   precompiled headers built inside the timed window); Kokkos, built once, is not rebuilt.
Then both again (--rounds: how many times each). Prints for each run the wall time, samples per minute and its verdicts; then the agreement of
the verdicts (ParEval's three: did not build, built but invalid, valid; this harness's verdicts mapped to them
as agreement.py maps them) between the two harnesses in each round, between the two rounds of each harness (on
the verdicts themselves), and of each with the verdicts ParEval released; writes
results/pcgbench/benchmarks/pareval_released_throughput.json (the slice, every run's verdict per sample).
Without --pareval-drivers only this harness's two rounds run.

Run it on an idle machine: both harnesses time the outputs they run, and the wall times are the measurement.
`--limit 10` checks the machinery in a few minutes.

Measured on 2 cores on 2026-12-07 under protocol v9, `--limit 200 --rounds 1 --models serial,omp,mpi,mpi+omp` (Kokkos
left out: ParEval's Kokkos drivers need Kokkos 4 headers, and would fail every Kokkos build here; load 1.4 at the
start): ParEval's harness 828.0 s (14.5 outputs a minute), this one 317.1 s (37.8 a minute): 2.61x, below the 3x
aimed at, with the race check on (under v8, the same slice: 866.9 s and 398.6 s, 2.18x). The two harnesses' verdicts
agree on 168 of 200 here; this harness agrees with ParEval's released verdicts on 179 of 200, ParEval's harness here
with its own released ones on 189 of 200. This harness spends its time building (one precompiled header and driver
object per problem and model, every output compiled and linked) and in the runs at ParEval's sizes; no output of the
slice hung. At --limit 500 ParEval's harness took about 10 s an output over the first 82 (that run was stopped for time).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402
from pareval_cold_start import pareval_launch_configs, pareval_verdict, run_pareval  # noqa: E402

from workflow_scripts.common import write_json  # noqa: E402
from workflow_scripts.measure import ensure_kokkos  # noqa: E402
from workflow_scripts.pcgbench import EvaluateConfig, pareval_results  # noqa: E402

CPU_EXEC_MODELS = ("serial", "omp", "mpi", "mpi+omp", "kokkos")
DEFAULT_LIMIT = 500
DEFAULT_SEED = 46
NOT_RUN = "not_run"  # a sample a harness left unscored (its model cannot run there)


@dataclasses.dataclass(frozen=True)
class Entry:
    """One released output with its record: what the slice is drawn from."""

    llm: str  # the released file's stem: the model that wrote the output
    task: str  # "translation" or "generation"
    record: dict  # the released record, its outputs left out
    output: dict  # the released output: the code and ParEval's verdict fields
    output_index: int  # its index in the released record

    @property
    def exec_model(self) -> str:
        return self.record["parallelism_model"]

    @property
    def problem(self) -> str:
        return self.record["name"]

    @property
    def record_key(self) -> tuple[str, str, str]:
        """(name, execution model, source model or ""): outputs with the same key share a record in the slice."""
        return self.problem, self.exec_model, self.record.get("translation_src_model") or ""


def released_pool(root: Path = pareval_results.RELEASED_ROOT) -> list[Entry]:
    """Every released output of a CPU execution model that carries ParEval's verdict and that load_results
    matches to a problem of the suite (refused and prompt_mismatch outputs left out), in the files' order."""
    pool = []
    for path in sorted(pareval_results.released_files(root)):
        task = path.parent.name
        released = pareval_results.load_results(path)
        data = pareval_results.read_json(path)
        for sample in released.judged:
            if sample.sample.exec_model not in CPU_EXEC_MODELS:
                continue
            record = data[sample.record_index]
            pool.append(Entry(llm=pareval_results.generator_name(path), task=task,
                              record={k: v for k, v in record.items() if k != "outputs"},
                              output=record["outputs"][sample.sample.sample_index],
                              output_index=sample.sample.sample_index))  # fmt: skip
    return pool


def draw_slice(pool: list[Entry], n: int, seed: int) -> list[Entry]:
    """n entries (all where there are fewer), drawn with `seed`: round robin over the strata (task, execution
    model) in a seeded order, each stratum shuffled and then ordered so that every problem comes once before any
    comes twice. Deterministic for a given pool order and seed."""
    rng = random.Random(seed)
    strata: dict[tuple[str, str], list[Entry]] = collections.defaultdict(list)
    for entry in pool:
        strata[(entry.task, entry.exec_model)].append(entry)
    queues = []
    for key in sorted(strata):
        items = list(strata[key])
        rng.shuffle(items)
        seen: collections.Counter[str] = collections.Counter()
        ranked = []
        for i, entry in enumerate(items):
            ranked.append((seen[entry.problem], i, entry))
            seen[entry.problem] += 1
        queues.append([entry for _, _, entry in sorted(ranked, key=lambda r: r[:2])])
    rng.shuffle(queues)
    chosen: list[Entry] = []
    for depth in range(max(map(len, queues), default=0)):
        for queue in queues:
            if depth < len(queue) and len(chosen) < n:
                chosen.append(queue[depth])
    return chosen


def sample_key(name: str, exec_model: str, source: str, index: int) -> str:
    """A sample's key in both harnesses' outputs: record name, execution model, source model (a translation's),
    index in the slice's record."""
    return f"{name}/{exec_model}" + (f"<-{source}" if source else "") + f"#{index}"


def slice_records(entries: list[Entry]) -> tuple[list[dict], list[str]]:
    """(records in ParEval's results format, the key of each entry in order): the entries with the same record_key
    in one record (its prompt is the same in every released file), records in order of first appearance."""
    records: dict[tuple[str, str, str], dict] = {}
    keys = []
    for entry in entries:
        record = records.setdefault(entry.record_key, {**entry.record, "outputs": []})
        keys.append(sample_key(*entry.record_key, len(record["outputs"])))
        record["outputs"].append(entry.output)
    return list(records.values()), keys


def as_generations(records: list[dict]) -> list[dict]:
    """The records in ParEval's generations format (outputs as strings): what run-all.py reads."""
    return [{**record, "outputs": [o["generated_output"] for o in record["outputs"]]} for record in records]


def category(output: dict) -> str:
    """ParEval's verdict fields in three (pareval_results' categories)."""
    if not isinstance(output, dict):
        return NOT_RUN
    return (pareval_results.VALID if output.get("are_all_valid") else pareval_results.INVALID
            if output.get("did_build") else pareval_results.NOT_BUILT)  # fmt: skip


def pareval_run_verdicts(records: list[dict]) -> tuple[dict[str, str], dict[str, str]]:
    """({key: category}, {key: verdict in words}) of ParEval's results records."""
    categories, verdicts = {}, {}
    for record in records:
        source = record.get("translation_src_model") or ""
        for i, output in enumerate(record["outputs"]):
            key = sample_key(record["name"], record["parallelism_model"], source, i)
            categories[key], verdicts[key] = category(output), pareval_verdict(output)
    return categories, verdicts


def harness_verdicts(table: pd.DataFrame) -> tuple[dict[str, str], dict[str, str]]:
    """({key: category}, {key: verdict}) of an agreement.csv (agreement.py's columns)."""
    categories, verdicts = {}, {}
    for row in table.itertuples():
        key = sample_key(row.record, row.model, row.source_model or "", int(row.output_index))
        categories[key], verdicts[key] = row.pcgbench_category, row.pcgbench
    return categories, verdicts


def agreement_count(a: dict[str, str], b: dict[str, str]) -> tuple[int, int]:
    """(samples with the same verdict, samples both scored): a sample one of them left unscored is not compared."""
    both = [key for key in a.keys() & b.keys() if NOT_RUN not in (a[key], b[key])]
    return sum(a[key] == b[key] for key in both), len(both)


def run_harness(slice_file: Path, out: Path, cache: Path, machine_cache: Path, max_cores: int,
                kokkos_prefix: Path | None) -> tuple[float, pd.DataFrame]:  # fmt: skip
    """(wall time, agreement.csv) of one cold run of `python -m workflow_scripts.pcgbench agreement`."""
    env = dict(os.environ, PCGBENCH_MACHINE_CACHE=str(machine_cache))
    if kokkos_prefix is not None:
        env["PCGBENCH_KOKKOS_PREFIX"] = str(kokkos_prefix)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "workflow_scripts.pcgbench", "agreement", str(slice_file), "--out",
                           str(out), "--cache-dir", str(cache), "--max-cores", str(max_cores)], cwd=REPO, env=env,
                          capture_output=True, text=True)  # fmt: skip
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"this harness's agreement run failed:\n{proc.stderr[-3000:]}")
    return wall, pd.read_csv(out / "agreement.csv", keep_default_na=False)


def pareval_checkout(drivers: Path, work: Path, kokkos: Path | None) -> Path:
    """A copy of ParEval's drivers/ under work/ParEval, with tpl/kokkos/build beside it where its Makefile and its
    per-output CMake file look for Kokkos (include/, lib64/, KokkosConfig.cmake): `kokkos` itself where it is laid
    out so (ParEval's own tpl/kokkos/build), else made from an installation prefix (include/, lib/ or lib64/ with
    cmake/Kokkos/KokkosConfig.cmake)."""
    root = work / "ParEval"
    copy = shutil.copytree(drivers, root / "drivers", ignore=shutil.ignore_patterns("*.o", "__pycache__"))
    if kokkos is None:
        return copy
    build = root / "tpl" / "kokkos" / "build"
    build.parent.mkdir(parents=True)
    if (kokkos / "KokkosConfig.cmake").is_file():
        build.symlink_to(kokkos)
        return copy
    lib = next((kokkos / d for d in ("lib64", "lib") if (kokkos / d / "cmake" / "Kokkos" / "KokkosConfig.cmake").is_file()),
               None)  # fmt: skip
    if lib is None:
        raise SystemExit(f"{kokkos}: no KokkosConfig.cmake there nor in lib64/ or lib/cmake/Kokkos/: give a Kokkos "
                         "build folder (ParEval's tpl/kokkos/build) or installation prefix")  # fmt: skip
    build.mkdir()
    (build / "include").symlink_to(kokkos / "include")
    (build / "lib64").symlink_to(lib)
    # Kokkos's installed config file finds its targets relative to its own folder: included, not copied.
    for name in ("KokkosConfig.cmake", "KokkosConfigVersion.cmake"):
        (build / name).write_text(f'include("{lib / "cmake" / "Kokkos" / name}")\n')
    return copy


def kokkos_version(kokkos: Path) -> int | None:
    """KOKKOS_VERSION of the Kokkos at `kokkos` (its include/KokkosCore_config.h), None where it does not say."""
    config = kokkos / "include" / "KokkosCore_config.h"
    found = re.search(r"#define KOKKOS_VERSION (\d+)", config.read_text()) if config.is_file() else None
    return int(found.group(1)) if found else None


def missing_kokkos_headers(drivers: Path, kokkos: Path) -> list[str]:
    """The Kokkos headers ParEval's Kokkos drivers include (drivers/cpp/kokkos-includes.hpp) that `kokkos` lacks:
    Kokkos_StdAlgorithms.hpp and Kokkos_MathematicalConstants.hpp came with Kokkos 3.6/3.7, and ParEval built
    against its tpl/kokkos (4.x); the Kokkos 3.4 this project builds has neither, and then every Kokkos output
    fails ParEval's build."""
    included = re.findall(r"#include\s*<(Kokkos\w*\.hpp)>", (drivers / "cpp" / "kokkos-includes.hpp").read_text())
    return [header for header in included if not (kokkos / "include" / header).is_file()]


def confined(work: Path) -> tuple[str, ...]:
    """bwrap's prefix for ParEval's run-all.py: the file system read-only but `work`, which is also its TMPDIR (the
    compilers' and Open MPI's temporary files), no network, killed with this process."""
    return ("bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", str(work), str(work),
            "--setenv", "TMPDIR", str(work), "--unshare-net", "--unshare-pid", "--die-with-parent", "--")  # fmt: skip


def print_run(label: str, wall: float, verdicts: dict[str, str]) -> None:
    scored = sum(v != NOT_RUN for v in verdicts.values())
    counts = collections.Counter(verdicts.values()).most_common()
    print(f"{label:18s} {wall:7.1f} s  {scored} samples, {scored / wall * 60:6.1f} per minute  verdicts: "
          f"{dict(counts)}", flush=True)


def describe_slice(entries: list[Entry]) -> str:
    by = lambda f: dict(collections.Counter(map(f, entries)).most_common())  # noqa: E731
    return (f"slice: {len(entries)} outputs, {len({e.problem for e in entries})} problems; by task and model "
            f"{by(lambda e: f'{e.task}/{e.exec_model}')}; by LLM {by(lambda e: e.llm)}; ParEval's released verdicts "
            f"{by(lambda e: category(e.output))}")


def main(limit: int, seed: int, max_cores: int, drivers: Path | None, pareval_python: str, out: Path,
         exec_models: tuple[str, ...] = CPU_EXEC_MODELS, pareval_kokkos: Path | None = None, rounds: int = 2) -> dict:  # fmt: skip
    entries = draw_slice([e for e in released_pool() if e.exec_model in exec_models], limit, seed)
    print(describe_slice(entries), flush=True)
    records, keys = slice_records(entries)
    released = {key: category(entry.output) for key, entry in zip(keys, entries, strict=True)}
    exec_models = tuple(sorted({entry.exec_model for entry in entries}, key=CPU_EXEC_MODELS.index))
    kokkos_prefix = ensure_kokkos() if "kokkos" in exec_models else None
    pareval_kokkos = pareval_kokkos or kokkos_prefix
    missing = missing_kokkos_headers(drivers, pareval_kokkos) if drivers and "kokkos" in exec_models else []
    if missing:
        print(f"warning: {pareval_kokkos} lacks {', '.join(missing)}, which ParEval's Kokkos drivers include: every "
              "Kokkos output will fail ParEval's build here (give --pareval-kokkos a Kokkos 4 build, or leave kokkos "
              "out of --models)", flush=True)  # fmt: skip
    EvaluateConfig(max_cores=max_cores)  # the race check's tools are there (else it says what is missing)
    harness_runs, pareval_runs = {}, {}
    with tempfile.TemporaryDirectory(prefix="pareval-released-") as tmp:
        tmp = Path(tmp)
        tmp.chmod(0o755)  # the machine caches inside must be readable by the confined compiler
        slice_file, generations = tmp / "slice.json", tmp / "slice-generations.json"
        slice_file.write_text(json.dumps(records))
        generations.write_text(json.dumps(as_generations(records)))
        if drivers:
            checkout = pareval_checkout(drivers, tmp, pareval_kokkos)
            launch = tmp / "pareval-launch-configs.json"
            version = kokkos_version(pareval_kokkos) if pareval_kokkos else None
            launch.write_text(json.dumps(pareval_launch_configs(exec_models, max_cores, version), indent=2))
            sizes = checkout / "problem-sizes.json"  # ParEval's own, as --size paper here
        load_before = os.getloadavg()[0]
        for round_ in range(1, rounds + 1):
            if drivers:
                work = tmp / f"pareval_{round_}"
                wall, results = run_pareval(checkout, pareval_python, generations, work, exec_models, launch, sizes,
                                            wrap=confined(work))  # fmt: skip
                categories, verdicts = pareval_run_verdicts(results)
                pareval_runs[round_] = {"wall_s": wall, "categories": categories, "verdicts": verdicts}
                print_run(f"ParEval, round {round_}", wall, verdicts)
            wall, table = run_harness(slice_file, tmp / f"harness_{round_}", tmp / f"cache_{round_}",
                                      tmp / f"machine_{round_}", max_cores, kokkos_prefix)  # fmt: skip
            categories, verdicts = harness_verdicts(table)
            verdicts |= {key: NOT_RUN for key in keys if key not in verdicts}
            harness_runs[round_] = {"wall_s": wall, "categories": categories, "verdicts": verdicts}
            print_run(f"this, round {round_}", wall, verdicts)
    report = {"limit": limit, "seed": seed, "max_cores": max_cores, "samples": len(entries), "models": exec_models,
              "pareval_kokkos_missing_headers": missing,
              "slice": [{"key": key, "llm": e.llm, "task": e.task, "released_output_index": e.output_index,
                         "released": released[key]} for key, e in zip(keys, entries, strict=True)],
              "load_average": {"start": load_before, "end": os.getloadavg()[0]},
              "this_harness": harness_runs, "pareval": pareval_runs, "agreement": {}}  # fmt: skip

    exec_model_of = {key: entry.exec_model for key, entry in zip(keys, entries, strict=True)}

    def compare(label: str, a: dict[str, str], b: dict[str, str], by_exec_model: bool = False) -> None:
        same, both = agreement_count(a, b)
        report["agreement"][label] = {"same": same, "compared": both}
        line = f"{label}: {same} of {both} agree" + (f" ({same / both:.1%})" if both else "")
        if by_exec_model:
            counts = {m: agreement_count({k: v for k, v in a.items() if exec_model_of.get(k) == m}, b) for m in exec_models}
            report["agreement"][label]["by_model"] = counts
            line += "; by model " + ", ".join(f"{m} {n} of {d}" for m, (n, d) in counts.items())
        print(line)

    if rounds > 1:
        compare("this harness, round 1 against round 2 (verdicts)", harness_runs[1]["verdicts"], harness_runs[2]["verdicts"])
    for round_ in harness_runs:
        compare(f"this harness round {round_} against ParEval's released verdicts", harness_runs[round_]["categories"],
                released)  # fmt: skip
    if pareval_runs and rounds > 1:
        compare("ParEval here, round 1 against round 2 (verdicts)", pareval_runs[1]["verdicts"],
                pareval_runs[2]["verdicts"])  # fmt: skip
    if pareval_runs:
        for round_ in pareval_runs:
            compare(f"round {round_}: this harness against ParEval here", harness_runs[round_]["categories"],
                    pareval_runs[round_]["categories"], by_exec_model=True)  # fmt: skip
            compare(f"ParEval here round {round_} against its released verdicts", pareval_runs[round_]["categories"],
                    released)  # fmt: skip
        table = pd.crosstab(pd.Series(pareval_runs[1]["categories"], name="ParEval here"),
                            pd.Series(harness_runs[1]["verdicts"], name="this harness"))  # fmt: skip
        print(f"round 1, ParEval's verdict here (rows) against this harness's:\n{table.to_string()}")
        pareval_s = [r["wall_s"] for r in pareval_runs.values()]
        harness_s = [r["wall_s"] for r in harness_runs.values()]
        report["ratio"] = sum(pareval_s) / sum(harness_s)
        print(f"ParEval's harness {min(pareval_s):.1f}-{max(pareval_s):.1f} s, this one "
              f"{min(harness_s):.1f}-{max(harness_s):.1f} s: {report['ratio']:.2f}x ParEval's throughput (totals "
              f"of the rounds), race check on; load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}")
    write_json(out, report)
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, help="outputs in the slice (default %(default)s)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the slice's draw (default %(default)s)")
    parser.add_argument("--max-cores", type=int, default=EvaluateConfig.max_cores,
                        help="threads and ranks 1, 2, 4, ... up to this, in both harnesses (default %(default)s)")
    parser.add_argument("--pareval-drivers", type=Path, help="drivers/ of a ParEval checkout: run it side by side")
    parser.add_argument("--pareval-python", default=sys.executable, help="Python for ParEval (needs tqdm)")
    parser.add_argument("--pareval-kokkos", type=Path,
                        help="Kokkos for ParEval's Kokkos outputs: its tpl/kokkos/build or an installation prefix "
                             "(default: this project's, Kokkos 3.4, whose headers ParEval's drivers outgrew)")
    parser.add_argument("--models", default=",".join(CPU_EXEC_MODELS),
                        help="execution models to draw from, comma-separated (default %(default)s)")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each harness, alternating (default %(default)s)")
    parser.add_argument("--out", type=Path,
                        default=REPO / "results" / "pcgbench" / "benchmarks" / "pareval_released_throughput.json")
    args = parser.parse_args()
    drivers = args.pareval_drivers.resolve() if args.pareval_drivers else None
    if drivers and not (drivers / "run-all.py").is_file():
        raise SystemExit(f"--pareval-drivers {drivers}: no run-all.py there; give the drivers/ folder of ParEval")
    if args.limit < 1 or args.rounds < 1:
        raise SystemExit(f"--limit and --rounds must be >= 1, got {args.limit} and {args.rounds}")
    exec_models = tuple(args.models.split(","))
    if not set(exec_models) <= set(CPU_EXEC_MODELS):
        raise SystemExit(f"--models {args.models}: the CPU execution models are {','.join(CPU_EXEC_MODELS)}")
    main(args.limit, args.seed, args.max_cores, drivers, args.pareval_python, args.out, exec_models,
         args.pareval_kokkos.resolve() if args.pareval_kokkos else None, args.rounds)
