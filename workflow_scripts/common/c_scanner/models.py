"""Which execution model a text uses: two questions with two answers, side by side.

- `parallel_models(text, language)` (the corpus, corpus/build.py): which parallel models a whole source file of
  the corpus touches at all. Any API marker counts, in comments too (the paper tags files by content, and a
  pragma in a comment is rare), Fortran's `!$omp` and `use mpi` included. Keys: PARALLEL_EXEC_MODELS ("omp", "mpi",
  ...), named as PCGBench names its execution models.
- `uses_exec_model(exec_model, body)` (the measurement engine, measure/suite.py): whether a generated function body really does the
  work in the execution model its prompt asked for. Much stricter: only code counts (comments and strings are
  removed first) and only constructs that create parallel work or communicate. Keys: PCGBench's execution
  models ("omp", "mpi", ...).

Every search here is linear in the text's length: no pattern can retry a long stretch from many starts.
"""

from __future__ import annotations

import re

from workflow_scripts.common.c_scanner.syntax import pragmas, strip_comments_and_strings

# ---------------------------------------------------------------------------------------------------------
# A corpus file's parallel models

# `^[^\S\n]*`, not `^\s*`: the same lines match (whitespace before a marker always reaches back to the start
# of the marker's own line), but `\s*` spanning newlines rescanned a run of blank lines from each of them.
PARALLEL_EXEC_MODEL_PATTERNS = {
    "omp": r"#\s*pragma\s+omp\b|\bomp_(get|set)_\w+\s*\(|#\s*include\s*[<\"]omp\.h[>\"]|^[^\S\n]*!\$omp\b",
    "mpi": r"\bMPI_[A-Z][A-Za-z_]*\s*\(|#\s*include\s*[<\"]mpi\.h[>\"]|^[^\S\n]*use\s+mpi\b|mpif\.h",
    "cuda": r"__global__|__device__|\bcuda[A-Z]\w*\s*\(",  # and a kernel launch `<<<...>>>` (_has_kernel_launch)
    "kokkos": r"\bKokkos::",
    "pthreads": r"\bpthread_\w+\s*\(|#\s*include\s*<pthread\.h>",
    "sycl": r"\bsycl::|#\s*include\s*<(CL/)?sycl(\.hpp)?>",
}  # fmt: skip
PARALLEL_EXEC_MODELS = tuple(PARALLEL_EXEC_MODEL_PATTERNS)
_EXEC_MODEL_RES = {name: re.compile(pattern, re.MULTILINE | re.IGNORECASE if name == "omp" else re.MULTILINE)
              for name, pattern in PARALLEL_EXEC_MODEL_PATTERNS.items()}  # fmt: skip
_CPP_IN_HEADER = re.compile(
    r"^[^\S\n]*(namespace\s+\w+|template\s*<|class\s+\w+\s*[:{]|#include\s*<(iostream|vector|string|memory)>)|std::",
    re.MULTILINE,
)


def _has_kernel_launch(text: str) -> bool:
    """Whether a line holds `<<<` and, after it, `>>>` (a CUDA kernel launch): what `<<<.*>>>` finds, without
    that pattern's rescan of the rest of the line from every `<<<`."""
    start = text.find("<<<")
    while start >= 0:
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        if text.find(">>>", start + 3, line_end) >= 0:
            return True
        start = text.find("<<<", line_end)
    return False


def parallel_models(text: str, language: str | None = None) -> list[str]:
    """The parallel programming models a corpus file uses, in PARALLEL_EXEC_MODELS order (a .cu file is CUDA)."""
    found = [name for name in PARALLEL_EXEC_MODELS if _EXEC_MODEL_RES[name].search(text)
             or (name == "cuda" and _has_kernel_launch(text))]  # fmt: skip
    if language == "cuda" and "cuda" not in found:
        found.insert(min(2, len(found)), "cuda")
        found = [name for name in PARALLEL_EXEC_MODELS if name in found]
    return found


def has_cpp_constructs(text: str) -> bool:
    """Whether a header holds C++ (a namespace, template, class, C++ standard header or `std::`)."""
    return bool(_CPP_IN_HEADER.search(text))


# ---------------------------------------------------------------------------------------------------------
# Does a generated body use the execution model its prompt asked for?
#
# ParEval computes such a check but never applies it, so serial code pasted into an OpenMP prompt counts as a
# correct OpenMP solution. PCGBench reports a body that does not use its model and does not count it as a
# pass. The check is lexical and deliberately simple; comments and string literals are removed first so that
# code quoted in them does not count:
# - omp: an OpenMP directive that creates work (`#pragma omp parallel ...`, or the same directive written as
#   the operator `_Pragma("omp parallel ...")`, whose string is the directive),
# - mpi: at least one MPI call that communicates (point-to-point, collective or one-sided),
# - mpi+omp: both of the above,
# - kokkos: a Kokkos parallel pattern (parallel_for / parallel_reduce / parallel_scan) or Kokkos::sort,
# - cuda / hip: the body is a kernel; it must index by thread (threadIdx / blockIdx / blockDim), otherwise
#   every launched thread repeats the whole computation serially,
# - serial: always true.

_OMP = re.compile(r"omp\s+(parallel|for|task|taskloop|simd|sections|teams|distribute)\b")  # a pragma's text
_MPI_COMM = re.compile(
    r"\bMPI_(Send|Ssend|Bsend|Rsend|Isend|Issend|Recv|Irecv|Sendrecv|Sendrecv_replace|Bcast|Ibcast|Reduce|Ireduce|"
    r"Allreduce|Iallreduce|Gather|Gatherv|Igather|Allgather|Allgatherv|Iallgather|Scatter|Scatterv|Iscatter|"
    r"Alltoall|Alltoallv|Alltoallw|Reduce_scatter|Reduce_scatter_block|Scan|Exscan|Put|Get|Accumulate|"
    r"Get_accumulate|Fetch_and_op|Neighbor_allgather|Neighbor_alltoall)\s*\("
)
_KOKKOS = re.compile(r"\bKokkos::(parallel_for|parallel_reduce|parallel_scan|sort)\s*[(<]")
_GPU_INDEX = re.compile(r"\b(threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*[xyz]\b|\bhipThreadIdx_[xyz]\b|\bhipBlockIdx_[xyz]\b")

EXEC_MODEL_TITLES = {"serial": "serial C++", "omp": "OpenMP", "mpi": "MPI", "mpi+omp": "MPI+OpenMP", "kokkos": "Kokkos",
                "cuda": "CUDA", "hip": "HIP"}


def _has_omp(code: str) -> bool:
    return any(_OMP.match(directive.text) for directive in pragmas(code))


def _has_mpi(code: str) -> bool:
    return bool(_MPI_COMM.search(code))


def uses_exec_model(exec_model: str, body: str) -> tuple[bool, str]:
    """(True, "") if a generated `body` uses PCGBench execution model `exec_model`, else (False, a sentence saying
    what is missing)."""
    code = strip_comments_and_strings(body)
    if exec_model == "serial":
        return True, ""
    if exec_model == "omp":  # pragmas are read from the body itself: a `_Pragma` holds its directive in a string
        return (True, "") if _has_omp(body) else (False, "OpenMP prompt body has no OpenMP construct")
    if exec_model == "mpi":
        return (True, "") if _has_mpi(code) else (False, "MPI prompt body never communicates (no MPI communication call)")
    if exec_model == "mpi+omp":
        missing = [what for what, ok in (("no OpenMP construct", _has_omp(body)),
                                         ("no MPI communication call", _has_mpi(code))) if not ok]
        return (True, "") if not missing else (False, "MPI+OpenMP prompt body has " + " and ".join(missing))
    if exec_model == "kokkos":
        return (True, "") if _KOKKOS.search(code) else (False, "Kokkos prompt body has no Kokkos parallel pattern")
    if exec_model in ("cuda", "hip"):
        if _GPU_INDEX.search(code):
            return True, ""
        return False, f"{EXEC_MODEL_TITLES[exec_model]} kernel body never uses the thread index: every thread would do all the work"
    raise ValueError(f"unknown execution model {exec_model!r}; expected one of {sorted(EXEC_MODEL_TITLES)}")
