"""Per-sample agreement with ParEval: score a ParEval results file with this harness and hold every verdict against
ParEval's own, giving each difference a cause computed from evidence.

    python -m workflow_scripts.pcgbench.agreement RESULTS.json[.xz] --out DIR [--models omp] [--sources serial]
                                                  [--sample 48] [--size paper] [--run-timeout-s 60]

Input: a file in ParEval's results format (pareval_results.py; the released ones are in data/pareval_released/).
Every output with ParEval's verdict is a sample, evaluated as `python -m workflow_scripts.pcgbench evaluate`
evaluates one (evaluation.evaluate_samples: the same builds, vetting, race check, sandboxed runs and protocol; the
resume log DIR/samples.jsonl, so an interrupted run resumes). Outputs, in DIR:

    agreement.csv    one row per sample: record, output_index, execution model (and source model), problem,
                     pareval (did_not_build / built_invalid / valid), pareval_runs (its runs in words), pcgbench
                     (the verdict), agree, cause, evidence; sorted by record and output index
    results.parquet, metrics.json, metrics.csv   the evaluation's own outputs (evaluation.write_outputs)
    refused.json     the records and outputs refused (missing field, unknown problem, text UTF-8 cannot hold)
    agreement.json   the confusion table, the agreement rate and the causes' counts

and prints the confusion table. Agreement is on the three categories: PCGBench's build_error is "did not build",
ok is "valid", every other verdict of a built program "built but invalid" (a prompt_mismatch output is not built:
it is counted apart).

A disagreement's cause, from a fixed vocabulary (CAUSES), is computed from what the two harnesses recorded:
- PCGBench stricter by design, the verdict itself: race_detected, no_parallelism, tampering, resource_overuse;
- answer_check: the two checks of the answer differ (PCGBench's wrong_answer on a ParEval pass: the evidence is the
  driver's failure text, which input and element, and whether that size is a multiple of the ranks; or a ParEval run that ran and was invalid where PCGBench's
  validations all passed: ParEval's invalid configurations);
- time_limit: PCGBench's timeout or killed_resource_limit on a ParEval pass (the limit and size in the evidence;
  for an OpenMP sample, what the same run gives without the stress validations, run again to tell the phases apart);
- pareval_run_failed: ParEval's run exited non-zero at some configuration (its crash or time limit: ParEval's
  logs were not released) where every run here passed;
- build_environment: one harness built the body and the other did not (the compiler's first error here; ParEval's
  build logs were not released; where the body collapses a non-rectangular loop nest or joins a Kokkos reducer
  through volatile references, which ParEval's compiler or Kokkos rejected every time, or ParEval built none of
  the record's outputs, the evidence says so: build_hints);
- prompt_mismatch: the record's prompt declares another interface than the problem's (not built here);
- memory_error: PCGBench's crash on a ParEval pass where the C library found the sample's memory corrupted (a write
  past its buffer, a double free: `malloc(): corrupted top size`): undefined behaviour, which ParEval's runs survived;
- unexplained: any other difference (a crash here on a ParEval pass, ...): a harness bug until read and named.

Measured on the 2-core machine on 2026-12-07 under protocol v7 (size paper, race check on, load 8-10 from other
work), six stratified draws (--sample-seed 46), half ParEval passes and half failures each: GPT-4 serial->omp 48 (44
agree; 3 min 9 s), GPT-3.5 serial->omp 48 (46), GPT-4 serial->mpi 24 (22), GPT-4 cuda->kokkos 24 (21), CodeLlama-34B
generation serial+omp 48 (45) and mpi+omp+mpi+kokkos 36 (22): 200 of 228 agree (87.7%, as under v5); builds agree on
98.2%; validity, on the 204 samples both built with the 15 stricter-by-design differences set apart, on 95.2% (180 of
189). No output got resource_overuse or tampering. The 28 differences, every one read: no_parallelism 12 (ParEval
passes: serial code on MPI, MPI+OpenMP and Kokkos prompts, 5 of them `// TODO return false;` for search_xor_contains,
whose ParEval check almost always wants false; ParEval's own source check agreed on 11), race_detected 3 (real races:
writes to a shared vector<bool>, a check outside the critical section), answer_check 7 (stencil and game-of-life
bodies that leave or wrap the boundary the prompt defines, which ParEval's validator skips; MPI+OpenMP bodies that drop
n mod ranks, at a size ParEval's powers of two never reach; a last-short-book search whose threads each write the
last one they find, invalid for ParEval at 32 threads and passing here: PCGBench was wrong, and since its generator
plants short books across the vector it is wrong_answer here too, so 201 agree now), build_environment 4 (a non-rectangular collapse and a Kokkos volatile join ParEval's
compiler and Kokkos 4 rejected; Kokkos records ParEval built none of), time_limit 1 (a quadratic Kokkos spmv at this
suite's 69905 rows, 34x ParEval's work), memory_error 1 (an MPI stencil that writes past its buffer where the rows do
not split evenly: `malloc(): corrupted top size`).
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import random
import re
import sys
from collections.abc import Collection
from pathlib import Path

import pandas as pd

from workflow_scripts.common import write_json
from workflow_scripts.common.io import atomic_path
from workflow_scripts.measure import (
    BUILD_ERROR,
    CRASH,
    KILLED_RESOURCE_LIMIT,
    NO_PARALLELISM,
    OK,
    OPENMP_EXEC_MODELS,
    PROMPT_MISMATCH,
    RACE_DETECTED,
    RESOURCE_OVERUSE,
    TAMPERING,
    VERDICT_TIMEOUT,
    WRONG_ANSWER,
)
from workflow_scripts.pcgbench.evaluation import EvaluateConfig, evaluate_samples, write_outputs
from workflow_scripts.pcgbench.pareval_format import GenerationsError
from workflow_scripts.pcgbench.pareval_results import (
    CATEGORIES,
    INVALID,
    NOT_BUILT,
    VALID,
    ParEvalVerdict,
    ReleasedSample,
    load_results,
)

logger = logging.getLogger(__name__)

# The causes of a disagreement, and which family each is of.
STRICTER = (RACE_DETECTED, NO_PARALLELISM, TAMPERING, RESOURCE_OVERUSE)
ANSWER_CHECK = "answer_check"
TIME_LIMIT = "time_limit"
PAREVAL_RUN_FAILED = "pareval_run_failed"
BUILD_ENVIRONMENT = "build_environment"
MEMORY_ERROR = "memory_error"
UNEXPLAINED = "unexplained"
CAUSES = {
    **{verdict: "stricter_by_design" for verdict in STRICTER},
    ANSWER_CHECK: "answer_check", TIME_LIMIT: "time_or_resource_limit", PAREVAL_RUN_FAILED: "time_or_resource_limit",
    BUILD_ENVIRONMENT: "build_environment", PROMPT_MISMATCH: "interface", MEMORY_ERROR: "undefined_behavior",
    UNEXPLAINED: "unexplained",
}  # fmt: skip
EVIDENCE_CHARS = 400
COLUMNS = ["generator", "record", "output_index", "model", "source_model", "problem", "pareval", "pareval_runs",
           "pcgbench", "pcgbench_category", "agree", "cause", "cause_family", "evidence", "race_check", "sample_id"]


def pcgbench_category(verdict: str) -> str:
    """PCGBench's verdict in ParEval's three: build_error did not build, ok is valid, any other built but invalid."""
    return NOT_BUILT if verdict == BUILD_ERROR else VALID if verdict == OK else INVALID


def first_error(build_log: str) -> str:
    """The compiler's first error line (where the build environment shows: a header, a flag, a name), else the log's
    tail."""
    for line in build_log.splitlines():
        if re.search(r"\berror\b", line):
            return line.strip()
    return build_log.strip()[-EVIDENCE_CHARS:]


_FOR_HEADER = re.compile(r"for\s*\(\s*(?:[\w:]+\s+)*(\w+)\s*=\s*([^;]*);([^;]*);")


def nonrectangular_collapse(body: str) -> str:
    """"" unless the body collapses a loop nest whose inner bounds use the outer loop's variable (OpenMP 5.0's
    non-rectangular collapse, which GCC accepts from version 11), else the two loop headers' variables. In ParEval's
    released serial->omp translations every such body (21, all seven models) failed ParEval's build and every
    rectangular collapse(2) built (188): its compiler predates them."""
    at = body.find("collapse(")
    headers = _FOR_HEADER.findall(body[at:])[:2] if at >= 0 else []
    if len(headers) < 2:
        return ""
    (outer, _, _), (inner, init, condition) = headers
    return f"{inner} from {outer}" if re.search(rf"\b{re.escape(outer)}\b", init + condition) else ""


_DIED = re.compile(r"Signal: \w+ \(\d+\)|Segmentation fault|Aborted|corrupted[\w ]*|double free|terminate called[^\n]*")
# What the C library prints when it finds a program's memory corrupted (a write past an allocation, a double free).
_CORRUPTED = re.compile(r"(?:malloc|free|realloc|munmap_chunk|malloc_consolidate)\(\)[^\n]*|corrupted[\w ]*|double free"
                        r"[^\n]*|stack smashing detected")
_VOLATILE_JOIN = re.compile(r"\bjoin\s*\(\s*(?:const\s+)?volatile\b")


def build_hints(body: str, record_builds: tuple[int, int] | None = None) -> str:
    """What the evidence says about a body ParEval could not build and this harness could, measured on ParEval's
    released translations: a non-rectangular collapse (ParEval's compiler rejected all 21, built all 188 rectangular
    ones); a Kokkos reducer's join taking volatile references, which Kokkos 4 (ParEval's tpl/kokkos) dropped (all 12
    failed its build); a record none of whose outputs ParEval built (`record_builds`: built, of how many), whatever
    they were (its driver or prompt: 48_sparse_la_sparse_axpy and 39_search_xor_contains in Kokkos, 0 of 140)."""
    hints = []
    if collapse := nonrectangular_collapse(body):
        hints.append(f"the body collapses a non-rectangular loop nest ({collapse}: OpenMP 5.0, GCC >= 11), which "
                     "ParEval's compiler rejected in every released translation")
    if _VOLATILE_JOIN.search(body):
        hints.append("the body's reducer joins through volatile references, which Kokkos 4 (ParEval's) no longer "
                     "accepts and the Kokkos 3 here does")
    if record_builds is not None and record_builds[0] == 0:
        hints.append(f"ParEval built none of the record's {record_builds[1]} outputs")
    return "".join(f"; {hint}" for hint in hints)


def uneven_split(detail: str, ranks: int | None) -> str:
    """Where the driver's failure names a size that is not a multiple of the run's ranks, that in words: ParEval's
    sizes and rank counts are powers of two, so a body that drops the remainder of n / ranks passes there."""
    size = re.search(r"\bsize (\d+)", detail)
    if size is None or not ranks or ranks < 2 or int(size.group(1)) % ranks == 0:
        return ""
    return (f"; size {size.group(1)} is not a multiple of the {ranks} ranks (ParEval's sizes and rank counts are "
            "powers of two)")


def cause_of(pareval: ParEvalVerdict, verdict: str, detail: str, build_log: str, cfg: EvaluateConfig,
             body: str = "", record_builds: tuple[int, int] | None = None,
             ranks: int | None = None) -> tuple[str, str]:  # fmt: skip
    """(cause, evidence) of a disagreement between ParEval's verdict and PCGBench's; ("", "") when they agree."""
    theirs, ours = pareval.category, pcgbench_category(verdict)
    if theirs == ours:
        return "", ""
    runs = pareval.describe()
    if verdict == PROMPT_MISMATCH:
        return PROMPT_MISMATCH, detail
    if ours == NOT_BUILT:  # ParEval built it
        return BUILD_ENVIRONMENT, f"PCGBench's compiler: {first_error(build_log)}; {runs}"
    if theirs == NOT_BUILT:
        return (BUILD_ENVIRONMENT, f"{runs}; PCGBench: built, {verdict}" + (f" ({detail})" if detail else "") +
                build_hints(body, record_builds))  # fmt: skip
    if verdict in STRICTER:  # ParEval: valid
        source_check = "; ParEval's own source check agreed (is_source_valid false)" if (
            verdict == NO_PARALLELISM and pareval.is_source_valid is False) else ""  # fmt: skip
        return verdict, f"{detail}{source_check}"
    if verdict == WRONG_ANSWER:
        return ANSWER_CHECK, f"PCGBench's driver: {detail}{uneven_split(detail, ranks)}; {runs}"
    if verdict in (VERDICT_TIMEOUT, KILLED_RESOURCE_LIMIT):
        # A process that died (its runtime printed the signal) and left the others waiting reads as a timeout.
        died = _DIED.search(detail)
        return TIME_LIMIT, (f"PCGBench: {verdict} ({detail}) at size {cfg.size}, limit {cfg.run_timeout_s:g} s; "
                            f"ParEval's best serial baseline {pareval.best_sequential_runtime} s" +
                            (f"; a process died before the limit ({died.group(0)}), the others waited"
                             if died else ""))  # fmt: skip
    if verdict == OK:  # ParEval: built but invalid
        if pareval.failed_to_run:
            return PAREVAL_RUN_FAILED, f"{runs}; PCGBench: every run passed"
        return ANSWER_CHECK, f"{runs}; PCGBench: every validation passed"
    if verdict == CRASH and (corrupted := _CORRUPTED.search(detail)):
        return MEMORY_ERROR, (f"PCGBench: crash: the C library found the sample's memory corrupted "
                              f"({corrupted.group(0).strip()}): undefined behaviour that ParEval's runs survived; {runs}")
    return UNEXPLAINED, f"PCGBench: {verdict}: {detail}; {runs}"


def stratified(samples: list[ReleasedSample], n: int, seed: int) -> list[ReleasedSample]:
    """n samples drawn (seeded) half from ParEval's passes and half from its failures (did not build or invalid),
    as many of either as there are where one side has fewer; in the file's order."""
    rng = random.Random(seed)
    passes = [s for s in samples if s.pareval.category == VALID]
    fails = [s for s in samples if s.pareval.category != VALID]
    take_pass = min(len(passes), max(n // 2, n - len(fails)))
    chosen = rng.sample(passes, take_pass) + rng.sample(fails, min(len(fails), n - take_pass))
    order = {id(s): i for i, s in enumerate(samples)}
    return sorted(chosen, key=lambda s: order[id(s)])


def agreement_rows(judged: list[ReleasedSample], mismatched: list[ReleasedSample], rows: pd.DataFrame,
                   cfg: EvaluateConfig, rerun: dict[str, str] | None = None,
                   record_builds: dict[int, tuple[int, int]] | None = None) -> pd.DataFrame:  # fmt: skip
    """One row per sample: ParEval's verdict, PCGBench's (the evaluation's last row of the sample), the cause, and
    what `rerun` (without_stress) found for it in the evidence; `record_builds`: per record (its index in the file)
    how many of its outputs ParEval built, of how many."""
    rerun, record_builds = rerun or {}, record_builds or {}
    # A sample's last row: where its sweep stopped, the failing run's own detail (its verdict is on every row).
    last = rows.drop_duplicates("sample_id", keep="last").set_index("sample_id") if not rows.empty else pd.DataFrame()
    out = []
    for released in judged + mismatched:
        sample = released.sample
        if released.mismatch:
            verdict, detail, build_log, race, ranks = PROMPT_MISMATCH, released.mismatch, "", None, None
        elif sample.sample_id in last.index:
            row = last.loc[sample.sample_id]
            verdict, detail, build_log, race = row["verdict"], row["detail"], row["build_log"], row["race_check"]
            ranks = int(row["ranks"]) if pd.notna(row["ranks"]) else None
        else:
            continue  # its execution model cannot run here (evaluate_samples logged it)
        cause, evidence = cause_of(released.pareval, verdict, detail or "", build_log or "", cfg, sample.body,
                                   record_builds.get(released.record_index), ranks)  # fmt: skip
        if sample.sample_id in rerun:
            evidence += f"; {rerun[sample.sample_id]}"
        out.append({"generator": sample.generator, "record": released.record, "output_index": sample.sample_index,
                    "model": sample.exec_model, "source_model": sample.source_exec_model, "problem": sample.problem.name,
                    "pareval": released.pareval.category, "pareval_runs": released.pareval.describe(),
                    "pcgbench": verdict, "pcgbench_category": pcgbench_category(verdict),
                    "agree": cause == "", "cause": cause, "cause_family": CAUSES.get(cause, ""),
                    "evidence": evidence[:EVIDENCE_CHARS], "race_check": race, "sample_id": sample.sample_id})  # fmt: skip
    table = pd.DataFrame(out, columns=COLUMNS)
    return table.sort_values(["record", "output_index"], kind="stable").reset_index(drop=True)


def without_stress(judged: list[ReleasedSample], rows: pd.DataFrame, out_dir: Path, cfg: EvaluateConfig) -> dict[str, str]:
    """{sample_id: what a run without the stress validations gave} for the ParEval passes that timed out here in an
    OpenMP model: the stress validations run stress_threads threads per rank on max_cores cores, where a body that
    opens a parallel region per call of a recursion (thousands of them) can spend its whole limit in fork and join.
    Whether the timeout is that phase's, not the body's at the timed threads, is then measured, not guessed."""
    if rows.empty or not cfg.stress_validations:
        return {}
    verdicts = rows.drop_duplicates("sample_id").set_index("sample_id")["verdict"]
    timed_out = [s.sample for s in judged if s.pareval.category == VALID and s.sample.exec_model in OPENMP_EXEC_MODELS
                 and verdicts.get(s.sample.sample_id) in (VERDICT_TIMEOUT, KILLED_RESOURCE_LIMIT)]  # fmt: skip
    if not timed_out:
        return {}
    plain = dataclasses.replace(cfg, stress_validations=0)
    again, _ = evaluate_samples(timed_out, out_dir / "without_stress", plain)
    found = again.drop_duplicates("sample_id").set_index("sample_id")
    return {sample_id: (f"without the stress validations ({cfg.stress_threads} threads per rank on {cfg.max_cores} "
                        f"cores) the same run gives {row['verdict']} in {row['run_wall_s'] or 0:.1f} s")
            for sample_id, row in found.iterrows()}  # fmt: skip


def confusion(table: pd.DataFrame) -> pd.DataFrame:
    """ParEval's three verdicts (rows) against PCGBench's verdicts (columns), with totals."""
    return pd.crosstab(pd.Categorical(table["pareval"], CATEGORIES), table["pcgbench"], rownames=["ParEval"],
                       colnames=["PCGBench"], margins=True, margins_name="total", dropna=False)  # fmt: skip


def summarise(table: pd.DataFrame) -> dict:
    scored = table[table["pcgbench"] != PROMPT_MISMATCH]
    built_both = scored[(scored["pareval"] != NOT_BUILT) & (scored["pcgbench_category"] != NOT_BUILT)]
    stricter = built_both["cause"].isin(STRICTER)
    return {
        "samples": len(table), "scored": len(scored), "prompt_mismatch": int((table["pcgbench"] == PROMPT_MISMATCH).sum()),
        "agree": int(scored["agree"].sum()),
        "agreement_rate": float(scored["agree"].mean()) if len(scored) else None,
        "build_agreement_rate": float(((scored["pareval"] == NOT_BUILT) == (scored["pcgbench_category"] == NOT_BUILT)).mean())
        if len(scored) else None,
        # validity on the samples both built, once PCGBench's stricter-by-design verdicts are set apart
        "validity_agreement_rate_built_both": float(built_both[~stricter]["agree"].mean()) if (~stricter).any() else None,
        "causes": table.loc[table["cause"] != "", "cause"].value_counts().to_dict(),
        "confusion": {category: row for category, row in
                      confusion(table).drop(index="total").to_dict(orient="index").items()} if len(table) else {},
    }  # fmt: skip


def main(results_json: Path, out_dir: Path, cfg: EvaluateConfig | None = None, *, generator: str | None = None,
         exec_models: list[str] | None = None, sources: list[str] | None = None,
         outputs: Collection[tuple[str, int]] | None = None, sample: int | None = None,
         sample_seed: int = 0, problems: Collection[str] | None = None,
         keys: Collection[tuple[str, str, int]] | None = None, empty_ok: bool = False) -> pd.DataFrame:  # fmt: skip
    """Score the judged outputs of a ParEval results file (of `exec_models` and, for a translation file, `sources` only,
    if given; of `outputs`, (record name, output index) pairs, only, if given; of `problems`, the suite's problem
    names, only, if given; of `keys`, (execution model, record name, output index) triples, only, if given: a
    record's name is shared by its execution models; `sample` of them stratified by ParEval's verdict, if given)
    with this harness, write DIR/agreement.csv and the rest (the module docstring), print the confusion table;
    returns the agreement table. Where nothing is selected, `empty_ok` writes an empty agreement (a shard of the
    workflow's study, pareval_released.py, whose models a file has none of) instead of stopping."""
    cfg = cfg or EvaluateConfig()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    released = load_results(Path(results_json), generator, cfg.suite_root)

    def wanted(s: ReleasedSample) -> bool:
        return ((not exec_models or s.sample.exec_model in exec_models) and (not sources or s.sample.source_exec_model in sources)
                and (outputs is None or (s.record, s.sample.sample_index) in outputs)
                and (problems is None or s.sample.problem.name in problems)
                and (keys is None or (s.sample.exec_model, s.record, s.sample.sample_index) in keys))

    judged = [s for s in released.judged if wanted(s)]
    mismatched = [s for s in released.mismatched if s.pareval is not None and wanted(s)]
    unjudged = len(released.samples) - len(released.judged)
    if unjudged:
        logger.info("%d outputs of %s carry no ParEval verdict (its generations format): not scored here", unjudged,
                    results_json)  # fmt: skip
    if sample is not None:
        judged = stratified(judged, sample, sample_seed)
    if not judged and not mismatched and not empty_ok:
        raise GenerationsError(f"{results_json}: no output with ParEval's verdict" +
                               (f" of models {exec_models} / sources {sources}" if exec_models or sources else ""))  # fmt: skip
    write_json(out_dir / "refused.json", [dataclasses.asdict(r) for r in released.refused])
    rows, skipped = evaluate_samples([s.sample for s in judged], out_dir, cfg) if judged else (pd.DataFrame(), {})
    if not rows.empty:
        write_outputs(rows, skipped, out_dir, cfg)
    record_builds: dict[int, tuple[int, int]] = {}
    for s in released.judged:
        built, total = record_builds.get(s.record_index, (0, 0))
        record_builds[s.record_index] = (built + s.pareval.did_build, total + 1)
    table = agreement_rows(judged, mismatched, rows, cfg, without_stress(judged, rows, out_dir, cfg), record_builds)
    with atomic_path(out_dir / "agreement.csv") as tmp:
        table.to_csv(tmp, index=False)
    summary = summarise(table)
    write_json(out_dir / "agreement.json", {"source": str(results_json), "size": cfg.size, "skipped_models": skipped,
                                            "refused": len(released.refused), **summary})  # fmt: skip
    print(report(table, summary, released.refused, skipped))
    return table


def report(table: pd.DataFrame, summary: dict, refused: list, skipped: dict[str, str]) -> str:
    lines = [f"{summary['samples']} samples; {summary['agree']} of {summary['scored']} agree "
             f"({summary['agreement_rate']:.1%})" if summary["scored"] else f"{summary['samples']} samples"]
    if len(table):
        lines += ["", confusion(table).to_string(), ""]
    lines += [f"cause {cause} ({CAUSES[cause]}): {count}" for cause, count in summary["causes"].items()]
    lines += [f"refused: {r.reason}" for r in refused]
    lines += [f"skipped {exec_model}: {why}" for exec_model, why in skipped.items()]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m workflow_scripts.pcgbench.agreement",
                                     description="score a ParEval results file here; agreement with ParEval's verdicts")
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments (also those of `python -m workflow_scripts.pcgbench agreement`)."""
    parser.add_argument("results", type=Path, help="ParEval results file (.json or .json.xz)")
    parser.add_argument("--out", type=Path, required=True, help="folder for agreement.csv and the evaluation's files")
    parser.add_argument("--generator", default=None, help="name in the results (default: the file's stem)")
    parser.add_argument("--models", default=None, help="execution models to score, comma-separated (default: all)")
    parser.add_argument("--sources", default=None, help="translation source models, comma-separated (default: all)")
    parser.add_argument("--outputs", default=None,
                        help="only these outputs, comma-separated RECORD:INDEX (e.g. 52_stencil_1d_jacobi_3-point_stencil:7)")
    parser.add_argument("--sample", type=int, default=None,
                        help="score this many outputs, half ParEval's passes and half its failures (default: all)")
    parser.add_argument("--sample-seed", type=int, default=0)
    # ParEval's problem sizes by default, so that a difference in verdict is not one of input size.
    parser.add_argument("--size", default="paper", choices=["timed", "paper"], help="default: %(default)s (ParEval's)")
    parser.add_argument("--run-timeout-s", type=float, default=None, help="a run's wall-clock limit, s")
    parser.add_argument("--max-cores", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=None, help="parallel compiles")
    parser.add_argument("--cache-dir", type=Path, default=None, help="build cache (default: the config schema's)")
    parser.add_argument("--no-race-check", action="store_true")


def config_from(args: argparse.Namespace) -> EvaluateConfig:
    given = {"size": args.size, "run_timeout_s": args.run_timeout_s, "max_cores": args.max_cores, "jobs": args.jobs,
             "cache_dir": args.cache_dir}  # fmt: skip
    return EvaluateConfig(**{k: v for k, v in given.items() if v is not None}, race_check=not args.no_race_check)


def run(args: argparse.Namespace) -> int:
    """main() with the command's arguments (add_arguments); its exit status."""
    main(args.results, args.out, config_from(args), generator=args.generator,
         exec_models=args.models.split(",") if args.models else None,
         sources=args.sources.split(",") if args.sources else None,
         outputs={(name, int(index)) for name, _, index in (o.rpartition(":") for o in args.outputs.split(","))}
         if args.outputs else None, sample=args.sample,
         sample_seed=args.sample_seed)  # fmt: skip
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        sys.exit(run(build_parser().parse_args()))
    except (GenerationsError, ValueError) as err:
        sys.exit(f"error: {err}")
