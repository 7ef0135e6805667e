"""ParEval compatibility: its 60 problem names map onto this suite, a file of all 60 x 7 ParEval records is
matched record by record, and its bodies build and get the verdicts they deserve.

Which records are built and run rotates like the references (conftest.py): every record is matched and its
prompt checked; ROTATING_PER_EXEC_MODEL problems per execution model are built and evaluated in the sandbox
(PCGBENCH_TEST_ALL=1: all of them, about 20 minutes on 2 cores, beyond pytest's default per-test limit:
add --timeout=3000); CUDA is compiled (no GPU here), HIP only where hipcc exists.
"""

from __future__ import annotations

import json
import os
import random
import shutil

import pandas as pd
import pytest
import yaml

from workflow_scripts.measure import BuildCache, BuildConfig, BuildRequest, suite, toolchains
from workflow_scripts.pcgbench import pareval_format as pf
from workflow_scripts.pcgbench.evaluation import EvaluateConfig, evaluate_samples
from workflow_scripts.pcgbench.samples import load_samples

from .conftest import rotation_seed

PROBLEMS = {p.name: p for p in suite.load_suite()}
NAMES = pf.pareval_names()
RUN_EXEC_MODELS = ("serial", "omp", "mpi", "mpi+omp", "kokkos")
ROTATING_PER_EXEC_MODEL = 2


def pareval_file(bodies=lambda problem, exec_model: suite.reference_body(problem, exec_model)) -> list[dict]:
    """All 420 records under ParEval's numbered names, with one body each."""
    records = []
    for entry in sorted(NAMES.values(), key=lambda e: e.number):
        problem = PROBLEMS[entry.problem]
        for exec_model in suite.EXECUTION_MODELS:
            records.append(dict(pf.prompt_record(problem, exec_model, entry.numbered), outputs=[bodies(problem, exec_model)]))
    return records


def chosen(exec_model: str) -> list[str]:
    names = sorted(entry.problem for entry in NAMES.values())
    if os.environ.get("PCGBENCH_TEST_ALL") == "1":
        return names
    return sorted(random.Random(f"{rotation_seed()}-{exec_model}").sample(names, ROTATING_PER_EXEC_MODEL))


def test_the_map_names_sixty_problems_numbered_0_to_59():
    assert len(NAMES) == 60
    assert sorted(e.number for e in NAMES.values()) == list(range(60))
    for name, entry in NAMES.items():
        problem = PROBLEMS[entry.problem]
        assert name.startswith(problem.problem_type + "_"), (name, problem.problem_type)
        if name in PROBLEMS:  # a ParEval name that is also a folder here names the same problem
            assert entry.problem == name
    extras = set(yaml.safe_load((suite.DATA_ROOT / pf.NAMES_FILE).read_text())["extras"])
    mapped = {e.problem for e in NAMES.values()}
    assert not extras & mapped and extras | mapped == set(PROBLEMS)
    assert {PROBLEMS[p].problem_type for p in mapped} == set(suite.PROBLEM_TYPES)
    assert all(sum(PROBLEMS[p].problem_type == t for p in mapped) == 5 for t in suite.PROBLEM_TYPES)


def test_every_pareval_name_resolves_with_any_number_or_none():
    for name, entry in NAMES.items():
        for written in (entry.numbered, name, f"7_{name}", f"{entry.number + 3}_{name}"):
            assert pf.problem_name({"name": written}) == entry.problem, written


def test_malformed_map_names_the_entry(tmp_path):
    (tmp_path / "reduce_x").mkdir()
    (tmp_path / "reduce_x" / "problem.yaml").write_text("name: reduce_x\n")
    for text, message in [("problems: {reduce_a: {number: 1, problem: nowhere}}", "problems.reduce_a.problem"),
                          ("problems: {reduce_a: {number: 1, problem: reduce_x}, reduce_b: {number: 1, problem: reduce_x}}",
                           "problems.reduce_b.number"),
                          ("problems: {reduce_a: {number: 1}}", "problems.reduce_a: expected")]:
        (tmp_path / pf.NAMES_FILE).write_text(text)
        pf.pareval_names.cache_clear()
        with pytest.raises(ValueError, match=message):
            pf.pareval_names(tmp_path)
    pf.pareval_names.cache_clear()


def test_export_under_pareval_numbering_round_trips(tmp_path):
    out = tmp_path / "prompts.json"
    records = pf.export_prompts(list(PROBLEMS.values()), suite.EXECUTION_MODELS, out, numbering="pareval")
    assert len(records) == 7 * len(PROBLEMS)
    numbered = [r for r in records if r["name"][:2].isdigit()]
    assert len(numbered) == 420 and numbered == records[:420]  # ParEval's 60 first, in its order
    for record in pf.load_generations(out):
        # ParEval's evaluator reads the last line of a prompt as the signature.
        assert record["prompt"].splitlines()[-1].endswith("{") and not record["prompt"].endswith("\n")
    matches = pf.match_generations(json.loads(out.read_text()), list(PROBLEMS.values()))
    assert all(m.status == "" for m in matches)
    assert {m.problem.name for m in matches if m.record["name"][:2].isdigit()} == {e.problem for e in NAMES.values()}


def test_a_file_of_all_420_records_is_matched_record_by_record(tmp_path):
    path = tmp_path / "generations.json"
    path.write_text(json.dumps(pareval_file()))
    samples, unscored = load_samples(path, "pareval", suite.DATA_ROOT)
    assert unscored == [] and len(samples) == 420
    assert {(s.problem.name, s.exec_model) for s in samples} == {(e.problem, m) for e in NAMES.values()
                                                                 for m in suite.EXECUTION_MODELS}


def test_pareval_records_build_and_get_their_verdicts(tmp_path):
    """The selected records' bodies (the references, written against ParEval's interfaces), and the serial
    baseline pasted into the parallel prompts (no_parallelism), built and run in the sandbox."""
    path = tmp_path / "generations.json"
    records = pareval_file()
    for record in records:
        if record["parallelism_model"] in ("omp", "mpi"):
            record["outputs"].append(suite.serial_baseline_body(PROBLEMS[pf.problem_name(record)]))
    path.write_text(json.dumps(records))
    samples, _ = load_samples(path, "pareval", suite.DATA_ROOT)
    selected = [s for s in samples if s.exec_model in RUN_EXEC_MODELS and s.problem.name in chosen(s.exec_model)]
    cfg = EvaluateConfig(cache_dir=tmp_path / "cache", reps=1, warmup=0, validations=1, stress_validations=0,
                         max_cores=2, run_timeout_s=60.0, ks=(1,))
    rows, skipped = evaluate_samples(selected, tmp_path / "out", cfg)
    assert skipped == {}
    got = {(r.problem, r.model, r.sample_index): r.verdict for r in rows.drop_duplicates("sample_id").itertuples()}
    want = {(s.problem.name, s.exec_model, s.sample_index): "ok" if s.sample_index == 0 else "no_parallelism"
            for s in selected}
    wrong = {key: (want[key], got.get(key)) for key in want if got.get(key) != want[key]}
    assert wrong == {}
    assert isinstance(rows, pd.DataFrame) and (rows[rows["verdict"] == "ok"]["speedup"] > 0).all()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc")
@pytest.mark.parametrize("exec_model", ["cuda", "hip"])
def test_pareval_gpu_records_build(tmp_path, exec_model):
    ok, why = toolchains.build_status(exec_model)
    if not ok:
        pytest.skip(why)
    records = [r for r in pareval_file() if r["parallelism_model"] == exec_model]
    path = tmp_path / "generations.json"
    path.write_text(json.dumps(records))
    samples, unscored = load_samples(path, "pareval", suite.DATA_ROOT)
    assert unscored == [] and len(samples) == 60
    names = chosen(exec_model)[:1] if os.environ.get("PCGBENCH_TEST_ALL") != "1" else chosen(exec_model)
    requests = [BuildRequest(problem=s.problem, exec_model=exec_model, body=s.body) for s in samples if s.problem.name in names]
    results = BuildCache(BuildConfig(cache_dir=tmp_path / "cache", compile_timeout_s=300)).build_all(requests)
    failed = {r.problem.name: b.log[-1500:] for r, b in zip(requests, results, strict=True) if not b.ok}
    assert failed == {}
