"""Small synthetic systems and a site's run-time table shared by the monitoring tests (seconds to generate)."""

import datetime as dt
import zoneinfo

import numpy as np
import pytest

from workflow_scripts.monitoring.synthetic import SyntheticConfig, generate

SMALL_APPS = [
    {"name": "netapp", "base_time_s": 600, "nodes": 4, "net_sensitivity": 0.6, "io_sensitivity": 0.0, "noise_sd": 0.02},
    {"name": "ioapp", "base_time_s": 900, "nodes": 4, "net_sensitivity": 0.0, "io_sensitivity": 0.5, "noise_sd": 0.02},
    {"name": "quiet", "base_time_s": 300, "nodes": 2, "net_sensitivity": 0.0, "io_sensitivity": 0.0, "noise_sd": 0.05},
]


def small_config(**overrides) -> SyntheticConfig:
    values = dict(days=10, sample_interval_s=1800, groups=2, routers_per_group=2, nodes_per_router=2,
                  runs_per_app_per_day=8, change_point_day=4, apps=[dict(a) for a in SMALL_APPS])  # fmt: skip
    values.update(overrides)
    return SyntheticConfig(**values)


@pytest.fixture(scope="session")
def small_data():
    return generate(small_config(), seed=7)


# A site's run-time table as the field case had it: four apps with 168, 123, 120 and 38 runs over 90 days,
# its own column names, local times in its own format. MILC stopped running after day 50, so the
# time-ordered split leaves it 38 training runs and no test runs; AMG drops 19.5 % after its 25th run.
SITE_APPS = {  # app: (base run time s, runs, [(day of the step, relative change)], (first day, last day))
    "AMG": (600, 168, [(None, -0.195)], (0, 90)),  # the step falls after the 25th run (below)
    "MILC": (900, 38, [(25, 0.11)], (0, 50)),
    "miniVite": (300, 120, [], (0, 90)),
    "UMT": (1200, 123, [(30, 0.15), (70, -0.10)], (0, 90)),
}
SITE_ZONE = "America/Chicago"
SITE_REAL = {"time_format": "%Y-%m-%d_%H-%M-%S", "time_zone": SITE_ZONE,
             "columns": {"app": "application", "start": "started", "job_id": "jobid", "run_time": "elapsed_s",
                         "nodes": "nnodes"}}  # fmt: skip


def write_site_runtimes(path, seed=3) -> dict:
    """The table, and each app's planted steps as (UTC seconds between the runs either side, relative change)."""
    rng = np.random.default_rng(seed)
    zone = zoneinfo.ZoneInfo(SITE_ZONE)
    start = dt.datetime(2025, 1, 6, tzinfo=dt.UTC).timestamp()
    lines, planted, job = ["application,started,jobid,elapsed_s,nnodes"], {}, 1000
    for app, (base_s, n, steps, (first_day, last_day)) in SITE_APPS.items():
        starts = np.sort(start + rng.uniform(first_day * 86400, last_day * 86400, n)).round()
        level = np.zeros(n)
        planted[app] = []
        for day, change in steps:
            at = 25 if day is None else int(np.searchsorted(starts, start + day * 86400))
            level[at:] += np.log1p(change)
            planted[app].append(((starts[at - 1] + starts[at]) / 2, change))
        run_times = base_s * np.exp(level + 0.03 * rng.standard_normal(n))
        for when, run_time in zip(starts, run_times, strict=True):
            local = dt.datetime.fromtimestamp(when, zone).strftime("%Y-%m-%d_%H-%M-%S")
            job += 1
            lines.append(f"{app},{local},{job}.batch,{run_time:.1f},{8 if app != 'miniVite' else 4}")
    path.write_text("\n".join(lines) + "\n")
    return planted
