"""Self-test generators: generations whose verdicts are known in advance, the harness's acceptance test.

    reference   the suite's correct body for each prompt, `samples` times (identical copies: the build
                cache compiles each once) -- expected verdict ok
    serial      the serial baseline pasted into every prompt -- ok for serial prompts, no_parallelism for
                omp/mpi/mpi+omp (it uses no OpenMP/MPI), build_error for kokkos/cuda/hip (other signatures)
    mutants     the reference body broken the way language models break code, one output per mutant that
                applies to the body:
                  missing_include    uses std::regex, whose header the prompt lacks      -> build_error
                  off_by_one         the first `i < n` loop bound becomes `i < n - 1`    -> wrong_answer
                  missing_reduction  an OpenMP reduction clause removed (a data race on
                                     the accumulator)                                    -> wrong_answer, or
                                     race_detected where the race check runs (omp, mpi+omp)
                  data_race          `parallel for` becomes `parallel` in a reduction: every thread runs
                                     every iteration into the shared result              -> wrong_answer
                  infinite_loop      a loop that never ends before the real work         -> timeout
                  huge_allocation    a 100 GB allocation before the real work            -> killed_resource_limit
Outputs: the generations file (ParEval format: the prompts file's records with `outputs` filled in) and
`<generations>.expected.json`, one entry per output: problem, model, sample_index, label, expected verdict.
The two reduction mutants are made only where their verdict is certain: on a `parallel for` whose
reductions all use +, *, ^ or - (a lost or repeated partial result changes those; min, max, |, &, ||, &&
would absorb it), never on a `parallel` region's one final update per thread (a race window of a few
instructions). The race itself shows because the harness runs threads on cores of their own, at the same
time, and validates the timed size several times (workflow_scripts/measure/timing.py): every thread's
partial sum, kept in a register for the whole loop, is written over by another's. Beside a competing load
the timed threads may still run one after another; the stress validations at more threads than cores then
interleave them (driver_program.run_argv; benchmarks/race_detection.py). Where the evaluation's race check runs
(`race_check`, OpenMP and MPI+OpenMP samples), ThreadSanitizer reports the race before any validation: race_detected.
Generation is deterministic (no randomness), so two runs write identical files.

Written by rule pcgbench_self_test_generations (step self_test_generations.py: a prompts file's records filled in
by generate, beside their expected verdicts).
"""


import logging
from pathlib import Path

from workflow_scripts.common.c_scanner import (
    first_loop_bound,
    pragmas,
    reduction_operators,
    without_first_reduction,
    without_for_of_first_reduction,
)
from workflow_scripts.measure import (
    BUILD_ERROR,
    KILLED_RESOURCE_LIMIT,
    NO_PARALLELISM,
    OK,
    PROBLEMS_ROOT,
    RACE_CHECKED_EXEC_MODELS,
    RACE_DETECTED,
    SIGNATURE_FAMILY,
    VERDICT_TIMEOUT,
    WRONG_ANSWER,
    Problem,
    load_suite,
    reference_body,
    serial_baseline_body,
)
from workflow_scripts.pcgbench.pareval_format import problem_name

logger = logging.getLogger(__name__)

GENERATORS = ("reference", "serial", "mutants")
MUTANTS = ("missing_include", "off_by_one", "missing_reduction", "data_race", "infinite_loop", "huge_allocation")

# Reduction operators whose result changes when a thread's partial result is lost or counted twice.
NON_IDEMPOTENT_OPERATORS = ("+", "*", "^", "-")


def _reduction_pragma_is_mutable(body: str) -> bool:
    """Whether the first `parallel for ... reduction` pragma reduces only with non-idempotent operators."""
    pragma = next((p for p in pragmas(body) if p.text.startswith("omp parallel for") and "reduction" in p.text), None)
    if pragma is None:
        return False
    operators = reduction_operators(pragma.text)
    return bool(operators) and all(op in NON_IDEMPOTENT_OPERATORS for op in operators)


def mutate(body: str, mutant: str, prompt_text: str) -> tuple[str, str] | None:
    """(mutated body, expected verdict), or None when the mutant does not apply to this body."""
    if mutant == "missing_include":
        if "<regex>" in prompt_text:
            return None
        return '  std::regex pcgbench_pattern("a+");\n' + body, BUILD_ERROR
    if mutant == "off_by_one":
        # The first `for (...; i < bound; ...)`: the bound gets `- 1` (OpenMP's canonical loop form allows
        # that, not `i + 1 < n`).
        bound = first_loop_bound(body)
        return (body[: bound[1]] + " - 1" + body[bound[1] :], WRONG_ANSWER) if bound else None
    if mutant == "missing_reduction":
        if not _reduction_pragma_is_mutable(body):
            return None
        mutated = without_first_reduction(body)
        return (mutated, WRONG_ANSWER) if mutated is not None else None
    if mutant == "data_race":
        if not _reduction_pragma_is_mutable(body):
            return None
        mutated = without_for_of_first_reduction(body)
        return (mutated, WRONG_ANSWER) if mutated is not None else None
    if mutant == "infinite_loop":
        # volatile: a side-effect-free infinite loop is undefined behaviour and may be compiled away.
        return "  for (volatile unsigned long pcgbench_spin = 0;; pcgbench_spin = pcgbench_spin + 1) {}\n" + body, \
            VERDICT_TIMEOUT  # fmt: skip
    if mutant == "huge_allocation":
        # Stored through a volatile pointer so that the compiler cannot elide the allocation.
        return ("  static char *volatile pcgbench_keep;\n  pcgbench_keep = new char[100ull << 30];\n"
                "  pcgbench_keep[0] = 1;\n" + body, KILLED_RESOURCE_LIMIT)  # fmt: skip
    raise ValueError(f"unknown mutant {mutant!r}; known: {', '.join(MUTANTS)}")


def serial_expected(exec_model: str) -> str:
    if exec_model == "serial":
        return OK
    if SIGNATURE_FAMILY[exec_model] == "vector":
        return NO_PARALLELISM
    return BUILD_ERROR


def race_checked_verdict(mutant: str, exec_model: str, verdict: str, race_check: bool) -> str:
    """A mutant's expected verdict where the evaluation race-checks `exec_model`: the race mutant's race is reported
    by ThreadSanitizer (race_detected) before validation could see its wrong answer."""
    if race_check and exec_model in RACE_CHECKED_EXEC_MODELS and mutant == "missing_reduction":
        return RACE_DETECTED
    return verdict


def generate(records: list[dict], generator: str, *, samples: int, mutants: list[str],
             mutant_problems: str | list[str] = "all", race_check: bool = True,
             suite_root: Path = PROBLEMS_ROOT) -> tuple[list[dict], list[dict]]:  # fmt: skip
    """(records with outputs, expected verdicts) for one self-test generator.

    `mutant_problems` ("all" or names) limits the mutants to some problems: each infinite-loop mutant
    costs a full run timeout, so the tiny config mutates one or two problems. `race_check`: whether the
    evaluation runs the race check (measure.race_check), which changes the race mutant's verdict.
    """
    if generator not in GENERATORS:
        raise ValueError(f"unknown generator {generator!r}; known: {', '.join(GENERATORS)}")
    problems = {p.name: p for p in load_suite(suite_root)}
    if generator == "mutants" and mutant_problems != "all":
        selected = {problem_name(r) for r in records}
        if not selected & set(mutant_problems):
            raise ValueError(f"pcgbench.mutant_problems {list(mutant_problems)} selects none of the evaluated "
                             f"problems {sorted(selected)}")
        records = [r for r in records if problem_name(r) in mutant_problems]
    filled, expected = [], []
    for record in records:
        problem, exec_model = problems[problem_name(record)], record["parallelism_model"]
        if generator == "reference":
            outputs = [(reference_body(problem, exec_model), "reference", OK)] * samples
        elif generator == "serial":
            outputs = [(serial_baseline_body(problem), "serial_baseline", serial_expected(exec_model))] * samples
        else:
            reference = reference_body(problem, exec_model)
            outputs = []
            for mutant in mutants:
                made = mutate(reference, mutant, record["prompt"])
                if made is not None:
                    outputs.append((made[0], mutant, race_checked_verdict(mutant, exec_model, made[1], race_check)))
        if not outputs:
            logger.info("%s: no mutant applies to %s/%s", generator, problem.name, exec_model)
            continue
        filled.append(dict(record, outputs=[body for body, _, _ in outputs]))
        expected += [{"problem": problem.name, "model": exec_model, "sample_index": index, "label": label,
                      "expected_verdict": verdict}
                     for index, (_, label, verdict) in enumerate(outputs)]  # fmt: skip
    if generator == "mutants":
        _check_every_mutant_made(mutants, expected, records, problems)
    return filled, expected


def _mutant_applies(problem: Problem, exec_model: str, mutant: str) -> bool:
    try:
        return mutate(reference_body(problem, exec_model), mutant, "") is not None
    except FileNotFoundError:  # no reference for this model (HIP)
        return False


def _check_every_mutant_made(mutants: list[str], expected: list[dict], records: list[dict], problems: dict) -> None:
    """A configured mutant that applies to none of the mutated problems would silently drop out of the
    self-test (its verdict never checked); stop and name the problems where it does apply."""
    made = {row["label"] for row in expected}
    for mutant in mutants:
        if mutant in made:
            continue
        exec_models = sorted({r["parallelism_model"] for r in records})
        applies = sorted(f"{name}/{exec_model}" for name, problem in problems.items() for exec_model in exec_models
                         if _mutant_applies(problem, exec_model, mutant))  # fmt: skip
        raise ValueError(f"pcgbench.mutants: {mutant!r} applies to none of pcgbench.mutant_problems "
                         f"({sorted({problem_name(r) for r in records})}, models {exec_models}); add one where it applies: "
                         f"{', '.join(applies[:8]) or 'none in the suite'}, or drop it from pcgbench.mutants")

