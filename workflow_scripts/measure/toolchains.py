"""The toolchains that build PCGBench programs: which models compile and run here, the compilers and flags of a
sample's and a driver's translation units, the precompiled standard header, the link, and the race-check builds.

- toolchain_status(exec_model) says whether samples of the model can be *run* here; build_status(exec_model) whether
  they can be *compiled* (CUDA: build-only without a GPU; HIP: neither without hipcc).
- Race checks: ThreadSanitizer builds of OpenMP samples (run.check_races), with clang and LLVM's OpenMP runtime
  and its Archer tool (the comment above RACE_CHECKED_EXEC_MODELS says why not GCC).
- Every executable is linked with full RELRO (FULL_RELRO).
- driver_exec_model(exec_model): the driver object a model's samples link (serial samples link the OpenMP driver)."""

from __future__ import annotations

import fcntl
import functools
import hashlib
import logging
import os
import shlex
import shutil
import subprocess
from pathlib import Path

from workflow_scripts.common.c_scanner import EXEC_MODEL_TITLES
from workflow_scripts.measure import suite
from workflow_scripts.measure.kokkos import ensure_kokkos, kokkos_flags, kokkos_prefix
from workflow_scripts.measure.machine_cache import machine_cache_dir

logger = logging.getLogger(__name__)

def _has_gpu() -> bool:
    return Path("/dev/nvidia0").exists() or Path("/dev/kfd").exists()


def build_status(exec_model: str) -> tuple[bool, str]:
    """(True, "") if samples of `exec_model` can be compiled here, else (False, why)."""
    suite.check_exec_model(exec_model)
    need = {"serial": ["g++"], "omp": ["g++"], "mpi": ["mpicxx"], "mpi+omp": ["mpicxx"], "kokkos": ["g++", "cmake"],
            "cuda": ["nvcc"], "hip": ["hipcc"]}[exec_model]
    missing = [tool for tool in need if shutil.which(tool) is None]
    if missing:
        return False, f"no {missing[0]}: {EXEC_MODEL_TITLES[exec_model]} cannot be built here"
    return True, ""


def toolchain_status(exec_model: str) -> tuple[bool, str]:
    """(True, "") if samples of `exec_model` can be built and run here, else (False, why): never a failure."""
    ok, why = build_status(exec_model)
    if not ok:
        return False, why + " (skipped)"
    if exec_model in ("mpi", "mpi+omp") and shutil.which("mpirun") is None:
        return False, "no mpirun: MPI programs cannot be run here"
    if exec_model == "cuda" and not Path("/dev/nvidia0").exists():
        return False, "no GPU: CUDA is build-only"
    if exec_model == "hip" and not _has_gpu():
        return False, "no GPU: HIP is build-only"
    return True, ""


# ---------------------------------------------------------------------------------------------------------
# Race checks: ThreadSanitizer builds of OpenMP samples (run.check_races). GCC's libgomp is invisible to
# TSan (every barrier looks like a race), so these builds use clang with LLVM's OpenMP runtime and its Archer
# tool, which tells TSan about OpenMP's synchronisation. A race is found from the order of the accesses, not
# from their timing: the verdict does not depend on the machine's load.
# MPI+OpenMP builds take Open MPI's include and link flags (`mpicxx --showme:...`), with clang in place of GCC.
# Only the sample is instrumented: it is linked with the model's regular driver object (GCC's; the driver has no
# OpenMP construct, only the API calls libomp provides too), whose code runs on one thread before and after each
# call of the sample. Every access of the sample's threads is seen; a race-check build costs no driver compile.
RACE_CHECKED_EXEC_MODELS = suite.OPENMP_EXEC_MODELS
TSAN = "tsan"  # the sanitizer of a race-check build (BuildRequest.sanitizer)
TSAN_COMPILER = ["clang++", "-fopenmp", "-fsanitize=thread"]
TSAN_FLAGS = ["-std=c++17", "-O1", "-g"]  # -O1 -g: TSan's advice; line numbers in its reports


@functools.cache
def mpi_wrapper_flags(part: str) -> tuple[str, ...]:
    """The flags the MPI C++ wrapper adds for `part` ("compile" or "link"), to use MPI from another compiler."""
    proc = subprocess.run(["mpicxx", f"--showme:{part}"], capture_output=True, text=True, timeout=30)
    if proc.returncode != 0:
        raise RuntimeError(f"`mpicxx --showme:{part}` failed: {proc.stderr.strip()[-300:]}")
    return tuple(shlex.split(proc.stdout))


@functools.cache
def archer_library() -> Path | None:
    """LLVM's Archer OMPT tool (libarcher.so, beside clang's libomp), or None."""
    if shutil.which(TSAN_COMPILER[0]) is None:
        return None
    proc = subprocess.run([TSAN_COMPILER[0], "-print-resource-dir"], capture_output=True, text=True)
    resource_dir = Path(proc.stdout.strip())  # <llvm>/lib/clang/<version>
    candidates = [resource_dir.parents[1] / "libarcher.so"] if proc.returncode == 0 and proc.stdout.strip() else []
    return next((path for path in candidates if path.exists()), None)


def race_check_status() -> tuple[bool, str]:
    """(True, "") if OpenMP samples can be race-checked here, else (False, why and what to install)."""
    if shutil.which(TSAN_COMPILER[0]) is None:
        return False, (f"no {TSAN_COMPILER[0]}: the race check builds OpenMP samples with clang's ThreadSanitizer "
                       "(Debian: clang)")
    if archer_library() is None:
        return False, ("no libarcher.so beside clang's OpenMP runtime: without LLVM's Archer, ThreadSanitizer "
                       "reports OpenMP's own synchronisation as races (Debian: libomp-dev)")
    return True, ""


@functools.cache
def compiler_version(compiler: str) -> str:
    """`<compiler> --version` (and for MPI wrappers the underlying command line), part of every cache key."""
    parts = []
    for flag in ("--version", "--showme") if compiler.startswith("mpi") else ("--version",):
        proc = subprocess.run([compiler, flag], capture_output=True, text=True, timeout=30)
        parts.append(proc.stdout + proc.stderr)
    return "\n".join(parts)


# Models whose standard header is precompiled: GCC's (directly or through the MPI wrapper) and their race-check
# builds (clang); nvcc and hipcc read it as text.
_PRECOMPILED = ("serial", "omp", "mpi", "mpi+omp", "kokkos")


def standard_header_dir(exec_model: str, sanitizer: str | None = None) -> Path:
    """The folder holding STANDARD_HEADER_FILE for `exec_model`'s compiles and, for GCC-based models and race-check
    builds (clang), its precompiled form for exactly the sample compile's compiler and flags (built once per
    machine, under a lock; measured here: a sample compile with the standard headers takes 0.5 s from text
    and 0.09 s precompiled with GCC, 0.39 s and 0.09 s with clang's ThreadSanitizer). If GCC cannot use the
    precompiled form it reads the text, so a stale one costs time only; clang reads one only when named
    (standard_header_flags)."""
    if sanitizer is not None:  # a race-check build starts here: without its tools, say which are missing
        ok, why = race_check_status()
        if not ok:
            raise RuntimeError(why)
    compiler, flags = compiler_command(exec_model, sanitizer), compile_flags(exec_model, sanitizer)
    text = "#ifndef PCGBENCH_STD_HPP\n#define PCGBENCH_STD_HPP\n" + suite.standard_includes() + "#endif\n"
    # The precompiled form's name is in the key: a folder made before clang's form was precompiled is not reused.
    key = hashlib.sha256("\0".join([text, *compiler, *flags, compiler_version(compiler[0]), _precompiled_name(sanitizer)]
                                   ).encode()).hexdigest()  # fmt: skip
    folder = machine_cache_dir() / "std_headers" / key[:20]
    header, pch = folder / suite.STANDARD_HEADER_FILE, folder / _precompiled_name(sanitizer)
    done = folder / "done"
    if done.exists():
        return folder
    folder.mkdir(mode=0o755, parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return folder
        header.write_text(text)
        header.chmod(0o644)
        if exec_model in _PRECOMPILED:
            tmp = folder / f".{os.getpid()}{pch.suffix}"
            proc = subprocess.run([*compiler, *flags, "-c", "-x", "c++-header", str(header), "-o", str(tmp)],
                                  capture_output=True, text=True)  # fmt: skip
            if proc.returncode == 0:
                tmp.chmod(0o644)
                os.replace(tmp, pch)
            else:  # samples still build, from the text
                tmp.unlink(missing_ok=True)
                logger.warning("could not precompile the standard headers for %s: %s", exec_model, proc.stderr[-500:])
        done.write_text(key)
    return folder


def _precompiled_name(sanitizer: str | None) -> str:
    """GCC finds `<header>.gch` beside the header by itself; clang (the race-check builds) is given its `.pch`."""
    return suite.STANDARD_HEADER_FILE + (".pch" if sanitizer == TSAN else ".gch")


def standard_header_flags(exec_model: str, sanitizer: str | None = None) -> list[str]:
    """The flags with which a compile of `exec_model` (and `sanitizer`) finds the standard headers, precompiled
    where they could be (-include-pch for clang: it reads a precompiled header only when named)."""
    folder = standard_header_dir(exec_model, sanitizer)
    pch = folder / _precompiled_name(sanitizer)
    return [f"-I{folder}"] + (["-include-pch", str(pch)] if sanitizer == TSAN and pch.exists() else [])


def _check_sanitizer(exec_model: str, sanitizer: str | None) -> None:
    if sanitizer is not None and (sanitizer != TSAN or exec_model not in RACE_CHECKED_EXEC_MODELS):
        raise ValueError(f"no {sanitizer!r} build of {exec_model}: only {TSAN!r} builds of {RACE_CHECKED_EXEC_MODELS}")


def compiler_command(exec_model: str, sanitizer: str | None = None) -> list[str]:
    _check_sanitizer(exec_model, sanitizer)
    if sanitizer == TSAN:
        return list(TSAN_COMPILER)
    return {"serial": ["g++"], "omp": ["g++", "-fopenmp"], "mpi": ["mpicxx"], "mpi+omp": ["mpicxx", "-fopenmp"],
            "kokkos": ["g++"], "cuda": ["nvcc", f"-arch={suite.CUDA_ARCH}"], "hip": ["hipcc"]}[exec_model]


def compile_flags(exec_model: str, sanitizer: str | None = None) -> list[str]:
    if sanitizer == TSAN:
        return list(TSAN_FLAGS) + (list(mpi_wrapper_flags("compile")) if exec_model == "mpi+omp" else [])
    flags = list(suite.CXX_FLAGS)
    if exec_model == "kokkos":
        flags += kokkos_flags(ensure_kokkos())[0]
    if exec_model == "cuda":
        flags += ["-x", "cu"]
    return flags


def compile_sample_argv(problem: suite.Problem, exec_model: str, src: Path, obj: Path, sanitizer: str | None = None) -> list[str]:
    """argv compiling one sample's translation unit (sample_source written to `src`) to the object `obj`
    (with `sanitizer`: its race-check build)."""
    suite.check_exec_model(exec_model)
    return [*compiler_command(exec_model, sanitizer), *compile_flags(exec_model, sanitizer),
            *standard_header_flags(exec_model, sanitizer), "-c", str(src), "-o", str(obj)]  # fmt: skip


def link_argv(problem: suite.Problem, exec_model: str, sample_obj: Path | None, driver_obj: Path, exe: Path,
              sanitizer: str | None = None) -> list[str]:  # fmt: skip
    """argv linking a sample's object with the driver object of (problem, driver_exec_model(exec_model)) into `exe` (no
    sample: the judge, driver_program.build_judge)."""
    suite.check_exec_model(exec_model)
    libs: list[str] = []
    if exec_model == "kokkos":
        libs = kokkos_flags(kokkos_prefix())[1]
    if exec_model == "mpi+omp" and sanitizer == TSAN:
        libs = list(mpi_wrapper_flags("link"))
    # A serial sample links the OpenMP driver (driver_exec_model), hence OpenMP's runtime.
    compiler = compiler_command(exec_model, sanitizer) if sanitizer else compiler_command(driver_exec_model(exec_model))
    objects = [str(driver_obj)] if sample_obj is None else [str(sample_obj), str(driver_obj)]
    return [*compiler, *_linker_flags(exec_model), *objects, "-o", str(exe), *libs]


# Every library address is bound at load time and the table that holds them made read-only before main() (full
# RELRO): a sample that finds the driver's table through pointers cannot put its own clock in the place of libc's.
FULL_RELRO = ("-z", "relro", "-z", "now")


def _linker_flags(exec_model: str) -> list[str]:
    """Full RELRO (FULL_RELRO), and GNU gold where binutils has it, for the CPU models (GCC, the MPI wrappers,
    clang's race-check builds): every sample is linked, and gold links one in a third of the time (measured here:
    17 against 48 ms with GCC; a ThreadSanitizer build, static runtime and all, 65 against 174 ms). Without it,
    the default linker; nvcc and hipcc pass the RELRO flags on to theirs."""
    if exec_model in ("cuda", "hip"):
        return [flag for option in FULL_RELRO for flag in ("-Xlinker", option)]
    return ["-Wl," + ",".join(FULL_RELRO), *(["-fuse-ld=gold"] if _has_gold() else [])]


@functools.cache
def _has_gold() -> bool:
    """Whether ld.gold is on PATH (looked up once: link_argv runs twice per sample linked)."""
    return shutil.which("ld.gold") is not None


def driver_exec_model(exec_model: str) -> str:
    """The model whose driver object `exec_model`'s samples link. Serial samples link their problem's OpenMP driver:
    the harness and the serial baseline hold no OpenMP code, so the two drivers differed only in the stress
    validations (asked for by OpenMP runs alone) and the model name of the result line (run_argv's --model);
    one object per problem instead of two saves a driver compile (0.7 s) per problem on a cold machine (an
    evaluation of serial samples alone precompiles the OpenMP standard header for it, once per machine). Serial
    executables therefore link the OpenMP runtime; a serial sample is still compiled without OpenMP, so its
    pragmas stay inert."""
    return "omp" if exec_model == "serial" else exec_model
