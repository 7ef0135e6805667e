"""Errors, dominant predictors, the permuted-label control and change points of the run-time series.

- Errors: MAPE and R2 (of run time in seconds) per model family, model and app, on the test runs. Pooled
  over the apps ("all") only the MAPE and the R2 of log run time relative to each app's median test run
  time (r2_log_within_app): an R2 of seconds pooled over apps measures only their different scales.
- Verdicts: each model against the better of the two baselines (last run, rolling median) and the
  permuted-label control, per app: MAPE of each, and a paired Wilcoxon test of the absolute log errors.
  A model is "better" only when its MAPE is below both and the test gives p <= 0.05.
- Importance: grouped permutation importance on the test runs. All features derived from one counter
  (every scope and window) are permuted together, so a counter's importance is not split between its
  own correlated copies; the score is the rise in RMSE of log run time (relative error units). Computed
  for each per-app GBM, the app-agnostic GBM, and the permuted-label controls.
- Clusters: counters whose features rank-correlate strongly (|Spearman| >= cluster_min_abs_spearman)
  are also permuted together as one cluster, since redundant counters cannot be told apart from data.
- Control: a feature is "important" when its mean rise exceeds `important_min_rmse_increase` and twice
  its standard deviation over the repeats. The control (labels permuted) should have none.
- Change points: binary segmentation of each series (log run time sorted by start, per app, and all
  apps pooled, each divided by its median) by least squares: within a segment, a straight line in time
  plus the level shift that most reduces the squared error; the shift is kept when a permutation test
  (`change_point_permutations` shuffles of the residuals from the line, the p-value being the share
  with a shift at least as strong) gives p <= `change_point_alpha`; both sides are then split again,
  up to `change_point_max` points. A kept split must also cut the squared error by at least
  `change_point_penalty` x the run-to-run noise variance x log(n) (a Schwarz-type penalty, the noise
  taken from successive differences), so the several tests of binary segmentation do not add chance
  splits. The line takes up slow drift, so a drift alone is not cut into steps; each segment between
  steps reports its own trend (relative change, p-value) when it is significant. Least squares on log
  run time sees a large step near either end as well as a small one in the middle (a rank statistic
  prefers a small drift over many runs to a large step near an edge). Outliers are pulled in first: a
  run further than `change_point_clip_mad` MADs from the median of its four neighbours and itself is
  clipped there, so a lone slow run makes no split. Each step reports its time, its effect (relative
  shift of the median run time between the neighbouring segments) and its p-value. Neighbouring runs
  are correlated on real systems (load drifts), so the p-values are optimistic; read them with the
  effect size. The first split tested is kept as the candidate even when it is not significant, so
  "none found" still shows how close it came.

- Apps left out of the models (too few runs on one side of the cutoff, models.py): their reason and run
  counts, and the two baselines' MAPE over every run of theirs that had an earlier finished run (the
  baselines fit nothing, so they need no split). Their runs are in the change points like any other's.

Input: features.parquet, feature_meta.json, predictions.parquet, models.pkl. Output: analysis.json.
No ground truth is read here (the same analysis runs on real data); summary.py compares with it.

Run: `snakemake monitoring` (rule monitoring_analysis), or `main(..., cfg=AnalysisConfig(), seed=1)`.
"""


import logging
import pickle
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform
from scipy.stats import spearmanr, wilcoxon
from sklearn.metrics import r2_score
from threadpoolctl import threadpool_limits

from workflow_scripts.common import Provenance, read_json, snakemake_step, write_json
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
    change_point_alpha: float = schema_default("monitoring.analysis.change_point_alpha")  # keep a split at p <= this
    change_point_max: int = schema_default("monitoring.analysis.change_point_max")  # per series
    # a split must also cut the squared error by this many noise variances x log(runs in the series)
    change_point_penalty: float = schema_default("monitoring.analysis.change_point_penalty")
    # outliers: runs further than this many MADs from their neighbours' median are clipped before splitting
    change_point_clip_mad: float = schema_default("monitoring.analysis.change_point_clip_mad")

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
        if not 0 < self.change_point_alpha <= 0.5:
            raise ValueError(f"analysis.change_point_alpha must lie in (0, 0.5], got {self.change_point_alpha}")
        if self.change_point_max < 1 or self.change_point_clip_mad <= 0 or self.change_point_penalty < 0:
            raise ValueError("analysis.change_point_max >= 1, change_point_clip_mad > 0 and change_point_penalty >= 0 "
                             "required")  # fmt: skip


def mape(true: np.ndarray, predicted: np.ndarray) -> float:
    return float(np.mean(np.abs(predicted - true) / np.abs(true)))


def r2_log_within_app(rows: pd.DataFrame) -> float | None:
    """R2 of log run time relative to each app's median measured test run time, pooled over the apps: how much
    of the run-to-run variation within apps the predictions explain (not the spread between apps' scales)."""
    median = rows.groupby("app")["run_time_s"].transform("median")
    y = np.log(rows["run_time_s"] / median).to_numpy()
    p = np.log(rows["predicted_s"] / median).to_numpy()
    return float(r2_score(y, p)) if len(rows) > 1 and np.ptp(y) > 0 else None


def error_table(predictions: pd.DataFrame) -> dict:
    """{family: {model: {app: {"mape", "r2", "n"}}}} on the test runs; "all" pools the apps (MAPE, and R2 of log
    run time within apps: a pooled R2 of seconds would reward only the apps' different scales)."""
    out: dict = {}
    for (family, model), part in predictions.groupby(["family", "model"]):
        per_app = {}
        for app, rows in part.groupby("app"):
            y, p = rows["run_time_s"].to_numpy(), rows["predicted_s"].to_numpy()
            per_app[app] = {"mape": mape(y, p), "r2": float(r2_score(y, p)) if len(rows) > 1 else None, "n": len(rows)}
        y, p = part["run_time_s"].to_numpy(), part["predicted_s"].to_numpy()
        per_app["all"] = {"mape": mape(y, p), "r2": None, "r2_log_within_app": r2_log_within_app(part), "n": len(part)}
        out.setdefault(family, {})[model] = per_app
    return out


BASELINES = ("last_run", "rolling_median")
VERDICT_MAX_P = 0.05


def verdicts(predictions: pd.DataFrame) -> dict:
    """{family/model: {app: comparison}}: each model's MAPE beside the better baseline's and the permuted-label
    control's on the same test runs, a paired Wilcoxon test of the absolute log errors against that baseline,
    and a verdict in words."""
    table = predictions.assign(abs_log_error=np.abs(np.log(predictions["predicted_s"] / predictions["run_time_s"])))
    by_model = {key: part.set_index("job_id") for key, part in table.groupby(["family", "model"])}
    out: dict = {}
    for (family, model), part in by_model.items():
        if family == "control" or model in BASELINES:
            continue
        for app, rows in part.groupby("app"):
            base = {b: by_model[("per_app", b)].loc[rows.index] for b in BASELINES}
            best = min(BASELINES, key=lambda b: mape(base[b]["run_time_s"].to_numpy(), base[b]["predicted_s"].to_numpy()))
            model_mape = mape(rows["run_time_s"].to_numpy(), rows["predicted_s"].to_numpy())
            base_mape = mape(base[best]["run_time_s"].to_numpy(), base[best]["predicted_s"].to_numpy())
            control = by_model[("control", "gbm")].loc[rows.index]
            control_mape = mape(control["run_time_s"].to_numpy(), control["predicted_s"].to_numpy())
            difference = rows["abs_log_error"].to_numpy() - base[best]["abs_log_error"].to_numpy()
            p_value = float(wilcoxon(difference).pvalue) if np.any(difference != 0) else 1.0
            better = model_mape < base_mape and model_mape < control_mape and p_value <= VERDICT_MAX_P
            if better:
                verdict = (f"better than the {best.replace('_', '-')} baseline (MAPE {model_mape:.3f} vs "
                           f"{base_mape:.3f}, p={p_value:.3g}) and the permuted-label control ({control_mape:.3f})")
            else:
                verdict = (f"NOT better than the baselines: MAPE {model_mape:.3f}, {best.replace('_', '-')} baseline "
                           f"{base_mape:.3f} (paired p={p_value:.3g}), permuted-label control {control_mape:.3f}")  # fmt: skip
            out.setdefault(f"{family}/{model}", {})[app] = {
                "mape": model_mape, "best_baseline": best, "baseline_mape": base_mape, "control_mape": control_mape,
                "p_value": p_value, "better": bool(better), "verdict": verdict, "n": len(rows)}  # fmt: skip
    return out


def left_out_of_models(bundle: dict) -> dict:
    """{app: {reason, n_runs, n_train, n_test, baselines: {baseline: {mape, n}}}} of the apps left out of the models."""
    predicted = bundle["left_out_baselines"]
    out = {}
    for app, counts in bundle["left_out"].items():
        rows = predicted[predicted["app"] == app]
        out[app] = counts | {"baselines": {b: {"mape": mape(rows["run_time_s"].to_numpy(), rows[b].to_numpy()),
                                               "n": len(rows)} if len(rows) else None for b in BASELINES}}  # fmt: skip
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


def _trend_basis(times_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The columns (1, t) of a straight line in time (t scaled to [0, 1]) and the inverse of their Gram matrix."""
    span = max(float(times_s[-1] - times_s[0]), 1.0)
    basis = np.column_stack([np.ones(len(times_s)), (times_s - times_s[0]) / span])
    return basis, np.linalg.inv(basis.T @ basis)


def split_gains(values: np.ndarray, times_s: np.ndarray, min_segment: int) -> np.ndarray:
    """Drop in squared error from adding a level shift before index k (k = 1..n-1) to a straight line in time.

    values: (..., n) rows sharing `times_s`. The line takes up a slow drift, so only a change of level
    scores; under no change every k scores about the same (sigma^2 chi^2_1), so a step near an end is
    found as readily as one in the middle. -inf where a side has fewer than `min_segment` values.
    For the indicator z_k (1 from k on) with its line part removed, z~_k, the gain is (z~_k . y)^2 / |z~_k|^2.
    """
    n = values.shape[-1]
    basis, gram_inv = _trend_basis(times_s)
    # X'z_k for k = 1..n-1: (runs from k on, sum of their t), from suffix sums
    suffix_basis = np.cumsum(basis[::-1], axis=0)[::-1][1:]  # (n-1, 2)
    denominator = (n - np.arange(1, n)) - np.einsum("ki,ij,kj->k", suffix_basis, gram_inv, suffix_basis)
    suffix_values = np.cumsum(values[..., ::-1], axis=-1)[..., ::-1][..., 1:]  # (..., n-1)
    projection = (values @ basis) @ gram_inv  # (..., 2): the line's coefficients
    numerator = suffix_values - projection @ suffix_basis.T
    k = np.arange(1, n)
    allowed = (k >= min_segment) & (n - k >= min_segment) & (denominator > 1e-9)
    return np.where(allowed, numerator**2 / np.where(allowed, denominator, 1.0), -np.inf)


def clip_outliers(values: np.ndarray, clip_mad: float) -> np.ndarray:
    """Each value clipped to within `clip_mad` MADs of the median of itself and its four neighbours.

    A running median of five keeps a step of three or more runs intact, so steps survive and lone outliers
    (a slow run, a node failure) do not. The MAD is that of the residuals from the running median.
    """
    if len(values) < 5:
        return values.copy()
    local = np.median(sliding_window_view(np.pad(values, 2, mode="edge"), 5), axis=1)
    residual = values - local
    mad = 1.4826 * np.median(np.abs(residual - np.median(residual)))
    if mad == 0:
        return values.copy()
    return local + np.clip(residual, -clip_mad * mad, clip_mad * mad)


def _test_split(times_s: np.ndarray, segment: np.ndarray, min_segment: int, permutations: int,
                rng: np.random.Generator) -> tuple[int, float, float]:  # fmt: skip
    """(best split index within the segment, permutation p-value, gain); (-1, 1.0, 0.0) when the segment is too short.

    The null shuffles the residuals from the segment's straight line: a drift alone is not a change point.
    """
    if len(segment) < max(2 * min_segment, 4):
        return -1, 1.0, 0.0
    gains = split_gains(segment, times_s, min_segment)
    if not np.isfinite(gains).any():
        return -1, 1.0, 0.0
    k = int(np.argmax(gains))
    basis, gram_inv = _trend_basis(times_s)
    residual = segment - basis @ (gram_inv @ (basis.T @ segment))
    shuffled = rng.permuted(np.broadcast_to(residual, (permutations, len(segment))), axis=1)
    null = split_gains(shuffled, times_s, min_segment).max(axis=1)
    return k + 1, float((1 + np.sum(null >= gains[k] * (1 - 1e-9))) / (1 + permutations)), float(gains[k])


def noise_variance(values: np.ndarray) -> float:
    """Run-to-run noise variance from successive differences (robust: MAD), blind to steps and slow drift."""
    differences = np.diff(values)
    mad = 1.4826 * np.median(np.abs(differences - np.median(differences)))
    return float(mad**2 / 2) if mad > 0 else float(np.var(values))


def _drift(times_s: np.ndarray, values: np.ndarray, permutations: int, rng: np.random.Generator) -> dict:
    """Straight-line trend of one segment: relative change of run time over it, and a permutation p-value."""
    t = (times_s - times_s[0]) / 86400
    slope = float(np.polyfit(t, values, 1)[0])
    centred_t = t - t.mean()
    statistic = abs(centred_t @ values)
    shuffled = rng.permuted(np.broadcast_to(values, (permutations, len(values))), axis=1)
    null = np.abs(shuffled @ centred_t)
    return {"start_s": float(times_s[0]), "end_s": float(times_s[-1]), "runs": len(values),
            "effect": float(np.expm1(slope * t[-1])), "per_30_days": float(np.expm1(slope * 30)),
            "p_value": float((1 + np.sum(null >= statistic * (1 - 1e-9))) / (1 + permutations))}  # fmt: skip


def change_points(times_s: np.ndarray, values: np.ndarray, cfg: AnalysisConfig, rng: np.random.Generator) -> dict:
    """Binary segmentation of one series (the module docstring describes it).

    Returns {"n", "steps", "drifts", "candidate"}. Each step: time_s (between the last run before and the
    first after), index (runs before it in the series), effect (relative shift of the median run time
    between the neighbouring segments), p_value, runs_before and runs_after (in those segments). Each
    drift (a segment between steps whose straight-line trend has p <= change_point_alpha): start_s,
    end_s, runs, effect (relative change over the segment), per_30_days, p_value. "candidate" is the
    first split tested, with "significant", so a series without a step still shows how close it came.
    """
    order = np.argsort(times_s, kind="stable")
    times_s, values = np.asarray(times_s, dtype=float)[order], np.asarray(values, dtype=float)[order]
    n = len(values)
    robust = clip_outliers(values, cfg.change_point_clip_mad)
    # Schwarz-type penalty on the drop in squared error: with several segments tested, the permutation test
    # alone would keep about one chance split in twenty; this keeps only those the whole series supports.
    penalty = cfg.change_point_penalty * noise_variance(robust) * np.log(max(n, 2))
    splits: dict[int, float] = {}
    candidate = None
    pending = [(0, n)]
    while pending and len(splits) < cfg.change_point_max:
        lo, hi = pending.pop(0)
        k, p_value, gain = _test_split(times_s[lo:hi], robust[lo:hi], cfg.change_point_min_segment,
                                       cfg.change_point_permutations, rng)  # fmt: skip
        if k < 0:
            continue
        kept = p_value <= cfg.change_point_alpha and gain >= penalty
        if candidate is None:
            candidate = (lo + k, p_value, kept)
        if kept:
            splits[lo + k] = p_value
            pending += [(lo, lo + k), (lo + k, hi)]
    bounds = [0, *sorted(splits), n]
    steps = [_describe_step(times_s, values, bounds[i - 1], at, bounds[i + 1], splits[at])
             for i, at in enumerate(bounds[1:-1], start=1)]  # fmt: skip
    drifts = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        if hi - lo >= 2 * cfg.change_point_min_segment and times_s[hi - 1] > times_s[lo]:
            drift = _drift(times_s[lo:hi], robust[lo:hi], cfg.change_point_permutations, rng)
            if drift["p_value"] <= cfg.change_point_alpha:
                drifts.append(drift)
    if candidate is not None:
        at, p_value, kept = candidate
        candidate = _describe_step(times_s, values, 0, at, n, p_value) | {"significant": kept}
    return {"n": n, "steps": steps, "drifts": drifts, "candidate": candidate}


def _describe_step(times_s, values, lo: int, at: int, hi: int, p_value: float) -> dict:
    shift_log = float(np.median(values[at:hi]) - np.median(values[lo:at]))
    return {
        "time_s": float((times_s[at - 1] + times_s[at]) / 2),
        "index": int(at),
        "effect": float(np.expm1(shift_log)),
        "shift_log": shift_log,
        "p_value": float(p_value),
        "runs_before": int(at - lo),
        "runs_after": int(hi - at),
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

    found = {}
    all_runs = features.reset_index()
    relative = np.log(all_runs["run_time_s"]) - np.log(all_runs.groupby("app")["run_time_s"].transform("median"))
    for app, rows in [*all_runs.groupby("app"), ("pooled", all_runs)]:
        found[app] = change_points(rows["start_s"].to_numpy(), relative[rows.index].to_numpy(), cfg, rng)
        logger.info("change points (%s): %s", app, [f"{p['effect']:+.1%} p={p['p_value']:.3g}"
                                                    for p in found[app]["steps"]] or "none")  # fmt: skip

    return {
        "clusters": clusters,
        "errors": error_table(predictions),
        "verdicts": verdicts(predictions),
        "feature_columns": columns,
        "dropped_features": bundle.get("dropped_features", {}),
        "importance": importance,
        "important_features": {app: important(imp, cfg.important_min_rmse_increase)
                               for app, imp in importance["per_app"].items()},  # fmt: skip
        "control_important_features": control_important,
        "change_points": found,
        "left_out_of_models": left_out_of_models(bundle),
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
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(features_path=smk.input.features, meta_path=smk.input.meta, predictions_path=smk.input.predictions,
         models_path=smk.input.models, analysis_path=smk.output.analysis, cfg=AnalysisConfig(**smk.params.cfg),
         seed=smk.params.seed, threads=smk.threads)  # fmt: skip
