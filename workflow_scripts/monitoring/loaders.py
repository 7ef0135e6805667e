"""Loaders for real monitoring data, into the canonical tables of dataset_schema.py.

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
  The run table's column names are set in `columns` (app, start, job_id, run_time, and an optional
  nodes column holding the job's node count), so a site's own export is read as it is.
  Times are seconds since the epoch or ISO 8601, or, when `time_format` is set, text in that strptime
  format (e.g. '%Y-%m-%d_%H-%M-%S' for 2025-02-08_05-01-22). A time without a zone is read in
  `time_zone` (an IANA name, UTC by default); a local time that a clock change repeats takes its first
  (summer-time) reading and one that it skips moves forward, both with a warning.

Run-time-only route (monitoring.source 'runtimes', `load_runtimes`): the run table alone, no LDMS
files and no topology; the samples, topology and placement tables are written empty and the study
models run time from what the table has (time of day, day of week, the node count if given).
- Optionally a topology table: component_id,router_id,group_id. Without it every node is its own
  router and all are in one group (the 'groups' features then equal the 'system' ones).

Every problem raises LoaderError naming the file, the line (1 = the header) and the column, and what
to fix. Used by data.py when monitoring.source is 'ldms'.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import zoneinfo
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from workflow_scripts.common.config import schema_default, schema_defaults

logger = logging.getLogger(__name__)

LDMS_REQUIRED = ("#Time", "ProducerName", "component_id", "job_id")
LDMS_METADATA = ("#Time", "Time_usec", "ProducerName", "component_id", "job_id", "app_id")
JOB_TABLE_REQUIRED = ("job_id", "app", "nodes", "start_time", "end_time")
# The run table's roles (keys of monitoring.real.columns); nodes is optional.
RUN_TABLE_ROLES = ("app", "start", "job_id", "run_time", "nodes")
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
    # plain per-run table (nodes from the LDMS job_id column; the only input of source 'runtimes')
    run_table: str | None = schema_default("monitoring.real.run_table")
    topology: str | None = schema_default("monitoring.real.topology")  # component_id,router_id,group_id
    # counters read as levels, not differenced
    gauge_counters: list[str] = schema_default("monitoring.real.gauge_counters")
    sample_interval_s: int = schema_default("monitoring.real.sample_interval_s")
    apps: list[str] = schema_default("monitoring.real.apps")  # control apps to keep; empty: all
    # the run table's column names: {app, start, job_id, run_time, nodes (None: no node count)}
    columns: dict = schema_default("monitoring.real.columns")
    time_format: str | None = schema_default("monitoring.real.time_format")  # strptime format; None: epoch or ISO
    time_zone: str = schema_default("monitoring.real.time_zone")  # IANA zone of times written without one

    def __post_init__(self):
        unknown = sorted(set(self.columns) - set(RUN_TABLE_ROLES))
        if unknown:
            raise ValueError(f"real.columns: unknown key(s) {unknown}; the roles are {list(RUN_TABLE_ROLES)}")
        self.columns = {**schema_defaults("monitoring.real.columns"), **self.columns}
        if self.sample_interval_s <= 0:
            raise ValueError(f"real.sample_interval_s must be > 0, got {self.sample_interval_s}")
        try:
            zoneinfo.ZoneInfo(self.time_zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError) as err:
            raise ValueError(f"real.time_zone {self.time_zone!r} is not an IANA time zone; write e.g. "
                             "'UTC' or 'America/New_York'") from err  # fmt: skip
        for path in [*self.ldms_csv, self.job_table, self.run_table, self.topology]:
            if path is not None and not Path(path).is_file():
                raise ValueError(f"real: file {path} does not exist; fix the path in config monitoring.real")

    def check_ldms(self):
        """What source 'ldms' needs beyond the common checks."""
        if not self.ldms_csv:
            raise ValueError("real.ldms_csv: list one or more LDMS CSV files (source 'ldms' needs them; with only "
                             "a run-time table set monitoring.source: runtimes)")  # fmt: skip
        if (self.job_table is None) == (self.run_table is None):
            raise ValueError("real: give exactly one of real.job_table (with nodes) or real.run_table")

    def check_runtimes(self):
        """What source 'runtimes' needs: a run table, and nothing it would silently ignore."""
        if self.run_table is None:
            raise ValueError("real.run_table: name the run-time table (source 'runtimes' reads only it; columns "
                             "app, start time, job id, run time, named in real.columns)")  # fmt: skip
        ignored = [key for key in ("ldms_csv", "job_table", "topology") if getattr(self, key)]
        if ignored:
            raise ValueError(f"real.{ignored[0]} is set, but source 'runtimes' reads only real.run_table: remove "
                             f"{['real.' + key for key in ignored]} or set monitoring.source: ldms")  # fmt: skip


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


def _localize(stamp: pd.Timestamp, time_zone: str) -> tuple[pd.Timestamp, str | None]:
    """A zone-less time read in `time_zone`; the second value names a clock-change problem, if any."""
    try:
        return stamp.tz_localize(time_zone), None
    except Exception:  # noqa: BLE001 -- pytz/zoneinfo raise different AmbiguousTimeError/NonExistentTimeError types
        pass
    try:
        return stamp.tz_localize(time_zone, ambiguous=True), "repeated by a clock change (read as summer time)"
    except Exception:  # noqa: BLE001
        return stamp.tz_localize(time_zone, nonexistent="shift_forward"), "skipped by a clock change (moved forward)"


def _times(path, frame: pd.DataFrame, column: str, time_format: str | None = None, time_zone: str = "UTC") -> np.ndarray:
    """Seconds since the epoch from numbers or ISO 8601 text, or from text in `time_format` (strptime).

    A time without a zone is read in `time_zone`.
    """
    text = frame[column].str.strip()
    if time_format is None:
        numbers = pd.to_numeric(text, errors="coerce")
        out = numbers.to_numpy(dtype=float, copy=True)  # pandas may hand back a read-only view
        textual = np.flatnonzero(numbers.isna().to_numpy())
    else:  # a format is explicit: every row is read with it (a format like %Y%m%d%H%M%S looks numeric)
        out = np.full(len(text), np.nan)
        textual = np.arange(len(text))
    clock_changes = []
    for row in map(int, textual):
        try:
            if time_format is None:
                stamp = pd.Timestamp(text.iloc[row])
            else:
                stamp = pd.Timestamp(dt.datetime.strptime(text.iloc[row], time_format))
        except (ValueError, TypeError):
            stamp = None
        if stamp is None or pd.isna(stamp):
            if time_format is None:
                raise LoaderError(path, f"time {text.iloc[row]!r} is neither seconds since the epoch nor ISO 8601",
                                  "write e.g. 1704067200 or 2024-01-01T00:00:00Z, or give its strptime format in "
                                  "monitoring.real.time_format", line=row + 2, column=column)  # fmt: skip
            raise LoaderError(path, f"time {text.iloc[row]!r} does not match monitoring.real.time_format "
                              f"{time_format!r}", "fix the row, or set time_format to the format the file uses "
                              "(strptime codes, e.g. '%Y-%m-%d_%H-%M-%S')", line=row + 2, column=column)  # fmt: skip
        if stamp.tzinfo is None:
            stamp, problem = _localize(stamp, time_zone)
            if problem:
                clock_changes.append(f"line {row + 2} ({text.iloc[row]}): {problem}")
        out[row] = stamp.timestamp()
    if clock_changes:
        logger.warning("%s, column '%s': %d local time(s) in %s fall in a clock change: %s", path, column,
                       len(clock_changes), time_zone, "; ".join(clock_changes[:5]))  # fmt: skip
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


def load_job_table(path, time_format: str | None = None, time_zone: str = "UTC") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scheduler job table -> (runs, placement); times as in load_run_table."""
    frame = _read_csv(path, JOB_TABLE_REQUIRED, "job table", ",".join(JOB_TABLE_REQUIRED) + "[,run_time_s]")
    job_id = _numeric(path, frame, "job_id", integer=True)
    start = _times(path, frame, "start_time", time_format, time_zone)
    end = _times(path, frame, "end_time", time_format, time_zone)
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


def load_run_table(path, columns: dict | None = None, time_format: str | None = None, time_zone: str = "UTC",
                   integer_job_ids: bool = True) -> pd.DataFrame:  # fmt: skip
    """Per-run table -> runs (job_id, app, start_s, end_s, run_time_s, and n_nodes when a nodes column is named).

    `columns` maps the roles app, start, job_id, run_time, nodes to the file's column names (defaults: the
    schema's). Job ids must be integers when they are matched with LDMS samples; in the run-time-only route
    they are kept as text (array jobs like '1234_5').
    """
    names = {**schema_defaults("monitoring.real.columns"), **(columns or {})}
    roles = [role for role in RUN_TABLE_ROLES if names.get(role)]
    required = tuple(names[role] for role in roles)
    mapping = ", ".join(f"{role}: {names[role]}" for role in roles)
    frame = _read_csv(path, required, "run table", f"{','.join(required)} (monitoring.real.columns maps {mapping}; "
                      "name your file's columns there)")  # fmt: skip
    start = _times(path, frame, names["start"], time_format, time_zone)
    run_time = _numeric(path, frame, names["run_time"])
    for row in np.flatnonzero(~(run_time > 0)):
        raise LoaderError(path, f"run time {run_time[row]} is not positive", "write the run's wall time in seconds",
                          line=int(row) + 2, column=names["run_time"])  # fmt: skip
    if integer_job_ids:
        job_id = _numeric(path, frame, names["job_id"], integer=True)
    else:
        job_id = frame[names["job_id"]].str.strip().to_numpy()
        empty = np.flatnonzero(job_id == "")
        if len(empty):
            raise LoaderError(path, "empty job id", "give every run its job id", line=int(empty[0]) + 2,
                              column=names["job_id"])  # fmt: skip
    duplicated = pd.Series(job_id).duplicated(keep="first").to_numpy()
    if duplicated.any():
        row = int(np.flatnonzero(duplicated)[0])
        first = int(np.flatnonzero(job_id == job_id[row])[0])
        raise LoaderError(path, f"job id {job_id[row]} already appears on line {first + 2}",
                          "keep one row per run (job ids must be unique)", line=row + 2, column=names["job_id"])  # fmt: skip
    runs = pd.DataFrame({"job_id": job_id, "app": frame[names["app"]].str.strip().to_numpy(), "start_s": start,
                         "end_s": start + run_time, "run_time_s": run_time})  # fmt: skip
    if names.get("nodes"):
        nodes = _numeric(path, frame, names["nodes"], integer=True)
        for row in np.flatnonzero(nodes < 1):
            raise LoaderError(path, f"node count {nodes[row]} is below 1", "write the number of nodes the run used",
                              line=int(row) + 2, column=names["nodes"])  # fmt: skip
        runs["n_nodes"] = nodes
    return runs


def load_topology(path) -> pd.DataFrame:
    frame = _read_csv(path, TOPOLOGY_REQUIRED, "topology table", ",".join(TOPOLOGY_REQUIRED))
    return pd.DataFrame({c: _numeric(path, frame, c, integer=True) for c in TOPOLOGY_REQUIRED})


def load_real(cfg: RealDataConfig) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """All real inputs -> (samples, topology, runs, placement) in the canonical schema."""
    cfg.check_ldms()
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
        runs, placement = load_job_table(cfg.job_table, cfg.time_format, cfg.time_zone)
    else:
        runs = load_run_table(cfg.run_table, cfg.columns, cfg.time_format, cfg.time_zone)
        placement = job_samples.loc[job_samples["job_id"] != 0, ["job_id", "component_id"]].drop_duplicates()
        placement = placement[placement["job_id"].isin(runs["job_id"])]
    runs = _keep_apps(runs, cfg.apps, cfg.job_table or cfg.run_table, "app" if cfg.job_table else cfg.columns["app"])
    placement = placement[placement["job_id"].isin(runs["job_id"])].reset_index(drop=True)
    if cfg.topology is not None:
        topology = load_topology(cfg.topology)
    else:
        nodes = np.union1d(samples["component_id"].unique(), placement["component_id"].unique())
        logger.warning("no topology table: each node is its own router, all nodes one group")
        topology = pd.DataFrame({"component_id": nodes, "router_id": nodes, "group_id": np.zeros_like(nodes)})
    return samples, topology, runs.reset_index(drop=True), placement


def _keep_apps(runs: pd.DataFrame, apps: list[str], source, column: str) -> pd.DataFrame:
    """The runs of the apps in real.apps (all when it is empty); an app that never appears is an error."""
    if not apps:
        return runs
    unknown = sorted(set(apps) - set(runs["app"]))
    if unknown:
        raise LoaderError(source, f"apps {unknown} from real.apps never appear in the '{column}' column",
                          f"choose from {sorted(set(runs['app']))}", column=column)  # fmt: skip
    return runs[runs["app"].isin(apps)]


def load_runtimes(cfg: RealDataConfig) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The run-time-only route: the run table -> (samples, topology, runs, placement), the first, second
    and fourth empty (no counters, no nodes). Job ids stay text."""
    cfg.check_runtimes()
    runs = load_run_table(cfg.run_table, cfg.columns, cfg.time_format, cfg.time_zone, integer_job_ids=False)
    runs = _keep_apps(runs, cfg.apps, cfg.run_table, cfg.columns["app"]).sort_values("start_s", kind="stable")
    samples = pd.DataFrame({"time_s": pd.Series(dtype=float), "component_id": pd.Series(dtype=np.int64)})
    topology = pd.DataFrame({c: pd.Series(dtype=np.int64) for c in TOPOLOGY_REQUIRED})
    placement = pd.DataFrame({"job_id": pd.Series(dtype=str), "component_id": pd.Series(dtype=np.int64)})
    counts = runs["app"].value_counts().sort_index().to_dict()
    logger.info("%s: %d runs of %d apps %s, no counters (run-time-only route)", cfg.run_table, len(runs), len(counts),
                counts)  # fmt: skip
    return samples, topology, runs.reset_index(drop=True), placement
