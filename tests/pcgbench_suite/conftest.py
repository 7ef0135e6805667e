"""Shared fixtures: the suite, and reference executables built in parallel (2 compile workers).

Which references are built and run (to keep the whole directory near 3 minutes on 2 cores):
- serial: every problem (every problem's driver, baseline and validator, and the validator self-check);
- omp: a rotating subset of ROTATING_OMP problems; mpi, mpi+omp, kokkos: ROTATING_PER_EXEC_MODEL each; drawn with
  the seed $PCGBENCH_TEST_SEED (default: the day number, so the subset changes from day to day and any
  failure is reproducible by setting the seed). PCGBENCH_TEST_ALL=1 runs every problem for every model
  (measured cost per (problem, exec_model): a driver compile of 3-4 s, once, cached by content, plus a sample
  compile of 0.5-1 s; Kokkos about 3x that).
Driver objects are cached (keyed by a hash of their sources and flags) in $PCGBENCH_TEST_BUILD_DIR
(default .cache/pcgbench_drivers, shared with check-references); sample objects and executables are rebuilt in a temporary directory.
"""

from __future__ import annotations

import datetime
import json
import os
import random
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from workflow_scripts.measure import driver_program, kokkos, suite, toolchains

ROTATING_OMP = 8
ROTATING_PER_EXEC_MODEL = 3
COMPILE_WORKERS = 2
RUN_EXEC_MODELS = ("serial", "omp", "mpi", "mpi+omp", "kokkos")


def rotation_seed() -> int:
    return int(os.environ.get("PCGBENCH_TEST_SEED", datetime.date.today().toordinal()))


def selected_pairs(problems: list[suite.Problem]) -> list[tuple[str, str]]:
    names = [p.name for p in problems]
    rng = random.Random(rotation_seed())
    pairs = [(n, "serial") for n in names]
    for exec_model in ("omp", "mpi", "mpi+omp", "kokkos"):
        count = ROTATING_OMP if exec_model == "omp" else ROTATING_PER_EXEC_MODEL
        chosen = names if os.environ.get("PCGBENCH_TEST_ALL") == "1" else rng.sample(names, min(count, len(names)))
        pairs += [(n, exec_model) for n in sorted(chosen)]
    return pairs


@pytest.fixture(scope="session")
def problems() -> list[suite.Problem]:
    return suite.load_suite()


@pytest.fixture(scope="session")
def driver_build_dir() -> Path:
    path = Path(os.environ.get("PCGBENCH_TEST_BUILD_DIR", suite.REPO_ROOT / ".cache" / "pcgbench_drivers"))
    path.mkdir(parents=True, exist_ok=True)
    return path



# Trusted builds and runs of the references, outside the build cache and the judge: the drivers' own output read
# directly (a sample's runs go through measure.run_program instead).
def build_executable(problem, exec_model: str, body: str, work_dir: Path, driver_build_dir: Path) -> Path:
    """Compile `body` as a sample of (problem, exec_model) and link it with the cached driver; trusted code only.
    Raises RuntimeError with the compiler's output on failure."""
    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    driver_obj = driver_program.build_driver(problem, exec_model, driver_build_dir)
    src = work_dir / f"sample{suite.sample_suffix(exec_model)}"
    obj, exe = work_dir / "sample.o", work_dir / "sample.exe"
    src.write_text(suite.sample_source(problem, exec_model, body))
    for argv in (toolchains.compile_sample_argv(problem, exec_model, src, obj),
                 toolchains.link_argv(problem, exec_model, obj, driver_obj, exe)):  # fmt: skip
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{problem.name}/{exec_model}: {' '.join(argv)}\n{proc.stderr[-4000:]}")
    return exe


def parse_driver_output(stdout: str, nonce: str = driver_program.NO_NONCE, timed: bool = True):
    """The one DriverResult in a driver's stdout; ValueError if it is missing, malformed or not alone."""
    results = driver_program.parse_driver_results(stdout, nonce, timed)
    if len(results) != 1:
        raise ValueError(f"expected exactly one '{driver_program.RESULT_TAG.strip()}' line in the driver output, "
                         f"found {len(results)}")  # fmt: skip
    return results[0]


VALIDATOR_TAG = "PCGBENCH_VALIDATOR "


def parse_validator_output(stdout: str) -> dict[str, tuple[str, str]]:
    """{corruption: (verdict, why)} from a --check-validator run."""
    lines = [ln for ln in stdout.splitlines() if ln.startswith(VALIDATOR_TAG)]
    if len(lines) != 1:
        raise ValueError(f"expected one '{VALIDATOR_TAG.strip()}' line, found {len(lines)}")
    raw = json.loads(lines[0][len(VALIDATOR_TAG):])
    return {kind: (v["verdict"], v["why"]) for kind, v in raw.items()}

@pytest.fixture(scope="session")
def reference_executables(problems, driver_build_dir, tmp_path_factory) -> dict[tuple[str, str], Path | str]:
    """{(problem, exec_model): executable path, or the build error text} for the selected pairs."""
    work = tmp_path_factory.mktemp("pcgbench_refs")
    by_name = {p.name: p for p in problems}
    pairs = selected_pairs(problems)
    if any(m == "kokkos" for _, m in pairs):
        kokkos.ensure_kokkos()  # once, before the workers start

    def build(pair):
        name, exec_model = pair
        problem = by_name[name]
        try:
            return pair, build_executable(problem, exec_model, suite.reference_body(problem, exec_model),
                                                work / name / exec_model.replace("+", "_"), driver_build_dir)
        except RuntimeError as err:
            return pair, str(err)

    with ThreadPoolExecutor(COMPILE_WORKERS) as pool:
        return dict(pool.map(build, pairs))


def run_driver(problem: suite.Problem, exec_model: str, exe: Path, **kwargs) -> subprocess.CompletedProcess:
    ranks = 2 if exec_model in ("mpi", "mpi+omp") else 1
    threads = 2 if exec_model in ("omp", "mpi+omp", "kokkos") else 1
    argv, env = driver_program.run_argv(problem, exec_model, exe, ranks=ranks, threads=threads, seed=kwargs.pop("seed", 7),
                               warmup=kwargs.pop("warmup", 0), reps=kwargs.pop("reps", 1), **kwargs)
    return subprocess.run(argv, env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
