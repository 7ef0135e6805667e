"""Features of the system state before each run starts: counter rates in windows, reduced per scope.

For every run, every counter and every window length w (config monitoring.features.windows_s), the
mean rate over the samples whose interval ends in [start - w, start) -- strictly before the start, so
no feature sees the run itself or anything after it -- reduced over three scopes:

  job     the nodes the run will use (their routers' counters, since each node reports its router)
  groups  all nodes in the dragonfly groups the run will use
  system  every node

plus placement features (nodes, routers and groups the run spans) and time features (hour of day,
day of week, in UTC).

Run-time-only data (source 'runtimes': no samples, no placement) gets only what the run table holds:
the time features, and n_nodes where the table names a node-count column (`build_runtime_features`).

Output: features.parquet (one row per run: job_id, app, start_s, end_s, run_time_s, then
the features) and feature_meta.json (for each feature: kind, counter, scope, window_s), which
analysis.py uses to group features by counter.

Run: `snakemake monitoring` (rule monitoring_features), or `main(data_dir paths..., cfg=FeatureConfig())`.
"""


import datetime as dt
import logging
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workflow_scripts.common import Provenance, atomic_path, snakemake_step, write_json
from workflow_scripts.common.config import schema_default
from workflow_scripts.monitoring.dataset_schema import counter_columns

logger = logging.getLogger(__name__)

SCOPES = ("job", "groups", "system")
RUN_KEYS = ["job_id", "app", "start_s", "end_s", "run_time_s"]


@dataclass(kw_only=True)
class FeatureConfig:
    # look-back windows before the start
    windows_s: list[int] = schema_default("monitoring.features.windows_s")
    scopes: list[str] = schema_default("monitoring.features.scopes")

    def __post_init__(self):
        if not self.windows_s or any(int(w) <= 0 for w in self.windows_s):
            raise ValueError(f"features.windows_s: give one or more window lengths > 0 s, got {self.windows_s}")
        self.windows_s = sorted({int(w) for w in self.windows_s})
        unknown = set(self.scopes) - set(SCOPES)
        if unknown or not self.scopes:
            raise ValueError(f"features.scopes: {sorted(unknown) or 'empty'} not allowed; choose from {list(SCOPES)}")


def feature_name(counter: str, scope: str, window_s: int) -> str:
    return f"{counter}__{scope}__{window_s}s"


def window_bounds(times_s: np.ndarray, start_s: float, window_s: float) -> tuple[int, int]:
    """Indices [lo, hi) of the sorted sample times in [start - window, start): strictly before the start."""
    lo = int(np.searchsorted(times_s, start_s - window_s, side="left"))
    hi = int(np.searchsorted(times_s, start_s, side="left"))
    return lo, hi


def time_features(start_s: float) -> dict[str, float]:
    when = dt.datetime.fromtimestamp(start_s, dt.UTC)
    return {"hour_of_day": when.hour + when.minute / 60, "day_of_week": when.weekday()}


def build_runtime_features(runs: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """Features of a run-time table alone: time of day, day of week, and the node count where it is given."""
    meta = {name: {"kind": "time", "counter": "time", "scope": "system", "window_s": 0}
            for name in ("hour_of_day", "day_of_week")}  # fmt: skip
    rows = pd.DataFrame([time_features(start) for start in runs["start_s"]], columns=list(meta), index=runs.index)
    if "n_nodes" in runs.columns:
        meta["n_nodes"] = {"kind": "placement", "counter": "placement", "scope": "job", "window_s": 0}
        rows["n_nodes"] = runs["n_nodes"].astype(float)
    keys = [c for c in RUN_KEYS if c in runs.columns]
    features = pd.concat([runs[keys], rows], axis=1).sort_values("start_s", kind="stable").reset_index(drop=True)
    logger.info("features (run-time only, no counters): %d runs x %s", len(features), list(meta))
    return features, meta


def build_features(samples: pd.DataFrame, topology: pd.DataFrame, runs: pd.DataFrame, placement: pd.DataFrame,
                   cfg: FeatureConfig) -> tuple[pd.DataFrame, dict]:  # fmt: skip
    counters = counter_columns(samples)
    if not counters:
        return build_runtime_features(runs)
    times = np.sort(samples["time_s"].unique())
    components = np.sort(topology["component_id"].unique())
    t_index = np.searchsorted(times, samples["time_s"].to_numpy())
    c_index = np.searchsorted(components, samples["component_id"].to_numpy())
    # Dense cube (time, node, counter); NaN where a node has no sample (real data has gaps).
    cube = np.full((len(times), len(components), len(counters)), np.nan, dtype=np.float32)
    cube[t_index, c_index] = samples[counters].to_numpy(dtype=np.float32)
    group_of = topology.set_index("component_id").loc[components, "group_id"].to_numpy()
    router_of = topology.set_index("component_id").loc[components, "router_id"].to_numpy()
    nodes_of_job = placement.groupby("job_id")["component_id"].apply(lambda s: np.searchsorted(components, s.to_numpy()))

    meta = {}
    for counter in counters:
        for scope in cfg.scopes:
            for window in cfg.windows_s:
                meta[feature_name(counter, scope, window)] = {"kind": "counter", "counter": counter, "scope": scope,
                                                               "window_s": window}  # fmt: skip
    for name in ("n_nodes", "n_routers", "n_groups"):
        meta[name] = {"kind": "placement", "counter": "placement", "scope": "job", "window_s": 0}
    for name in ("hour_of_day", "day_of_week"):
        meta[name] = {"kind": "time", "counter": "time", "scope": "system", "window_s": 0}

    rows = []
    for run in runs.itertuples(index=False):
        nodes = nodes_of_job[run.job_id]
        scope_nodes = {
            "job": nodes,
            "groups": np.flatnonzero(np.isin(group_of, group_of[nodes])),
            "system": slice(None),
        }
        values = {}
        for window in cfg.windows_s:
            lo, hi = window_bounds(times, run.start_s, window)
            for scope in cfg.scopes:
                block = cube[lo:hi][:, scope_nodes[scope]]  # (samples in window, nodes in scope, counters)
                if block.size == 0 or np.isnan(block).all(axis=(0, 1)).all():
                    means = np.full(len(counters), np.nan)
                else:
                    with warnings.catch_warnings():  # a counter with no sample in the window: NaN
                        warnings.simplefilter("ignore", RuntimeWarning)
                        means = np.nanmean(block, axis=(0, 1))
                for counter, mean in zip(counters, means, strict=True):
                    values[feature_name(counter, scope, window)] = float(mean)
        values.update(n_nodes=len(nodes), n_routers=len(np.unique(router_of[nodes])),
                      n_groups=len(np.unique(group_of[nodes])), **time_features(run.start_s))  # fmt: skip
        rows.append(values)
    features = pd.concat([runs[RUN_KEYS].reset_index(drop=True), pd.DataFrame(rows, columns=list(meta))], axis=1)
    features = features.sort_values("start_s", kind="stable").reset_index(drop=True)
    missing = features[list(meta)].isna().mean()
    if (missing > 0).any():
        logger.warning("features with missing values (share of runs): %s", missing[missing > 0].round(3).to_dict())
    logger.info("features: %d runs x %d features (%d counters, scopes %s, windows %s s)",
                len(features), len(meta), len(counters), cfg.scopes, cfg.windows_s)  # fmt: skip
    return features, meta


def main(*, samples_path, topology_path, runs_path, placement_path, features_path, meta_path, cfg: FeatureConfig):
    prov = Provenance.start(step="monitoring.features", config=cfg.__dict__)
    features, meta = build_features(pd.read_parquet(samples_path), pd.read_parquet(topology_path),
                                    pd.read_parquet(runs_path), pd.read_parquet(placement_path), cfg)  # fmt: skip
    with atomic_path(features_path, suffix=".parquet") as tmp:
        features.to_parquet(tmp, index=False)
    write_json(meta_path, meta)
    prov.finish([features_path, meta_path])


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(samples_path=smk.input.samples, topology_path=smk.input.topology, runs_path=smk.input.runs,
         placement_path=smk.input.placement, features_path=smk.output.features, meta_path=smk.output.meta,
         cfg=FeatureConfig(**smk.params.cfg))  # fmt: skip
