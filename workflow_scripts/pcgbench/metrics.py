"""PCGBench metrics: pass@k, build@k, speedup_n@k, efficiency_n@k, speedup_max@k, efficiency_max@k,
and the expected speedup, with the unbiased estimators over N samples per prompt.

For one prompt with N samples and per-sample values v (0 for a sample that failed), the estimator of
"the best value among k samples drawn without replacement" is the mean of max(v_S) over all C(N, k)
k-subsets S. Sorting v ascending, v_(j) is the maximum of exactly C(j-1, k-1) of them, so

    E[max over k] = sum_j C(j-1, k-1) / C(N, k) * v_(j)          (j = 1..N, ascending order)

pass@k is that with v = 1 for a correct sample (equal to 1 - C(N-c, k)/C(N, k)), build@k with v = 1 for a
sample that built, speedup_n@k with v = T*/T_n (serial baseline time over the sample's time on n
resources), efficiency_n@k with v = T*/(n T_n), and the _max variants with each sample's best resource
count. Values are averaged over the prompts of a group (an execution model, or a model and a problem
type). A metric at k is reported only when every prompt of the group has at least k samples.
(ParEval's public code sorts descending for k > 1 and has C(n, r) = 1 for n < r; this does neither,
and tests/pcgbench/test_metrics.py checks it against brute-force enumeration.)

Beside these, `pareval_metrics` computes the same names under ParEval's own definitions (metrics.json's
`pareval` section), with the correct estimator: speedup and efficiency over valid samples only (a failed
sample is left out instead of counting 0), prompts without a valid sample dropped from the mean, the baseline
T* the fastest serial baseline measured over the prompt's runs, and n fixed per execution model
(`pareval_resources`). Where a prompt has fewer than k valid samples, its best valid sample is taken (the
expectation over k draws is undefined there; ParEval's C(n, r) = 1 for n < r gives inflated values instead).
Rows with verdict prompt_mismatch (outputs of a record whose prompt declares another interface) are in
neither: they were not judged.

Translation samples (rows with a `source_model`, translation.py) are scored by the same estimators, grouped by
translation pair instead of execution model: `by_translation` {generator: {"serial->omp": {...}}} beside
`by_model` (generation samples only), and ParEval's definitions under `pareval` {generator: {"serial->omp": ...}}
beside the models, n fixed by the target model. Rows without the column (written before translation was scored)
are generation samples.

    metrics = compute_metrics(results_dataframe, ks=[1, 5], pareval_resources={"omp": 2, ...})
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from workflow_scripts.measure import BUILD_ERROR, OK, PROMPT_MISMATCH
from workflow_scripts.pcgbench.translation import pair_name

logger = logging.getLogger(__name__)

LABELS = {
    "pass@k": "expected fraction of prompts with at least one correct sample among k",
    "build@k": "expected fraction of prompts with at least one sample that builds among k",
    "speedup_n@k": "expected best speedup T*/T_n among k samples on n resources (failures count 0)",
    "efficiency_n@k": "expected best efficiency T*/(n T_n) among k samples on n resources (failures count 0)",
    "speedup_max@k": "expected best speedup among k samples, each at its best resource count",
    "efficiency_max@k": "expected best efficiency among k samples, each at its best resource count",
    "expected_speedup": "mean over all samples of the speedup at the sample's best resource count, "
    "failures counted as 0 (the RLPF paper's expected speedup)",
    "expected_speedup_given_correct": "mean over correct samples only of the speedup at the best resource "
    "count (null when no sample is correct)",
}


def pass_at_k(n: int, c: int, k: int) -> float:
    """1 - C(n-c, k)/C(n, k), in the numerically stable product form (Chen et al. 2021)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass_at_k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def expected_max_at_k(values: Sequence[float], k: int) -> float:
    """Mean over all k-subsets of the samples of the subset's largest value (unbiased best-of-k)."""
    n = len(values)
    if not 1 <= k <= n:
        raise ValueError(f"expected_max_at_k needs 1 <= k <= number of samples ({n}), got k={k}")
    ordered = sorted(float(v) for v in values)
    total = math.comb(n, k)
    # Exact integer weights, divided once: no cancellation for large N.
    return sum(math.comb(j - 1, k - 1) * v for j, v in enumerate(ordered, start=1) if j >= k) / total


def with_source_exec_model(results: pd.DataFrame) -> pd.DataFrame:
    """`results` with its `source_model` column filled: "" for a generation sample (also where the column is
    missing, rows written before translation was scored), the source model for a translation sample."""
    source = results["source_model"].fillna("") if "source_model" in results.columns else ""
    return results.assign(source_model=source)


def by_task_cell(frame: pd.DataFrame, translation: bool):
    """(generator, cell, rows) of the generation samples (cell: the execution model) or of the translation samples
    (cell: the pair, "serial->omp"), sorted. `frame` has a filled source_model column (with_source_exec_model)."""
    part = frame[(frame["source_model"] != "") == translation]
    for (generator, source, exec_model), group in part.groupby(["generator", "source_model", "model"], sort=True):
        yield generator, pair_name(source, exec_model) if source else exec_model, group


def sample_table(results: pd.DataFrame) -> pd.DataFrame:
    """One row per sample: built, correct, speedup and efficiency per resource count n, and the maxima.

    `results` has one row per sample x resource configuration with columns: generator, model,
    problem, problem_type, sample_index, verdict, n_resources, speedup (and source_model for translation
    samples). For MPI+OpenMP several configurations share n = ranks x threads; the sample's value at n is the
    best of them.
    """
    results = with_source_exec_model(results)
    keys = ["generator", "source_model", "model", "problem", "problem_type", "sample_index"]
    rows = []
    for key, group in results.groupby(keys, sort=True):
        verdict = group["verdict"].iloc[0]
        correct = verdict == OK
        row = dict(zip(keys, key, strict=True))
        row.update(built=verdict != BUILD_ERROR, correct=correct)
        best_speedup = best_efficiency = 0.0
        for n_resources, at_n in group.groupby("n_resources"):
            if pd.isna(n_resources):
                continue
            speedup = float(at_n["speedup"].max()) if correct else 0.0
            speedup = 0.0 if not math.isfinite(speedup) else speedup
            efficiency = speedup / n_resources
            row[f"speedup_{int(n_resources)}"] = speedup
            row[f"efficiency_{int(n_resources)}"] = efficiency
            best_speedup, best_efficiency = max(best_speedup, speedup), max(best_efficiency, efficiency)
        row.update(speedup_max=best_speedup, efficiency_max=best_efficiency)
        rows.append(row)
    table = pd.DataFrame(rows)
    # A sample that failed (often before any run: no resource rows at all) scores 0 at every n.
    value_columns = [c for c in table.columns if c.startswith(("speedup_", "efficiency_"))]
    table.loc[~table["correct"], value_columns] = table.loc[~table["correct"], value_columns].fillna(0.0)
    return table


def _group_metrics(samples: pd.DataFrame, ks: Sequence[int]) -> dict[str, float | int | None]:
    """Metrics of one group of prompts: per-prompt estimators averaged over prompts."""
    per_prompt = list(samples.groupby(["problem"], sort=True))
    min_samples = min(len(group) for _, group in per_prompt)
    value_columns = ["speedup_max", "efficiency_max"] + sorted(
        (c for c in samples.columns if c.startswith(("speedup_", "efficiency_")) and c[-1].isdigit()),
        key=lambda c: (c.split("_")[0], int(c.rsplit("_", 1)[1])),
    )
    out: dict[str, float | int | None] = {"prompts": len(per_prompt), "samples": len(samples),
                                          "min_samples_per_prompt": min_samples}  # fmt: skip
    for k in ks:
        if k > min_samples:
            continue  # not every prompt has k samples: the estimator would be undefined for some
        for name, column in (("pass", "correct"), ("build", "built")):
            out[f"{name}@{k}"] = float(np.mean([pass_at_k(len(g), int(g[column].sum()), k) for _, g in per_prompt]))
        for column in value_columns:
            # A resource count that some prompt's samples never ran at (e.g. a sweep cut short) is skipped.
            if samples[column].isna().any():
                continue
            out[f"{column}@{k}"] = float(np.mean([expected_max_at_k(g[column].tolist(), k) for _, g in per_prompt]))
    out["expected_speedup"] = float(samples["speedup_max"].mean())
    correct = samples[samples["correct"]]
    out["expected_speedup_given_correct"] = float(correct["speedup_max"].mean()) if len(correct) else None
    return out


PAREVAL_LABELS = {
    "n": "the fixed resource count (threads, ranks or ranks x threads) speedup_n and efficiency_n are read at",
    "prompts_with_valid_sample": "prompts in the means below (ParEval drops prompts without a valid sample)",
    "pass@k": "as pass@k above (ParEval's definition is the same; its code's C(n, r) = 1 for n < r is not copied)",
    "build@k": "as build@k above",
    "speedup_n@k": "expected best T*/T_n among k valid samples at the fixed n, T* the fastest baseline measured for "
                   "the prompt; failed samples left out, prompts without a valid sample dropped",
    "efficiency_n@k": "speedup_n@k's values divided by n (ParEval's code divides OpenMP's by 8 whatever n)",
    "speedup_max@k": "as speedup_n@k with each valid sample at its best resource count",
    "efficiency_max@k": "as efficiency_n@k with each valid sample at its best-efficiency resource count",
}
PAREVAL_N_FIXED = {"serial": 1, "cuda": 1, "hip": 1}  # no resource count to choose: one thread, one GPU


def _pareval_group(rows: pd.DataFrame, ks: Sequence[int], n: int) -> dict:
    """ParEval's definitions for one generator x execution model (see the module docstring)."""
    per_prompt = list(rows.groupby("problem", sort=True))
    min_samples = min(group["sample_index"].nunique() for _, group in per_prompt)
    speedups_n, speedups_max, efficiencies_max = [], [], []
    reached = True
    for _, group in per_prompt:
        valid = group[(group["verdict"] == OK) & group["time_median_s"].notna()]
        if valid.empty:
            continue
        best_baseline = float(valid["baseline_time_median_s"].min())
        at_n, best, best_efficiency = [], [], []
        for _, sample in valid.groupby("sample_index"):
            speedup = best_baseline / sample["time_median_s"]
            best.append(float(speedup.max()))
            best_efficiency.append(float((speedup / sample["n_resources"]).max()))
            here = speedup[sample["n_resources"] == n]
            if here.empty:
                reached = False
            else:
                at_n.append(float(here.max()))
        speedups_n.append(at_n)
        speedups_max.append(best)
        efficiencies_max.append(best_efficiency)
    out: dict[str, float | int | None | str] = {"n": n, "prompts": len(per_prompt),
                                                "prompts_with_valid_sample": len(speedups_max)}  # fmt: skip
    if not reached:
        out["note"] = f"speedup_n/efficiency_n not measured: some valid samples have no run at n = {n}"
    groups = list(sample_table(rows).groupby("problem"))
    for k in ks:
        if k > min_samples:
            continue
        for name, column in (("pass", "correct"), ("build", "built")):
            out[f"{name}@{k}"] = float(np.mean([pass_at_k(len(g), int(g[column].sum()), k) for _, g in groups]))

        def best_of(values: list[float], k: int = k) -> float:
            return expected_max_at_k(values, min(k, len(values)))

        if speedups_max:
            if reached:
                out[f"speedup_n@{k}"] = float(np.mean([best_of(v) for v in speedups_n]))
                out[f"efficiency_n@{k}"] = out[f"speedup_n@{k}"] / n
            out[f"speedup_max@{k}"] = float(np.mean([best_of(v) for v in speedups_max]))
            out[f"efficiency_max@{k}"] = float(np.mean([best_of(v) for v in efficiencies_max]))
    return out


def pareval_metrics(results: pd.DataFrame, ks: Sequence[int], resources: dict[str, int]) -> dict:
    """ParEval's definitions of the metrics, per generator x execution model, then per generator x translation
    pair (n: the target model's; module docstring)."""
    results = with_source_exec_model(results)
    out: dict[str, dict] = {}
    for translation in (False, True):
        for generator, cell, rows in by_task_cell(results, translation):
            exec_model = rows["model"].iloc[0]
            n = PAREVAL_N_FIXED.get(exec_model) or int(resources[exec_model])
            out.setdefault(generator, {})[cell] = _pareval_group(rows, ks, n)
    return out


def verdicts_by_exec_model(results: pd.DataFrame, translation: bool = False) -> dict[str, dict[str, dict[str, int]]]:
    """{generator: {execution model: {verdict: samples}}} of the generation samples (with `translation`: {generator:
    {pair: ...}} of the translation samples): how the samples ended (a sample counts once, not once per resource
    count it ran at)."""
    counts: dict[str, dict[str, dict[str, int]]] = {}
    samples = with_source_exec_model(results).drop_duplicates(["generator", "source_model", "model", "problem",
                                                               "sample_index"])  # fmt: skip
    for generator, cell, rows in by_task_cell(samples, translation):
        counts.setdefault(generator, {})[cell] = {str(v): int(n) for v, n in rows["verdict"].value_counts().sort_index().items()}
    return counts


def compute_metrics(results: pd.DataFrame, ks: Sequence[int], pareval_resources: dict[str, int] | None = None) -> dict:
    """All metrics, per generator x execution model and per generator x execution model x problem type, and
    with `pareval_resources` ParEval's definitions per generator x execution model."""
    if results.empty:
        raise ValueError("compute_metrics: no results to summarise")
    results = with_source_exec_model(results[results["verdict"] != PROMPT_MISMATCH])
    by_exec_model: dict[str, dict] = {}
    by_type: dict[str, dict] = {}
    by_translation: dict[str, dict] = {}
    if results.empty:  # every record's prompt declared another interface: nothing was judged
        return {"ks": list(ks), "labels": LABELS, "by_model": by_exec_model, "by_model_and_type": by_type,
                "by_translation": by_translation}  # fmt: skip
    samples = sample_table(results)
    for generator, exec_model, group in by_task_cell(samples, translation=False):
        by_exec_model.setdefault(generator, {})[exec_model] = _group_metrics(group, ks)
        for problem_type, typed in group.groupby("problem_type", sort=True):
            by_type.setdefault(generator, {}).setdefault(exec_model, {})[problem_type] = _group_metrics(typed, ks)
    for generator, pair, group in by_task_cell(samples, translation=True):
        by_translation.setdefault(generator, {})[pair] = _group_metrics(group, ks)
    metrics = {"ks": list(ks), "labels": LABELS, "by_model": by_exec_model, "by_model_and_type": by_type,
               "verdicts_by_model": verdicts_by_exec_model(results), "by_translation": by_translation,
               "verdicts_by_translation": verdicts_by_exec_model(results, translation=True)}  # fmt: skip
    if pareval_resources is not None:
        metrics["pareval"] = pareval_metrics(results, ks, pareval_resources)
        metrics["pareval_labels"] = PAREVAL_LABELS
    return metrics


def translation_versus_generation(generation: pd.DataFrame, translation: pd.DataFrame) -> dict[str, dict[str, dict]]:
    """{generator: {pair: {target_model, problems, generation_pass@1, translation_pass@1, translation_minus_generation}}}:
    per translation pair of `translation`'s samples, its pass@1 beside the same generator's pass@1 writing the target
    model from the description (`generation`'s samples), both over the problems that have samples in both, so that
    the two are read on the same tasks (the pass@1 values are None where no problem has both)."""
    judged = [sample_table(with_source_exec_model(frame[frame["verdict"] != PROMPT_MISMATCH])) if len(frame) else None
              for frame in (generation, translation)]  # fmt: skip
    written, translated = judged
    out: dict[str, dict[str, dict]] = {}
    if translated is None:
        return out
    for generator, pair, group in by_task_cell(translated, translation=True):
        target = group["model"].iloc[0]
        own = (written[(written["generator"] == generator) & (written["source_model"] == "")
                       & (written["model"] == target)] if written is not None else group.iloc[:0])  # fmt: skip
        problems = sorted(set(group["problem"]) & set(own["problem"]))
        values = [_group_metrics(frame[frame["problem"].isin(problems)], [1])["pass@1"] if problems else None
                  for frame in (own, group)]  # fmt: skip
        out.setdefault(generator, {})[pair] = {
            "target_model": target, "problems": len(problems), "generation_pass@1": values[0],
            "translation_pass@1": values[1],
            "translation_minus_generation": values[1] - values[0] if problems else None}  # fmt: skip
    return out


def metrics_long_table(metrics: dict) -> pd.DataFrame:
    """The metrics as a long table (generator, model, problem_type, metric, value) for CSV output; a translation
    pair's rows have the pair ("serial->omp") as their model."""
    rows = []
    for generator, exec_models in (*metrics["by_model"].items(), *metrics.get("by_translation", {}).items()):
        for exec_model, values in exec_models.items():
            rows += [(generator, exec_model, "all", name, value) for name, value in values.items()]
    for generator, exec_models in metrics["by_model_and_type"].items():
        for exec_model, types in exec_models.items():
            for problem_type, values in types.items():
                rows += [(generator, exec_model, problem_type, name, value) for name, value in values.items()]
    return pd.DataFrame(rows, columns=["generator", "model", "problem_type", "metric", "value"])
