"""The canonical monitoring data set that both data paths (synthetic, real) write and features.py reads.

Four tables, written as parquet by the data step:

- samples:   time_s (end of the sampling interval, seconds since the Unix epoch), component_id (a node),
             then one column per counter, as a *rate* (per second; cumulative counters already
             differenced) or a gauge. A sample at time t describes the interval (t - interval, t].
- topology:  component_id, router_id, group_id (dragonfly: nodes share a router, routers form groups).
- runs:      job_id, app, start_s, end_s, run_time_s (one row per control-job run), and n_nodes where
             a run-time table gives the job size.
- placement: job_id, component_id (the nodes each run used).

`check_tables` is run on every path before anything is written, so features.py can trust them. On the
run-time-only path (source 'runtimes') samples, topology and placement are empty: runtime_only=True.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

logger = logging.getLogger(__name__)

SAMPLE_KEYS = ("time_s", "component_id")
TOPOLOGY_COLUMNS = ("component_id", "router_id", "group_id")
RUN_COLUMNS = ("job_id", "app", "start_s", "end_s", "run_time_s")
PLACEMENT_COLUMNS = ("job_id", "component_id")


def counter_columns(samples: pd.DataFrame) -> list[str]:
    return [c for c in samples.columns if c not in SAMPLE_KEYS]


def check_tables(samples: pd.DataFrame, topology: pd.DataFrame, runs: pd.DataFrame, placement: pd.DataFrame,
                 runtime_only: bool = False) -> None:
    """Raise ValueError naming the table, column and fix when the tables do not fit together."""
    for name, frame, columns in (
        ("samples", samples, SAMPLE_KEYS),
        ("topology", topology, TOPOLOGY_COLUMNS),
        ("runs", runs, RUN_COLUMNS),
        ("placement", placement, PLACEMENT_COLUMNS),
    ):
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise ValueError(f"{name} table: missing column(s) {missing}; it needs {list(columns)}")
    if runs.empty:
        raise ValueError("runs table: no runs; check the job/run table and the app names in it (monitoring.real.apps)")
    if runtime_only:
        if not samples.empty or not placement.empty:
            raise ValueError("run-time-only tables: samples and placement must be empty")
    elif not counter_columns(samples):
        raise ValueError("samples table: no counter columns besides time_s and component_id")
    if runs["job_id"].duplicated().any():
        dup = runs.loc[runs["job_id"].duplicated(), "job_id"].iloc[0]
        raise ValueError(f"runs table: job_id {dup} appears more than once; job ids must be unique")
    bad = runs[~(runs["run_time_s"] > 0)]
    if not bad.empty:
        raise ValueError(f"runs table: job {bad['job_id'].iloc[0]} has run_time_s <= 0 or missing")
    if runtime_only:
        return
    unknown_nodes = set(placement["component_id"]) - set(topology["component_id"])
    if unknown_nodes:
        raise ValueError(f"placement: component ids {sorted(unknown_nodes)[:5]} are not in the topology table")
    unplaced = set(runs["job_id"]) - set(placement["job_id"])
    if unplaced:
        raise ValueError(
            f"runs {sorted(unplaced)[:5]} have no nodes: give them a 'nodes' column in the job table, or "
            "make sure the LDMS samples carry their job_id"
        )
    if not np.isfinite(samples["time_s"].to_numpy(dtype=float)).all():
        raise ValueError("samples table: time_s has missing or non-finite values")
