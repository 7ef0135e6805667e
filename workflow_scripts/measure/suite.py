"""The PCGBench problem suite: problems as data, prompts, reference bodies. How they are built is toolchains.py's
job, the driver program that validates and times them driver_program.py's.

Layout of the data (`data/pcgbench/`):

    drivers/common.hpp, drivers/main.hpp    the driver shared by every problem and execution model
    drivers/<type>.hpp                      helpers shared by the headers of one problem type (fft.hpp)
    <problem>/problem.yaml                  name, problem_type, description, example, sizes, includes, types,
                                            signatures (vector | kokkos | gpu), notes (per model family),
                                            small_validations (optional)
    <problem>/problem.hpp                   Data, generate(n, seed), call_baseline, call_solution, result,
                                            check(input, want, got, why), truncate(data, keep), optionally
                                            collect_output(data) (drivers/main.hpp says when)
    <problem>/ref_<exec_model>.cpp          the reference body for each model (text after the signature's "{",
                                            closing "}" included); ref_cuda.cu for CUDA. ref_hip.cpp may be
                                            absent: HIP's kernel language is source-compatible with CUDA for
                                            these kernels, so the CUDA body is then the HIP reference.

The serial reference (`ref_serial.cpp`) is also the serial baseline that every driver times: the fastest
sequential code we could write in plain C++. The serial, omp, mpi and mpi+omp models share one signature
(std::vector arguments), so `serial_baseline_body` also fits those prompts; it does not fit the Kokkos and
GPU signatures (pasted there it fails to build, which is an honest result for that generator).

The API the evaluation harness uses (see the docstring of each function):
    EXECUTION_MODELS, PROBLEM_TYPES, Problem, load_suite, prompt, reference_body, serial_baseline_body,
    sample_source, sample_suffix, uses_exec_model (re-exported from the C/C++ scanner).

Details this module fixes that the interface left open:
- Problem.small_validations (default 1): inputs validated at the small size. More where one input says
  little: reduce_xor's answer is one bit, so a wrong body matches it on about half of the inputs.
- Problem.sizes is a dict: "small" (validated first), "timed" (validated, then timed) and optionally
  "paper" (the papers' scale). run_argv(..., size="timed") validates at small and at the named size and
  times at the named size.
- MPI runs use `mpirun --allow-run-as-root --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 --mca
  btl_vader_single_copy_mechanism none --mca opal_signal "" -np R -x OMP_...`: `--bind-to none` so the threads of an MPI+OpenMP rank
  are not pinned to the rank's one core, yield-when-idle so waiting ranks do not steal cores from the rank being
  timed, no single copy so that no rank reads or writes another's memory, no stack-trace handlers (their sigaction
  is refused: driver_program.run_argv); MPI+OpenMP runs also set
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
import logging
import re
import textwrap
from pathlib import Path

import yaml

from workflow_scripts.common.c_scanner import EXEC_MODEL_TITLES, uses_exec_model  # noqa: F401 -- re-exported API
from workflow_scripts.common.project_files import PROJECT_ROOT

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
OPENMP_EXEC_MODELS = ("omp", "mpi+omp")  # thread counts set at run time (stress validations, a sweep in one process)
EXEC_MODEL_MACRO = {"serial": "SERIAL", "omp": "OMP", "mpi": "MPI", "mpi+omp": "MPI_OMP", "kokkos": "KOKKOS",
                    "cuda": "CUDA", "hip": "HIP"}
EXEC_MODEL_INCLUDES = {"serial": [], "omp": ["omp.h"], "mpi": ["mpi.h"], "mpi+omp": ["mpi.h", "omp.h"],
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
EXEC_MODEL_CONVENTIONS = {
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

    def signature(self, exec_model: str) -> str:
        # A model may override its family's signature (CUDA and HIP name their complex types differently; some
        # ParEval MPI prompts take other arguments than the serial one).
        return self.signatures.get(exec_model) or self.signatures[SIGNATURE_FAMILY[exec_model]]

    def types_for(self, exec_model: str) -> str:
        return self.types.get(exec_model) or self.types.get(SIGNATURE_FAMILY[exec_model], "")


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
    if not (directory / "problem.hpp").exists():
        raise _fail(path, "problem.hpp", "the problem's header is missing")
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


def check_exec_model(exec_model: str) -> None:
    if exec_model not in EXECUTION_MODELS:
        raise ValueError(f"unknown execution model {exec_model!r}; expected one of {list(EXECUTION_MODELS)}")


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


def prompt(problem: Problem, exec_model: str) -> str:
    """The prompt for (problem, exec_model): C++ ending in the signature's "{" (a newline follows it)."""
    check_exec_model(exec_model)
    family = SIGNATURE_FAMILY[exec_model]
    includes = list(dict.fromkeys(EXEC_MODEL_INCLUDES[exec_model] + list(problem.includes)))
    # A model that is its own family (kokkos) names its notes once.
    notes = [problem.notes.get(key, "") for key in dict.fromkeys(("all", family, exec_model))]
    if exec_model in ("mpi+omp",):
        notes.append(problem.notes.get("mpi", ""))
    text = [f"// {problem.name} ({problem.problem_type}) in {EXEC_MODEL_TITLES[exec_model]}"]
    text += [f"#include <{inc}>" for inc in includes]
    text.append("")
    if problem.types_for(exec_model):
        text += [problem.types_for(exec_model), ""]
    paragraphs = [problem.description, EXEC_MODEL_CONVENTIONS[exec_model]]
    if exec_model in ("cuda", "hip") or family == "gpu":
        paragraphs[-1] = EXEC_MODEL_CONVENTIONS[exec_model]
    paragraphs += [n.strip() for n in notes if n and n.strip()]
    paragraphs.append("Example:\n" + textwrap.indent(problem.example, "  "))
    text.append(_comment(paragraphs))
    text.append(problem.signature(exec_model) + " {")
    return "\n".join(text) + "\n"


def _body_path(problem: Problem, exec_model: str) -> Path:
    if exec_model == "cuda":
        return problem.directory / "ref_cuda.cu"
    if exec_model == "hip" and not (problem.directory / "ref_hip.cpp").exists():
        return problem.directory / "ref_cuda.cu"
    return problem.directory / f"ref_{exec_model}.cpp"


def reference_body(problem: Problem, exec_model: str) -> str:
    """A correct body for (problem, exec_model): the text after the prompt, closing "}" included."""
    check_exec_model(exec_model)
    path = _body_path(problem, exec_model)
    if not path.exists():
        raise FileNotFoundError(f"{problem.name}: no reference body for {exec_model} ({path.name})")
    body = path.read_text()
    return body if body.endswith("\n") else body + "\n"


def serial_baseline_body(problem: Problem) -> str:
    """The serial baseline's body (the serial reference); it fits the serial/omp/mpi/mpi+omp prompts."""
    return reference_body(problem, "serial")


STANDARD_HEADER_FILE = "pcgbench_std.hpp"


def standard_includes() -> str:
    """The #include lines of STANDARD_HEADERS, one per line."""
    return "".join(f"#include <{header}>\n" for header in STANDARD_HEADERS)


def sample_source(problem: Problem, exec_model: str, body: str) -> str:
    """The translation unit of one sample: the standard headers (one include of STANDARD_HEADER_FILE, which
    compile_sample_argv's -I finds, precompiled), the prompt, then the generated body."""
    return f'#include "{STANDARD_HEADER_FILE}"\n' + prompt(problem, exec_model) + body + ("" if body.endswith("\n") else "\n")


def sample_suffix(exec_model: str) -> str:
    """File suffix a sample's translation unit needs (nvcc compiles .cu as CUDA)."""
    return ".cu" if exec_model == "cuda" else ".cpp"
