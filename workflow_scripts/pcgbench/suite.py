"""The PCGBench problem suite: problems as data, prompts, reference bodies, and how to build and run them.

Layout of the data (`data/pcgbench/`):

    drivers/common.hpp, drivers/main.hpp    the driver shared by every problem and execution model
    drivers/<type>.hpp                      helpers shared by the harnesses of one problem type (fft.hpp)
    <problem>/problem.yaml                  name, problem_type, description, example, sizes, includes, types,
                                            signatures (vector | kokkos | gpu), notes (per model family),
                                            small_validations (optional)
    <problem>/harness.hpp                   Data, generate(n, seed), call_baseline, call_solution, result,
                                            check(input, want, got, why), truncate(data, keep), optionally
                                            collect_output(data) (drivers/main.hpp says when)
    <problem>/ref_<model>.cpp               the reference body for each model (text after the signature's "{",
                                            closing "}" included); ref_cuda.cu for CUDA. ref_hip.cpp may be
                                            absent: HIP's kernel language is source-compatible with CUDA for
                                            these kernels, so the CUDA body is then the HIP reference.

The serial reference (`ref_serial.cpp`) is also the serial baseline that every driver times: the fastest
sequential code we could write in plain C++. The serial, omp, mpi and mpi+omp models share one signature
(std::vector arguments), so `serial_baseline_body` also fits those prompts; it does not fit the Kokkos and
GPU signatures (pasted there it fails to build, which is an honest result for that generator).

The API the evaluation harness uses (see the docstring of each function):
    EXECUTION_MODELS, PROBLEM_TYPES, Problem, load_suite, prompt, reference_body, serial_baseline_body,
    sample_source, sample_suffix, toolchain_status, build_status, compile_sample_argv, build_driver,
    link_argv, run_argv, parse_driver_output, DriverResult, uses_model (re-exported); for trusted code
    (references, tests, the CLI) also build_executable and parse_validator_output (--check-validator runs).

Details this module fixes that the interface left open:
- Problem.small_validations (default 1): inputs validated at the small size. More where one input says
  little: reduce_xor's answer is one bit, so a wrong body matches it on about half of the inputs.
- Problem.sizes is a dict: "small" (validated first), "timed" (validated, then timed) and optionally
  "paper" (the papers' scale). run_argv(..., size="timed") validates at small and at the named size and
  times at the named size.
- Driver objects are cached under build_dir/<problem>/<model>/driver-<key>.o, named by a hash of everything that
  goes into them (so checkouts at other paths, whose flags differ, keep theirs side by side instead of rebuilding
  each other's); concurrent builders are serialised by a file lock.
- The driver prints one line `PCGBENCH_RESULT <nonce> {json}` per thread count it ran (one, unless run_argv's
  more_threads) on rank 0 (exit status 0 even when validation fails: the verdict is in the line). The nonce is
  the one the harness handed the run on standard input (run.run_program; "-" when none was given): a tagged line
  with another nonce was printed by the sample (ForgedResult). `parse_driver_output` reads the one,
  `parse_driver_results` all of them.
- toolchain_status(model) says whether samples of the model can be *run* here; build_status(model) whether
  they can be *compiled* (CUDA: build-only without a GPU; HIP: neither without hipcc).
- MPI runs use `mpirun --allow-run-as-root --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -np R
  -x OMP_...`: `--bind-to none` so the threads of an MPI+OpenMP rank are not pinned to the rank's one core,
  yield-when-idle so waiting ranks do not steal cores from the rank being timed; MPI+OpenMP runs also set
  OMP_WAIT_POLICY=passive (ranks x threads may exceed the cores).
- OpenMP models (omp, mpi+omp) can be stress-validated (run_argv's stress_validations, stress_threads; the
  evaluation and the RLPF reward do it by default): after the regular validations and the timing (so that their
  oversubscribed team never lingers through a timed call), more validations of the timed input with more threads
  per rank than the machine has cores; a failure there makes the run invalid. At the timed thread count a competing load at
  the same priority can run a racy program's threads one after another, so that a missing reduction passes
  by luck; oversubscribed threads are interleaved by the scheduler (benchmarks/race_detection.py measures
  it). The timed run and its input are unchanged. Kokkos fixes its thread count at initialisation: no stress.
- OpenMP models can run several thread counts per rank in one process (run_argv's more_threads, the driver's
  --threads-sweep): every input is validated at each, then each is timed in turn, one result line per thread
  count. The evaluation runs an OpenMP sample's sweep so: the inputs, their baseline answers and the pages of the
  buffers are made once, not once per thread count.
- Generations in ParEval files may name a problem with ParEval's numeric prefix ("12_reduce_average"):
  see pareval_format.py.
- GPU prompts are kernels launched with blocks of 256 threads; most problems launch at least one thread per
  element, a few (LU, solve, Jacobi, shortest path) one block, as each prompt states. A GPU run's timed
  region includes the host-device copies. CUDA/HIP drivers compile here; nothing GPU runs without a GPU.
- Kokkos views handed to a solution are unmanaged views of the driver's host vectors (OpenMP backend), so
  no copy sits inside the timed region.
"""

from __future__ import annotations

import dataclasses
import fcntl
import functools
import hashlib
import json
import logging
import os
import re
import shlex
import shutil
import subprocess
import textwrap
from pathlib import Path

import yaml

from workflow_scripts.common.c_scanner import MODEL_TITLES, uses_model  # noqa: F401 -- re-exported API
from workflow_scripts.common.project_files import PROJECT_ROOT
from workflow_scripts.pcgbench.kokkos import ensure_kokkos, kokkos_flags, kokkos_prefix
from workflow_scripts.pcgbench.machine_cache import machine_cache_dir  # noqa: F401 -- re-exported API

logger = logging.getLogger(__name__)

REPO_ROOT = PROJECT_ROOT  # the checkout, or the copy of data/ an installed wheel carries
DATA_ROOT = REPO_ROOT / "data" / "pcgbench"
DRIVERS_DIR = DATA_ROOT / "drivers"

EXECUTION_MODELS: tuple[str, ...] = ("serial", "omp", "mpi", "mpi+omp", "kokkos", "cuda", "hip")
PROBLEM_TYPES: tuple[str, ...] = ("dense_la", "sparse_la", "fft", "geometry", "graph", "histogram", "reduce", "scan",
                                  "search", "sort", "stencil", "transform")
# Which signature in problem.yaml a model uses.
SIGNATURE_FAMILY = {"serial": "vector", "omp": "vector", "mpi": "vector", "mpi+omp": "vector",
                    "kokkos": "kokkos", "cuda": "gpu", "hip": "gpu"}
# Keys of problem.yaml's signatures and types: a family, or one model overriding its family.
SIGNATURE_KEYS = ("vector", "kokkos", "gpu", *EXECUTION_MODELS)
OPENMP_MODELS = ("omp", "mpi+omp")  # thread counts set at run time (stress validations, a sweep in one process)
MODEL_MACRO = {"serial": "SERIAL", "omp": "OMP", "mpi": "MPI", "mpi+omp": "MPI_OMP", "kokkos": "KOKKOS",
               "cuda": "CUDA", "hip": "HIP"}
MODEL_INCLUDES = {"serial": [], "omp": ["omp.h"], "mpi": ["mpi.h"], "mpi+omp": ["mpi.h", "omp.h"],
                  "kokkos": ["Kokkos_Core.hpp"], "cuda": [], "hip": ["hip/hip_runtime.h"]}
# Standard headers included before every sample's prompt: those ParEval's drivers include before the generated
# code (algorithm, cmath, numeric, random, vector, ...) and the rest of the everyday standard library, so a body
# written for a ParEval prompt that calls std::accumulate, std::transform or std::sort builds here as there.
STANDARD_HEADERS = ("algorithm", "array", "cassert", "climits", "cmath", "complex", "cstddef", "cstdint", "cstdio",
                    "cstdlib", "cstring", "deque", "functional", "iostream", "iterator", "limits", "list", "map",
                    "memory", "numeric", "queue", "random", "set", "stack", "string", "tuple", "unordered_map",
                    "unordered_set", "utility", "vector")
CXX_FLAGS = ["-std=c++17", "-O3"]
CUDA_ARCH = "sm_80"  # the paper's A100s; nvcc here compiles for it without a GPU present

# The model's conventions, stated in every prompt of that model (problem-specific notes follow them).
MODEL_CONVENTIONS = {
    "serial": "Write sequential C++ (no threads, no parallel libraries).",
    "omp": "Parallelize the computation with OpenMP. The number of threads is set by the caller "
           "(OMP_NUM_THREADS); do not change it.",
    "mpi": "Parallelize the computation with MPI; MPI_Init has already been called. Every rank holds its own "
           "complete copy of every input. Only rank 0's result is checked, so the final result must be on rank 0; "
           "the other ranks' outputs are ignored.",
    "mpi+omp": "Parallelize the computation with MPI across ranks and OpenMP threads within each rank; MPI is "
               "initialized with MPI_THREAD_FUNNELED (only the main thread makes MPI calls). Every rank holds its own "
               "complete copy of every input. Only rank 0's result is checked, so the final result must be on rank 0.",
    "kokkos": "Parallelize the computation with Kokkos; Kokkos has already been initialized. The views live in the "
              "default execution space's memory space and may be used directly inside Kokkos kernels.",
    "cuda": "Write the body of a CUDA kernel. Inputs and outputs are in device memory. The kernel is launched "
            "with blocks of 256 threads (blockDim.x == 256) on a one-dimensional grid unless the notes below say "
            "otherwise.",
    "hip": "Write the body of a HIP kernel. Inputs and outputs are in device memory. The kernel is launched "
           "with blocks of 256 threads (blockDim.x == 256) on a one-dimensional grid unless the notes below say "
           "otherwise.",
}

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_REQUIRED = {"name": str, "problem_type": str, "description": str, "example": str, "sizes": dict,
             "signatures": dict}


@dataclasses.dataclass(frozen=True)
class Problem:
    """One problem of the suite, as read from data/pcgbench/<name>/problem.yaml."""

    name: str                   # e.g. "reduce_average"
    problem_type: str           # one of PROBLEM_TYPES
    directory: Path
    description: str            # what to compute (prose)
    example: str                # a small input and its output
    sizes: dict                 # {"small": n, "timed": n, optional "paper": n}; n = elements (or rows) of the input
    includes: tuple             # standard headers the signature and types need
    types: dict                 # C++ declarations placed before the signature, per family (may be empty)
    signatures: dict            # {"vector": ..., "kokkos": ..., "gpu": ...} without the trailing "{"
    notes: dict                 # optional extra prompt sentences per family or model ("mpi", "gpu", "kokkos", ...)
    small_validations: int = 1  # inputs validated at the small size (more where an answer is one bit)

    def signature(self, model: str) -> str:
        # A model may override its family's signature (CUDA and HIP name their complex types differently; some
        # ParEval MPI prompts take other arguments than the serial one).
        return self.signatures.get(model) or self.signatures[SIGNATURE_FAMILY[model]]

    def types_for(self, model: str) -> str:
        return self.types.get(model) or self.types.get(SIGNATURE_FAMILY[model], "")


def _fail(path: Path, field: str, why: str) -> ValueError:
    return ValueError(f"{path}: field '{field}': {why}")


def load_problem(directory: Path) -> Problem:
    path = directory / "problem.yaml"
    try:
        raw = yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        raise ValueError(f"{path}: not valid YAML: {err}") from err
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    for field, kind in _REQUIRED.items():
        if field not in raw:
            raise _fail(path, field, "missing")
        if not isinstance(raw[field], kind):
            raise _fail(path, field, f"expected {kind.__name__}, got {type(raw[field]).__name__}")
    unknown = set(raw) - set(_REQUIRED) - {"includes", "types", "notes", "small_validations"}
    if unknown:
        raise _fail(path, sorted(unknown)[0], "unknown field")
    if raw["name"] != directory.name or not _NAME.match(raw["name"]):
        raise _fail(path, "name", f"must equal the folder name {directory.name!r} (lower case, digits, _)")
    if raw["problem_type"] not in PROBLEM_TYPES:
        raise _fail(path, "problem_type", f"{raw['problem_type']!r} is not one of {list(PROBLEM_TYPES)}")
    sizes = raw["sizes"]
    for key in ("small", "timed"):
        if not isinstance(sizes.get(key), int) or sizes[key] < 2:
            raise _fail(path, f"sizes.{key}", "must be an integer >= 2")
    if set(sizes) - {"small", "timed", "paper"}:
        raise _fail(path, "sizes", f"unknown size {sorted(set(sizes) - {'small', 'timed', 'paper'})}")
    small_validations = raw.get("small_validations", 1)
    if not isinstance(small_validations, int) or isinstance(small_validations, bool) or small_validations < 1:
        raise _fail(path, "small_validations", f"must be an integer >= 1, got {small_validations!r}")
    for family in ("vector", "kokkos", "gpu"):
        sig = raw["signatures"].get(family)
        if not isinstance(sig, str) or "(" not in sig or sig.rstrip().endswith("{"):
            raise _fail(path, f"signatures.{family}", "must be a declaration without the opening '{'")
    for key, sig in raw["signatures"].items():
        if key not in SIGNATURE_KEYS:
            raise _fail(path, f"signatures.{key}", f"unknown key; expected one of {list(SIGNATURE_KEYS)}")
        if key in ("gpu", "cuda", "hip") and not str(sig).startswith("__global__ void "):
            raise _fail(path, f"signatures.{key}", "must be a kernel: '__global__ void name(...)'")
    types = raw.get("types") or ""
    if isinstance(types, str):
        types = {family: types.strip() for family in ("vector", "kokkos", "gpu")}
    elif not isinstance(types, dict) or set(types) - set(SIGNATURE_KEYS):
        raise _fail(path, "types", f"must be a string or a mapping with keys among {list(SIGNATURE_KEYS)}")
    types = {family: (text or "").strip() for family, text in types.items()}
    notes = raw.get("notes") or {}
    allowed_notes = {"all", "vector", "gpu", *EXECUTION_MODELS}
    if not isinstance(notes, dict) or set(notes) - allowed_notes:
        raise _fail(path, "notes", f"keys must be among {sorted(allowed_notes)}")
    if not (directory / "harness.hpp").exists():
        raise _fail(path, "harness.hpp", "the problem's harness header is missing")
    return Problem(name=raw["name"], problem_type=raw["problem_type"], directory=directory,
                   description=raw["description"].strip(), example=raw["example"].strip(), sizes=dict(sizes),
                   includes=tuple(raw.get("includes") or ()), types=types,
                   signatures=dict(raw["signatures"]), notes=dict(notes), small_validations=small_validations)


def load_suite(root: Path = DATA_ROOT) -> list[Problem]:
    """All problems under `root`, sorted by name. Malformed data raises ValueError naming the file and field."""
    root = Path(root)
    dirs = sorted(d for d in root.iterdir() if d.is_dir() and (d / "problem.yaml").exists())
    return [load_problem(d) for d in dirs]


def get_problem(name: str, root: Path = DATA_ROOT) -> Problem:
    directory = Path(root) / name
    if not (directory / "problem.yaml").exists():
        raise KeyError(f"no problem named {name!r} under {root}")
    return load_problem(directory)


# ---------------------------------------------------------------------------------------------------------
# Prompts and bodies


def _check_model(model: str) -> None:
    if model not in EXECUTION_MODELS:
        raise ValueError(f"unknown execution model {model!r}; expected one of {list(EXECUTION_MODELS)}")


def _comment(paragraphs: list[str]) -> str:
    lines = []
    for para in paragraphs:
        for raw in para.splitlines() or [""]:
            # Example blocks keep their layout; prose is wrapped.
            if raw.startswith("  ") or not raw.strip():
                lines.append(raw.rstrip())
            else:
                lines.extend(textwrap.wrap(raw, 100))
        lines.append("")
    body = "\n".join(("   " + ln).rstrip() for ln in lines[:-1])
    return "/* " + body.lstrip() + "\n*/"


def prompt(problem: Problem, model: str) -> str:
    """The prompt for (problem, model): C++ ending in the signature's "{" (a newline follows it)."""
    _check_model(model)
    family = SIGNATURE_FAMILY[model]
    includes = list(dict.fromkeys(MODEL_INCLUDES[model] + list(problem.includes)))
    # A model that is its own family (kokkos) names its notes once.
    notes = [problem.notes.get(key, "") for key in dict.fromkeys(("all", family, model))]
    if model in ("mpi+omp",):
        notes.append(problem.notes.get("mpi", ""))
    text = [f"// {problem.name} ({problem.problem_type}) in {MODEL_TITLES[model]}"]
    text += [f"#include <{inc}>" for inc in includes]
    text.append("")
    if problem.types_for(model):
        text += [problem.types_for(model), ""]
    paragraphs = [problem.description, MODEL_CONVENTIONS[model]]
    if model in ("cuda", "hip") or family == "gpu":
        paragraphs[-1] = MODEL_CONVENTIONS[model]
    paragraphs += [n.strip() for n in notes if n and n.strip()]
    paragraphs.append("Example:\n" + textwrap.indent(problem.example, "  "))
    text.append(_comment(paragraphs))
    text.append(problem.signature(model) + " {")
    return "\n".join(text) + "\n"


def _body_path(problem: Problem, model: str) -> Path:
    if model == "cuda":
        return problem.directory / "ref_cuda.cu"
    if model == "hip" and not (problem.directory / "ref_hip.cpp").exists():
        return problem.directory / "ref_cuda.cu"
    return problem.directory / f"ref_{model}.cpp"


def reference_body(problem: Problem, model: str) -> str:
    """A correct body for (problem, model): the text after the prompt, closing "}" included."""
    _check_model(model)
    path = _body_path(problem, model)
    if not path.exists():
        raise FileNotFoundError(f"{problem.name}: no reference body for {model} ({path.name})")
    body = path.read_text()
    return body if body.endswith("\n") else body + "\n"


def serial_baseline_body(problem: Problem) -> str:
    """The serial baseline's body (the serial reference); it fits the serial/omp/mpi/mpi+omp prompts."""
    return reference_body(problem, "serial")


STANDARD_HEADER_FILE = "pcgbench_std.hpp"


def standard_includes() -> str:
    """The #include lines of STANDARD_HEADERS, one per line."""
    return "".join(f"#include <{header}>\n" for header in STANDARD_HEADERS)


def sample_source(problem: Problem, model: str, body: str) -> str:
    """The translation unit of one sample: the standard headers (one include of STANDARD_HEADER_FILE, which
    compile_sample_argv's -I finds, precompiled), the prompt, then the generated body."""
    return f'#include "{STANDARD_HEADER_FILE}"\n' + prompt(problem, model) + body + ("" if body.endswith("\n") else "\n")


def sample_suffix(model: str) -> str:
    """File suffix a sample's translation unit needs (nvcc compiles .cu as CUDA)."""
    return ".cu" if model == "cuda" else ".cpp"


# ---------------------------------------------------------------------------------------------------------
# Toolchains


def _has_gpu() -> bool:
    return Path("/dev/nvidia0").exists() or Path("/dev/kfd").exists()


def build_status(model: str) -> tuple[bool, str]:
    """(True, "") if samples of `model` can be compiled here, else (False, why)."""
    _check_model(model)
    need = {"serial": ["g++"], "omp": ["g++"], "mpi": ["mpicxx"], "mpi+omp": ["mpicxx"], "kokkos": ["g++", "cmake"],
            "cuda": ["nvcc"], "hip": ["hipcc"]}[model]
    missing = [tool for tool in need if shutil.which(tool) is None]
    if missing:
        return False, f"no {missing[0]}: {MODEL_TITLES[model]} cannot be built here"
    return True, ""


def toolchain_status(model: str) -> tuple[bool, str]:
    """(True, "") if samples of `model` can be built and run here, else (False, why): never a failure."""
    ok, why = build_status(model)
    if not ok:
        return False, why + " (skipped)"
    if model in ("mpi", "mpi+omp") and shutil.which("mpirun") is None:
        return False, "no mpirun: MPI programs cannot be run here"
    if model == "cuda" and not Path("/dev/nvidia0").exists():
        return False, "no GPU: CUDA is build-only"
    if model == "hip" and not _has_gpu():
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
RACE_CHECKED_MODELS = OPENMP_MODELS
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


def standard_header_dir(model: str, sanitizer: str | None = None) -> Path:
    """The folder holding STANDARD_HEADER_FILE for `model`'s compiles and, for GCC-based models and race-check
    builds (clang), its precompiled form for exactly the sample compile's compiler and flags (built once per
    machine, under a lock; measured here: a sample compile with the standard headers takes 0.5 s from text
    and 0.09 s precompiled with GCC, 0.39 s and 0.09 s with clang's ThreadSanitizer). If GCC cannot use the
    precompiled form it reads the text, so a stale one costs time only; clang reads one only when named
    (standard_header_flags)."""
    if sanitizer is not None:  # a race-check build starts here: without its tools, say which are missing
        ok, why = race_check_status()
        if not ok:
            raise RuntimeError(why)
    compiler, flags = _compiler(model, sanitizer), _compile_flags(model, sanitizer)
    text = "#ifndef PCGBENCH_STD_HPP\n#define PCGBENCH_STD_HPP\n" + standard_includes() + "#endif\n"
    # The precompiled form's name is in the key: a folder made before clang's form was precompiled is not reused.
    key = hashlib.sha256("\0".join([text, *compiler, *flags, compiler_version(compiler[0]), _precompiled_name(sanitizer)]
                                   ).encode()).hexdigest()  # fmt: skip
    folder = machine_cache_dir() / "std_headers" / key[:20]
    header, pch = folder / STANDARD_HEADER_FILE, folder / _precompiled_name(sanitizer)
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
        if model in _PRECOMPILED:
            tmp = folder / f".{os.getpid()}{pch.suffix}"
            proc = subprocess.run([*compiler, *flags, "-c", "-x", "c++-header", str(header), "-o", str(tmp)],
                                  capture_output=True, text=True)  # fmt: skip
            if proc.returncode == 0:
                tmp.chmod(0o644)
                os.replace(tmp, pch)
            else:  # samples still build, from the text
                tmp.unlink(missing_ok=True)
                logger.warning("could not precompile the standard headers for %s: %s", model, proc.stderr[-500:])
        done.write_text(key)
    return folder


def _precompiled_name(sanitizer: str | None) -> str:
    """GCC finds `<header>.gch` beside the header by itself; clang (the race-check builds) is given its `.pch`."""
    return STANDARD_HEADER_FILE + (".pch" if sanitizer == TSAN else ".gch")


def standard_header_flags(model: str, sanitizer: str | None = None) -> list[str]:
    """The flags with which a compile of `model` (and `sanitizer`) finds the standard headers, precompiled
    where they could be (-include-pch for clang: it reads a precompiled header only when named)."""
    folder = standard_header_dir(model, sanitizer)
    pch = folder / _precompiled_name(sanitizer)
    return [f"-I{folder}"] + (["-include-pch", str(pch)] if sanitizer == TSAN and pch.exists() else [])


def _check_sanitizer(model: str, sanitizer: str | None) -> None:
    if sanitizer is not None and (sanitizer != TSAN or model not in RACE_CHECKED_MODELS):
        raise ValueError(f"no {sanitizer!r} build of {model}: only {TSAN!r} builds of {RACE_CHECKED_MODELS}")


def _compiler(model: str, sanitizer: str | None = None) -> list[str]:
    _check_sanitizer(model, sanitizer)
    if sanitizer == TSAN:
        return list(TSAN_COMPILER)
    return {"serial": ["g++"], "omp": ["g++", "-fopenmp"], "mpi": ["mpicxx"], "mpi+omp": ["mpicxx", "-fopenmp"],
            "kokkos": ["g++"], "cuda": ["nvcc", f"-arch={CUDA_ARCH}"], "hip": ["hipcc"]}[model]


def _compile_flags(model: str, sanitizer: str | None = None) -> list[str]:
    if sanitizer == TSAN:
        return list(TSAN_FLAGS) + (list(mpi_wrapper_flags("compile")) if model == "mpi+omp" else [])
    flags = list(CXX_FLAGS)
    if model == "kokkos":
        flags += kokkos_flags(ensure_kokkos())[0]
    if model == "cuda":
        flags += ["-x", "cu"]
    return flags


def compile_sample_argv(problem: Problem, model: str, src: Path, obj: Path, sanitizer: str | None = None) -> list[str]:
    """argv compiling one sample's translation unit (sample_source written to `src`) to the object `obj`
    (with `sanitizer`: its race-check build)."""
    _check_model(model)
    return [*_compiler(model, sanitizer), *_compile_flags(model, sanitizer),
            *standard_header_flags(model, sanitizer), "-c", str(src), "-o", str(obj)]  # fmt: skip


def link_argv(problem: Problem, model: str, sample_obj: Path, driver_obj: Path, exe: Path,
              sanitizer: str | None = None) -> list[str]:  # fmt: skip
    """argv linking a sample's object with the driver object of (problem, driver_model(model)) into `exe`."""
    _check_model(model)
    libs: list[str] = []
    if model == "kokkos":
        libs = kokkos_flags(kokkos_prefix())[1]
    if model == "mpi+omp" and sanitizer == TSAN:
        libs = list(mpi_wrapper_flags("link"))
    # A serial sample links the OpenMP driver (driver_model), hence OpenMP's runtime.
    compiler = _compiler(model, sanitizer) if sanitizer else _compiler(driver_model(model))
    return [*compiler, *_linker_flags(model), str(sample_obj), str(driver_obj), "-o", str(exe), *libs]


# Every library address is bound at load time and the table that holds them made read-only before main() (full
# RELRO): a sample that finds the driver's table through pointers cannot put its own clock in the place of libc's.
FULL_RELRO = ("-z", "relro", "-z", "now")


def _linker_flags(model: str) -> list[str]:
    """Full RELRO (FULL_RELRO), and GNU gold where binutils has it, for the CPU models (GCC, the MPI wrappers,
    clang's race-check builds): every sample is linked, and gold links one in a third of the time (measured here:
    17 against 48 ms with GCC; a ThreadSanitizer build, static runtime and all, 65 against 174 ms). Without it,
    the default linker; nvcc and hipcc pass the RELRO flags on to theirs."""
    if model in ("cuda", "hip"):
        return [flag for option in FULL_RELRO for flag in ("-Xlinker", option)]
    return ["-Wl," + ",".join(FULL_RELRO), *(["-fuse-ld=gold"] if _has_gold() else [])]


@functools.cache
def _has_gold() -> bool:
    """Whether ld.gold is on PATH (looked up once: link_argv runs twice per sample linked)."""
    return shutil.which("ld.gold") is not None


def _declared_names(types: str) -> set:
    """The struct/class names a `types` text declares."""
    return set(re.findall(r"\b(?:struct|class)\s+([A-Za-z_]\w*)", types or ""))


def driver_source(problem: Problem, model: str) -> str:
    """The driver translation unit for (problem, model); see data/pcgbench/drivers/common.hpp."""
    _check_model(model)
    # noinline: the baseline is timed as a call, like the sample (which lives in another translation unit).
    baseline = "__attribute__((noinline)) " + problem.signatures["vector"] + " {\n" + serial_baseline_body(problem)
    # The standard headers first, as in a sample: build_driver's -I finds their precompiled form (a driver
    # compile from text spent most of its time in them).
    lines = [f"// PCGBench driver for {problem.name} / {model} (generated by workflow_scripts/pcgbench/suite.py)",
             f'#include "{STANDARD_HEADER_FILE}"',
             f"#define PCG_MODEL_{MODEL_MACRO[model]} 1",
             f'#define PCG_MODEL_NAME "{model}"',
             f'#define PCG_PROBLEM_NAME "{problem.name}"',
             '#include "drivers/common.hpp"']
    lines += [f"#include <{inc}>" for inc in problem.includes]
    if problem.types.get("vector") and problem.types["vector"] != problem.types_for(model) and not (
            _declared_names(problem.types["vector"]) & _declared_names(problem.types_for(model))):
        # The baseline's types, unless the model's types declare the same names (ParEval's Book has a std::string
        # title in the vector prompts and a char pointer in the Kokkos and GPU ones): then the baseline, which
        # reads the fields both share, is compiled against the model's declaration.
        lines.append(problem.types["vector"])
    if problem.types_for(model):
        lines.append(problem.types_for(model))
    lines.append(problem.signature(model) + ";  // the sample, compiled in its own translation unit")
    lines += ["namespace pcg_baseline {", baseline, "}  // namespace pcg_baseline",
              f'#include "{problem.name}/harness.hpp"', '#include "drivers/main.hpp"', ""]
    return "\n".join(lines)


def _driver_key(problem: Problem, model: str, argv_template: list[str], source: str) -> str:
    digest = hashlib.sha256()
    # Every shared header under drivers/ (common.hpp, main.hpp and the per-type ones a harness may include).
    shared = [path.read_text() for path in sorted(DRIVERS_DIR.glob("*.hpp"))]
    for part in [source, " ".join(argv_template), *shared, (problem.directory / "harness.hpp").read_text()]:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def driver_model(model: str) -> str:
    """The model whose driver object `model`'s samples link. Serial samples link their problem's OpenMP driver:
    the harness and the serial baseline hold no OpenMP code, so the two drivers differed only in the stress
    validations (asked for by OpenMP runs alone) and the model name of the result line (run_argv's --model);
    one object per problem instead of two saves a driver compile (0.7 s) per problem on a cold machine (an
    evaluation of serial samples alone precompiles the OpenMP standard header for it, once per machine). Serial
    executables therefore link the OpenMP runtime; a serial sample is still compiled without OpenMP, so its
    pragmas stay inert."""
    return "omp" if model == "serial" else model


def build_driver(problem: Problem, model: str, build_dir: Path) -> Path:
    """Compile (once; cached) the driver object for (problem, driver_model(model)) under
    build_dir/<problem>/<model>/driver-<key>.o. A race-check build links the same object (link_argv).

    Raises RuntimeError with the compiler's output if the driver does not compile (a suite bug, not the sample's).
    """
    ok, why = build_status(model)
    if not ok:
        raise RuntimeError(why)
    model = driver_model(model)
    out_dir = Path(build_dir) / problem.name / model.replace("+", "_")
    out_dir.mkdir(parents=True, exist_ok=True)
    suffix = sample_suffix(model)
    source = driver_source(problem, model)
    flags = [*_compiler(model), *_compile_flags(model), f"-I{DATA_ROOT}", *standard_header_flags(model)]
    key = _driver_key(problem, model, flags, source)[:20]
    src, obj = out_dir / f"driver-{key}{suffix}", out_dir / f"driver-{key}.o"
    with open(out_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if obj.exists():
            return obj
        src.write_text(source)
        tmp = out_dir / f"driver.{os.getpid()}.tmp.o"
        argv = [*flags, "-c", str(src), "-o", str(tmp)]
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            tmp.unlink(missing_ok=True)
            raise RuntimeError(f"driver for {problem.name}/{model} failed to compile:\n{' '.join(argv)}\n"
                               f"{proc.stderr[-4000:]}")
        os.replace(tmp, obj)
    return obj


def run_argv(problem: Problem, model: str, exe: Path, *, ranks: int, threads: int, seed: int, warmup: int,
             reps: int, size: str = "timed", check_validator: bool = False, validations: int = 1,
             stress_validations: int = 0, stress_threads: int = 0, more_threads: tuple[int, ...] = (),
             secret_stdin: bool = False) -> tuple[list[str], dict[str, str]]:  # fmt: skip
    """argv and extra environment for one run of `exe` with `ranks` MPI ranks x `threads` threads.

    The driver validates problem.small_validations inputs at sizes["small"] and `validations` at sizes[size]
    (each on another input: a data race shows in some calls only), and times at sizes[size]. Models without MPI need
    ranks == 1; models without threads need threads == 1. OpenMP models (omp, mpi+omp) then validate
    `stress_validations` more times the last input at sizes[size] with `stress_threads` threads per rank (more than the
    cores: preempted mid-loop, a racy program's threads interleave even beside a competing load that would
    otherwise run them one after another); other models ignore these two. OpenMP models given `more_threads` validate
    and time at those thread counts per rank too, in the same process after `threads` (parse_driver_results: one
    result per thread count). `secret_stdin`: rank 0 reads the run's secret (nonce and timed seed) from standard
    input first (run.run_program gives it; drivers/main.hpp says why).
    """
    _check_model(model)
    if size not in problem.sizes:
        raise ValueError(f"{problem.name}: no size {size!r}; it has {sorted(problem.sizes)}")
    if ranks < 1 or threads < 1:
        raise ValueError(f"ranks and threads must be >= 1, got ranks={ranks}, threads={threads}")
    if reps < 0 or warmup < 0:
        raise ValueError(f"reps and warmup must be >= 0 (reps 0: validate only), got reps={reps}, warmup={warmup}")
    if ranks != 1 and model not in ("mpi", "mpi+omp"):
        raise ValueError(f"{model} runs on one rank; got ranks={ranks}")
    if threads != 1 and model in ("serial", "mpi"):
        raise ValueError(f"{model} runs one thread per rank; got threads={threads}")
    if validations < 1:
        raise ValueError(f"validations must be >= 1, got {validations}")
    if more_threads and (model not in OPENMP_MODELS or min(more_threads) < 1):
        raise ValueError(f"more_threads: OpenMP models only, each >= 1; got {more_threads} for {model}")
    if stress_validations < 0 or (stress_validations > 0 and stress_threads < 1):
        raise ValueError(f"stress_validations must be >= 0 and, when > 0, stress_threads >= 1; got "
                         f"stress_validations={stress_validations}, stress_threads={stress_threads}")
    sizes = [problem.sizes["small"]] * problem.small_validations + [problem.sizes[size]] * validations
    args = [str(exe), "--seed", str(seed), "--sizes", ",".join(str(n) for n in sizes), "--warmup", str(warmup),
            "--reps", str(reps), "--model", model]
    if check_validator:
        args.append("--check-validator")
    if stress_validations and model in OPENMP_MODELS:
        args += ["--stress-threads", str(stress_threads), "--stress-validations", str(stress_validations)]
    if more_threads:
        args += ["--threads-sweep", ",".join(str(t) for t in (threads, *more_threads))]
    if secret_stdin:
        args.append("--secret-stdin")
    env = {"OMP_NUM_THREADS": str(threads), "OMP_PROC_BIND": "false", "OMP_DYNAMIC": "false"}
    if model == "mpi+omp":
        # ranks x threads may exceed the cores; spinning OpenMP threads then starve the other rank's threads
        # (measured here: an LU step loop ran >100x slower), so idle threads sleep instead.
        env["OMP_WAIT_POLICY"] = "passive"
    if model in ("mpi", "mpi+omp"):
        # mpi_yield_when_idle: a rank waiting in MPI (e.g. at the barrier while rank 0 times the baseline)
        # yields its core instead of busy-polling it.
        return (["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "--mca",
                 "mpi_yield_when_idle", "1", "-np", str(ranks), *[a for k in env for a in ("-x", k)], *args], env)
    return args, env


def build_executable(problem: Problem, model: str, body: str, work_dir: Path, driver_build_dir: Path) -> Path:
    """Compile `body` as a sample of (problem, model) and link it with the cached driver; trusted code only
    (references, tests, the CLI). Raises RuntimeError with the compiler's output on failure."""
    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    driver_obj = build_driver(problem, model, driver_build_dir)
    src = work_dir / f"sample{sample_suffix(model)}"
    obj, exe = work_dir / "sample.o", work_dir / "sample.exe"
    src.write_text(sample_source(problem, model, body))
    for argv in (compile_sample_argv(problem, model, src, obj), link_argv(problem, model, obj, driver_obj, exe)):
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{problem.name}/{model}: {' '.join(argv)}\n{proc.stderr[-4000:]}")
    return exe


# ---------------------------------------------------------------------------------------------------------
# Driver output


@dataclasses.dataclass(frozen=True)
class SizeCheck:
    size: int
    passed: bool
    why: str


@dataclasses.dataclass(frozen=True)
class DriverResult:
    """What one driver run reported."""

    problem: str
    model: str
    ranks: int
    threads: int
    timed_size: int
    valid: bool                          # every validated size and every timed call passed
    failure: str                         # the first failing size or timed call and why ("" when valid)
    validation: tuple[SizeCheck, ...]    # sizes validated, in order (stops at the first failure)
    times_s: tuple[float, ...]           # one per timed repetition of the sample (empty if not valid)
    baseline_times_s: tuple[float, ...]  # the serial baseline, timed in the same process
    timed_seed: int = 0                  # the seed of the first timed input (from the run's secret)
    threads_allowed: int = 0             # threads per process the timed calls were given (0: not checked, GPU)
    cpu_per_wall: float = 0.0            # CPU time / wall time of a timed call: the median call's, largest over ranks
    baseline_cpu_per_wall: float = 0.0   # the same of the baseline's calls (rank 0)


RESULT_TAG = "PCGBENCH_RESULT "
NO_NONCE = "-"  # the nonce of a run given no secret (trusted runs of the references)


class ForgedResult(ValueError):
    """A result line that the driver did not print: its nonce is not the run's."""


def parse_driver_output(stdout: str, nonce: str = NO_NONCE, timed: bool = True) -> DriverResult:
    """The DriverResult in a driver's stdout; ValueError if the result line is missing or malformed, or if
    there are several (a run with more_threads: parse_driver_results); ForgedResult if one bears another nonce."""
    results = parse_driver_results(stdout, nonce, timed)
    if len(results) != 1:
        raise ValueError(f"expected exactly one '{RESULT_TAG.strip()}' line in the driver output, found {len(results)}")
    return results[0]


def parse_driver_results(stdout: str, nonce: str = NO_NONCE, timed: bool = True) -> tuple[DriverResult, ...]:
    """The DriverResults in a driver's stdout, one per thread count it ran, in its order. ForgedResult if any
    tagged line bears another nonce than `nonce` (the sample printed it); ValueError if there is none or one is
    malformed, or (`timed`: the run had reps > 0) a valid one has no timings."""
    lines = [ln for ln in stdout.splitlines() if ln.startswith(RESULT_TAG.strip())]
    if not lines:
        raise ValueError(f"expected a '{RESULT_TAG.strip()}' line in the driver output, found none")
    signed = RESULT_TAG + nonce + " "
    forged = [ln for ln in lines if not ln.startswith(signed)]
    if forged:
        raise ForgedResult(f"{len(forged)} of {len(lines)} '{RESULT_TAG.strip()}' lines were not printed by the "
                           f"driver (no run nonce), e.g. {forged[0][:160]!r}")
    return tuple(_parse_result_line(line[len(signed):], timed) for line in lines)


def _parse_result_line(text: str, timed: bool = True) -> DriverResult:
    try:
        raw = json.loads(text)
        validation = tuple(SizeCheck(size=int(v["size"]), passed=bool(v["pass"]), why=str(v["why"]))
                           for v in raw["validation"])
        result = DriverResult(problem=str(raw["problem"]), model=str(raw["model"]), ranks=int(raw["ranks"]),
                              threads=int(raw["threads"]), timed_size=int(raw["timed_size"]),
                              valid=raw["valid"] is True, failure=str(raw["failure"]), validation=validation,
                              times_s=tuple(float(t) for t in raw["times_s"]),
                              baseline_times_s=tuple(float(t) for t in raw["baseline_times_s"]),
                              timed_seed=int(raw["timed_seed"]), threads_allowed=int(raw["threads_allowed"]),
                              cpu_per_wall=float(raw["cpu_per_wall"]),
                              baseline_cpu_per_wall=float(raw["baseline_cpu_per_wall"]))
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise ValueError(f"malformed {RESULT_TAG.strip()} line: {err}") from err
    if timed and result.valid and (not result.times_s or not result.baseline_times_s):
        raise ValueError("driver reported a valid result without timings")
    return result


VALIDATOR_TAG = "PCGBENCH_VALIDATOR "


def parse_validator_output(stdout: str) -> dict[str, tuple[str, str]]:
    """{corruption: (verdict, why)} from a --check-validator run."""
    lines = [ln for ln in stdout.splitlines() if ln.startswith(VALIDATOR_TAG)]
    if len(lines) != 1:
        raise ValueError(f"expected one '{VALIDATOR_TAG.strip()}' line, found {len(lines)}")
    raw = json.loads(lines[0][len(VALIDATOR_TAG):])
    return {kind: (v["verdict"], v["why"]) for kind, v in raw.items()}
