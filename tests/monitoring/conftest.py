"""Small synthetic systems shared by the monitoring tests (seconds to generate)."""

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
