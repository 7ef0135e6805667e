"""Errors, dominant predictors, the permuted-label control and change points of the run-time series.

- Errors: MAPE and R2 (of run time in seconds) per model family, model and app, on the test runs.
- Importance: grouped permutation importance on the test runs. All features derived from one counter
  (every scope and window) are permuted together, so a counter's importance is not split between its
  own correlated copies; the score is the rise in RMSE of log run time (relative error units). Computed
  for each per-app GBM, the app-agnostic GBM, and the permuted-label controls.
- Control: a feature is "important" when its mean rise exceeds `important_min_rmse_increase` and twice
  its standard deviation over the repeats. The control (labels permuted) should have none.
- Change points: the single split of a run-time series (log run time, sorted by start) that most
  reduces the squared error, per app and for all apps pooled (each divided by its median); its p-value
  is the share of `change_point_permutations` shuffles with a split at least as strong. The series
  drift, so neighbouring runs are correlated and the p-value is optimistic.

Input: features.parquet, feature_meta.json, predictions.parquet, models.pkl. Output: analysis.json.
No ground truth is read here (the same analysis runs on real data); summary.py compares with it.

Run: `snakemake monitoring` (rule monitoring_analysis), or `main(..., cfg=AnalysisConfig(), seed=1)`.
"""


import logging
import pickle
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from sklearn.metrics import r2_score
from threadpoolctl import threadpool_limits

from workflow_scripts.common import Provenance, configure_logging, read_json, write_json

logger = logging.getLogger(__name__)


@dataclass(kw_only=True)
class AnalysisConfig:
    permutation_repeats: int = 10  # shuffles per feature group
    important_min_rmse_increase: float = 0.01  # log run time: a 1 % rise in error
    change_point_permutations: int = 200
    change_point_min_segment: int = 5  # runs on each side of a split

    def __post_init__(self):
        if self.permutation_repeats < 2:
            raise ValueError(f"analysis.permutation_repeats must be >= 2 (a spread needs two), got {self.permutation_repeats}")
        if self.important_min_rmse_increase <= 0:
            raise ValueError("analysis.important_min_rmse_increase must be > 0")
        if self.change_point_permutations < 19:
            raise ValueError("analysis.change_point_permutations must be >= 19 (for p-values down to 0.05)")
        if self.change_point_min_segment < 2:
            raise ValueError("analysis.change_point_min_segment must be >= 2")


def mape(true: np.ndarray, predicted: np.ndarray) -> float:
    return float(np.mean(np.abs(predicted - true) / np.abs(true)))


def error_table(predictions: pd.DataFrame) -> dict:
    """{family: {model: {app: {"mape", "r2", "n"}}}} on the test runs; "all" pools the apps."""
    out: dict = {}
    for (family, model), part in predictions.groupby(["family", "model"]):
        per_app = {}
        for app, rows in [*part.groupby("app"), ("all", part)]:
            y, p = rows["run_time_s"].to_numpy(), rows["predicted_s"].to_numpy()
            per_app[app] = {"mape": mape(y, p), "r2": float(r2_score(y, p)) if len(rows) > 1 else None, "n": len(rows)}
        out.setdefault(family, {})[model] = per_app
    return out


def feature_groups(meta: dict, columns: list[str]) -> dict[str, list[int]]:
    """Column indices of each counter (all scopes and windows), plus 'placement' and 'time'."""
    groups: dict[str, list[int]] = {}
    for index, name in enumerate(columns):
        groups.setdefault(meta[name]["counter"], []).append(index)
    return groups


def grouped_permutation_importance(model, x: np.ndarray, log_y: np.ndarray, groups: dict[str, list[int]],
                                   repeats: int, rng: np.random.Generator) -> dict[str, dict]:  # fmt: skip
    """Rise in RMSE of log run time when one group's columns are shuffled together (mean, sd over repeats)."""

    def rmse(pred):
        return float(np.sqrt(np.mean((pred - log_y) ** 2)))

    base = rmse(model.predict(x))
    out = {}
    for name, cols in groups.items():
        rises = []
        for _ in range(repeats):
            shuffled = x.copy()
            shuffled[:, cols] = x[rng.permutation(len(x))][:, cols]
            rises.append(rmse(model.predict(shuffled)) - base)
        out[name] = {"mean": float(np.mean(rises)), "sd": float(np.std(rises, ddof=1))}
    return out


def important(importance: dict[str, dict], min_rise: float) -> list[str]:
    return sorted(k for k, v in importance.items() if v["mean"] > min_rise and v["mean"] > 2 * v["sd"])


def best_split(values: np.ndarray, min_segment: int) -> tuple[int, float]:
    """Index k (split before values[k]) that most reduces the squared error, and that reduction."""
    n = len(values)
    centred = values - values.mean()
    cumulative = np.cumsum(centred)[:-1]  # sums of the first k values, k = 1..n-1
    k = np.arange(1, n)
    gain = cumulative**2 / k + cumulative**2 / (n - k)  # between-segment sum of squares
    allowed = (k >= min_segment) & (n - k >= min_segment)
    if not allowed.any():
        return -1, 0.0
    gain = np.where(allowed, gain, -np.inf)
    best = int(np.argmax(gain))
    return best + 1, float(gain[best])


def change_point(times_s: np.ndarray, values: np.ndarray, permutations: int, min_segment: int,
                 rng: np.random.Generator) -> dict:  # fmt: skip
    order = np.argsort(times_s)
    times_s, values = times_s[order], values[order]
    k, gain = best_split(values, min_segment)
    if k < 0:
        return {"time_s": None, "p_value": None, "shift_log": None, "n": len(values)}
    null = np.array([best_split(rng.permutation(values), min_segment)[1] for _ in range(permutations)])
    return {
        "time_s": float((times_s[k - 1] + times_s[k]) / 2),  # between the last run before and the first after
        "p_value": float((1 + np.sum(null >= gain)) / (1 + permutations)),
        "shift_log": float(values[k:].mean() - values[:k].mean()),
        "n": len(values),
    }


def analyse(features: pd.DataFrame, meta: dict, predictions: pd.DataFrame, bundle: dict, cfg: AnalysisConfig,
            seed: int) -> dict:  # fmt: skip
    rng = np.random.default_rng(seed)
    columns = bundle["feature_columns"]
    groups = feature_groups(meta, columns)
    features = features.set_index("job_id")
    test = features.loc[bundle["test_job_ids"]]
    x_test = test[columns].to_numpy(dtype=float)
    log_y_test = np.log(test["run_time_s"].to_numpy())

    importance = {"per_app": {}, "control": {}}
    control_important = {}
    for app, models in bundle["per_app"].items():
        rows = (test["app"] == app).to_numpy()
        importance["per_app"][app] = grouped_permutation_importance(models["gbm"], x_test[rows], log_y_test[rows],
                                                                    groups, cfg.permutation_repeats, rng)  # fmt: skip
        control = bundle["control"][app]
        importance["control"][app] = grouped_permutation_importance(control["gbm"], x_test[rows], control["test_log_y"],
                                                                    groups, cfg.permutation_repeats, rng)  # fmt: skip
        control_important[app] = important(importance["control"][app], cfg.important_min_rmse_increase)
        logger.info("importance %s: top %s; control finds %s", app,
                    max(importance["per_app"][app], key=lambda k: importance["per_app"][app][k]["mean"]),
                    control_important[app] or "nothing")  # fmt: skip
    scale = test["app"].map(bundle["app_scale_s"]).to_numpy()
    importance["agnostic"] = grouped_permutation_importance(bundle["agnostic"]["gbm"], x_test, log_y_test - np.log(scale),
                                                            groups, cfg.permutation_repeats, rng)  # fmt: skip

    change_points = {}
    all_runs = features.reset_index()
    relative = np.log(all_runs["run_time_s"]) - np.log(all_runs.groupby("app")["run_time_s"].transform("median"))
    for app, rows in [*all_runs.groupby("app"), ("pooled", all_runs)]:
        series = relative[rows.index].to_numpy()
        change_points[app] = change_point(rows["start_s"].to_numpy(), series, cfg.change_point_permutations,
                                          cfg.change_point_min_segment, rng)  # fmt: skip

    return {
        "errors": error_table(predictions),
        "importance": importance,
        "important_features": {app: important(imp, cfg.important_min_rmse_increase)
                               for app, imp in importance["per_app"].items()},  # fmt: skip
        "control_important_features": control_important,
        "change_points": change_points,
        "split": {"cutoff_s": bundle["cutoff_s"], "n_train": len(bundle["train_job_ids"]),
                  "n_test": len(bundle["test_job_ids"]), "app_scale_s": bundle["app_scale_s"]},  # fmt: skip
        "config": asdict(cfg),
    }


def main(*, features_path, meta_path, predictions_path, models_path, analysis_path, cfg: AnalysisConfig, seed: int,
         threads: int = 1):  # fmt: skip
    prov = Provenance.start(step="monitoring.analysis", config=asdict(cfg), seed=seed)
    with open(models_path, "rb") as handle:
        bundle = pickle.load(handle)  # written by models.py of this workflow: a trusted artifact
    with threadpool_limits(limits=threads):
        result = analyse(pd.read_parquet(features_path), read_json(meta_path), pd.read_parquet(predictions_path),
                         bundle, cfg, seed)  # fmt: skip
    write_json(analysis_path, result)
    prov.finish([analysis_path])


if __name__ == "__main__":
    smk = snakemake  # noqa: F821 -- injected by Snakemake's script: directive
    configure_logging(smk.log[0])
    main(features_path=smk.input.features, meta_path=smk.input.meta, predictions_path=smk.input.predictions,
         models_path=smk.input.models, analysis_path=smk.output.analysis, cfg=AnalysisConfig(**smk.params.cfg),
         seed=smk.params.seed, threads=smk.threads)  # fmt: skip
