"""Synthetic longitudinal monitoring data with known causes, and the ground truth beside it.

A dragonfly-like system (groups of routers, nodes on routers) runs background jobs of three kinds
(network-heavy, I/O-heavy, compute-heavy) on top of slowly drifting network and file-system load with a
daily cycle. Counters respond to that load:

  role        counter                        what drives it
  driver      rtr_stalled_cycles_per_s       router congestion u/(1-u): grows nonlinearly near saturation
  driver      fs_wait_ms_per_s               file-system congestion v/(1-v)
  proxy       rtr_flits_per_s                offered router load u (traffic, not congestion)
  proxy       nic_stalled_cycles_per_s       a noisier copy of the router's stalls, seen at the NIC
  proxy       fs_read_bytes_per_s,           file-system load v
              fs_write_bytes_per_s
  non_causal  login_sessions                 the daily cycle only: correlated with load, no causal path
  distractor  cpu_user_frac, power_w,        compute jobs and per-node noise: no effect on control jobs
              mem_used_mb, node_temp_c

On one known date the network loses part of its capacity (a step change): the same offered load then
causes more congestion. Control applications run repeatedly; each run's time is

  run_time_s = base_time_s * (1 + net_sensitivity * C_net + io_sensitivity * C_io) * exp(noise_sd * N(0,1))

with C_net the congestion u/(1-u) during the run on the job's routers (weight 0.6) and its groups (0.4),
and C_io the file-system congestion during the run. Models see only counters *before* the start.

The ground truth (truth.json) lists per app its drivers with their planted effect (the standard
deviation over that app's runs of the driver's term, in log run-time units), the best achievable MAPE
(that of the noiseless run time), the counters' roles and the change point.

Run: `snakemake monitoring` (rule monitoring_data, through data.py), or `generate(SyntheticConfig(...), seed=1)`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workflow_scripts.common.config import schema_default

logger = logging.getLogger(__name__)

COUNTER_ROLES = {
    "rtr_stalled_cycles_per_s": "driver",
    "fs_wait_ms_per_s": "driver",
    "rtr_flits_per_s": "proxy",
    "nic_stalled_cycles_per_s": "proxy",
    "fs_read_bytes_per_s": "proxy",
    "fs_write_bytes_per_s": "proxy",
    "login_sessions": "non_causal",
    "cpu_user_frac": "distractor",
    "power_w": "distractor",
    "mem_used_mb": "distractor",
    "node_temp_c": "distractor",
}
# Which latent each driver measures, and the app sensitivity that multiplies it.
DRIVER_SENSITIVITY = {"rtr_stalled_cycles_per_s": "net_sensitivity", "fs_wait_ms_per_s": "io_sensitivity"}
MAX_UTILISATION = 0.9  # keeps u/(1-u) finite: a saturated link still drains
# Load drift amplitudes (utilisation units). Kept below the planted step (0.3 / (1 - capacity_drop)
# - 0.3 at a 0.3 mean load) so the step stands out of the drift in the run-time series.
DRIFT_GROUP, DRIFT_ROUTER, DRIFT_SYSTEM, DRIFT_FS = 0.05, 0.03, 0.02, 0.12
DAILY_AMPLITUDE = 0.03
NET_LOCAL_WEIGHT = 0.6  # share of a job's network congestion felt on its own routers (rest: its groups)


@dataclass(kw_only=True)
class AppSpec:
    """One control application and how strongly the system state slows it down."""

    name: str
    base_time_s: float  # run time on an idle system
    nodes: int  # nodes per run
    net_sensitivity: float  # fractional slowdown per unit of network congestion u/(1-u)
    io_sensitivity: float  # fractional slowdown per unit of file-system congestion v/(1-v)
    noise_sd: float  # log-normal run-to-run noise: the floor no model can beat

    def __post_init__(self):
        if not self.name or not self.name.replace("_", "").replace("-", "").isalnum():
            raise ValueError(f"apps[].name {self.name!r}: use letters, digits, '-' or '_'")
        if self.base_time_s <= 0:
            raise ValueError(f"apps[{self.name}].base_time_s must be > 0, got {self.base_time_s}")
        if self.nodes < 1:
            raise ValueError(f"apps[{self.name}].nodes must be >= 1, got {self.nodes}")
        if self.net_sensitivity < 0 or self.io_sensitivity < 0 or self.noise_sd < 0:
            raise ValueError(f"apps[{self.name}]: sensitivities and noise_sd must be >= 0")


@dataclass(kw_only=True)
class SyntheticConfig:
    """The synthetic system, its history and its control applications (config: monitoring.synthetic)."""

    start_date: str = schema_default("monitoring.synthetic.start_date")  # first day of the history (UTC)
    days: float = schema_default("monitoring.synthetic.days")  # length of the history
    sample_interval_s: int = schema_default("monitoring.synthetic.sample_interval_s")  # LDMS sampling period
    groups: int = schema_default("monitoring.synthetic.groups")
    routers_per_group: int = schema_default("monitoring.synthetic.routers_per_group")
    nodes_per_router: int = schema_default("monitoring.synthetic.nodes_per_router")
    # arrivals of each of the three background kinds together
    background_jobs_per_day: float = schema_default("monitoring.synthetic.background_jobs_per_day")
    # correlation time of the slow load drift
    drift_timescale_h: float = schema_default("monitoring.synthetic.drift_timescale_h")
    runs_per_app_per_day: float = schema_default("monitoring.synthetic.runs_per_app_per_day")
    # day (from start_date) of the network capacity drop
    change_point_day: float = schema_default("monitoring.synthetic.change_point_day")
    # fraction of network capacity lost at the change point
    capacity_drop: float = schema_default("monitoring.synthetic.capacity_drop")
    # no control run starts before this, so every feature window has samples
    warmup_h: float = schema_default("monitoring.synthetic.warmup_h")
    apps: list[AppSpec] = field(default_factory=list)

    def __post_init__(self):
        self.apps = [a if isinstance(a, AppSpec) else AppSpec(**a) for a in self.apps]
        if len(self.apps) < 2:
            raise ValueError("synthetic.apps: give at least two control applications (leave-one-app-out needs them)")
        names = [a.name for a in self.apps]
        if len(set(names)) != len(names):
            raise ValueError(f"synthetic.apps: names must be unique, got {names}")
        for name in ("days", "sample_interval_s", "runs_per_app_per_day", "drift_timescale_h"):
            if getattr(self, name) <= 0:
                raise ValueError(f"synthetic.{name} must be > 0, got {getattr(self, name)}")
        for name in ("groups", "routers_per_group", "nodes_per_router"):
            if getattr(self, name) < 1:
                raise ValueError(f"synthetic.{name} must be >= 1, got {getattr(self, name)}")
        if not 0 <= self.change_point_day < self.days:
            raise ValueError(f"synthetic.change_point_day must lie in [0, days={self.days}), got {self.change_point_day}")
        if not 0 <= self.capacity_drop < 0.9:
            raise ValueError(f"synthetic.capacity_drop must lie in [0, 0.9), got {self.capacity_drop}")
        for app in self.apps:
            if app.nodes > self.n_nodes:
                raise ValueError(f"apps[{app.name}].nodes={app.nodes} exceeds the system's {self.n_nodes} nodes")
        dt.date.fromisoformat(self.start_date)  # raises ValueError naming the bad date

    @property
    def n_nodes(self) -> int:
        return self.groups * self.routers_per_group * self.nodes_per_router

    @property
    def start_epoch_s(self) -> float:
        return dt.datetime.fromisoformat(self.start_date).replace(tzinfo=dt.UTC).timestamp()


def _ou(rng: np.random.Generator, n_t: int, n_series: int, dt_s: float, tau_s: float) -> np.ndarray:
    """Ornstein-Uhlenbeck paths with unit stationary variance, shape (n_t, n_series): slow drift."""
    phi = np.exp(-dt_s / tau_s)
    shocks = rng.standard_normal((n_t, n_series)) * np.sqrt(1 - phi**2)
    out = np.empty((n_t, n_series))
    out[0] = rng.standard_normal(n_series)
    for k in range(1, n_t):
        out[k] = phi * out[k - 1] + shocks[k]
    return out


@dataclass
class SyntheticData:
    samples: pd.DataFrame
    topology: pd.DataFrame
    runs: pd.DataFrame
    placement: pd.DataFrame
    truth: dict


def generate(cfg: SyntheticConfig, seed: int) -> SyntheticData:
    """The system's history, its control runs and the ground truth, all drawn from one generator seeded
    with `seed`. The steps draw from it in a fixed order, so the same config and seed give the same data."""
    rng = np.random.default_rng(seed)
    clock = _Clock.of(cfg)
    topology = _Topology.of(cfg)
    load, fs_load = _drifting_load(rng, cfg, clock, topology)
    cpu_busy, n_background = _add_background_jobs(rng, cfg, clock, topology, load, fs_load)
    change_index = int(round(cfg.change_point_day * 86400 / clock.dt_s))
    congestion, fs_congestion = _congestion(cfg, load, fs_load, change_index)
    counters = _node_counters(rng, cfg, clock, topology, load, fs_load, congestion, fs_congestion, cpu_busy)
    runs, placement, truth_apps = _control_runs(rng, cfg, clock, topology, congestion, fs_congestion)
    truth = _ground_truth(cfg, clock, topology, truth_apps, change_index, n_background)
    logger.info("synthetic: %d nodes, %d samples each, %d background jobs, %d control runs",
                cfg.n_nodes, clock.n_t, n_background, len(runs))  # fmt: skip
    return SyntheticData(
        samples=_samples_table(clock, counters, cfg.n_nodes),
        topology=topology.table(),
        runs=runs,
        placement=placement,
        truth=truth,
    )


# --- the system: when it is sampled and how it is wired ----------------------------------------------
@dataclass(frozen=True)
class _Clock:
    """The sampling grid: n_t samples every dt_s seconds after t0_s."""

    t0_s: float
    dt_s: float
    time_s: np.ndarray  # (n_t,) end of each sample's interval: a sample closes its interval
    daily: np.ndarray  # (n_t,) the daily cycle in [-1, 1]

    @property
    def n_t(self) -> int:
        return len(self.time_s)

    @classmethod
    def of(cls, cfg: SyntheticConfig) -> _Clock:
        dt_s = float(cfg.sample_interval_s)
        n_t = int(round(cfg.days * 86400 / dt_s))
        t0_s = cfg.start_epoch_s
        time_s = t0_s + dt_s * np.arange(1, n_t + 1)
        hours = (time_s - t0_s) / 3600.0
        daily = np.sin(2 * np.pi * (hours - 9.0) / 24.0)  # peaks in the afternoon, when users are active
        return cls(t0_s=t0_s, dt_s=dt_s, time_s=time_s, daily=daily)


@dataclass(frozen=True)
class _Topology:
    """Nodes on routers, routers in groups (dragonfly), numbered contiguously."""

    node_router: np.ndarray  # (n_nodes,) router of each node
    router_group: np.ndarray  # (n_routers,) group of each router
    node_group: np.ndarray  # (n_nodes,) group of each node

    @classmethod
    def of(cls, cfg: SyntheticConfig) -> _Topology:
        node_router = np.arange(cfg.n_nodes) // cfg.nodes_per_router
        router_group = np.arange(cfg.groups * cfg.routers_per_group) // cfg.routers_per_group
        return cls(node_router=node_router, router_group=router_group, node_group=router_group[node_router])

    def table(self) -> pd.DataFrame:
        component_id = np.arange(len(self.node_router))
        return pd.DataFrame({"component_id": component_id, "router_id": self.node_router, "group_id": self.node_group})


# --- the load on it, and the congestion that load causes ---------------------------------------------
def _drifting_load(rng, cfg: SyntheticConfig, clock: _Clock, topology: _Topology) -> tuple[np.ndarray, np.ndarray]:
    """Offered network load per router, shape (n_t, n_routers), and file-system load, shape (n_t,), in
    utilisation units: a 0.3 mean plus slow drift per group, router, system and file system, plus the daily
    cycle. Background jobs come on top (_add_background_jobs)."""
    n_t, dt_s = clock.n_t, clock.dt_s
    tau_s = cfg.drift_timescale_h * 3600.0
    group_drift = _ou(rng, n_t, cfg.groups, dt_s, tau_s)
    router_drift = _ou(rng, n_t, len(topology.router_group), dt_s, tau_s / 3)
    system_drift = _ou(rng, n_t, 1, dt_s, tau_s * 2)[:, 0]
    fs_drift = _ou(rng, n_t, 1, dt_s, tau_s)[:, 0]
    load = 0.30 + DRIFT_GROUP * group_drift[:, topology.router_group] + DRIFT_ROUTER * router_drift
    load += DRIFT_SYSTEM * system_drift[:, None] + DAILY_AMPLITUDE * clock.daily[:, None]
    fs_load = 0.30 + DRIFT_FS * fs_drift + DAILY_AMPLITUDE * clock.daily
    return load, fs_load


def _add_background_jobs(rng, cfg: SyntheticConfig, clock: _Clock, topology: _Topology, load: np.ndarray,
                         fs_load: np.ndarray) -> tuple[np.ndarray, int]:  # fmt: skip
    """Background jobs (Poisson arrivals, exponential lengths between 30 min and a day, on one or two groups),
    each network-, I/O- or compute-heavy: the first two add to `load` or `fs_load` in place, compute jobs
    keep half their groups' nodes busy. Returns which node is busy when, shape (n_t, n_nodes), and the
    number of jobs."""
    n_t = clock.n_t
    cpu_busy = np.zeros((n_t, cfg.n_nodes), dtype=bool)
    n_background = rng.poisson(cfg.background_jobs_per_day * cfg.days)
    for _ in range(n_background):
        kind = rng.choice(["network", "io", "compute"])
        begin = rng.uniform(0, n_t)
        length = np.clip(rng.exponential(6 * 3600), 1800, 24 * 3600) / clock.dt_s
        span = slice(int(begin), int(min(n_t, begin + length)))
        groups = rng.choice(cfg.groups, size=1 + int(rng.random() < 0.3), replace=False)
        intensity = rng.uniform(0.05, 0.2)
        if kind == "network":
            load[span][:, np.isin(topology.router_group, groups)] += intensity
            load[span] += 0.15 * intensity  # dragonfly global links spread part of it system-wide
        elif kind == "io":
            fs_load[span] += intensity * 0.8
        else:
            nodes = np.flatnonzero(np.isin(topology.node_group, groups))
            chosen = rng.choice(nodes, size=max(1, len(nodes) // 2), replace=False)
            cpu_busy[span.start : span.stop, chosen] = True
    return cpu_busy, n_background


def _congestion(cfg: SyntheticConfig, load: np.ndarray, fs_load: np.ndarray,
                change_index: int) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Congestion u/(1-u) per router, shape (n_t, n_routers), and of the file system, shape (n_t,). From
    sample `change_index` on the network has lost cfg.capacity_drop of its capacity: the same load is a
    higher utilisation u."""
    capacity = np.ones(len(load))
    capacity[change_index:] = 1.0 - cfg.capacity_drop
    util = np.clip(load / capacity[:, None], 0.02, MAX_UTILISATION)
    fs_util = np.clip(fs_load, 0.02, MAX_UTILISATION)
    # Queueing delay grows without bound near saturation.
    return util / (1 - util), fs_util / (1 - fs_util)


# --- what the monitoring sees ------------------------------------------------------------------------
def _noisy(rng, values: np.ndarray, rel_sd: float) -> np.ndarray:
    return values * (1 + rel_sd * rng.standard_normal(values.shape))


def _node_counters(rng, cfg: SyntheticConfig, clock: _Clock, topology: _Topology, load, fs_load, congestion,
                   fs_congestion, cpu_busy) -> dict[str, np.ndarray]:  # fmt: skip
    """Every counter of COUNTER_ROLES per sample and node, shape (n_t, n_nodes). The noise is drawn in the
    order the counters are listed here."""
    n_t, n_nodes = clock.n_t, cfg.n_nodes
    shape = (n_t, n_nodes)
    node_router = topology.node_router

    def on_every_node(series: np.ndarray) -> np.ndarray:  # (n_t,) -> (n_t, n_nodes): a system-wide value
        return np.repeat(series[:, None], n_nodes, axis=1)

    rtr_stall = _noisy(rng, 1e6 * congestion, 0.05)  # each node's sampler reads its own router's counters
    counters = {}
    counters["rtr_stalled_cycles_per_s"] = rtr_stall[:, node_router]
    counters["rtr_flits_per_s"] = _noisy(rng, 5e7 * np.clip(load, 0.0, None), 0.05)[:, node_router]
    counters["nic_stalled_cycles_per_s"] = np.clip(_noisy(rng, 0.3 * rtr_stall[:, node_router], 0.25), 0.0, None)
    counters["fs_wait_ms_per_s"] = _noisy(rng, on_every_node(50.0 * fs_congestion), 0.05)
    counters["fs_read_bytes_per_s"] = np.clip(_noisy(rng, on_every_node(2e8 * fs_load), 0.15), 0.0, None)
    counters["fs_write_bytes_per_s"] = np.clip(_noisy(rng, on_every_node(1e8 * fs_load), 0.15), 0.0, None)
    logins = np.clip(30 + 20 * clock.daily + 3 * rng.standard_normal(n_t), 0, None)
    counters["login_sessions"] = on_every_node(np.round(logins))
    counters["cpu_user_frac"] = np.clip(np.where(cpu_busy, 0.9, 0.1) + 0.03 * rng.standard_normal(shape), 0, 1)
    counters["mem_used_mb"] = np.clip(rng.uniform(4000, 60000, n_nodes) + 2000 * rng.standard_normal(shape), 0, None)
    tau_s = cfg.drift_timescale_h * 3600.0
    counters["node_temp_c"] = 40 + 4 * _ou(rng, n_t, n_nodes, clock.dt_s, tau_s) + 0.5 * rng.standard_normal(shape)
    counters["power_w"] = 150 + 200 * counters["cpu_user_frac"] + 10 * rng.standard_normal(shape)
    return counters


def _samples_table(clock: _Clock, counters: dict[str, np.ndarray], n_nodes: int) -> pd.DataFrame:
    """One row per (sample, node), sample-major, with the counters in COUNTER_ROLES order."""
    samples = pd.DataFrame({"time_s": np.repeat(clock.time_s, n_nodes),
                            "component_id": np.tile(np.arange(n_nodes), clock.n_t)})  # fmt: skip
    for name in COUNTER_ROLES:
        samples[name] = counters[name].reshape(-1).astype(np.float64)
    return samples


# --- the control applications and what slowed them down ----------------------------------------------
def _control_runs(rng, cfg: SyntheticConfig, clock: _Clock, topology: _Topology, congestion: np.ndarray,
                  fs_congestion: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame, dict]:  # fmt: skip
    """Every app's runs (table runs), the nodes each ran on (table placement) and per app its truth:
    drivers with their planted effects, best achievable MAPE. Job ids count up from 1_000_001 over the apps."""
    run_rows, place_rows, truth_apps = [], [], {}
    job_id = 1_000_000
    for app in cfg.apps:
        n_runs = rng.poisson(cfg.runs_per_app_per_day * cfg.days)
        # No run starts in the warm-up, and each ends before the history does (3x its base time to spare).
        first_start_s = clock.t0_s + cfg.warmup_h * 3600
        last_start_s = clock.t0_s + cfg.days * 86400 - 3 * app.base_time_s
        starts = np.sort(rng.uniform(first_start_s, last_start_s, n_runs))
        c_net, c_io, noise, app_jobs = [], [], [], []
        for start in starts:
            nodes, groups = _place_run(rng, cfg, app, topology)
            # The samples that cover the run, taken as base_time_s long: the state it actually ran in.
            first_sample = int((start - clock.t0_s) // clock.dt_s)
            last_sample = int((start - clock.t0_s + app.base_time_s) // clock.dt_s)
            during = slice(first_sample, last_sample + 1)
            routers = np.unique(topology.node_router[nodes])
            local = congestion[during][:, routers].mean()
            grouped = congestion[during][:, np.isin(topology.router_group, groups)].mean()
            c_net.append(NET_LOCAL_WEIGHT * local + (1 - NET_LOCAL_WEIGHT) * grouped)
            c_io.append(fs_congestion[during].mean())
            noise.append(rng.standard_normal())
            job_id += 1
            place_rows.extend((job_id, int(n)) for n in nodes)
            app_jobs.append(job_id)
        c_net, c_io, noise = np.array(c_net), np.array(c_io), np.array(noise)
        slowdown = 1 + app.net_sensitivity * c_net + app.io_sensitivity * c_io
        true_time = app.base_time_s * slowdown
        run_time = true_time * np.exp(app.noise_sd * noise)
        for job, start, value in zip(app_jobs, starts, run_time, strict=True):
            run_rows.append((job, app.name, float(start), float(start + value), float(value)))
        truth_apps[app.name] = _app_truth(app, n_runs, c_net, c_io, slowdown, true_time, run_time)
    runs = pd.DataFrame(run_rows, columns=["job_id", "app", "start_s", "end_s", "run_time_s"])
    placement = pd.DataFrame(place_rows, columns=["job_id", "component_id"])
    return runs, placement, truth_apps


def _place_run(rng, cfg: SyntheticConfig, app: AppSpec, topology: _Topology) -> tuple[np.ndarray, np.ndarray]:
    """The run's nodes (sorted) and groups: as few groups as hold its nodes, but two for half the runs."""
    nodes_per_group = cfg.routers_per_group * cfg.nodes_per_router
    n_groups = min(cfg.groups, max(int(np.ceil(app.nodes / nodes_per_group)), 1 + int(rng.random() < 0.5)))
    groups = rng.choice(cfg.groups, size=n_groups, replace=False)
    pool = np.flatnonzero(np.isin(topology.node_group, groups))
    nodes = np.sort(rng.choice(pool, size=app.nodes, replace=False))
    return nodes, groups


def _app_truth(app: AppSpec, n_runs: int, c_net, c_io, slowdown, true_time, run_time) -> dict:
    # Planted effect of a driver: spread of its term in log run time (first-order, around the mean).
    mean_slowdown = slowdown.mean()
    effects = {
        "rtr_stalled_cycles_per_s": float(np.std(app.net_sensitivity * c_net / mean_slowdown)),
        "fs_wait_ms_per_s": float(np.std(app.io_sensitivity * c_io / mean_slowdown)),
    }
    return {
        "spec": dataclasses.asdict(app),
        "n_runs": int(n_runs),
        "drivers": {k: v for k, v in effects.items() if getattr(app, DRIVER_SENSITIVITY[k]) > 0},
        "planted_effect_log": effects,
        "best_achievable_mape": float(np.mean(np.abs(run_time - true_time) / run_time)),
        "noise_log_sd": app.noise_sd,
    }


def _ground_truth(cfg: SyntheticConfig, clock: _Clock, topology: _Topology, truth_apps: dict, change_index: int,
                  n_background: int) -> dict:  # fmt: skip
    change_time_s = clock.t0_s + change_index * clock.dt_s
    return {
        "source": "synthetic",
        "counter_roles": COUNTER_ROLES,
        "apps": truth_apps,
        "change_point": {
            "time_s": change_time_s,
            "date": dt.datetime.fromtimestamp(change_time_s, dt.UTC).isoformat(),
            "day": cfg.change_point_day,
            "what": f"network capacity drops by {cfg.capacity_drop:.0%}",
        },
        "system": {
            "nodes": cfg.n_nodes,
            "routers": len(topology.router_group),
            "groups": cfg.groups,
            "samples": clock.n_t,
            "background_jobs": int(n_background),
        },
    }
