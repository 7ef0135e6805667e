"""The ParEval paper's table re-measured from its released outputs: pass@1 and build@1 per (language model,
execution model, task) under PCGBench, beside ParEval's published value, with confidence intervals and the
failures split by stage.

    python -m workflow_scripts.pcgbench.pareval_table AGREEMENT.csv ... --out DIR     (or rule pcgbench_pareval_released_table)

Inputs: the scoring jobs' agreement.csv files (pareval_released.py; one row per sample: ParEval's verdict, PCGBench's
verdict, the cause of a difference), ParEval's published metrics (data/pareval_released/metrics/<run>/<generator>/
metrics.csv.xz: build@1 and pass@1 per execution model and problem type) and the released files the rows came from
(how many prompts each problem type has, to weight the published per-type values). Outputs, in DIR:

    table.csv, table.md      one row per (task, model, execution model): n (prompts, samples), ParEval's published
                             pass@1 and build@1 (every prompt, every output), ParEval's verdicts on the samples scored
                             here, PCGBench's pass@1 in two columns (its verdicts; its verdicts with the stricter-by-
                             design ones counted as ParEval would count them: as passes), PCGBench's build@1, each
                             with its 95% interval, and the failures by stage (build, run, answer, race, time,
                             vetting); translation rows beside generation rows
    by_problem_type.json     the same pass@1 per problem type, beside ParEval's published per-type value (the
                             scatter figure)
    causes.json              the disagreement causes' counts per (task, model, execution model) (the stacked bars)
    summary.json             the agreement over every sample, the table, and the paper's findings as this run
                             measures them: the order of execution models and of models by pass@1 against
                             ParEval's published order, translation against generation (the claims rows)

pass@1 is estimated as ParEval and pass@k's unbiased estimator at k = 1 define it: per prompt the share c/n of its
samples that pass, averaged over prompts. Its interval: the samples of one prompt are not independent (one prompt,
one difficulty; ParEval's 20 outputs at temperature 0.2 are often the same body), so the unit of resampling is the
prompt. With at least MIN_BOOTSTRAP_PROMPTS prompts in a cell, a percentile bootstrap over prompts (seeded,
`resamples` draws); with fewer, where a bootstrap collapses (one prompt: an interval of zero width), the Wilson score
interval of the mean with n = the number of prompts, which counts each prompt as one observation: wider than the
samples alone would claim, never narrower. `ci_method` names which.

A fixed sample (the tiny config) is drawn half from ParEval's passes and half from its failures: its pass@1 is not
an estimate of the model's; what it measures is PCGBench against ParEval on the same samples (the `pareval` column),
and the table says so (`every_output` false). With `outputs: all` (config/paper.yaml) every judged output is scored
and the pass@1 columns estimate the same quantity as the published one.
"""


import argparse
import itertools
import json
import logging
import lzma
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from workflow_scripts.common import write_json
from workflow_scripts.common.io import atomic_path
from workflow_scripts.common.tables import write_table
from workflow_scripts.measure import (
    BUILD_ERROR,
    CRASH,
    KILLED_RESOURCE_LIMIT,
    NO_PARALLELISM,
    OK,
    PROMPT_MISMATCH,
    RACE_DETECTED,
    RESOURCE_OVERUSE,
    TAMPERING,
    VERDICT_TIMEOUT,
    WRONG_ANSWER,
    load_suite,
)
from workflow_scripts.pcgbench.agreement import STRICTER, summarise
from workflow_scripts.pcgbench.pareval_results import (
    NOT_BUILT,
    RELEASED_ROOT,
    VALID,
    read_json,
    verify_checksum,
)

logger = logging.getLogger(__name__)

# ParEval's run folder of each task's released metrics (data/pareval_released/README.md).
METRICS_RUN = {"generation": "a8724ee8", "translation": "e65a0dff"}
# Where a failed sample stopped: the stage of each failing verdict.
STAGES = {
    "build": (BUILD_ERROR,),
    "run": (CRASH,),
    "answer": (WRONG_ANSWER,),
    "race": (RACE_DETECTED,),
    "time": (VERDICT_TIMEOUT, KILLED_RESOURCE_LIMIT),
    "vetting": (NO_PARALLELISM, TAMPERING, RESOURCE_OVERUSE),  # judged on the code or the cores it used
}
MIN_BOOTSTRAP_PROMPTS = 10
LEVEL = 0.95
Z = 1.959963984540054  # the standard normal's 97.5% quantile
TASK_ORDER = {"generation": 0, "translation": 1}
EXEC_MODEL_ORDER = {"serial": 0, "omp": 1, "mpi": 2, "mpi+omp": 3, "kokkos": 4, "cuda": 5, "hip": 6}


# ---- intervals ----------------------------------------------------------------------------------------------------

def wilson_interval(p: float, n: float, z: float = Z) -> tuple[float, float]:
    """The Wilson score interval of a proportion `p` observed on `n` observations (n > 0)."""
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def prompt_mean_interval(per_prompt: Sequence[float], *, resamples: int, seed: int) -> tuple[float, float, str]:
    """(low, high, method) of the 95% interval of the mean over prompts of `per_prompt` (each prompt's share of
    passing samples): a percentile bootstrap over prompts with MIN_BOOTSTRAP_PROMPTS or more, else Wilson with
    n = prompts (the module docstring says why)."""
    values = np.asarray(per_prompt, dtype=float)
    if len(values) == 0:
        return math.nan, math.nan, ""
    if len(values) < MIN_BOOTSTRAP_PROMPTS:
        low, high = wilson_interval(float(values.mean()), len(values))
        return low, high, "wilson_prompts"
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), size=(resamples, len(values)))].mean(axis=1)
    low, high = np.quantile(means, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return float(low), float(high), "bootstrap_prompts"


# ---- reading --------------------------------------------------------------------------------------------------------

def read_agreements(paths: Sequence[str | Path]) -> pd.DataFrame:
    """Every sample of the agreement.csv files, with its task (translation where ParEval's record has a source
    model) and its problem type (the suite's)."""
    frames = [pd.read_csv(path, dtype={"source_model": "string"}, keep_default_na=False, na_values=[""])
              for path in paths]  # fmt: skip
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if rows.empty:
        return rows
    types = {problem.name: problem.problem_type for problem in load_suite()}
    rows["task"] = np.where(rows["source_model"].notna(), "translation", "generation")
    rows["problem_type"] = rows["problem"].map(types)
    rows["agree"] = rows["agree"].astype(str).str.lower() == "true"
    return rows


def _csv_xz(path: Path) -> pd.DataFrame:
    verify_checksum(path)
    with lzma.open(path, "rt", encoding="utf-8") as handle:
        return pd.read_csv(handle)


def published(generator: str, task: str, root: Path = RELEASED_ROOT) -> pd.DataFrame:
    """ParEval's published metrics of one generator and task: model (ParEval's name), execution model, problem
    type, build@1, pass@1 ..."""
    return _csv_xz(root / "metrics" / METRICS_RUN[task] / generator / "metrics.csv.xz")


def prompts_per_type(task: str, generator: str, root: Path = RELEASED_ROOT) -> dict[tuple[str, str], int]:
    """{(execution model, problem type): prompts} of the released file: the weights that turn ParEval's per-type
    values into its value over every prompt (generation: 5 per type; translation: as many as ParEval has)."""
    path = root / task / f"{generator}.json.xz"
    counts: dict[tuple[str, str], int] = {}
    for record in read_json(path):
        key = (record["parallelism_model"], record["problem_type"])
        counts[key] = counts.get(key, 0) + 1
    return counts


# ---- the table --------------------------------------------------------------------------------------------------

def as_pareval(verdicts: pd.Series) -> pd.Series:
    """PCGBench's verdicts with its stricter-by-design ones (race_detected, no_parallelism, tampering,
    resource_overuse) counted as ParEval would: ParEval has none of these checks, and a body it ran to a valid
    answer passed there."""
    return verdicts.where(~verdicts.isin(STRICTER), OK)


def per_prompt(rows: pd.DataFrame, passed: pd.Series) -> pd.Series:
    """Each prompt's share of passing samples (a prompt: ParEval's record, within one cell)."""
    return passed.groupby(rows["record"]).mean()


def cell_row(rows: pd.DataFrame, *, resamples: int, seed: int) -> dict:
    """One row of the table from one cell's samples (prompt_mismatch ones counted apart, never scored)."""
    mismatched = int((rows["pcgbench"] == PROMPT_MISMATCH).sum())
    rows = rows[rows["pcgbench"] != PROMPT_MISMATCH]
    out: dict = {"prompts": int(rows["record"].nunique()), "samples": len(rows), "prompt_mismatch": mismatched}
    measures = {
        "pareval_pass@1": rows["pareval"] == VALID,
        "pareval_build@1": rows["pareval"] != NOT_BUILT,
        "pcgbench_pass@1": rows["pcgbench"] == OK,
        "pcgbench_as_pareval_pass@1": as_pareval(rows["pcgbench"]) == OK,
        "pcgbench_build@1": rows["pcgbench"] != BUILD_ERROR,
    }
    for i, (name, passed) in enumerate(measures.items()):
        shares = per_prompt(rows, passed)
        out[name] = float(shares.mean()) if len(shares) else math.nan
        if name.startswith("pcgbench"):
            low, high, method = prompt_mean_interval(shares.to_numpy(), resamples=resamples, seed=seed + i)
            out[f"{name}_low"], out[f"{name}_high"] = low, high
            out["ci_method"] = method
    for stage, verdicts in STAGES.items():
        out[f"failed_{stage}"] = int(rows["pcgbench"].isin(verdicts).sum())
    out["agree"] = int(rows["agree"].sum())
    return out


def published_value(metrics: pd.DataFrame, weights: dict[tuple[str, str], int], exec_model: str, metric: str,
                    problem_type: str | None = None) -> float:  # fmt: skip
    """ParEval's published `metric` of execution model `exec_model` over every prompt (its per-type values weighted by
    the prompts of each type), or of one problem type."""
    found = metrics[metrics["execution model"] == exec_model]
    if problem_type is not None:
        found = found[found["problem type"] == problem_type]
        return float(found[metric].iloc[0]) if len(found) else math.nan
    if found.empty:
        return math.nan
    w = found["problem type"].map(lambda t: weights.get((exec_model, t), 0)).astype(float)
    return float((found[metric] * w).sum() / w.sum()) if w.sum() else float(found[metric].mean())


def build_table(rows: pd.DataFrame, *, every_output: bool, resamples: int, seed: int,
                root: Path = RELEASED_ROOT) -> tuple[pd.DataFrame, pd.DataFrame]:  # fmt: skip
    """(the table: one row per task, model, execution model; the same per problem type)."""
    table, by_type = [], []
    cells = rows.groupby(["task", "generator", "model"], sort=False)
    for (task, generator, exec_model), cell in cells:
        metrics = published(generator, task, root)
        weights = prompts_per_type(task, generator, root)
        name = str(metrics["model"].iloc[0])
        source = cell["source_model"].dropna()
        key = {"task": task, "model": name, "generator": generator, "execution_model": exec_model,
               "source_model": source.iloc[0] if len(source) else ""}  # fmt: skip
        table.append({**key, **cell_row(cell, resamples=resamples, seed=seed),
                      "published_pass@1": published_value(metrics, weights, exec_model, "pass@1"),
                      "published_build@1": published_value(metrics, weights, exec_model, "build@1"),
                      "every_output": every_output})  # fmt: skip
        for problem_type, typed in cell.groupby("problem_type", sort=True):
            scored = cell_row(typed, resamples=resamples, seed=seed)
            by_type.append({**key, "problem_type": problem_type, "prompts": scored["prompts"],
                            "samples": scored["samples"], "pcgbench_pass@1": scored["pcgbench_pass@1"],
                            "pcgbench_as_pareval_pass@1": scored["pcgbench_as_pareval_pass@1"],
                            "pareval_pass@1": scored["pareval_pass@1"],
                            "published_pass@1": published_value(metrics, weights, exec_model, "pass@1", problem_type)})  # fmt: skip
    order = ["task", "model", "execution_model"]
    def ordered(frame: pd.DataFrame) -> pd.DataFrame:
        return frame.sort_values(order, key=_sort_key, kind="stable").reset_index(drop=True) if len(frame) else frame

    return ordered(pd.DataFrame(table)), ordered(pd.DataFrame(by_type))


def _sort_key(column: pd.Series) -> pd.Series:
    if column.name == "task":
        return column.map(TASK_ORDER)
    if column.name == "execution_model":
        return column.map(EXEC_MODEL_ORDER)
    return column


# ---- what the paper found, measured here --------------------------------------------------------------------------

def concordance(measured: dict[str, float], reference: dict[str, float]) -> tuple[int, float]:
    """(pairs, concordant) over the pairs of keys both give, whose reference values differ: a pair counts 1 when
    the measured values order it as the reference does, 1/2 when they tie, 0 otherwise."""
    keys = sorted(k for k in measured if k in reference and not (math.isnan(measured[k]) or math.isnan(reference[k])))
    pairs, concordant = 0, 0.0
    for a, b in itertools.combinations(keys, 2):
        ref = np.sign(reference[a] - reference[b])
        if ref == 0:
            continue
        pairs += 1
        got = np.sign(measured[a] - measured[b])
        concordant += 1.0 if got == ref else 0.5 if got == 0 else 0.0
    return pairs, concordant


def orderings(table: pd.DataFrame, column: str = "pcgbench_pass@1") -> dict:
    """The paper's orders as this run measures them: of execution models within each (task, model), of models within
    each (task, execution model), each against ParEval's published pass@1 (the share of pairs ordered alike); and
    translation against generation where a model has both for a target model."""
    result: dict = {}
    for name, within, across in (("execution_models", ["task", "model"], "execution_model"),
                                 ("models", ["task", "execution_model"], "model")):  # fmt: skip
        pairs, concordant, groups = 0, 0.0, {}
        for key, group in table.groupby(within, sort=False):
            n, c = concordance(dict(zip(group[across], group[column], strict=True)),
                               dict(zip(group[across], group["published_pass@1"], strict=True)))  # fmt: skip
            if n:
                groups["/".join(key)] = {"pairs": n, "concordant": c,
                                         "measured": dict(zip(group[across], group[column], strict=True)),
                                         "published": dict(zip(group[across], group["published_pass@1"], strict=True))}  # fmt: skip
            pairs, concordant = pairs + n, concordant + c
        result[name] = {"pairs": pairs, "concordant_fraction": concordant / pairs if pairs else None, "groups": groups}
    both = table.pivot_table(index=["model", "execution_model"], columns="task",
                             values=[column, "published_pass@1"], aggfunc="first")  # fmt: skip
    differences = []
    if {"translation", "generation"} <= set(table["task"]):
        for (language_model, target), row in both.iterrows():
            measured = row[(column, "translation")] - row[(column, "generation")]
            if not math.isnan(measured):
                differences.append({"model": language_model, "execution_model": target, "measured": float(measured),
                                    "published": float(row[("published_pass@1", "translation")]
                                                       - row[("published_pass@1", "generation")])})  # fmt: skip
    result["translation_vs_generation"] = {
        "pairs": len(differences),
        "mean_difference": float(np.mean([d["measured"] for d in differences])) if differences else None,
        "published_mean_difference": float(np.mean([d["published"] for d in differences])) if differences else None,
        "translation_higher_fraction": float(np.mean([d["measured"] > 0 for d in differences])) if differences else None,
        "cells": differences,
    }
    return result


# ---- writing ------------------------------------------------------------------------------------------------------

def _interval(row: pd.Series, name: str) -> str:
    value = row[name]
    if value is None or math.isnan(value):
        return "n/m"
    return f"{value:.2f} [{row[f'{name}_low']:.2f}, {row[f'{name}_high']:.2f}]"


def _number(value: float) -> str:
    return "n/m" if value is None or math.isnan(value) else f"{value:.2f}"


SHOWN = ["task", "model", "execution model", "prompts", "samples", "ParEval published pass@1",
         "ParEval, these samples", "PCGBench pass@1 [95%]", "PCGBench as ParEval [95%]", "PCGBench build@1 [95%]",
         "failed: build / run / answer / race / time / vetting", "agree"]


def shown_rows(table: pd.DataFrame) -> list[list]:
    """The table's rows as the report and the docs show them (SHOWN): n beside every value, each interval."""
    out = []
    for _, row in table.iterrows():
        task = row["task"] + (f" ({row['source_model']}->{row['execution_model']})" if row["source_model"] else "")
        out.append([task, row["model"], row["execution_model"], int(row["prompts"]), int(row["samples"]),
                    _number(row["published_pass@1"]), _number(row["pareval_pass@1"]),
                    _interval(row, "pcgbench_pass@1"), _interval(row, "pcgbench_as_pareval_pass@1"),
                    _interval(row, "pcgbench_build@1"), " / ".join(str(row[f"failed_{stage}"]) for stage in STAGES),
                    f"{row['agree']} of {row['samples']}"])  # fmt: skip
    return out


def note(table: pd.DataFrame, every_output: bool) -> str:
    scope = ("Every released output of these cells was scored: the pass@1 columns estimate what ParEval's published "
             "column gives." if every_output else
             "A fixed sample, drawn half from ParEval's passes and half from its failures: its pass@1 is not an "
             "estimate of the model's; compare PCGBench's columns with ParEval's verdicts on the same samples.")  # fmt: skip
    methods = sorted(set(table["ci_method"])) if len(table) else []
    return (f"{scope} PCGBench as ParEval: race_detected, no_parallelism, tampering and resource_overuse counted as "
            f"passes. Intervals (95%): {', '.join(methods)}; bootstrap_prompts, a percentile bootstrap over prompts "
            f"(cells of {MIN_BOOTSTRAP_PROMPTS} prompts or more), wilson_prompts, a Wilson interval with n = prompts.")


def markdown(table: pd.DataFrame, every_output: bool) -> str:
    """The table as markdown: the docs' view of table.csv."""
    lines = ["| " + " | ".join(SHOWN) + " |", "|" + "---|" * len(SHOWN)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in shown_rows(table)]
    return "\n".join([*lines, "", note(table, every_output)]) + "\n"


def main(*, agreements: Sequence[str | Path], out_dir: str | Path, every_output: bool, resamples: int = 2000,
         seed: int = 0, root: Path = RELEASED_ROOT) -> dict:  # fmt: skip
    """Write table.csv, table.md, by_problem_type.json, causes.json and summary.json into `out_dir` from the
    agreement.csv files; returns the summary."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = read_agreements(agreements)
    if rows.empty:
        raise ValueError(f"no sample in {len(agreements)} agreement file(s): pcgbench.pareval_released selects none")
    table, by_type = build_table(rows, every_output=every_output, resamples=resamples, seed=seed, root=root)
    with atomic_path(out_dir / "table.csv") as tmp:
        table.to_csv(tmp, index=False)
    with atomic_path(out_dir / "table.md") as tmp:
        Path(tmp).write_text(markdown(table, every_output), encoding="utf-8")
    write_table(shown_rows(table), SHOWN, csv_path=None, html_path=out_dir / "table.html",
                title="ParEval's released outputs: pass@1 under PCGBench beside ParEval's", note=note(table, every_output))
    write_json(out_dir / "by_problem_type.json", by_type.to_dict(orient="records"))
    disagreements = rows[~rows["agree"]]
    causes = (disagreements.groupby(["task", "generator", "model", "cause"]).size().rename("count").reset_index()
              .to_dict(orient="records"))  # fmt: skip
    names = dict(zip(zip(table["task"], table["generator"], strict=True), table["model"], strict=True))
    for entry in causes:
        entry["language_model"] = names[(entry["task"], entry["generator"])]
    samples = rows.groupby(["task", "generator", "model"]).size().rename("n").reset_index().to_dict(orient="records")
    for entry in samples:
        entry["language_model"] = names[(entry["task"], entry["generator"])]
    write_json(out_dir / "causes.json", {"samples": samples, "causes": causes})
    by_file = {f"{task}/{generator}": summarise(group) for (task, generator), group in rows.groupby(["task", "generator"])}
    summary = {
        "scale": {"every_output": every_output, "samples": len(rows), "files": sorted(by_file),
                  "min_prompts_per_cell": int(table["prompts"].min()), "ci_level": LEVEL},
        "agreement": summarise(rows), "by_file": by_file,
        "table": {task: {language_model: {r["execution_model"]: {k: r[k] for k in r.index if k not in ("task", "model")}
                                          for _, r in group.iterrows()}
                         for language_model, group in by_task.groupby("model")}
                  for task, by_task in table.groupby("task")},
        "orderings": orderings(table), "orderings_as_pareval": orderings(table, "pcgbench_as_pareval_pass@1"),
    }  # fmt: skip
    summary = _without_nan(json.loads(json.dumps(summary, default=_plain)))
    write_json(out_dir / "summary.json", summary)
    print(markdown(table, every_output))
    return summary


def _without_nan(value):
    """`value` with every NaN (a cell with nothing to measure) as None: JSON has no NaN."""
    if isinstance(value, dict):
        return {key: _without_nan(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_nan(item) for item in value]
    return None if isinstance(value, float) and math.isnan(value) else value


def _plain(value):
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if isinstance(value, np.floating):
        return None if math.isnan(value) else float(value)
    raise TypeError(f"not JSON: {value!r}")


if __name__ == "__main__":
    if "snakemake" in globals():
        from workflow_scripts.common import snakemake_step

        smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
        main(agreements=list(smk.input.agreements), out_dir=Path(smk.output.summary).parent,
             every_output=smk.params.every_output, resamples=smk.params.resamples, seed=smk.params.seed)
    else:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        parser = argparse.ArgumentParser(prog="python -m workflow_scripts.pcgbench.pareval_table",
                                         description="ParEval's table re-measured from agreement.csv files")
        parser.add_argument("agreements", nargs="+", type=Path)
        parser.add_argument("--out", type=Path, required=True)
        parser.add_argument("--every-output", action="store_true", help="the files hold every released output")
        parser.add_argument("--seed", type=int, default=0)
        args = parser.parse_args()
        try:
            main(agreements=args.agreements, out_dir=args.out, every_output=args.every_output, seed=args.seed)
        except ValueError as err:
            sys.exit(f"error: {err}")
