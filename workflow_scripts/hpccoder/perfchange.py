"""HPC-Coder task 3: predict whether a code change makes a program slower.

Dataset: code versions made by applying performance-relevant edits to real kernels, the serial and
OpenMP reference solutions of the PCGBench problems (data/pcgbench/), each version built, run in the
sandbox, validated and timed by the measurement engine (workflow_scripts/measure: BuildCache, run_program
under the evaluation's run protocol); serial kernels on one thread, OpenMP kernels at `threads`. The edits:
  pragmas (OpenMP kernels)
  - pragma_removed: every `#pragma omp` line deleted (the kernel runs serially);
  - schedule_dynamic_1: `parallel for` pragmas get `schedule(dynamic, 1)` (per-iteration scheduling);
  - schedule_static: `parallel for` pragmas get `schedule(static)` (no load balancing);
  - one_thread: `parallel` pragmas get `num_threads(1)`;
  loop order, data layout, algorithm (kernel_edits.py, where the kernel has the pattern)
  - loop_interchange, transposed_layout, selection_to_sort, early_exit_removed.
An edit that does not apply to a kernel makes no version; a kernel no edit applies to is not timed.
A pair is (version before, version after) for the original and each edit, in both directions (an edit
and its undo), labelled "slower" when the after-version's median time exceeds the before-version's by
more than `slower_margin`. Versions that fail to build or validate are dropped, and counted per edit.

Predictors, scored by leave-one-problem-out cross-validation (no kernel in both train and test):
  - HPC-Coder with a classification head: logistic regression on the difference of the model's
    mean-pooled last hidden states of the two versions (the LM itself stays frozen);
  - a simple feature baseline: logistic regression on differences of counts (OpenMP pragmas,
    dynamic schedules, num_threads(1), reductions, loops, lines);
  - the majority class of the training folds.

Inputs: the model folder; the measurement engine's settings (config section `measure`); for a second model compared with the first
(the from-scratch HPC-Coder), the first one's versions table, whose timings it reuses. Outputs: the versions table with
times (parquet), the pairs with labels and predictions (parquet), a metrics JSON.

Run: `snakemake results/hpccoder/perfchange/metrics.json` (rules/hpccoder.smk), or call `main(...)`.
"""

import dataclasses
import logging
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from workflow_scripts.common import Progress, Provenance, atomic_path, seed_everything, write_json
from workflow_scripts.common.c_scanner import pragmas, with_one_thread, with_schedule
from workflow_scripts.common.config import schema_default
from workflow_scripts.common.device import resolve_device
from workflow_scripts.common.model_source import context_tokens, load_causal_lm, load_tokenizer, resolve
from workflow_scripts.hpccoder.kernel_edits import EDIT_FUNCTIONS, SOURCE_EDITS
from workflow_scripts.measure import (
    BUILD_ERROR,
    OK,
    BuildCache,
    BuildRequest,
    MeasureConfig,
    Problem,
    check_sandbox,
    load_suite,
    reference_body,
    run_program,
    summarise_times,
    vet,
)

logger = logging.getLogger(__name__)

KERNEL_MODELS = ("serial", "omp")  # the execution models whose reference kernels can be edited
PRAGMA_EDITS = ("pragma_removed", "schedule_dynamic_1", "schedule_static", "one_thread")
EDITS = PRAGMA_EDITS + SOURCE_EDITS
LABEL_SLOWER, LABEL_NOT_SLOWER = 1, 0


@dataclasses.dataclass(kw_only=True)
class PerfChangeConfig:
    """Performance-change task settings (config `hpccoder.perfchange`)."""

    problems: list[str] = schema_default("hpccoder.perfchange.problems")  # PCGBench problems; empty: all
    models: list[str] = schema_default("hpccoder.perfchange.models")  # whose references are edited
    edits: list[str] = schema_default("hpccoder.perfchange.edits")
    # OpenMP versions are timed at this many threads (serial ones at one)
    threads: int = schema_default("hpccoder.perfchange.threads")
    # "slower" means more than 5% slower (below that is timing noise)
    slower_margin: float = schema_default("hpccoder.perfchange.slower_margin")
    # An edited version's wall-clock limit: max(measure.timeout_floor_s, this x its original's run
    # time). Larger than the engine's factor for generated code: an edit is meant to change the run time
    # (a full sort instead of a selection ran 7x the original here), and a version that times out is lost.
    timeout_factor: float = schema_default("hpccoder.perfchange.timeout_factor")
    # inverse L2 strength of both logistic regressions
    classifier_c: float = schema_default("hpccoder.perfchange.classifier_c")

    def __post_init__(self) -> None:
        unknown = sorted(set(self.edits) - set(EDITS))
        if unknown or not self.edits:
            raise ValueError(f"hpccoder.perfchange.edits: {unknown or 'empty'} (allowed: {', '.join(EDITS)})")
        unknown = sorted(set(self.models) - set(KERNEL_MODELS))
        if unknown or not self.models:
            raise ValueError(f"hpccoder.perfchange.models: {unknown or 'empty'} (allowed: {', '.join(KERNEL_MODELS)})")
        if self.threads < 1:
            raise ValueError(f"hpccoder.perfchange.threads: {self.threads} (allowed: >= 1)")
        if self.timeout_factor < 1:
            raise ValueError(f"hpccoder.perfchange.timeout_factor: {self.timeout_factor} (allowed: >= 1)")
        if not 0 <= self.slower_margin < 1:
            raise ValueError(f"hpccoder.perfchange.slower_margin: {self.slower_margin} (allowed: 0 to 1)")


# ---------------------------------------------------------------------------------------------------
# edits (pure functions on a kernel body)


def without_omp_directives(body: str) -> str:
    """`body` with every `#pragma omp` line (continuations included, with its indentation and newline) removed."""
    kept, last = [], 0
    for pragma in pragmas(body):
        if body[pragma.start] != "#" or pragma.text.split()[:1] != ["omp"]:
            continue  # not OpenMP, or a _Pragma operator inside a statement: not a line of its own
        line_start = body.rfind("\n", 0, pragma.start) + 1
        kept.append(body[last:line_start])
        last = pragma.end + 1 if body[pragma.end : pragma.end + 1] == "\n" else pragma.end
    return "".join(kept) + body[last:]


def apply_edit(body: str, edit: str, signature: str = "") -> str:
    """The body with one performance-relevant edit applied (unchanged when the edit does not apply).
    `signature` (the prompt's function signature) tells the source edits the argument and return types."""
    if edit in EDIT_FUNCTIONS:
        return EDIT_FUNCTIONS[edit](body, signature)
    if edit == "pragma_removed":
        return without_omp_directives(body)
    if edit in ("schedule_dynamic_1", "schedule_static"):
        schedule = " schedule(dynamic, 1)" if edit == "schedule_dynamic_1" else " schedule(static)"
        return with_schedule(body, schedule)
    if edit == "one_thread":
        return with_one_thread(body)
    raise ValueError(f"unknown edit {edit!r} (allowed: {', '.join(EDITS)})")


def make_versions(problems: list[Problem], edits: list[str], models: list[str] = ("omp",)) -> pd.DataFrame:
    """One row per (problem, model, version): the reference kernel ("original") and each edit that changes it;
    a kernel that no edit changes is left out (it would make no pair)."""
    rows = []
    for problem in problems:
        for model in models:
            original = reference_body(problem, model)
            kernel = [{"problem": problem.name, "model": model, "version": "original", "body": original}]
            seen = {original}
            for edit in edits:
                body = apply_edit(original, edit, problem.signature(model))
                if body in seen:
                    continue  # the edit does not apply to this kernel
                seen.add(body)
                kernel.append({"problem": problem.name, "model": model, "version": edit, "body": body})
            if len(kernel) > 1:
                rows.extend(kernel)
    return pd.DataFrame(rows, columns=["problem", "model", "version", "body"])


def time_versions(versions: pd.DataFrame, problems: dict[str, Problem], measure_cfg: MeasureConfig, threads: int) -> pd.DataFrame:
    """Build every version with the engine's build cache and time it in the sandbox (OpenMP at `threads` threads,
    serial at one). An edited version's time limit is max(floor, factor x its original's run time), as for
    generated code, so an edit that makes a kernel far slower costs seconds, not the reference's limit."""
    check_sandbox()  # before any version is built or judged
    requests = [BuildRequest(problem=problems[r.problem], exec_model=r.model, body=r.body) for r in versions.itertuples()]
    builds = BuildCache(measure_cfg.build_config()).build_all(requests)
    n = len(versions)
    verdicts, medians, iqrs, used_threads = [BUILD_ERROR] * n, [np.nan] * n, [np.nan] * n, [1] * n
    original_wall_s = {}
    progress = Progress("timed versions", total=n, unit="version", logger=logger)
    # Originals first: their run times set the edited versions' limits.
    for index in sorted(range(n), key=lambda k: versions["version"].iloc[k] != "original"):
        row, build = versions.iloc[index], builds[index]
        used_threads[index] = 1 if row.model == "serial" else threads
        # A failed build, or what pcgbench's tampering.py found in its object (never run): no race check (the
        # edits are of trusted references).
        vetting = vet(problems[row.problem], row.model, build, measure_cfg, body=row.body)
        if vetting.verdict is not None:
            verdicts[index] = vetting.verdict
            excerpt = vetting.detail[-300:] if vetting.verdict == BUILD_ERROR else vetting.detail[:200]
            logger.info("%s/%s %s: %s %s", row.problem, row.model, row.version, vetting.verdict, excerpt)
            progress.advance()
            continue
        run = run_program(problems[row.problem], row.model, build.exe, measure_cfg.protocol(threads=used_threads[index]),
                          measure_cfg.limits(original_wall_s.get((row.problem, row.model))))  # fmt: skip
        if row.version == "original" and run.verdict == OK:
            original_wall_s[(row.problem, row.model)] = run.wall_s
        verdicts[index] = run.verdict
        if run.verdict == OK:  # the median and spread of the repetitions, as the evaluation's rows have them
            summary = summarise_times(run.times_s)
            medians[index], iqrs[index] = summary.median_s, summary.iqr_s
        logger.info("%s/%s %s: %s %.4g s %s", row.problem, row.model, row.version, run.verdict, medians[index],
                    run.detail[:200])  # fmt: skip
        progress.advance()
    progress.finish()
    return versions.assign(verdict=verdicts, time_median_s=medians, time_iqr_s=iqrs, threads=used_threads)


def make_pairs(versions: pd.DataFrame, slower_margin: float) -> pd.DataFrame:
    """(before, after) pairs of one kernel: original -> edit and edit -> original, labelled slower / not slower."""
    valid = versions[versions["verdict"] == OK]
    if "model" not in valid:
        valid = valid.assign(model="omp")
    rows = []
    for (problem, model), group in valid.groupby(["problem", "model"], sort=True):
        original = group[group["version"] == "original"]
        if original.empty:
            continue
        base = original.iloc[0]
        for edited in group[group["version"] != "original"].itertuples():
            for before, after, direction in ((base, edited, "edit"), (edited, base, "undo")):
                rows.append({
                    "problem": problem, "model": model, "edit": edited.version, "direction": direction,
                    "before": before.body, "after": after.body,
                    "time_before_s": before.time_median_s, "time_after_s": after.time_median_s,
                    "label": int(after.time_median_s > before.time_median_s * (1 + slower_margin)),
                })  # fmt: skip
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------------
# predictors


def handcrafted_features(body: str) -> np.ndarray:
    return np.array([
        len(re.findall(r"#\s*pragma\s+omp", body)),
        len(re.findall(r"schedule\s*\(\s*dynamic", body)),
        len(re.findall(r"schedule\s*\(\s*static", body)),
        len(re.findall(r"num_threads\s*\(\s*1\s*\)", body)),
        len(re.findall(r"reduction\s*\(", body)),
        len(re.findall(r"\bfor\s*\(", body)),
        len(re.findall(r"\bstd::sort\s*\(", body)),
        len(re.findall(r"\breturn\b", body)),
        body.count("["),
        body.count("\n"),
    ], dtype=float)  # fmt: skip


def lm_embeddings(model_dir: str | Path, bodies: list[str]) -> dict[str, np.ndarray]:
    """Mean-pooled last hidden state of the frozen LM for each distinct body (truncated to its context)."""
    import torch
    local = resolve(model_dir, key="hpccoder model")
    tokenizer = load_tokenizer(local)
    device = resolve_device("auto")  # embeddings only: a GPU when the job has one
    model = load_causal_lm(local, dtype=torch.float32).to(device).eval()
    context = context_tokens(model.config)
    embeddings = {}
    for body in dict.fromkeys(bodies):
        ids = tokenizer(body, add_special_tokens=False, return_tensors="pt")["input_ids"][:, :context]
        with torch.no_grad():
            hidden = model(input_ids=ids.to(device), output_hidden_states=True).hidden_states[-1]  # (1, T, d)
        embeddings[body] = hidden[0].mean(dim=0).float().cpu().numpy()
    return embeddings


def leave_one_problem_out(features: np.ndarray, labels: np.ndarray, groups: np.ndarray, c: float, seed: int) -> np.ndarray:
    """Predictions for every pair from a logistic regression trained on the other problems' pairs."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    predictions = np.zeros_like(labels)
    for group in np.unique(groups):
        test = groups == group
        train_labels = labels[~test]
        if len(np.unique(train_labels)) < 2:  # one class only: the classifier can only predict it
            predictions[test] = train_labels[0] if len(train_labels) else LABEL_NOT_SLOWER
            continue
        scaler = StandardScaler().fit(features[~test])
        classifier = LogisticRegression(C=c, max_iter=2000, random_state=seed)
        classifier.fit(scaler.transform(features[~test]), train_labels)
        predictions[test] = classifier.predict(scaler.transform(features[test]))
    return predictions


def majority_predictions(labels: np.ndarray, groups: np.ndarray) -> np.ndarray:
    predictions = np.zeros_like(labels)
    for group in np.unique(groups):
        test = groups == group
        train = labels[~test]
        predictions[test] = int(train.mean() > 0.5) if len(train) else LABEL_NOT_SLOWER
    return predictions


VERSION_KEYS = ["problem", "model", "version", "body"]


def reuse_timed_versions(versions: pd.DataFrame, timed_versions_path: str | Path) -> pd.DataFrame:
    """Another model's timed versions table, when it holds exactly these versions (same kernels, edits, bodies).

    Two models compared on this task are scored on the same pairs and labels: the programs do not depend on the
    model, and timing them again would let timing noise flip labels between the two.
    """
    timed = pd.read_parquet(timed_versions_path)
    missing = [column for column in [*VERSION_KEYS, "verdict", "time_median_s"] if column not in timed.columns]
    if missing:
        raise ValueError(f"{timed_versions_path}: not a perfchange versions table (no column {', '.join(missing)})")
    if not timed[VERSION_KEYS].reset_index(drop=True).equals(versions[VERSION_KEYS].reset_index(drop=True)):
        raise ValueError(f"{timed_versions_path}: its versions differ from those hpccoder.perfchange makes now; "
                         f"remake it (snakemake --forcerun hpccoder_perfchange)")  # fmt: skip
    logger.info("timings of %d versions reused from %s", len(timed), timed_versions_path)
    return timed


def main(model_dir, versions_path, pairs_path, metrics_path, section: dict[str, Any], measure_cfg: MeasureConfig,
         seed: int, timed_versions_path=None) -> dict[str, Any]:  # fmt: skip
    """`measure_cfg`: the measurement engine's settings (section `measure`), the versions' time limits taken with this
    task's timeout_factor. `timed_versions_path`: another model's versions table (the fine-tuned HPC-Coder's, for the
    from-scratch model) whose timings and labels are reused instead of timing the same programs again."""
    cfg = PerfChangeConfig(**section)
    measure_cfg = dataclasses.replace(measure_cfg, timeout_factor=cfg.timeout_factor)
    prov = Provenance.start(step="hpccoder.perfchange", config={"perfchange": dataclasses.asdict(cfg), "measure": dataclasses.asdict(measure_cfg)}, seed=seed)
    seed_everything(seed)
    available = {p.name: p for p in load_suite(measure_cfg.suite_root)}
    missing = sorted(set(cfg.problems) - set(available))
    if missing:
        raise ValueError(f"hpccoder.perfchange.problems: {missing} are not PCGBench problems (have: {sorted(available)})")
    problems = [available[name] for name in (cfg.problems or sorted(available))]
    versions = make_versions(problems, cfg.edits, cfg.models)
    if versions.empty:
        raise ValueError(f"hpccoder.perfchange: none of the edits {cfg.edits} applies to the {cfg.models} references of "
                         f"{[p.name for p in problems]}; add problems or edits")  # fmt: skip
    logger.info("%d versions of %d kernels", len(versions), versions.groupby(["problem", "model"]).ngroups)
    if timed_versions_path:
        versions = reuse_timed_versions(versions, timed_versions_path)
    else:
        versions = time_versions(versions, available, measure_cfg, cfg.threads)
    with atomic_path(versions_path, suffix=".parquet") as tmp:
        versions.to_parquet(tmp, index=False)
    pairs = make_pairs(versions, cfg.slower_margin)
    if pairs.empty or pairs["problem"].nunique() < 2:
        raise ValueError(f"performance-change pairs from {pairs['problem'].nunique() if len(pairs) else 0} problems: "
                         "at least two problems with valid versions are needed for leave-one-problem-out scoring")  # fmt: skip
    labels, groups = pairs["label"].to_numpy(), pairs["problem"].to_numpy()
    embeddings = lm_embeddings(model_dir, pairs["before"].tolist() + pairs["after"].tolist())
    lm_features = np.stack([embeddings[a] - embeddings[b] for b, a in zip(pairs["before"], pairs["after"], strict=True)])
    simple_features = np.stack([handcrafted_features(a) - handcrafted_features(b)
                                for b, a in zip(pairs["before"], pairs["after"], strict=True)])  # fmt: skip
    predictions = {
        "hpccoder_head": leave_one_problem_out(lm_features, labels, groups, cfg.classifier_c, seed),
        "feature_baseline": leave_one_problem_out(simple_features, labels, groups, cfg.classifier_c, seed),
        "majority_baseline": majority_predictions(labels, groups),
    }
    table = pairs.drop(columns=["before", "after"]).assign(**{f"predicted_{k}": v for k, v in predictions.items()})
    with atomic_path(pairs_path, suffix=".parquet") as tmp:
        table.to_parquet(tmp, index=False)
    metrics = {
        "versions": int(len(versions)),
        "versions_valid": int((versions["verdict"] == OK).sum()),
        # Edited versions that failed to build or validate (dropped), per edit; should stay at zero.
        "versions_dropped": {edit: int(n) for edit, n in
                             versions[versions["verdict"] != OK].groupby("version").size().items()},
        "kernels": int(versions.groupby(["problem", "model"]).ngroups),
        "versions_by_edit": {edit: int(n) for edit, n in versions.groupby("version").size().items()},
        "pairs": int(len(pairs)),
        "problems": sorted(pairs["problem"].unique()),
        "slower_fraction": float(labels.mean()),
        "threads": cfg.threads,
        "slower_fraction_by_edit": {edit: float(labels[idx].mean()) for edit, idx in pairs.groupby("edit").indices.items()},
        "accuracy": {name: float((pred == labels).mean()) for name, pred in predictions.items()},
        "accuracy_by_edit": {name: {edit: float((pred[idx] == labels[idx]).mean())
                                    for edit, idx in pairs.groupby("edit").indices.items()}
                             for name, pred in predictions.items()},  # fmt: skip
        "scoring": "leave-one-problem-out cross-validation",
    }
    write_json(metrics_path, metrics)
    prov.finish([versions_path, pairs_path, metrics_path])
    logger.info("performance change on %d pairs (%.0f%% slower): accuracy %s", len(pairs), 100 * labels.mean(), metrics["accuracy"])
    return metrics


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    measure_cfg = MeasureConfig(**{**smk.params.measure, "seed": smk.params.seed, "jobs": smk.threads})
    main(smk.input.model, smk.output.versions, smk.output.pairs, smk.output.metrics, smk.params.perfchange, measure_cfg,
         smk.params.seed, timed_versions_path=smk.input.get("timed_versions"))  # fmt: skip
