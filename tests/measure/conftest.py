"""The measurement engine's tests: the shared fixtures (tests/measure/fixtures.py)."""

from tests.measure.fixtures import cache_dir, problem  # noqa: F401
