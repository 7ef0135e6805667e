"""Small pieces of the study: problem selection, mutants, the self-test comparison."""

import pandas as pd
import pytest

from workflow_scripts.measure import suite
from workflow_scripts.pcgbench import generators
from workflow_scripts.pcgbench.selection import select_problems
from workflow_scripts.pcgbench.summary import self_test


def test_select_problems():
    problems = suite.load_suite()
    per_type = select_problems(problems, "one_per_type")
    assert len(per_type) == len({p.problem_type for p in problems})
    assert select_problems(problems, ["reduce_average"])[0].name == "reduce_average"
    with pytest.raises(ValueError, match="no_such_problem"):
        select_problems(problems, ["no_such_problem"])


def test_mutants_apply_where_they_can(problem):
    omp = suite.reference_body(problem, "omp")
    summing = "  double s = 0;\n  #pragma omp parallel for reduction(+ : s)\n  for (int i = 0; i < n; ++i) s += x[i];\n"
    body, verdict = generators.mutate(summing, "missing_reduction", "")
    assert "reduction" not in body and verdict == "wrong_answer"
    # Where the evaluation race-checks the model (omp, mpi+omp), ThreadSanitizer reports the race first.
    assert generators.race_checked_verdict("missing_reduction", "omp", verdict, True) == "race_detected"
    assert generators.race_checked_verdict("missing_reduction", "omp", verdict, False) == "wrong_answer"
    assert generators.race_checked_verdict("missing_reduction", "mpi+omp", verdict, True) == "race_detected"
    assert generators.race_checked_verdict("missing_reduction", "kokkos", verdict, True) == "wrong_answer"
    assert generators.race_checked_verdict("data_race", "omp", verdict, True) == "wrong_answer"
    body, _ = generators.mutate(summing, "off_by_one", "")
    assert "i < n - 1;" in body
    assert generators.mutate(suite.reference_body(problem, "serial"), "missing_reduction", "") is None
    assert generators.mutate(omp, "missing_include", "#include <regex>") is None
    with pytest.raises(ValueError, match="unknown mutant"):
        generators.mutate(omp, "nope", "")


def test_self_test_comparison_counts_every_mutant_and_skipped_models():
    results = pd.DataFrame([
        dict(sample_id="a", problem="p", model="omp", sample_index=0, verdict="ok"),
        dict(sample_id="b", problem="p", model="omp", sample_index=1, verdict="ok"),
        dict(sample_id="c", problem="p", model="omp", sample_index=2, verdict="crash"),
    ])
    expected = [
        dict(problem="p", model="omp", sample_index=0, label="reference", expected_verdict="ok"),
        dict(problem="p", model="omp", sample_index=1, label="missing_reduction", expected_verdict="wrong_answer"),
        dict(problem="p", model="omp", sample_index=2, label="off_by_one", expected_verdict="wrong_answer"),
        dict(problem="p", model="mpi", sample_index=0, label="reference", expected_verdict="ok"),
    ]
    result = self_test(results, expected)
    # A missed race is a disagreement like any other: the harness must catch it (it runs threads on their own cores).
    assert (result["samples"], result["agree"]) == (3, 1)
    assert [d["got"] for d in result["disagreements"]] == ["ok", "crash"] and result["not_run_toolchain_missing"] == 1


def test_a_mutant_that_applies_nowhere_stops_with_where_it_applies():
    """A configured mutant must not drop out of the self-test silently."""
    applies = {p.name: generators.mutate(suite.reference_body(p, "omp"), "missing_reduction", "") is not None
               for p in suite.load_suite()}  # fmt: skip
    without = next(name for name, ok in sorted(applies.items()) if not ok)
    with_one = next(name for name, ok in sorted(applies.items()) if ok)
    records = [{"name": without, "problem_type": "x", "parallelism_model": "omp", "prompt": ""}]
    with pytest.raises(ValueError, match=f"missing_reduction.*{with_one}/omp"):
        generators.generate(records, "mutants", samples=1, mutants=["off_by_one", "missing_reduction"],
                            mutant_problems=[without])
