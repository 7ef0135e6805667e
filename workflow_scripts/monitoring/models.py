"""Run-time models fitted on a time-ordered split: per-app, application-agnostic, leave-one-app-out.

Split (`time_ordered_split`): one cutoff time for all apps, at the `train_fraction` quantile of the run
starts. A run trains only if it *ended* by the cutoff (its run time was known then); it tests only if it
started at or after the cutoff. Runs that straddle the cutoff are in neither, so no model learns from
anything that happened after a test run began.

Features whose most common value covers `near_constant_share` of the training runs are dropped first,
with a warning (a constant counter carries nothing and must never be ranked as a predictor).

Models (targets are log run time, so errors are relative):
  per app      gbm (HistGradientBoostingRegressor), mlp (MLPRegressor), linear (RidgeCV), and two
               baselines: "last run", the run time of the app's latest run that ended before this start,
               and "rolling median", the median of its last `rolling_median_runs` such runs
  agnostic     gbm, mlp on log(run time / the app's median training run time): one model for all apps
  loao         the agnostic models refitted without one app and tested on it (its scale is the median
               of its own training-period runs, which the model never sees)
  control      per-app gbm fitted on permuted labels: what importance looks like when there is nothing
               to find

Apps with too few runs on either side of the cutoff (fewer than MIN_TRAIN_RUNS training or MIN_TEST_RUNS
test runs: a site that stopped running an app early has none after the cutoff) are left out of the models,
with the reason; their runs still go to the baselines (which fit nothing, so they are scored on every run
that had an earlier finished run of its app) and to the change points (analysis.py reads every run). The
cutoff is that of the whole table, so leaving an app out moves nothing for the others.

Outputs: predictions.parquet (job_id, app, family, model, run_time_s, predicted_s; test runs of the
modelled apps only), models.pkl (the fitted estimators, the split, the features used and those dropped,
the control's permuted test labels, and the apps left out with their reason and baseline predictions,
for analysis.py). A single app, or fewer than two apps with enough runs, stop with the keys that fix it
(monitoring.models.train_fraction, monitoring.real.apps, or the synthetic history's length).

Run: `snakemake monitoring` (rule monitoring_models), or `main(features_path=..., ..., cfg=PerformanceModelConfig())`.
"""


import logging
import pickle
import warnings
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
from sklearn.compose import TransformedTargetRegressor
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.impute import SimpleImputer
from sklearn.linear_model import RidgeCV
from sklearn.neural_network import MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from workflow_scripts.common import (
    Progress,
    Provenance,
    atomic_path,
    read_json,
    seed_everything,
    snakemake_step,
)
from workflow_scripts.common.config import schema_default

logger = logging.getLogger(__name__)

# Fewest runs per app for a fit and for an error on the test runs.
MIN_TRAIN_RUNS = 20
MIN_TEST_RUNS = 5


@dataclass(kw_only=True)
class GBMConfig:
    max_iter: int = schema_default("monitoring.models.gbm.max_iter")  # boosting rounds
    learning_rate: float = schema_default("monitoring.models.gbm.learning_rate")
    max_leaf_nodes: int = schema_default("monitoring.models.gbm.max_leaf_nodes")
    min_samples_leaf: int = schema_default("monitoring.models.gbm.min_samples_leaf")
    # Stop when a held-out 20 % of the training runs stops improving: a model fitted to noise (the
    # permuted-label control) then stays near a constant instead of memorising the labels.
    early_stopping: bool = schema_default("monitoring.models.gbm.early_stopping")

    def __post_init__(self):
        if self.max_iter < 1 or self.max_leaf_nodes < 2 or self.min_samples_leaf < 1:
            raise ValueError("models.gbm: max_iter >= 1, max_leaf_nodes >= 2, min_samples_leaf >= 1 required")
        if not 0 < self.learning_rate <= 1:
            raise ValueError(f"models.gbm.learning_rate must lie in (0, 1], got {self.learning_rate}")


@dataclass(kw_only=True)
class MLPConfig:
    hidden_layers: list[int] = schema_default("monitoring.models.mlp.hidden_layers")
    alpha: float = schema_default("monitoring.models.mlp.alpha")  # L2 penalty
    max_iter: int = schema_default("monitoring.models.mlp.max_iter")  # epochs of Adam

    def __post_init__(self):
        if not self.hidden_layers or min(self.hidden_layers) < 1:
            raise ValueError(f"models.mlp.hidden_layers: one or more layer widths >= 1, got {self.hidden_layers}")
        if self.alpha < 0 or self.max_iter < 1:
            raise ValueError("models.mlp: alpha >= 0 and max_iter >= 1 required")


@dataclass(kw_only=True)
class PerformanceModelConfig:
    # share of runs (by start time) before the train/test cutoff
    train_fraction: float = schema_default("monitoring.models.train_fraction")
    gbm: GBMConfig = field(default_factory=GBMConfig)
    mlp: MLPConfig = field(default_factory=MLPConfig)
    ridge_alphas: list[float] = schema_default("monitoring.models.ridge_alphas")
    # the rolling-median baseline: median of the app's last this many finished runs
    rolling_median_runs: int = schema_default("monitoring.models.rolling_median_runs")
    # features whose most common value covers this share of the training runs are dropped
    near_constant_share: float = schema_default("monitoring.models.near_constant_share")

    def __post_init__(self):
        if isinstance(self.gbm, dict):
            self.gbm = GBMConfig(**self.gbm)
        if isinstance(self.mlp, dict):
            self.mlp = MLPConfig(**self.mlp)
        if not 0.2 <= self.train_fraction <= 0.9:
            raise ValueError(f"models.train_fraction must lie in [0.2, 0.9], got {self.train_fraction}")
        if not self.ridge_alphas or min(self.ridge_alphas) <= 0:
            raise ValueError(f"models.ridge_alphas: one or more values > 0, got {self.ridge_alphas}")
        if self.rolling_median_runs < 1:
            raise ValueError(f"models.rolling_median_runs must be >= 1, got {self.rolling_median_runs}")
        if not 0.5 < self.near_constant_share <= 1:
            raise ValueError(f"models.near_constant_share must lie in (0.5, 1], got {self.near_constant_share}")


def time_ordered_split(runs: pd.DataFrame, train_fraction: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Boolean train and test masks and the cutoff time (s): train runs ended by it, test runs start after."""
    starts = np.sort(runs["start_s"].to_numpy())
    cutoff_s = float(starts[min(len(starts) - 1, int(len(starts) * train_fraction))])
    train = (runs["end_s"] <= cutoff_s).to_numpy()
    test = (runs["start_s"] >= cutoff_s).to_numpy()
    return train, test, cutoff_s


def make_gbm(cfg: GBMConfig, seed: int) -> HistGradientBoostingRegressor:
    return HistGradientBoostingRegressor(max_iter=cfg.max_iter, learning_rate=cfg.learning_rate,
                                         max_leaf_nodes=cfg.max_leaf_nodes, min_samples_leaf=cfg.min_samples_leaf,
                                         early_stopping=cfg.early_stopping, validation_fraction=0.2,
                                         n_iter_no_change=10, random_state=seed)  # fmt: skip


def make_mlp(cfg: MLPConfig, seed: int) -> TransformedTargetRegressor:
    # Scaled inputs and target: Adam with default step sizes needs both near unit scale.
    net = MLPRegressor(hidden_layer_sizes=tuple(cfg.hidden_layers), alpha=cfg.alpha, max_iter=cfg.max_iter,
                       random_state=seed)  # fmt: skip
    return TransformedTargetRegressor(regressor=make_pipeline(SimpleImputer(strategy="median"), StandardScaler(), net),
                                      transformer=StandardScaler())  # fmt: skip


def make_linear(alphas: list[float]):
    return make_pipeline(SimpleImputer(strategy="median"), StandardScaler(), RidgeCV(alphas=alphas))


def last_run_baseline(runs: pd.DataFrame) -> np.ndarray:
    """Each run's prediction: the run time of the same app's latest run that had ended before it started."""
    predicted = np.full(len(runs), np.nan)
    for _app, group in runs.groupby("app"):
        ends = group.sort_values("end_s")
        end_times, run_times = ends["end_s"].to_numpy(), ends["run_time_s"].to_numpy()
        for position, start in zip(group.index, group["start_s"], strict=True):
            k = np.searchsorted(end_times, start, side="right") - 1
            if k >= 0:
                predicted[runs.index.get_loc(position)] = run_times[k]
    return predicted


def rolling_median_baseline(runs: pd.DataFrame, window: int) -> np.ndarray:
    """Each run's prediction: the median run time of the same app's last `window` runs that had ended before it."""
    predicted = np.full(len(runs), np.nan)
    for _app, group in runs.groupby("app"):
        ends = group.sort_values("end_s")
        end_times, run_times = ends["end_s"].to_numpy(), ends["run_time_s"].to_numpy()
        for position, start in zip(group.index, group["start_s"], strict=True):
            k = int(np.searchsorted(end_times, start, side="right"))
            if k > 0:
                predicted[runs.index.get_loc(position)] = np.median(run_times[max(0, k - window) : k])
    return predicted


def near_constant_features(x: np.ndarray, columns: list[str], max_share: float) -> dict[str, float]:
    """{feature: share of rows holding its most common value} for features at or above `max_share`
    (missing values count as one value): they carry (almost) nothing and are dropped, never ranked."""
    dropped = {}
    for index, name in enumerate(columns):
        column = x[:, index]
        values = np.where(np.isnan(column), np.inf, column)  # NaN != NaN: count missing as one value
        share = float(np.unique(values, return_counts=True)[1].max() / len(values)) if len(values) else 1.0
        if share >= max_share:
            dropped[name] = share
    return dropped


def too_few_runs_reason(app: str, n_train: int, n_test: int) -> str:
    return (f"app {app}: {n_train} training and {n_test} test runs; the models need >= {MIN_TRAIN_RUNS} and "
            f">= {MIN_TEST_RUNS}")  # fmt: skip


# How to give an app enough runs on both sides of the cutoff.
MORE_RUNS_FIX = ("move the time-ordered split (monitoring.models.train_fraction, now the share of runs before the "
                 "cutoff), or give more runs (a longer run table; synthetic data: monitoring.synthetic.days or "
                 "runs_per_app_per_day)")  # fmt: skip


def split_counts(runs: pd.DataFrame, train: np.ndarray, test: np.ndarray) -> dict[str, tuple[int, int]]:
    """{app: (training runs, test runs)}, apps sorted."""
    counts = {}
    for app in sorted(runs["app"].unique()):
        in_app = (runs["app"] == app).to_numpy()
        counts[app] = (int((train & in_app).sum()), int((test & in_app).sum()))
    return counts


def apps_left_out(counts: dict[str, tuple[int, int]]) -> dict[str, str]:
    """{app: reason} for the apps with too few training or test runs for the models."""
    return {app: too_few_runs_reason(app, n_train, n_test) for app, (n_train, n_test) in counts.items()
            if n_train < MIN_TRAIN_RUNS or n_test < MIN_TEST_RUNS}  # fmt: skip


def left_out_baselines(runs: pd.DataFrame, last_run: np.ndarray, rolling_median: np.ndarray, test: np.ndarray,
                       apps: list[str]) -> pd.DataFrame:  # fmt: skip
    """The baselines' predictions for the runs of `apps` that had an earlier finished run of their app."""
    table = runs[["job_id", "app", "run_time_s"]].assign(last_run=last_run, rolling_median=rolling_median, test=test)
    return table[table["app"].isin(apps) & table["last_run"].notna()].reset_index(drop=True)


def fit_models(features: pd.DataFrame, meta: dict, cfg: PerformanceModelConfig, seed: int,
               threads: int = 1) -> tuple[pd.DataFrame, dict]:  # fmt: skip
    # OpenMP/BLAS pools sized to the job: on shared cores, spinning extra threads made fits 15x slower.
    with threadpool_limits(limits=threads):
        return _fit_models(features, meta, cfg, seed)


def _fit_models(features: pd.DataFrame, meta: dict, cfg: PerformanceModelConfig, seed: int) -> tuple[pd.DataFrame, dict]:
    features = features.reset_index(drop=True)
    train, test, cutoff_s = time_ordered_split(features, cfg.train_fraction)
    if features["app"].nunique() < 2:
        raise ValueError(f"only one app ({sorted(features['app'].unique())}) in the runs: leave-one-app-out and the "
                         "app-agnostic models need two or more. Fix: list two or more apps in monitoring.real.apps "
                         "(empty keeps every app in the table), or give a table with more apps")  # fmt: skip
    counts = split_counts(features, train, test)
    left_out = apps_left_out(counts)
    apps = [app for app in counts if app not in left_out]
    if len(apps) < 2:
        raise ValueError(f"{'; '.join(left_out.values())}. Fewer than two apps have enough runs for the models "
                         f"(leave-one-app-out and the app-agnostic models need two). Fix: {MORE_RUNS_FIX}")  # fmt: skip
    for reason in left_out.values():
        logger.warning("%s: left out of the models; its baselines and change points are still computed. To model "
                       "it: %s", reason, MORE_RUNS_FIX)  # fmt: skip
    # The baselines fit nothing, so every run with an earlier finished run of its app has a prediction; the
    # left-out apps keep theirs before their runs leave the split.
    last_run = last_run_baseline(features)
    rolling_median = rolling_median_baseline(features, cfg.rolling_median_runs)
    baselines_left_out = left_out_baselines(features, last_run, rolling_median, test, list(left_out))
    modelled = features["app"].isin(apps).to_numpy()
    train, test = train & modelled, test & modelled
    dropped = near_constant_features(features.loc[train, list(meta)].to_numpy(dtype=float), list(meta),
                                     cfg.near_constant_share)  # fmt: skip
    if dropped:
        logger.warning("dropped %d (near-)constant feature(s), not used or ranked (share of training runs with "
                       "their most common value; threshold models.near_constant_share=%s): %s", len(dropped),
                       cfg.near_constant_share, {k: round(v, 3) for k, v in dropped.items()})  # fmt: skip
    columns = [name for name in meta if name not in dropped]
    if not columns:
        raise ValueError(f"every feature is (near-)constant over the training runs: {sorted(dropped)}. Fix: give "
                         "runs at different times or of different sizes, or raise monitoring.models.near_constant_share")  # fmt: skip
    x = features[columns].to_numpy(dtype=float)
    log_y = np.log(features["run_time_s"].to_numpy())
    logger.info("split at %s: %d train runs, %d test runs of %d modelled apps, %d straddling runs left out",
                pd.Timestamp(cutoff_s, unit="s"), train.sum(), test.sum(), len(apps),
                (~train & ~test & modelled).sum())  # fmt: skip
    app_scale_s = {app: float(features.loc[train & (features["app"] == app), "run_time_s"].median()) for app in apps}
    scale = features["app"].map(app_scale_s).to_numpy()
    log_rel = log_y - np.log(scale)
    rows, bundle = [], {"feature_columns": columns, "dropped_features": dropped, "cutoff_s": cutoff_s, "app_scale_s": app_scale_s,
                        "train_job_ids": features.loc[train, "job_id"].tolist(),
                        "test_job_ids": features.loc[test, "job_id"].tolist(),
                        "per_app": {}, "agnostic": {}, "loao": {}, "control": {},
                        "left_out": {app: {"reason": reason, "n_runs": int((features["app"] == app).sum()),
                                           "n_train": counts[app][0], "n_test": counts[app][1]}
                                     for app, reason in left_out.items()},
                        "left_out_baselines": baselines_left_out}  # fmt: skip

    def record(mask, family, model, predicted_s):
        part = features.loc[mask, ["job_id", "app", "run_time_s"]].assign(family=family, model=model,
                                                                          predicted_s=predicted_s)  # fmt: skip
        rows.append(part)

    rng = np.random.default_rng(seed)
    # Fits: per app, the app-agnostic pair, then leave-one-app-out per app.
    progress = Progress("model fits", total=2 * len(apps) + 1, unit="fit", logger=logger)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a capped MLP is still a valid baseline; logged below
        for app in apps:
            in_app = (features["app"] == app).to_numpy()
            tr, te = train & in_app, test & in_app
            fitted = {
                "gbm": make_gbm(cfg.gbm, seed).fit(x[tr], log_y[tr]),
                "mlp": make_mlp(cfg.mlp, seed).fit(x[tr], log_y[tr]),
                "linear": make_linear(cfg.ridge_alphas).fit(x[tr], log_y[tr]),
            }
            for name, model in fitted.items():
                record(te, "per_app", name, np.exp(model.predict(x[te])))
            fallback = np.where(np.isnan(last_run[te]), app_scale_s[app], last_run[te])
            record(te, "per_app", "last_run", fallback)
            fallback = np.where(np.isnan(rolling_median[te]), app_scale_s[app], rolling_median[te])
            record(te, "per_app", "rolling_median", fallback)
            bundle["per_app"][app] = fitted
            # Permuted-label control: the same learner and features, labels shuffled within train and test.
            control_train_y = rng.permutation(log_y[tr])
            control_test_y = rng.permutation(log_y[te])
            control = make_gbm(cfg.gbm, seed).fit(x[tr], control_train_y)
            record(te, "control", "gbm", np.exp(control.predict(x[te])))
            bundle["control"][app] = {"gbm": control, "test_log_y": control_test_y}
            logger.info("fitted per-app models and control for %s (%d train, %d test runs)", app, tr.sum(), te.sum())
            progress.advance()

        agnostic = {"gbm": make_gbm(cfg.gbm, seed).fit(x[train], log_rel[train]),
                    "mlp": make_mlp(cfg.mlp, seed).fit(x[train], log_rel[train])}  # fmt: skip
        for name, model in agnostic.items():
            record(test, "agnostic", name, np.exp(model.predict(x[test])) * scale[test])
        bundle["agnostic"] = agnostic
        progress.advance()
        for held_out in apps:
            in_app = (features["app"] == held_out).to_numpy()
            tr, te = train & ~in_app, test & in_app
            fitted = {"gbm": make_gbm(cfg.gbm, seed).fit(x[tr], log_rel[tr]),
                      "mlp": make_mlp(cfg.mlp, seed).fit(x[tr], log_rel[tr])}  # fmt: skip
            for name, model in fitted.items():
                record(te, "loao", name, np.exp(model.predict(x[te])) * scale[te])
            bundle["loao"][held_out] = fitted
            logger.info("leave-one-app-out: fitted without %s on %d runs, tested on %d", held_out, tr.sum(), te.sum())
            progress.advance()
    progress.finish()
    predictions = pd.concat(rows, ignore_index=True)[["job_id", "app", "family", "model", "run_time_s", "predicted_s"]]
    return predictions, bundle


def main(*, features_path, meta_path, predictions_path, models_path, cfg: PerformanceModelConfig, seed: int, threads: int = 1):
    seed_everything(seed)
    prov = Provenance.start(step="monitoring.models", config=asdict(cfg), seed=seed)
    predictions, bundle = fit_models(pd.read_parquet(features_path), read_json(meta_path), cfg, seed, threads)
    with atomic_path(predictions_path, suffix=".parquet") as tmp:
        predictions.to_parquet(tmp, index=False)
    with atomic_path(models_path, suffix=".pkl") as tmp, open(tmp, "wb") as handle:
        pickle.dump(bundle, handle)
    prov.finish([predictions_path, models_path])


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(features_path=smk.input.features, meta_path=smk.input.meta, predictions_path=smk.output.predictions,
         models_path=smk.output.models, cfg=PerformanceModelConfig(**smk.params.cfg), seed=smk.params.seed, threads=smk.threads)  # fmt: skip
