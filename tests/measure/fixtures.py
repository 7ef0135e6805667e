"""Fixtures the engine's tests (tests/measure/) and the study's (tests/pcgbench/) share, imported by the conftest.py
of each: a build cache per test session (drivers are compiled once) and the suite's problem that programs run on."""

import pytest

from workflow_scripts.measure import suite

PROBLEM = "reduce_sum_of_min_pairs"  # every test that runs programs uses it; its OpenMP reference reduces with +,
# so every mutant applies (missing_reduction and data_race need a reduction to break)


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("pcgbench_build_cache")


@pytest.fixture(scope="session")
def problem():
    return suite.get_problem(PROBLEM)
