"""Loaders for real monitoring data, into the canonical tables of tables.py.

Inputs (paths in config monitoring.real):

- LDMS CSV files (one per sampler set), as LDMS's CSV store writes them:
      #Time,Time_usec,ProducerName,component_id,job_id,app_id,<counter>,<counter>,...
  `#Time` is seconds since the epoch (fractions allowed), component_id the node, job_id the job
  running there (0 when idle). Counters are cumulative and are differenced per component into rates
  per second, except those named in `gauge_counters` (e.g. memory in use), which are kept as read.
  A negative difference (a counter reset or wrap) becomes a missing value. Samples are then averaged
  onto a grid of `sample_interval_s`, each grid time closing its interval.
- Either a scheduler job table: job_id,app,nodes,start_time,end_time[,run_time_s]
  (nodes: component ids separated by ';', ranges as 'a-b'), or a plain per-run table:
  app,start_time,job_id,run_time_s (the nodes then come from the job_id column of the LDMS samples).
  Times are seconds since the epoch or ISO 8601 (UTC when no zone is given).
- Optionally a topology table: component_id,router_id,group_id. Without it every node is its own
  router and all are in one group (the 'groups' features then equal the 'system' ones).

Every problem raises LoaderError naming the file, the line (1 = the header) and the column, and what
to fix. Used by data.py when monitoring.source is 'ldms'.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from workflow_scripts.common.config import schema_default

logger = logging.getLogger(__name__)

LDMS_REQUIRED = ("#Time", "ProducerName", "component_id", "job_id")
LDMS_METADATA = ("#Time", "Time_usec", "ProducerName", "component_id", "job_id", "app_id")
JOB_TABLE_REQUIRED = ("job_id", "app", "nodes", "start_time", "end_time")
RUN_TABLE_REQUIRED = ("app", "start_time", "job_id", "run_time_s")
TOPOLOGY_REQUIRED = ("component_id", "router_id", "group_id")


class LoaderError(ValueError):
    """A malformed input file: names the file, line and column, and the fix."""

    def __init__(self, path, problem: str, fix: str, line: int | None = None, column: str | None = None):
        where = str(path) + (f", line {line}" if line is not None else "") + (f", column '{column}'" if column else "")
        super().__init__(f"{where}: {problem}. Fix: {fix}")
        self.path, self.line, self.column = str(path), line, column


@dataclass(kw_only=True)
class RealDataConfig:
    ldms_csv: list[str] = schema_default("monitoring.real.ldms_csv")  # LDMS CSV files, one per sampler set
    # scheduler job table (with nodes), or
    job_table: str | None = schema_default("monitoring.real.job_table")
    # plain per-run table (nodes from the LDMS job_id column)
    run_table: str | None = schema_default("monitoring.real.run_table")
    topology: str | None = schema_default("monitoring.real.topology")  # component_id,router_id,group_id
    # counters read as levels, not differenced
    gauge_counters: list[str] = schema_default("monitoring.real.gauge_counters")
    sample_interval_s: int = schema_default("monitoring.real.sample_interval_s")
    apps: list[str] = schema_default("monitoring.real.apps")  # control apps to keep; empty: all

    def __post_init__(self):
        if not self.ldms_csv:
            raise ValueError("real.ldms_csv: list one or more LDMS CSV files (source 'ldms' needs them)")
        if (self.job_table is None) == (self.run_table is None):
            raise ValueError("real: give exactly one of real.job_table (with nodes) or real.run_table")
        if self.sample_interval_s <= 0:
            raise ValueError(f"real.sample_interval_s must be > 0, got {self.sample_interval_s}")
        for path in [*self.ldms_csv, self.job_table, self.run_table, self.topology]:
            if path is not None and not Path(path).is_file():
                raise ValueError(f"real: file {path} does not exist; fix the path in config monitoring.real")


def _read_csv(path, required: tuple[str, ...], what: str, fix_header: str) -> pd.DataFrame:
    """Read a CSV as text, with ragged rows and missing columns reported by line and column."""
    path = Path(path)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except pd.errors.EmptyDataError as err:
        raise LoaderError(path, f"the {what} is empty", f"write the header line {fix_header}", line=1) from err
    except pd.errors.ParserError as err:
        match = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(err))
        if match:
            raise LoaderError(path, f"{match.group(3)} fields where the header has {match.group(1)}",
                              "give every row one value per header column", line=int(match.group(2))) from err  # fmt: skip
        raise LoaderError(path, f"not a readable CSV ({err})", f"write it as CSV with the header {fix_header}") from err
    frame.columns = [c.strip() for c in frame.columns]
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise LoaderError(path, f"the {what} header lacks {missing} (found {list(frame.columns)})",
                          f"the header must hold {fix_header}", line=1)  # fmt: skip
    if frame.empty:
        raise LoaderError(path, f"the {what} has a header but no rows", "add the data rows", line=2)
    return frame


def _numeric(path, frame: pd.DataFrame, column: str, *, integer: bool = False) -> np.ndarray:
    """A column as numbers; the first bad cell is named by its line (header = line 1)."""
    text = frame[column].str.strip()
    values = pd.to_numeric(text, errors="coerce")
    bad = values.isna()
    if integer:
        bad |= values % 1 != 0
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        kind = "an integer" if integer else "a number"
        raise LoaderError(path, f"value {text.iloc[row]!r} is not {kind}", f"write {kind} in every row of '{column}'",
                          line=row + 2, column=column)  # fmt: skip
    return values.to_numpy(dtype=np.int64 if integer else float)


def _times(path, frame: pd.DataFrame, column: str) -> np.ndarray:
    """Seconds since the epoch from numbers or ISO 8601 text (UTC when no zone is given)."""
    text = frame[column].str.strip()
    numbers = pd.to_numeric(text, errors="coerce")
    out = numbers.to_numpy(dtype=float, copy=True)  # pandas may hand back a read-only view
    textual = numbers.isna().to_numpy()
    for row in np.flatnonzero(textual):
        try:
            stamp = pd.Timestamp(text.iloc[row])
        except (ValueError, TypeError):
            stamp = None
        if stamp is None or pd.isna(stamp):
            raise LoaderError(path, f"time {text.iloc[row]!r} is neither seconds since the epoch nor ISO 8601",
                              "write e.g. 1704067200 or 2024-01-01T00:00:00Z", line=row + 2, column=column)  # fmt: skip
        if stamp.tzinfo is None:
            stamp = stamp.tz_localize("UTC")
        out[row] = stamp.timestamp()
    return out


def load_ldms_csv(path, gauge_counters: list[str], sample_interval_s: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One LDMS CSV file -> (samples on the grid: time_s, component_id, counters as rates; job_id per sample)."""
    path = Path(path)
    with open(path, encoding="utf-8") as handle:
        first = handle.readline()
    if not first.startswith("#Time"):
        raise LoaderError(path, f"the first line starts with {first[:20]!r}, not '#Time'",
                          "point real.ldms_csv at a file from LDMS's CSV store (header '#Time,Time_usec,"
                          "ProducerName,component_id,job_id,app_id,<counters>')", line=1)  # fmt: skip
    frame = _read_csv(path, LDMS_REQUIRED, "LDMS CSV", "#Time,Time_usec,ProducerName,component_id,job_id,app_id,<counters>")
    counters = [c for c in frame.columns if c not in LDMS_METADATA]
    if not counters:
        raise LoaderError(path, "no counter columns after the LDMS metadata columns", "export the sampler's metrics",
                          line=1)  # fmt: skip
    time_s = _numeric(path, frame, "#Time")
    component = _numeric(path, frame, "component_id", integer=True)
    job = _numeric(path, frame, "job_id", integer=True)
    values = np.column_stack([_numeric(path, frame, c) for c in counters])
    duplicated = pd.DataFrame({"t": time_s, "c": component}).duplicated()
    if duplicated.any():
        row = int(np.flatnonzero(duplicated.to_numpy())[0])
        raise LoaderError(path, f"a second sample of component {component[row]} at time {time_s[row]}",
                          "remove the duplicate row (or split the sampler sets into separate files)",
                          line=row + 2, column="#Time")  # fmt: skip
    raw = pd.DataFrame(values, columns=counters).assign(time_s=time_s, component_id=component, job_id=job)
    raw = raw.sort_values(["component_id", "time_s"], kind="stable")
    cumulative = [c for c in counters if c not in set(gauge_counters)]
    by_component = raw.groupby("component_id", sort=False)
    elapsed = by_component["time_s"].diff()
    rates = raw[counters].copy()
    if cumulative:
        rates[cumulative] = by_component[cumulative].diff().div(elapsed, axis=0)
        resets = (rates[cumulative] < 0).sum()
        if resets.any():
            logger.warning("%s: counter resets or wraps set to missing: %s", path, resets[resets > 0].to_dict())
        rates[cumulative] = rates[cumulative].mask(rates[cumulative] < 0)
        first = elapsed.isna()
        rates = rates[~first.to_numpy()]  # the first sample of each component has no rate
        raw = raw[~first.to_numpy()]
    grid = np.ceil(raw["time_s"].to_numpy() / sample_interval_s) * sample_interval_s
    rates = rates.assign(time_s=grid, component_id=raw["component_id"].to_numpy())
    samples = rates.groupby(["time_s", "component_id"], as_index=False)[counters].mean()
    jobs = pd.DataFrame({"time_s": raw["time_s"].to_numpy(), "component_id": raw["component_id"].to_numpy(),
                         "job_id": raw["job_id"].to_numpy()})  # fmt: skip
    logger.info("%s: %d components, %d counters (%d cumulative), %d grid samples", path,
                samples["component_id"].nunique(), len(counters), len(cumulative), len(samples))  # fmt: skip
    return samples, jobs


def parse_nodes(text: str) -> list[int]:
    """'3;4;10-12' -> [3, 4, 10, 11, 12]; raises ValueError on a bad token."""
    nodes: list[int] = []
    for token in filter(None, (t.strip() for t in str(text).split(";"))):
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", token)
        if not match or (match.group(2) and int(match.group(2)) < int(match.group(1))):
            raise ValueError(f"bad node token {token!r}")
        lo = int(match.group(1))
        nodes.extend(range(lo, int(match.group(2) or lo) + 1))
    if not nodes:
        raise ValueError("no nodes")
    return nodes


def load_job_table(path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scheduler job table -> (runs, placement)."""
    frame = _read_csv(path, JOB_TABLE_REQUIRED, "job table", ",".join(JOB_TABLE_REQUIRED) + "[,run_time_s]")
    job_id = _numeric(path, frame, "job_id", integer=True)
    start, end = _times(path, frame, "start_time"), _times(path, frame, "end_time")
    run_time = _numeric(path, frame, "run_time_s") if "run_time_s" in frame.columns else end - start
    for row in np.flatnonzero(~(run_time > 0)):
        raise LoaderError(path, f"run time {run_time[row]} s is not positive (end before start?)",
                          "check start_time, end_time and run_time_s of this job", line=int(row) + 2,
                          column="run_time_s" if "run_time_s" in frame.columns else "end_time")  # fmt: skip
    placement = []
    for row, (job, text) in enumerate(zip(job_id, frame["nodes"], strict=True)):
        try:
            placement.extend((int(job), node) for node in parse_nodes(text))
        except ValueError as err:
            raise LoaderError(path, f"nodes {text!r}: {err}", "list component ids separated by ';', ranges as 'a-b'",
                              line=row + 2, column="nodes") from err  # fmt: skip
    runs = pd.DataFrame({"job_id": job_id, "app": frame["app"].str.strip().to_numpy(), "start_s": start,
                         "end_s": start + run_time, "run_time_s": run_time})  # fmt: skip
    return runs, pd.DataFrame(placement, columns=["job_id", "component_id"])


def load_run_table(path) -> pd.DataFrame:
    """Plain per-run table -> runs (placement comes from the LDMS job ids)."""
    frame = _read_csv(path, RUN_TABLE_REQUIRED, "run table", ",".join(RUN_TABLE_REQUIRED))
    start, run_time = _times(path, frame, "start_time"), _numeric(path, frame, "run_time_s")
    for row in np.flatnonzero(~(run_time > 0)):
        raise LoaderError(path, f"run time {run_time[row]} is not positive", "write the run's wall time in seconds",
                          line=int(row) + 2, column="run_time_s")  # fmt: skip
    return pd.DataFrame({"job_id": _numeric(path, frame, "job_id", integer=True), "app": frame["app"].str.strip().to_numpy(),
                         "start_s": start, "end_s": start + run_time, "run_time_s": run_time})  # fmt: skip


def load_topology(path) -> pd.DataFrame:
    frame = _read_csv(path, TOPOLOGY_REQUIRED, "topology table", ",".join(TOPOLOGY_REQUIRED))
    return pd.DataFrame({c: _numeric(path, frame, c, integer=True) for c in TOPOLOGY_REQUIRED})


def load_real(cfg: RealDataConfig) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """All real inputs -> (samples, topology, runs, placement) in the canonical schema."""
    samples, jobs = None, []
    for path in cfg.ldms_csv:
        part, job_part = load_ldms_csv(path, cfg.gauge_counters, cfg.sample_interval_s)
        jobs.append(job_part)
        if samples is None:
            samples = part
            continue
        clash = (set(part.columns) & set(samples.columns)) - {"time_s", "component_id"}
        if clash:
            raise LoaderError(path, f"counters {sorted(clash)} also appear in an earlier LDMS file",
                              "rename them or drop one of the files", line=1)  # fmt: skip
        samples = samples.merge(part, on=["time_s", "component_id"], how="outer")
    samples = samples.sort_values(["time_s", "component_id"]).reset_index(drop=True)
    job_samples = pd.concat(jobs, ignore_index=True)
    if cfg.job_table is not None:
        runs, placement = load_job_table(cfg.job_table)
    else:
        runs = load_run_table(cfg.run_table)
        placement = job_samples.loc[job_samples["job_id"] != 0, ["job_id", "component_id"]].drop_duplicates()
        placement = placement[placement["job_id"].isin(runs["job_id"])]
    if cfg.apps:
        unknown = sorted(set(cfg.apps) - set(runs["app"]))
        if unknown:
            source = cfg.job_table or cfg.run_table
            raise LoaderError(source, f"apps {unknown} from real.apps never appear in the 'app' column",
                              f"choose from {sorted(set(runs['app']))}", column="app")  # fmt: skip
        runs = runs[runs["app"].isin(cfg.apps)]
    placement = placement[placement["job_id"].isin(runs["job_id"])].reset_index(drop=True)
    if cfg.topology is not None:
        topology = load_topology(cfg.topology)
    else:
        nodes = np.union1d(samples["component_id"].unique(), placement["component_id"].unique())
        logger.warning("no topology table: each node is its own router, all nodes one group")
        topology = pd.DataFrame({"component_id": nodes, "router_id": nodes, "group_id": np.zeros_like(nodes)})
    return samples, topology, runs.reset_index(drop=True), placement
