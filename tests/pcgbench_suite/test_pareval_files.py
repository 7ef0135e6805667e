"""ParEval's own prompt file (pareval_files/generation-prompts.json, ParEval commit 4c9877f; README.md there) against
this suite: every one of its 420 records matches the problem its name names (the same declared interface), the
suite's reference bodies written into its records as outputs build and validate, and a record whose prompt declares
another interface is still refused.

Which records are built rotates like the references (conftest.py): for each execution model that runs here, one
of the problems whose interface was changed to ParEval's (INTERFACE_CHANGED) is built and evaluated in the sandbox
(PCGBENCH_TEST_ALL=1: all 60 problems, beyond pytest's default per-test limit: add --timeout=3000); CUDA is built
(compile and link, no GPU here), HIP only where hipcc exists.
"""

from __future__ import annotations

import collections
import json
import os
import random
from pathlib import Path

import pytest

from workflow_scripts.measure import BuildCache, BuildConfig, BuildRequest, suite, toolchains
from workflow_scripts.pcgbench import pareval_format as pf
from workflow_scripts.pcgbench.evaluation import EvaluateConfig, evaluate_samples
from workflow_scripts.pcgbench.samples import load_samples

from .conftest import rotation_seed
from .test_pareval_compat import NAMES, PROBLEMS, RUN_EXEC_MODELS

PAREVAL_PROMPTS = Path(__file__).parent / "pareval_files" / "generation-prompts.json"
# The problems whose interface (per model) was changed to ParEval's so that its records match: the ones a body
# written for ParEval's prompt did not fit before (its fftConjugate, dense sparse-axpy output, dense L and U, ...).
INTERFACE_CHANGED = {
    "fft_conjugate": suite.EXECUTION_MODELS,
    "sparse_la_sparse_axpy": suite.EXECUTION_MODELS,
    "sparse_la_sparse_lu_decomp": suite.EXECUTION_MODELS,
    "reduce_xor": ("cuda", "hip"),
    "search_last_short_book": ("cuda", "hip"),
    "fft_split": ("cuda", "hip"),
    "search_xor_contains": ("kokkos",),
}


def pareval_records(bodies=lambda problem, exec_model: suite.reference_body(problem, exec_model)) -> list[dict]:
    """ParEval's 420 prompt records as they are, each given one output (by default the suite's reference body)."""
    records = json.loads(PAREVAL_PROMPTS.read_text())
    return [dict(r, outputs=[bodies(PROBLEMS[pf.problem_name(r)], r["parallelism_model"])]) for r in records]


def chosen(exec_model: str) -> list[str]:
    """The problems built for `exec_model`: one of those whose interface changed for it, drawn by the rotation seed."""
    if os.environ.get("PCGBENCH_TEST_ALL") == "1":
        return sorted(entry.problem for entry in NAMES.values())
    changed = sorted(name for name, exec_models in INTERFACE_CHANGED.items() if exec_model in exec_models)
    return [random.Random(f"{rotation_seed()}-pareval-files-{exec_model}").choice(changed)]


def test_every_record_of_parevals_prompt_file_matches():
    records = pareval_records(lambda problem, exec_model: "}")
    matches = pf.match_generations(records, list(PROBLEMS.values()), source=str(PAREVAL_PROMPTS))
    statuses = collections.Counter(m.status for m in matches)
    mismatched = {(m.record["name"], m.exec_model): m.reason for m in matches if m.status}
    assert statuses == {"": 420}, mismatched
    assert {(m.problem.name, m.exec_model) for m in matches} == {(e.problem, exec_model) for e in NAMES.values()
                                                                 for exec_model in suite.EXECUTION_MODELS}


def test_reference_bodies_in_parevals_records_build_and_validate(tmp_path):
    path = tmp_path / "generations.json"
    path.write_text(json.dumps(pareval_records()))
    samples, unscored = load_samples(path, "pareval", suite.DATA_ROOT)
    assert unscored == [] and len(samples) == 420
    selected = [s for s in samples if s.exec_model in RUN_EXEC_MODELS and s.problem.name in chosen(s.exec_model)]
    assert {s.exec_model for s in selected} == set(RUN_EXEC_MODELS)
    # The interface is what this test is about: no race check (a ThreadSanitizer build and run per OpenMP sample).
    cfg = EvaluateConfig(cache_dir=tmp_path / "cache", reps=1, warmup=0, validations=1, stress_validations=0,
                         max_cores=2, run_timeout_s=60.0, ks=(1,), race_check=False)
    rows, skipped = evaluate_samples(selected, tmp_path / "out", cfg)
    assert skipped == {}
    got = {(r.problem, r.model): (r.verdict, r.detail) for r in rows.drop_duplicates("sample_id").itertuples()}
    assert {key: value for key, value in got.items() if value[0] != "ok"} == {}
    assert set(got) == {(s.problem.name, s.exec_model) for s in selected}


@pytest.mark.parametrize("exec_model", ["cuda", "hip"])
def test_reference_bodies_in_parevals_gpu_records_build(tmp_path, exec_model):
    ok, why = toolchains.build_status(exec_model)
    if not ok:
        pytest.skip(why)
    records = [r for r in pareval_records() if r["parallelism_model"] == exec_model]
    path = tmp_path / "generations.json"
    path.write_text(json.dumps(records))
    samples, unscored = load_samples(path, "pareval", suite.DATA_ROOT)
    assert unscored == [] and len(samples) == 60
    requests = [BuildRequest(problem=s.problem, exec_model=exec_model, body=s.body) for s in samples
                if s.problem.name in chosen(exec_model)]  # fmt: skip
    results = BuildCache(BuildConfig(cache_dir=tmp_path / "cache", compile_timeout_s=300)).build_all(requests)
    failed = {r.problem.name: b.log[-1500:] for r, b in zip(requests, results, strict=True) if not b.ok}
    assert failed == {}


# (ParEval's record, model, text of its prompt, the text this suite declared before: a prompt written for the old
# interface). Each must be refused, with both declarations in the reason.
OLD_INTERFACES = [
    ("07_fft_fft_conjugate", "serial", "void fftConjugate(std::vector<std::complex<double>> &x) {",
     "void fft(std::vector<std::complex<double>> &x) {"),
    ("48_sparse_la_sparse_axpy", "omp", "std::vector<double> &z) {", "std::vector<Element> &z) {"),
    ("49_sparse_la_sparse_lu_decomp", "kokkos", "Kokkos::View<double**> &L, Kokkos::View<double**> &U",
     "Kokkos::View<COOElement*> &L, Kokkos::View<COOElement*> &U"),
    ("25_reduce_xor", "cuda", "bool *output) {", "double *output) {"),
    ("35_search_search_for_last_struct_by_key", "hip", "const char* title;", "char* title;"),
    ("08_fft_split_fft", "cuda", "double *r, double *i, size_t N) {",
     "cuDoubleComplex *r, cuDoubleComplex *i, size_t N) {"),
    ("39_search_xor_contains", "kokkos", "Kokkos::View<const int*> const& y", "std::vector<const int*> const& y"),
]


@pytest.mark.parametrize(("name", "exec_model", "theirs", "old"), OLD_INTERFACES, ids=[f"{n}-{m}" for n, m, *_ in OLD_INTERFACES])
def test_a_record_of_another_interface_is_refused(tmp_path, name, exec_model, theirs, old):
    record = next(r for r in pareval_records() if r["name"] == name and r["parallelism_model"] == exec_model)
    assert theirs in record["prompt"]
    path = tmp_path / "generations.json"
    path.write_text(json.dumps([record, dict(record, prompt=record["prompt"].replace(theirs, old))]))
    samples, unscored = load_samples(path, "pareval", suite.DATA_ROOT)
    assert len(samples) == 1  # ParEval's own record is scored
    assert [(u.status, len(u.samples)) for u in unscored] == [(pf.PROMPT_MISMATCH, 1)]
    reason = unscored[0].reason
    assert pf.canonical(old.removesuffix("{")) in reason and pf.canonical(theirs.removesuffix("{")) in reason, reason
