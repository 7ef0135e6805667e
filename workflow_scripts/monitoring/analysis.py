"""Errors, dominant predictors, the permuted-label control and change points of the run-time series.

- Errors: MAPE and R2 (of run time in seconds) per model family, model and app, on the test runs.
- Importance: grouped permutation importance on the test runs. All features derived from one counter
  (every scope and window) are permuted together, so a counter's importance is not split between its
  own correlated copies; the score is the rise in RMSE of log run time (relative error units). Computed
  for each per-app GBM, the app-agnostic GBM, and the permuted-label controls.
- Clusters: counters whose features rank-correlate strongly (|Spearman| >= cluster_min_abs_spearman)
  are also permuted together as one cluster, since redundant counters cannot be told apart from data.
- Control: a feature is "important" when its mean rise exceeds `important_min_rmse_increase` and twice
  its standard deviation over the repeats. The control (labels permuted) should have none.
- Change points: the single split of a run-time series (log run time, sorted by start) with the largest
  Pettitt rank statistic, per app and for all apps pooled (each divided by its median); its p-value is
  the share of `change_point_permutations` shuffles with a split at least as strong. The series drift,
  so neighbouring runs are correlated and the p-value is optimistic.

Input: features.parquet, feature_meta.json, predictions.parquet, models.pkl. Output: analysis.json.
No ground truth is read here (the same analysis runs on real data); summary.py compares with it.

Run: `snakemake monitoring` (rule monitoring_analysis), or `main(..., cfg=AnalysisConfig(), seed=1)`.
"""


import logging
import pickle
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform
from scipy.stats import rankdata, spearmanr
from sklearn.metrics import r2_score
from threadpoolctl import threadpool_limits

from workflow_scripts.common import Provenance, configure_logging, read_json, write_json
from workflow_scripts.common.config import schema_default

logger = logging.getLogger(__name__)


@dataclass(kw_only=True)
class AnalysisConfig:
    # shuffles per feature group
    permutation_repeats: int = schema_default("monitoring.analysis.permutation_repeats")
    # log run time: a 1 % rise in error
    important_min_rmse_increase: float = schema_default("monitoring.analysis.important_min_rmse_increase")
    change_point_permutations: int = schema_default("monitoring.analysis.change_point_permutations")
    # runs on each side of a split
    change_point_min_segment: int = schema_default("monitoring.analysis.change_point_min_segment")
    # Counters whose features rank-correlate at least this much are permuted together as one cluster.
    cluster_min_abs_spearman: float = schema_default("monitoring.analysis.cluster_min_abs_spearman")

    def __post_init__(self):
        if self.permutation_repeats < 2:
            raise ValueError(f"analysis.permutation_repeats must be >= 2 (a spread needs two), got {self.permutation_repeats}")
        if self.important_min_rmse_increase <= 0:
            raise ValueError("analysis.important_min_rmse_increase must be > 0")
        if self.change_point_permutations < 19:
            raise ValueError("analysis.change_point_permutations must be >= 19 (for p-values down to 0.05)")
        if self.change_point_min_segment < 2:
            raise ValueError("analysis.change_point_min_segment must be >= 2")
        if not 0 < self.cluster_min_abs_spearman <= 1:
            raise ValueError("analysis.cluster_min_abs_spearman must lie in (0, 1]")


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


def counter_clusters(x: np.ndarray, columns: list[str], meta: dict, min_abs_spearman: float) -> dict[str, list[str]]:
    """Clusters of counters whose features move together (|Spearman| >= min_abs_spearman, average linkage).

    Each counter is represented by its first feature (job scope, shortest window). Redundant counters
    (a stall counter and its NIC copy, file-system bytes and waits) cannot be told apart from the data
    alone: a model may lean on either, and permuting one while its twin stays barely moves the error.
    Permuting a whole cluster measures what the system state behind them is worth.
    """
    first: dict[str, int] = {}
    for index, name in enumerate(columns):
        if meta[name]["kind"] == "counter":
            first.setdefault(meta[name]["counter"], index)
    counters = sorted(first)
    clusters = {c: [c] for c in ("placement", "time") if any(meta[n]["counter"] == c for n in columns)}
    if len(counters) < 2:
        return clusters | {c: [c] for c in counters}
    rho = np.atleast_2d(spearmanr(x[:, [first[c] for c in counters]], nan_policy="omit").statistic)
    distance = np.clip(1 - np.abs(np.nan_to_num(rho, nan=0.0)), 0, None)
    np.fill_diagonal(distance, 0)
    labels = fcluster(linkage(squareform(distance, checks=False), method="average"), t=1 - min_abs_spearman,
                      criterion="distance")  # fmt: skip
    for label in np.unique(labels):
        members = [c for c, lab in zip(counters, labels, strict=True) if lab == label]
        clusters["+".join(members)] = members
    return clusters


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
    """Pettitt's rank statistic: split index k (before values[k]) maximising |U_k|, and that |U_k|.

    U_k = sum over i < k <= j of sign(x_j - x_i) = 2 * (sum of the first k ranks) - k (n + 1). Ranks,
    not values: after the planted capacity drop congestion spikes grow heavy-tailed, and a least-squares
    split chases those spikes instead of the step.
    """
    n = len(values)
    ranks = rankdata(values)
    k = np.arange(1, n)
    statistic = np.abs(2 * np.cumsum(ranks)[:-1] - k * (n + 1))
    allowed = (k >= min_segment) & (n - k >= min_segment)
    if not allowed.any():
        return -1, 0.0
    statistic = np.where(allowed, statistic, -np.inf)
    best = int(np.argmax(statistic))
    return best + 1, float(statistic[best])


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
        "shift_log": float(np.median(values[k:]) - np.median(values[:k])),
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

    # Clusters from the features alone (no run times), over every run.
    clusters = counter_clusters(features[columns].to_numpy(dtype=float), columns, meta, cfg.cluster_min_abs_spearman)
    cluster_groups = {name: sorted(i for c in members for i in groups[c]) for name, members in clusters.items()}
    logger.info("counter clusters: %s", [name for name, members in clusters.items() if len(members) > 1])

    importance = {"per_app": {}, "control": {}, "per_app_clusters": {}, "control_clusters": {}}
    control_important = {}
    for app, models in bundle["per_app"].items():
        rows = (test["app"] == app).to_numpy()
        control = bundle["control"][app]
        for kind, chosen in (("", groups), ("_clusters", cluster_groups)):
            importance["per_app" + kind][app] = grouped_permutation_importance(
                models["gbm"], x_test[rows], log_y_test[rows], chosen, cfg.permutation_repeats, rng)
            importance["control" + kind][app] = grouped_permutation_importance(
                control["gbm"], x_test[rows], control["test_log_y"], chosen, cfg.permutation_repeats, rng)
        control_important[app] = sorted(set(important(importance["control"][app], cfg.important_min_rmse_increase))
                                        | set(important(importance["control_clusters"][app],
                                                        cfg.important_min_rmse_increase)))  # fmt: skip
        logger.info("importance %s: top %s; control finds %s", app,
                    max(importance["per_app"][app], key=lambda k: importance["per_app"][app][k]["mean"]),
                    control_important[app] or "nothing")  # fmt: skip
    scale = test["app"].map(bundle["app_scale_s"]).to_numpy()
    for kind, chosen in (("", groups), ("_clusters", cluster_groups)):
        importance["agnostic" + kind] = grouped_permutation_importance(
            bundle["agnostic"]["gbm"], x_test, log_y_test - np.log(scale), chosen, cfg.permutation_repeats, rng)

    change_points = {}
    all_runs = features.reset_index()
    relative = np.log(all_runs["run_time_s"]) - np.log(all_runs.groupby("app")["run_time_s"].transform("median"))
    for app, rows in [*all_runs.groupby("app"), ("pooled", all_runs)]:
        series = relative[rows.index].to_numpy()
        change_points[app] = change_point(rows["start_s"].to_numpy(), series, cfg.change_point_permutations,
                                          cfg.change_point_min_segment, rng)  # fmt: skip

    return {
        "clusters": clusters,
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
