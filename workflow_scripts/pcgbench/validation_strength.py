"""The validation-strength check: trivial bodies, each of which must fail where it is not a correct answer.

A body that answers from the size, a parity, a fixed place or a constant, or that looks at part of its input only,
scores a speedup wherever the problem's generator lets such an answer through the validations (a red-team review found search_contains
answered as `x.size() & 1`, closest_pair_2d as a constant). This module writes a family of such bodies for a
(problem, exec_model) from the prompt's signature and the serial reference, builds and runs each like a sample, and
counts how many the driver's validation kills.

The family (`trivial_bodies`), where the signature allows it:
- a constant (zero/false, one/true), the size (N, or the first vector's or view's length), its parity, its last
  index, the first or the last element;
- nothing done (a void function that leaves its outputs as on entry);
- the serial reference run on part of its input: the first half (the first n / ranks elements of two ranks), the
  second half (where generators planted answers), the ends dropped (the boundaries skipped); an index answer shifted
  back to the whole vector's place too. Only where sizes come from the vectors themselves (no N, M, K parameter,
  no CSR row pointers that a slice would break); graphs (A, N) get the reference on their leading N/2 x N/2 block;
- the serial reference with part of its output left as on entry: the second half, the first half, the ends (an
  N x N output's border rows and columns);
- the reference's answer computed once per size and replayed for every later input of that size (it passes where
  the answer follows from the size: the answer's value must vary).
The vector bodies serve serial, omp, mpi and mpi+omp (the same signature; an MPI body runs on every rank, and rank
0's answer is the first-half one of two ranks); Kokkos gets the constants, the size, its parity, the ends' elements,
nothing done and the replay by size (of its own reference). None calls into the harness: the reference is the
body's own copy of ref_serial.cpp (ref_kokkos.cpp), under another name (the tampering inspection refuses calls into
pcg:: and pcg_baseline::).

Each body is built with the harness's BuildCache and run once with run_program, validate-only (reps 0): the small
size, then `validations` inputs at the timed size, each on its own seed, as many as a run of the evaluation checks
there (1 validation and 9 timed calls by default). A body is killed by any verdict but ok; the driver stops at the
first failing input, so a killed body costs one build and a short run. A body that is a correct answer by the
problem's definition is listed in CORRECT_ANSWERS with why, and not counted.

    from workflow_scripts.pcgbench import validation_strength
    [score] = validation_strength.check_validation_strength([problem], ["serial"], cache=cache)
    score.killed, score.generated, score.survivors

benchmarks/pcgbench_validation_strength.py runs it over every problem and model and prints the scores.
"""

from __future__ import annotations

import dataclasses
import logging
import re

from workflow_scripts.measure import (
    OK,
    BuildCache,
    BuildRequest,
    Problem,
    RunProtocol,
    SandboxLimits,
    reference_body,
    run_program,
)

logger = logging.getLogger(__name__)

EXEC_MODELS = ("serial", "omp", "mpi", "mpi+omp", "kokkos")  # the models that run here (not cuda, hip)
VECTOR_EXEC_MODELS = ("serial", "omp", "mpi", "mpi+omp")  # the models whose prompt has the vector signature
# Inputs validated at the timed size: a run of the evaluation's defaults checks 1 validation and 9 timed calls there.
DEFAULT_VALIDATIONS = 10
DEFAULT_SEED = 1234
REFERENCE = "pcg_vs_reference"  # the body's own copy of the serial reference
# (problem, body name) -> why that trivial body is a correct answer by the problem's definition (not counted).
CORRECT_ANSWERS: dict[tuple[str, str], str] = {}

_INTEGRAL = {"int", "size_t", "long", "long long", "unsigned", "std::size_t", "int64_t", "std::int64_t"}
_ARITHMETIC = _INTEGRAL | {"double", "float", "bool"}
_SIZE_NAMES = {"N", "M", "K"}  # scalar parameters that give the input's dimensions


@dataclasses.dataclass(frozen=True)
class Param:
    """One parameter of a prompt's signature, as written."""

    type: str  # e.g. "std::vector<int> const&"
    name: str

    @property
    def vector(self) -> bool:
        return re.sub(r"^const\s+", "", self.type).startswith("std::vector<")

    @property
    def array(self) -> bool:
        return "std::array<" in self.type

    @property
    def view(self) -> bool:
        return "Kokkos::View<" in self.type

    @property
    def const(self) -> bool:
        return re.search(r"\bconst\b", self.type) is not None

    @property
    def element(self) -> str:
        """The element type of a vector, array or view (its const and pointer stars removed)."""
        inner = self.type[self.type.index("<") + 1: self.type.rindex(">")]
        if self.array:
            inner = inner.rsplit(",", 1)[0]
        return re.sub(r"\bconst\b|\*|\[\d*\]", "", inner).strip()

    @property
    def size_like(self) -> bool:
        return self.name in _SIZE_NAMES and self.type.strip() in _INTEGRAL


@dataclasses.dataclass(frozen=True)
class Signature:
    returns: str  # "void", "double", "size_t", ...
    name: str
    params: tuple[Param, ...]
    text: str  # the signature as the prompt has it


def _split_top_level(text: str) -> list[str]:
    """Split on the commas outside <...> and (...) (std::array<size_t, 10> is one parameter)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_signature(text: str) -> Signature:
    """The return type, name and parameters of a prompt's C++ signature."""
    match = re.fullmatch(r"\s*(.+?)\s*\b(\w+)\s*\((.*)\)\s*", text, re.S)
    if match is None:
        raise ValueError(f"not a function signature: {text!r}")
    params = []
    for part in _split_top_level(match.group(3)):
        name = re.search(r"(\w+)\s*$", part).group(1)
        params.append(Param(type=part[: -len(name)].strip(), name=name))
    return Signature(returns=match.group(1), name=match.group(2), params=tuple(params), text=text)


def _size_expr(sig: Signature) -> str | None:
    """The problem's size as the body sees it: an N parameter, else the first vector's or view's length."""
    for p in sig.params:
        if p.size_like and p.name == "N":
            return p.name
    for p in sig.params:
        if p.vector or p.array:
            return f"{p.name}.size()"
        if p.view:
            return f"{p.name}.extent(0)"
    return None


def _returns(sig: Signature, value: str) -> str:
    return f"  return ({sig.returns})({value});\n}}\n"


def _value_bodies(sig: Signature, exec_model: str) -> dict[str, str]:
    """Bodies that return something computed from no more than the size or one element."""
    bodies = {"zero": _returns(sig, "0"), "one": _returns(sig, "1")}
    size = _size_expr(sig)
    if size is not None:
        bodies["size"] = _returns(sig, size)
        bodies["size_parity"] = _returns(sig, f"{size} & 1")
        if sig.returns in _INTEGRAL:
            bodies["last_index"] = _returns(sig, f"{size} - 1")
    first = next((p for p in sig.params if p.vector or p.view), None)
    one_dimensional = first is not None and (first.vector or first.type.count("*") == 1)
    if first is not None and one_dimensional and first.element in _ARITHMETIC and sig.returns in _ARITHMETIC:
        if exec_model == "kokkos":
            bodies["first_element"] = _returns(sig, f"{first.name}(0)")
            bodies["last_element"] = _returns(sig, f"{first.name}({first.name}.extent(0) - 1)")
        else:
            bodies["first_element"] = _returns(sig, f"{first.name}.front()")
            bodies["last_element"] = _returns(sig, f"{first.name}.back()")
    return bodies


# The parts of an input a partial body reads: [lo, hi) as expressions of the parameter's length `n`.
PARTS = {"first_half": ("0", "n / 2"), "second_half": ("n / 2", "n"), "without_ends": ("1", "n - 1")}


def _call_reference(sig: Signature, args: list[str]) -> str:
    return f"{REFERENCE}({', '.join(args)})"


def _reference_signature(sig: Signature) -> str:
    return re.sub(rf"\b{sig.name}\s*\(", f"{REFERENCE}(", sig.text, count=1)


def _declare_reference(sig: Signature) -> str:
    """A block-scope declaration of the body's copy of the reference (defined after the body)."""
    return _reference_signature(sig) + ";\n"


def _sliced_bodies(sig: Signature) -> dict[str, str]:
    """The reference on part of every vector input (an in-place or same-length output written back to its part)."""
    bodies = {}
    first = next(p for p in sig.params if p.vector)
    for part, (lo, hi) in PARTS.items():
        lines, args, back = [], [], []
        for p in sig.params:
            if not p.vector:
                args.append(p.name)
                continue
            copy = f"pcg_vs_{p.name}"
            lines.append(f"  const size_t {copy}_n = {p.name}.size(), "
                         f"{copy}_lo = [](size_t n) -> size_t {{ return {lo}; }}({copy}_n), "
                         f"{copy}_hi = [](size_t n) -> size_t {{ return {hi}; }}({copy}_n);")
            if p.const:
                lines.append(f"  const std::vector<{p.element}> {copy}({p.name}.begin() + {copy}_lo, "
                             f"{p.name}.begin() + {copy}_hi);")
            else:
                # Sliced where it is as long as the first vector (in place, or an output element per input);
                # otherwise (a hull, a dense result of sparse inputs) the reference writes it whole.
                lines.append(f"  const bool {copy}_sliced = {p.name}.size() == {first.name}.size();")
                lines.append(f"  std::vector<{p.element}> {copy} = {copy}_sliced ? std::vector<{p.element}>("
                             f"{p.name}.begin() + {copy}_lo, {p.name}.begin() + {copy}_hi) : {p.name};")
                back.append(f"  if ({copy}_sliced && {copy}.size() == {copy}_hi - {copy}_lo) "
                            f"std::copy({copy}.begin(), {copy}.end(), {p.name}.begin() + {copy}_lo);\n"
                            f"  else if (!{copy}_sliced) {p.name} = {copy};")
            args.append(copy)
        call = _call_reference(sig, args)
        head = _declare_reference(sig) + "\n".join(lines) + "\n"
        if sig.returns == "void":
            bodies[f"reference_on_{part}"] = head + f"  {call};\n" + "\n".join(back) + "\n}\n"
        else:
            bodies[f"reference_on_{part}"] = head + f"  return {call};\n}}\n"
            if sig.returns in ("size_t", "std::size_t") and part != "first_half":
                # An index answer, shifted back to its place in the whole vector.
                bodies[f"reference_on_{part}_index_shifted"] = (
                    head + f"  return {call} + pcg_vs_{first.name}_lo;\n}}\n")
    return bodies


def _leading_block_body(sig: Signature) -> str:
    """A graph's reference on the subgraph of its first N/2 vertices (the first rows of two ranks)."""
    return (_declare_reference(sig)
            + "  const size_t half = N / 2;\n  std::vector<int> block(half * half);\n"
            + "  for (size_t i = 0; i < half; ++i)\n"
            + "    for (size_t j = 0; j < half; ++j) block[i * half + j] = A[i * N + j];\n"
            + f"  return {_call_reference(sig, ['block', 'half'])};\n}}\n")


def _restoring_bodies(sig: Signature) -> dict[str, str]:
    """The reference with part of each output (a non-const vector or array) put back as it was on entry."""
    outputs = [p for p in sig.params if (p.vector or p.array) and not p.const]
    if not outputs:
        return {}
    has_n = any(p.size_like and p.name == "N" for p in sig.params)
    saved = "".join(f"  const auto pcg_vs_{p.name}_entry = {p.name};\n" for p in outputs)
    call = f"  {_call_reference(sig, [p.name for p in sig.params])};\n"
    bodies = {}
    for part, (lo, hi) in {"second_half": ("n / 2", "n"), "first_half": ("0", "n / 2")}.items():
        lines = []
        for p in outputs:
            entry = f"pcg_vs_{p.name}_entry"
            restore = (f"    for (size_t pcg_vs_i = {lo}; pcg_vs_i < {hi}; ++pcg_vs_i) "
                       f"{p.name}[pcg_vs_i] = {entry}[pcg_vs_i];")
            if p.vector:  # an output the reference resized (a hull) keeps the other part of what it computed
                lines.append(f"  {{ const size_t n = {p.name}.size();\n"
                             f"    if ({entry}.size() == n) {{\n{restore}\n    }} else {{\n"
                             f"      {p.name}.erase({p.name}.begin() + ({lo}), {p.name}.begin() + ({hi}));\n"
                             f"    }}\n  }}")
            else:
                lines.append(f"  {{ const size_t n = {p.name}.size();\n{restore}\n  }}")
        bodies[f"output_{part}_left"] = saved + _declare_reference(sig) + call + "\n".join(lines) + "\n}\n"
    lines = []
    for p in outputs:
        entry = f"pcg_vs_{p.name}_entry"
        grid = (f"    if ({p.name}.size() == N * N && {entry}.size() == N * N) {{\n"
                f"      for (size_t pcg_vs_k = 0; pcg_vs_k < N; ++pcg_vs_k)\n"
                f"        for (size_t pcg_vs_at : {{pcg_vs_k, (N - 1) * N + pcg_vs_k, pcg_vs_k * N, "
                f"pcg_vs_k * N + N - 1}})\n"
                f"          {p.name}[pcg_vs_at] = {entry}[pcg_vs_at];\n"
                f"      continue;\n    }}\n") if has_n else ""
        lines.append(f"  for (int pcg_vs_once = 0; pcg_vs_once < 1; ++pcg_vs_once) {{\n{grid}"
                     f"    const size_t n = {p.name}.size();\n"
                     f"    if ({entry}.size() == n && n >= 2) {{ {p.name}[0] = {entry}[0]; "
                     f"{p.name}[n - 1] = {entry}[n - 1]; }}\n"
                     + (f"    else if (n >= 2) {{ {p.name}.erase({p.name}.end() - 1); "
                        f"{p.name}.erase({p.name}.begin()); }}\n" if p.vector else "")
                     + "  }")
    bodies["output_ends_left"] = saved + _declare_reference(sig) + call + "\n".join(lines) + "\n}\n"
    return bodies


def _replay_body(sig: Signature, size: str) -> str:
    """The reference's answer computed once per size and returned for every later input of that size (the
    catalogue's memoization on the size alone): it passes wherever the answer follows from the size."""
    args = ", ".join(p.name for p in sig.params)
    return (_declare_reference(sig)
            + f"  static size_t pcg_vs_sizes[8];\n  static {sig.returns} pcg_vs_answers[8];\n"
            + "  static int pcg_vs_known = 0;\n"
            + f"  const size_t pcg_vs_n = {size};\n"
            + "  for (int k = 0; k < pcg_vs_known; ++k)\n"
            + "    if (pcg_vs_sizes[k] == pcg_vs_n) return pcg_vs_answers[k];\n"
            + f"  const {sig.returns} pcg_vs_answer = {REFERENCE}({args});\n"
            + "  if (pcg_vs_known < 8) {\n    pcg_vs_sizes[pcg_vs_known] = pcg_vs_n;\n"
            + "    pcg_vs_answers[pcg_vs_known++] = pcg_vs_answer;\n  }\n"
            + "  return pcg_vs_answer;\n}\n")


def trivial_bodies(problem: Problem, exec_model: str) -> dict[str, str]:
    """name -> body (the text after the prompt's "{", closing "}" included) of each trivial body of (problem, exec_model)."""
    if exec_model not in EXEC_MODELS:
        raise ValueError(f"the validation-strength check runs {EXEC_MODELS}, not {exec_model!r} (nothing runs it here)")
    sig = parse_signature(problem.signature(exec_model))
    bodies = {} if sig.returns == "void" else _value_bodies(sig, exec_model)
    if sig.returns == "void":
        bodies["nothing"] = "}\n"
    derived = {}
    size = _size_expr(sig)
    if sig.returns != "void" and size is not None:
        derived["replay_by_size"] = _replay_body(sig, size)
    if exec_model in VECTOR_EXEC_MODELS:
        names = {p.name for p in sig.params}
        if any(p.vector for p in sig.params) and not any(p.size_like for p in sig.params) and "row_ptr" not in names:
            derived |= _sliced_bodies(sig)
        if [p.name for p in sig.params] == ["A", "N"] and sig.returns != "void":
            derived["reference_on_leading_block"] = _leading_block_body(sig)
        if sig.returns == "void":
            derived |= _restoring_bodies(sig)
    # The serial reference serves the vector models; Kokkos's own serves its view signature.
    reference = _reference_signature(sig) + " {\n"
    reference += reference_body(problem, "serial" if exec_model in VECTOR_EXEC_MODELS else exec_model)
    return bodies | {name: body + reference for name, body in derived.items()}


@dataclasses.dataclass(frozen=True, kw_only=True)
class StrengthScore:
    """How the validation of one (problem, exec_model) fared against its trivial bodies."""

    problem: str
    exec_model: str
    verdicts: dict[str, str]  # body name -> its verdict (a body listed in CORRECT_ANSWERS included)
    details: dict[str, str]  # body name -> the verdict's detail (why a validation failed)

    @property
    def counted(self) -> list[str]:
        return sorted(n for n in self.verdicts if (self.problem, n) not in CORRECT_ANSWERS)

    @property
    def generated(self) -> int:
        return len(self.counted)

    @property
    def survivors(self) -> list[str]:
        return [n for n in self.counted if self.verdicts[n] == OK]

    @property
    def killed(self) -> int:
        return self.generated - len(self.survivors)


def strength_protocol(exec_model: str, *, validations: int = DEFAULT_VALIDATIONS, seed: int = DEFAULT_SEED) -> RunProtocol:
    """Validate only: the small size, then `validations` inputs at the timed size; MPI on 2 ranks (so the first
    half is the first n / ranks elements), one thread per rank (the bodies are serial code)."""
    return RunProtocol(warmup=0, reps=0, validations=validations, seed=seed,
                       ranks=2 if exec_model in ("mpi", "mpi+omp") else 1, threads=1)  # fmt: skip


def check_validation_strength(problems: list[Problem], exec_models: list[str], *, cache: BuildCache,
                              validations: int = DEFAULT_VALIDATIONS, seed: int = DEFAULT_SEED,
                              limits: SandboxLimits | None = None,
                              reference: bool = False) -> list[StrengthScore]:  # fmt: skip
    """Build and run every trivial body of every (problem, exec_model); one StrengthScore each, in that order.

    `reference`: run the model's own reference too, as the body named "reference" (it must get ok; it is not
    counted among the trivial bodies). A trivial body that does not build, or that the inspection refuses, is this
    module's error, not a kill: it raises RuntimeError naming the body.
    """
    limits = limits or SandboxLimits(wall_s=120.0, cpu_limit_s=120)
    jobs = []
    for problem in problems:
        for exec_model in exec_models:
            bodies = trivial_bodies(problem, exec_model)
            if reference:
                bodies["reference"] = reference_body(problem, exec_model)
            jobs += [(problem, exec_model, name, body) for name, body in bodies.items()]
    scores: dict[tuple[str, str], StrengthScore] = {}
    with cache.building([BuildRequest(problem=p, exec_model=m, body=b) for p, m, _, b in jobs]) as futures:
        for (problem, exec_model, name, _), future in zip(jobs, futures, strict=True):
            build = future.result()
            if not build.ok or build.finding is not None:
                why = build.log if not build.ok else f"{build.finding.verdict}: {build.finding.detail}"
                raise RuntimeError(f"trivial body {problem.name}/{exec_model}/{name} is no sample to judge: {why}")
            run = run_program(problem, exec_model, build.exe, strength_protocol(exec_model, validations=validations,
                                                                                seed=seed), limits)  # fmt: skip
            score = scores.setdefault((problem.name, exec_model),
                                      StrengthScore(problem=problem.name, exec_model=exec_model, verdicts={}, details={}))
            if name == "reference":
                if run.verdict != OK:
                    raise RuntimeError(f"the reference of {problem.name}/{exec_model} got {run.verdict}: {run.detail}")
                continue
            score.verdicts[name] = run.verdict
            score.details[name] = run.detail
            logger.info("%s/%s %s: %s", problem.name, exec_model, name, run.verdict)
    return list(scores.values())
