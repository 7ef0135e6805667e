"""The PCGBench study's tests: the fixtures it shares with the engine's tests (tests/measure/fixtures.py)."""

from tests.measure.fixtures import cache_dir, problem  # noqa: F401
