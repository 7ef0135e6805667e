"""Build Kokkos with its OpenMP backend from source, once, and cache the installation.

Debian ships Kokkos only inside Trilinos, built with the Serial backend alone, so a Kokkos solution would
never run in parallel there. The `pykokkos-base` 0.0.7 source distribution on PyPI bundles the Kokkos 3.4.1
sources (`external/kokkos`); we fetch it with pip, configure with CMake (OpenMP + Serial, Release) and
install into a cache directory. The workflow and the tests both call `ensure_kokkos()`.

Where: `$PCGBENCH_KOKKOS_PREFIX` if set, else `kokkos-<version>` in the machine's build cache
(machine_cache.py): the confined compiler reads its headers, so it may not live in a checkout others cannot
enter. A file lock keeps two processes from building at once; a stamp file marks a finished installation.

Run by hand:  python -m workflow_scripts.measure.kokkos [PREFIX]
"""

from __future__ import annotations

import fcntl
import logging
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from workflow_scripts.measure.machine_cache import check_reachable, machine_cache_dir

logger = logging.getLogger(__name__)

KOKKOS_SDIST = "pykokkos-base==0.0.7"
KOKKOS_VERSION = "3.4.1"
_STAMP = "pcgbench-kokkos.stamp"


def kokkos_prefix() -> Path:
    """The installation prefix: $PCGBENCH_KOKKOS_PREFIX, else kokkos-<version> in the machine's build cache."""
    env = os.environ.get("PCGBENCH_KOKKOS_PREFIX")
    return Path(env).resolve() if env else machine_cache_dir() / f"kokkos-{KOKKOS_VERSION}"


def kokkos_ready(prefix: Path | None = None) -> bool:
    prefix = prefix or kokkos_prefix()
    return (prefix / _STAMP).exists()


def _run(argv: list[str], cwd: Path) -> None:
    logger.info("kokkos build: %s", " ".join(argv))
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"Kokkos build step failed ({' '.join(argv)}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")


def ensure_kokkos(prefix: Path | None = None, *, jobs: int = 2) -> Path:
    """Return the Kokkos install prefix, building Kokkos there first if it is not yet built."""
    prefix = (prefix or kokkos_prefix()).resolve()
    check_reachable(prefix, "the Kokkos installation", "PCGBENCH_KOKKOS_PREFIX")
    if kokkos_ready(prefix):
        return prefix
    prefix.mkdir(parents=True, exist_ok=True)
    with open(prefix.parent / f".{prefix.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second caller waits here, then finds the stamp
        if kokkos_ready(prefix):
            return prefix
        with tempfile.TemporaryDirectory(prefix="kokkos-build-") as tmp_str:
            tmp = Path(tmp_str)
            _run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", "pykokkos-base",
                  "-d", str(tmp), KOKKOS_SDIST], cwd=tmp)
            sdists = sorted(tmp.glob("pykokkos*base-*.tar.gz"))
            if not sdists:
                raise RuntimeError(f"pip download of {KOKKOS_SDIST} produced no source archive in {tmp}")
            with tarfile.open(sdists[0]) as tar:
                tar.extractall(tmp, filter="data")
            sources = next(tmp.glob("pykokkos*base-*/external/kokkos"), None)
            if sources is None:
                raise RuntimeError(f"{sdists[0].name} has no external/kokkos directory")
            build = tmp / "build"
            build.mkdir()
            _run(["cmake", str(sources), f"-DCMAKE_INSTALL_PREFIX={prefix}", "-DCMAKE_BUILD_TYPE=Release",
                  "-DKokkos_ENABLE_OPENMP=ON", "-DKokkos_ENABLE_SERIAL=ON", "-DBUILD_SHARED_LIBS=OFF",
                  "-DCMAKE_POSITION_INDEPENDENT_CODE=ON", "-DCMAKE_CXX_STANDARD=17"], cwd=build)
            _run(["make", f"-j{jobs}", "install"], cwd=build)
        _run(["chmod", "-R", "a+rX", str(prefix)], cwd=prefix)  # the confined compiler reads it, whatever the umask
        (prefix / _STAMP).write_text(f"Kokkos {KOKKOS_VERSION} from {KOKKOS_SDIST}, OpenMP + Serial backends\n")
    logger.info("Kokkos %s installed in %s", KOKKOS_VERSION, prefix)
    return prefix


def kokkos_flags(prefix: Path | None = None) -> tuple[list[str], list[str]]:
    """(compile flags, link flags) for a program using the cached Kokkos."""
    prefix = prefix or kokkos_prefix()
    libdir = prefix / "lib" if (prefix / "lib" / "libkokkoscore.a").exists() else prefix / "lib64"
    return ([f"-I{prefix / 'include'}", "-fopenmp"], [f"-L{libdir}", "-lkokkoscore", "-ldl", "-fopenmp"])


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    print(ensure_kokkos(Path(sys.argv[1]) if len(sys.argv) > 1 else None))
