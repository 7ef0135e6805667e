"""OpenMP pragma dataset builder on real loops, and the clause-level comparison."""

import pandas as pd
import pytest

from workflow_scripts.hpccoder import pragma
from workflow_scripts.hpccoder.pragma import (
    compare_pragmas,
    extract_pragma_loops,
    normalize_pragma,
    parse_pragma,
)

# Loops as they appear in real codes: SUNDIALS nvector_openmp.c (continued pragma, single-statement
# body), FastTree (pragma inside #ifdef OPENMP, braces and comments in the body), a collapsed nest,
# a reduction, and pragmas that are not followed by a loop.
SUNDIALS = """\
void N_VLinearSum_OpenMP(realtype a, N_Vector x, realtype b, N_Vector y, N_Vector z)
{
#pragma omp parallel for default(none) private(i) shared(N,a,b,xd,yd,zd) schedule(static) \\
   num_threads(NV_NUM_THREADS_OMP(x))
  for (i = 0; i < N; i++)
    zd[i] = (a*xd[i])+(b*yd[i]);

  return;
}
"""
FASTTREE = """\
#ifdef OPENMP
  /* Note -- if we are already in a parallel region, this will be ignored */
  #pragma omp parallel for schedule(dynamic, 50)
#endif
  for (j = 0; j < NJ->maxnode; j++) {
    besthit_t *sv = allhits != NULL ? &allhits[j] : &tmp;
    if (NJ->parent[j] >= 0) {
      sv->weight = 0.0; /* illegal/empty join } */
      continue;
    }
    SetDistCriterion(NJ, nActive, /*IN/OUT*/sv);
  }
  return;
"""
NESTED_AND_REDUCTION = """\
  #pragma omp parallel for collapse(2)
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j)
      a[i * m + j] = f(i, j);
  double sum = 0.0;
  #pragma omp parallel for reduction(+ : sum) private(t)
  for (int i = 0; i < n; ++i) { t = x[i] * y[i]; sum += t; }
  #pragma omp parallel for
  // a comment where a loop should be, then no loop at all
  x = 3;
  #pragma omp parallel
  { work(); }
"""


def test_sundials_loop_with_continued_pragma():
    [found] = extract_pragma_loops(SUNDIALS)
    assert found["line"] == 3
    assert found["pragma"] == ("#pragma omp parallel for default(none) private(i) shared(N,a,b,xd,yd,zd) "
                               "schedule(static) num_threads(NV_NUM_THREADS_OMP(x))")  # fmt: skip
    assert found["loop"] == "for (i = 0; i < N; i++)\n  zd[i] = (a*xd[i])+(b*yd[i]);"


def test_fasttree_loop_behind_ifdef_with_braces_and_comments():
    [found] = extract_pragma_loops(FASTTREE)
    assert found["pragma"] == "#pragma omp parallel for schedule(dynamic,50)"
    assert found["loop"].startswith("for (j = 0; j < NJ->maxnode; j++) {\n")
    assert found["loop"].endswith("SetDistCriterion(NJ, nActive, /*IN/OUT*/sv);\n}")  # the brace in a comment is skipped
    assert "#endif" not in found["loop"] and "return" not in found["loop"]


def test_collapsed_nest_and_reduction_and_pragmas_without_loops():
    found = extract_pragma_loops(NESTED_AND_REDUCTION)
    assert [f["pragma"] for f in found] == ["#pragma omp parallel for collapse(2)",
                                            "#pragma omp parallel for reduction(+:sum) private(t)"]  # fmt: skip
    assert found[0]["loop"] == "for (int i = 0; i < n; ++i)\n  for (int j = 0; j < m; ++j)\n    a[i * m + j] = f(i, j);"
    assert found[1]["loop"] == "for (int i = 0; i < n; ++i) { t = x[i] * y[i]; sum += t; }"


def test_pragmas_in_comments_and_strings_are_not_pragmas():
    text = ('/* disabled:\n#pragma omp parallel for\n*/\nfor (i = 0; i < n; i++) a[i] = 0;\n'
            'const char* s = "\\\n#pragma omp parallel for";\nfor (j = 0; j < n; j++) b[j] = "}";\n'
            '#pragma omp parallel for\nfor (k = 0; k < n; k++) c[k] = \'}\';\n')
    assert [(loop["line"], loop["loop"]) for loop in extract_pragma_loops(text)] == [(8, "for (k = 0; k < n; k++) c[k] = '}';")]


def test_long_loops_are_left_out():
    assert extract_pragma_loops(FASTTREE, max_loop_chars=50) == []


def test_sample_puts_the_pragma_after_the_loop():
    [found] = extract_pragma_loops(SUNDIALS)
    prompt, target = pragma.sample_text(found["loop"], found["pragma"])
    assert (prompt + target).index("zd[i]") < (prompt + target).index("#pragma")
    assert prompt.endswith("\n") and target == found["pragma"] + "\n"


def test_build_dataset_takes_test_loops_from_validation_repositories_only(tmp_path):
    pd.DataFrame({"repo": ["fasttree"], "path": ["fasttree.c"], "text": [FASTTREE]}).to_parquet(tmp_path / "train.parquet")
    pd.DataFrame({"repo": ["sundials", "sundials"], "path": ["a.c", "copy.c"], "text": [SUNDIALS, SUNDIALS]}).to_parquet(
        tmp_path / "validation.parquet")
    data = pragma.build_dataset(tmp_path / "train.parquet", tmp_path / "validation.parquet", 1500)
    assert data.groupby("split")["repo"].agg(set).to_dict() == {"test": {"sundials"}, "train": {"fasttree"}}
    assert len(data[data.split == "test"]) == 1  # the identical loop in a copied file counts once


def test_normalize_and_parse_clauses():
    assert normalize_pragma("#  pragma omp parallel for  reduction( + : s )  schedule ( static , 4 )") == \
        "#pragma omp parallel for reduction(+:s) schedule(static,4)"
    parsed = parse_pragma("#pragma omp parallel for simd private(a, b) firstprivate(c) reduction(max:m) collapse(3)")
    assert parsed["directive"] == "parallel for simd"
    assert parsed["private"] == frozenset({"a", "b", "c"})
    assert parsed["reduction"] == frozenset({"max:m"})
    assert parsed["collapse"] == "3"


@pytest.mark.parametrize(
    ("predicted", "reference", "exact", "all_clauses", "directive"),
    [("#pragma omp parallel for schedule(static)", "#pragma omp parallel for  schedule( static )", True, True, True),
     ("#pragma omp parallel for shared(y,x) private(i)", "#pragma omp parallel for private(i) shared(x,y)", False, True, True),
     ("#pragma omp parallel for", "#pragma omp parallel for reduction(+:sum)", False, False, True),
     ("for (i = 0; i < n; i++)", "#pragma omp parallel for", False, False, False)],
)  # fmt: skip
def test_clause_level_match(predicted, reference, exact, all_clauses, directive):
    scores = compare_pragmas(predicted, reference)
    assert (scores["exact"], scores["all_clauses"], scores["directive"]) == (exact, all_clauses, directive)
