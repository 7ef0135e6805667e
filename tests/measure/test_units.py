"""Small pieces of the engine: the resource sweep, time summaries, a sanitizer run's limits."""

import pytest

from workflow_scripts.measure.timing import ResourceConfig, doubling_counts, resource_sweep, summarise_times


@pytest.mark.parametrize("maximum,expected", [(1, [1]), (2, [1, 2]), (6, [1, 2, 4, 6]), (64, [1, 2, 4, 8, 16, 32, 64])])
def test_doubling_counts(maximum, expected):
    assert doubling_counts(maximum) == expected


def test_resource_sweep_per_model():
    assert resource_sweep("serial", 4) == [ResourceConfig(1, 1)]
    assert resource_sweep("omp", 4) == [ResourceConfig(1, t) for t in (1, 2, 4)]
    assert resource_sweep("mpi", 2) == [ResourceConfig(1, 1), ResourceConfig(2, 1)]
    hybrid = resource_sweep("mpi+omp", 4)
    assert all(c.n_resources <= 4 for c in hybrid) and ResourceConfig(2, 2) in hybrid and len(hybrid) == 6
    with pytest.raises(ValueError, match="fortran"):
        resource_sweep("fortran", 2)


def test_summarise_times_keeps_median_and_spread():
    summary = summarise_times([1.0, 2.0, 3.0, 4.0, 100.0])
    assert (summary.median_s, summary.min_s, summary.max_s, summary.reps) == (3.0, 1.0, 100.0, 5)
    assert summary.iqr_s == pytest.approx(2.0) and summary.relative_spread == pytest.approx(2.0 / 3.0)


def test_only_a_sanitizer_run_goes_without_an_address_space_limit():
    from workflow_scripts.measure import sandbox

    limited = sandbox.unprivileged_argv(["a.out"], sandbox.SandboxLimits(memory_mb=512))
    assert f"--as={512 << 20}" in limited
    unlimited = sandbox.unprivileged_argv(["a.out"], sandbox.SandboxLimits(memory_mb=None))
    assert not any(arg.startswith("--as") for arg in unlimited) and "--nproc=128" in unlimited
    with pytest.raises(ValueError, match="memory_mb must be > 0"):
        sandbox.SandboxLimits(memory_mb=0)
