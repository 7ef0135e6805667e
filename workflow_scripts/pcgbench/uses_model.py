"""Does a generated body really use the execution model its prompt asked for?

ParEval computes such a check but never applies it, so serial code pasted into an OpenMP prompt counts as a
correct OpenMP solution. Here a body that does not use its model is reported and does not count as a pass.
The check is lexical and deliberately simple; comments and string literals are removed first (by the project's
C/C++ scanner, common/c_scanner.py) so that code quoted in them does not count:
- omp: an OpenMP directive that creates work (`#pragma omp parallel ...`, or the same directive written as
  the operator `_Pragma("omp parallel ...")`, whose string is the directive),
- mpi: at least one MPI call that communicates (point-to-point, collective or one-sided),
- mpi+omp: both of the above,
- kokkos: a Kokkos parallel pattern (parallel_for / parallel_reduce / parallel_scan) or Kokkos::sort,
- cuda / hip: the body is a kernel; it must index by thread (threadIdx / blockIdx / blockDim), otherwise
  every launched thread repeats the whole computation serially,
- serial: always true.
"""

from __future__ import annotations

import re

from workflow_scripts.common.c_scanner import pragmas, strip_comments_and_strings

_OMP = re.compile(r"omp\s+(parallel|for|task|taskloop|simd|sections|teams|distribute)\b")  # a pragma's text
_MPI_COMM = re.compile(
    r"\bMPI_(Send|Ssend|Bsend|Rsend|Isend|Issend|Recv|Irecv|Sendrecv|Sendrecv_replace|Bcast|Ibcast|Reduce|Ireduce|"
    r"Allreduce|Iallreduce|Gather|Gatherv|Igather|Allgather|Allgatherv|Iallgather|Scatter|Scatterv|Iscatter|"
    r"Alltoall|Alltoallv|Alltoallw|Reduce_scatter|Reduce_scatter_block|Scan|Exscan|Put|Get|Accumulate|"
    r"Get_accumulate|Fetch_and_op|Neighbor_allgather|Neighbor_alltoall)\s*\("
)
_KOKKOS = re.compile(r"\bKokkos::(parallel_for|parallel_reduce|parallel_scan|sort)\s*[(<]")
_GPU_INDEX = re.compile(r"\b(threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*[xyz]\b|\bhipThreadIdx_[xyz]\b|\bhipBlockIdx_[xyz]\b")

MODEL_TITLES = {"serial": "serial C++", "omp": "OpenMP", "mpi": "MPI", "mpi+omp": "MPI+OpenMP", "kokkos": "Kokkos",
                "cuda": "CUDA", "hip": "HIP"}


def _has_omp(code: str) -> bool:
    return any(_OMP.match(directive.text) for directive in pragmas(code))


def _has_mpi(code: str) -> bool:
    return bool(_MPI_COMM.search(code))


def uses_model(model: str, body: str) -> tuple[bool, str]:
    """(True, "") if `body` uses `model`, else (False, a sentence saying what is missing)."""
    code = strip_comments_and_strings(body)
    if model == "serial":
        return True, ""
    if model == "omp":  # pragmas are read from the body itself: a `_Pragma` holds its directive in a string
        return (True, "") if _has_omp(body) else (False, "OpenMP prompt body has no OpenMP construct")
    if model == "mpi":
        return (True, "") if _has_mpi(code) else (False, "MPI prompt body never communicates (no MPI communication call)")
    if model == "mpi+omp":
        missing = [what for what, ok in (("no OpenMP construct", _has_omp(body)),
                                         ("no MPI communication call", _has_mpi(code))) if not ok]
        return (True, "") if not missing else (False, "MPI+OpenMP prompt body has " + " and ".join(missing))
    if model == "kokkos":
        return (True, "") if _KOKKOS.search(code) else (False, "Kokkos prompt body has no Kokkos parallel pattern")
    if model in ("cuda", "hip"):
        if _GPU_INDEX.search(code):
            return True, ""
        return False, f"{MODEL_TITLES[model]} kernel body never uses the thread index: every thread would do all the work"
    raise ValueError(f"unknown execution model {model!r}; expected one of {sorted(MODEL_TITLES)}")
