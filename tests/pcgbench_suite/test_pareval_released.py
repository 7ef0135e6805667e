"""ParEval's released outputs (data/pareval_released/): the files are the ones released (checksums), the loader
refuses bad records one by one and scores the rest, and agreement on a few real outputs gives the verdicts and the
causes that were read by hand against each body."""

from __future__ import annotations

import dataclasses
import json
import lzma
import shutil

import pytest

from workflow_scripts.measure import toolchains
from workflow_scripts.pcgbench.agreement import ANSWER_CHECK, CAUSES, cause_of, nonrectangular_collapse
from workflow_scripts.pcgbench.agreement import main as agreement_main
from workflow_scripts.pcgbench.evaluation import EvaluateConfig
from workflow_scripts.pcgbench.pareval_format import MALFORMED, NO_DRIVER, GenerationsError
from workflow_scripts.pcgbench.pareval_results import (
    CHECKSUMS,
    MISSING_FIELD,
    NOT_BUILT,
    RELEASED_ROOT,
    VALID,
    ParEvalVerdict,
    load_results,
    read_json,
    released_files,
    verify_checksum,
)

GPT4 = RELEASED_ROOT / "translation" / "gpt-4_temp0.2.json.xz"


def test_every_released_file_has_its_checksum():
    listed = [line.split()[1] for line in (RELEASED_ROOT / CHECKSUMS).read_text().splitlines()]
    assert len(listed) == 28 and "manifest.json" in listed
    for name in listed:
        verify_checksum(RELEASED_ROOT / name)  # raises on a mismatch
    manifest = json.loads((RELEASED_ROOT / "manifest.json").read_text())
    assert manifest["commit"] == "962462dd69cd7967e83d42168dedae117738b5ae"
    judged = {f["file"]: f["judged_outputs"] for f in manifest["files"] if "judged_outputs" in f}
    assert sum(n for f, n in judged.items() if f.startswith("translation/")) == 7 * 2860
    assert judged["generation/codellama-34b-hf_prompted_temp0.2.json.xz"] == 8400
    assert len(released_files(task="translation")) == 7 and len(released_files(task="generation")) == 4


def test_a_changed_copy_is_refused(tmp_path):
    shutil.copy(RELEASED_ROOT / CHECKSUMS, tmp_path / CHECKSUMS)
    (tmp_path / "translation").mkdir()
    copy = tmp_path / "translation" / GPT4.name
    data = bytearray(GPT4.read_bytes())
    data[-40] ^= 1
    copy.write_bytes(bytes(data))
    with pytest.raises(GenerationsError, match="SHA-256 .* is not .*regenerate"):
        read_json(copy)


def test_the_released_translations_load_whole():
    released = load_results(GPT4)
    assert (len(released.samples), len(released.judged), released.mismatched, released.refused) == (2860, 2860, [], [])
    counts = {}
    for s in released.judged:
        key = (s.sample.source_exec_model, s.sample.exec_model, s.pareval.category)
        counts[key] = counts.get(key, 0) + 1
    # ParEval's own counts (its results files' did_build and are_all_valid).
    assert counts[("serial", "omp", VALID)] == 829 and counts[("serial", "omp", NOT_BUILT)] == 50
    assert counts[("cuda", "kokkos", VALID)] == 437


def _records() -> list[dict]:
    return json.loads(lzma.decompress(GPT4.read_bytes()))


def test_bad_records_are_refused_one_by_one(tmp_path):
    good = next(r for r in _records() if r["name"] == "24_histogram_count_quartile" and r["parallelism_model"] == "omp")
    good = dict(good, outputs=good["outputs"][:2])
    no_prompt = {k: v for k, v in good.items() if k != "prompt"}
    unknown = dict(good, name="24_histogram_count_quartiles_of_doom")
    surrogate = dict(good, outputs=[dict(good["outputs"][0], generated_output="int x = 0;\ud800\n}"), good["outputs"][1]])
    no_verdict = dict(good, outputs=[{k: v for k, v in good["outputs"][0].items() if k != "did_build"},
                                     good["outputs"][1]])  # fmt: skip
    mixed = dict(good, outputs=[good["outputs"][0], "return 0;\n}"])
    path = tmp_path / "results.json"
    path.write_text(json.dumps([good, no_prompt, unknown, surrogate, no_verdict, mixed, "not a record"]))
    released = load_results(path)
    refused = [(r.record_index, r.output_index, r.status) for r in released.refused]
    assert refused == [(1, None, MISSING_FIELD), (2, None, NO_DRIVER), (3, 0, MALFORMED), (4, 0, MISSING_FIELD),
                       (5, None, MISSING_FIELD), (6, None, MISSING_FIELD)]  # fmt: skip
    reasons = [r.reason for r in released.refused]
    assert f"{path}: record 1:" in reasons[0] and "field 'prompt' is missing" in reasons[0]
    assert "record 2" in reasons[1] and "closest: 24_histogram_count_quartile" in reasons[1]
    assert "record 3" in reasons[2] and "item 0" in reasons[2] and "surrogate" in reasons[2]
    assert "record 4" in reasons[3] and "item 0: field 'did_build' is missing" in reasons[3]
    assert "mixes" in reasons[4]
    # the rest is scored: the good record's two outputs, and the others' outputs that were not refused
    scored = [(s.record_index, s.sample.sample_index) for s in released.samples]
    assert scored == [(0, 0), (0, 1), (3, 1), (4, 1)]
    assert all(s.pareval is not None and s.sample.problem.name == "histogram_fraction_quartiles" for s in released.samples)


def test_a_file_of_nothing_scorable_is_refused(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps([{"name": "nothing"}]))
    with pytest.raises(GenerationsError, match="nothing to score"):
        load_results(path)


# Real released outputs of GPT-4's serial->omp translations (record, output index), ParEval's verdict and what this
# harness says, read by hand: a pass both agree on; a body neither could build (it calls std::sort on a
# Kokkos-less vector of structs with a comparator taking the wrong type); a body that sorts serially on a single
# thread, a ParEval pass (its own source check said no OpenMP, never applied); a 3-point stencil that leaves the
# boundary elements unset, which ParEval's validator does not compare and this suite's does.
CASES = {
    ("24_histogram_count_quartile", 14): (VALID, "ok", ""),
    ("43_sort_sort_an_array_of_structs_by_key", 0): (NOT_BUILT, "build_error", ""),
    ("43_sort_sort_an_array_of_structs_by_key", 14): (VALID, "no_parallelism", "no_parallelism"),
    ("52_stencil_1d_jacobi_3-point_stencil", 7): (VALID, "wrong_answer", ANSWER_CHECK),
}


def test_agreement_on_real_outputs(tmp_path):
    ok, why = toolchains.toolchain_status("omp")
    if not ok:
        pytest.skip(why)
    wanted = {name for name, _ in CASES}
    path = tmp_path / "gpt-4.json"
    path.write_text(json.dumps([r for r in _records() if r["name"] in wanted and r["parallelism_model"] == "omp"]))
    cfg = EvaluateConfig(cache_dir=tmp_path / "cache", reps=1, warmup=0, validations=1, stress_validations=0,
                         max_cores=2, run_timeout_s=60.0, ks=(1,), size="paper", race_check=False)  # fmt: skip
    table = agreement_main(path, tmp_path / "out", cfg, outputs=set(CASES))
    got = {(r.record, r.output_index): (r.pareval, r.pcgbench, r.cause) for r in table.itertuples()
           if (r.record, r.output_index) in CASES}  # fmt: skip
    assert got == CASES
    stencil = table[(table["record"] == "52_stencil_1d_jacobi_3-point_stencil") & (table["output_index"] == 7)]
    assert "element 0: expected" in stencil["evidence"].iloc[0]  # the boundary, which ParEval does not check
    assert (tmp_path / "out" / "agreement.csv").is_file() and (tmp_path / "out" / "agreement.json").is_file()


def test_the_agreement_command_scores_one_released_output(tmp_path, capsys):
    """`python -m workflow_scripts.pcgbench agreement RESULTS --out DIR`: agreement.csv and the confusion table."""
    from workflow_scripts.pcgbench.__main__ import main as cli

    ok, why = toolchains.toolchain_status("omp")
    if not ok:
        pytest.skip(why)
    status = cli(["agreement", str(RELEASED_ROOT / "translation" / "gpt-4_temp0.2.json.xz"), "--models", "omp",
                  "--outputs", "52_stencil_1d_jacobi_3-point_stencil:7", "--out", str(tmp_path / "out"),
                  "--cache-dir", str(tmp_path / "cache"), "--no-race-check"])  # fmt: skip
    assert status == 0
    rows = (tmp_path / "out" / "agreement.csv").read_text().splitlines()
    assert len(rows) == 2 and "52_stencil_1d_jacobi_3-point_stencil" in rows[1] and "answer_check" in rows[1]
    assert "0 of 1 agree" in capsys.readouterr().out
    assert cli(["agreement", str(tmp_path / "missing.json"), "--out", str(tmp_path / "x")]) == 2


_RAN = ({"did_run": True, "is_valid": True, "runtime": 0.1, "num_threads": 1},)
_INVALID_AT_64 = _RAN + ({"did_run": True, "is_valid": False, "runtime": 0.1, "num_threads": 64},)
_FAILED_AT_64 = _RAN + ({"did_run": False, "is_valid": False, "runtime": None, "num_threads": 64},)
PASS = ParEvalVerdict(did_build=True, are_all_valid=True, runs=_RAN, best_sequential_runtime=0.1)
NOT_BUILT_THERE = ParEvalVerdict(did_build=False, are_all_valid=False, runs=(), best_sequential_runtime=None)


# (ParEval's verdict, PCGBench's verdict, detail, build log, body) -> (cause, a piece of the evidence)
CAUSE_CASES = [
    (PASS, "ok", "", "", "", ("", "")),
    (NOT_BUILT_THERE, "build_error", "", "", "", ("", "")),
    (PASS, "race_detected", "WARNING: ThreadSanitizer: data race", "", "", ("race_detected", "data race")),
    (PASS, "no_parallelism", "no OpenMP directive", "", "", ("no_parallelism", "no OpenMP")),
    (PASS, "tampering", "the kernel refused system call openat", "", "", ("tampering", "openat")),
    (PASS, "resource_overuse", "CPU time 3 x wall", "", "", ("resource_overuse", "CPU time")),
    (PASS, "wrong_answer", "size 37: element 0: expected 1, got 0", "", "", (ANSWER_CHECK, "element 0")),
    (PASS, "timeout", "timeout: ", "", "", ("time_limit", "limit 60 s")),
    (PASS, "timeout", "timeout: malloc(): corrupted top size\n[vm:00008] Signal: Aborted (6)", "", "",
     ("time_limit", "a process died before the limit (corrupted top size)")),
    (PASS, "build_error", "", "x.cpp:3:5: error: 'foo' was not declared\nmore", "", ("build_environment",
                                                                                     "error: 'foo' was not declared")),
    (NOT_BUILT_THERE, "ok", "", "", "#pragma omp parallel for collapse(2)\nfor (int i = 0; i < n; ++i) {\n"
     "  for (int j = i + 1; j < n; ++j) {", ("build_environment", "non-rectangular loop nest (j from i")),
    (NOT_BUILT_THERE, "ok", "", "", "void join(volatile double& dest, const volatile double& src) const {",
     ("build_environment", "volatile references")),
    (dataclasses.replace(PASS, are_all_valid=False, runs=_INVALID_AT_64), "ok", "", "", "",
     (ANSWER_CHECK, "invalid at 64")),
    (dataclasses.replace(PASS, are_all_valid=False, runs=_FAILED_AT_64), "ok", "", "", "",
     ("pareval_run_failed", "did not run (exit status non-zero) at 64")),
    (PASS, "crash", "signal 11", "", "", ("unexplained", "signal 11")),
    (PASS, "crash", "signaled signal 6: malloc(): corrupted top size\n---", "", "",
     ("memory_error", "memory corrupted (malloc(): corrupted top size)")),
    (PASS, "prompt_mismatch", "the record's prompt declares `int f()`", "", "", ("prompt_mismatch", "declares")),
]


@pytest.mark.parametrize(("pareval", "verdict", "detail", "build_log", "body", "want"), CAUSE_CASES,
                         ids=[f"{c[0].category}-{c[1]}-{i}" for i, c in enumerate(CAUSE_CASES)])
def test_each_cause_is_computed_from_evidence(pareval, verdict, detail, build_log, body, want):
    cause, evidence = cause_of(pareval, verdict, detail, build_log, EvaluateConfig(race_check=False), body)
    assert (cause, want[1] in evidence) == (want[0], True), evidence
    assert cause == "" or cause in CAUSES


def test_a_size_that_ranks_do_not_divide_is_named():
    _, evidence = cause_of(PASS, "wrong_answer", "size 1003: element 1002: expected 1, got 0", "",
                           EvaluateConfig(race_check=False), ranks=2)  # fmt: skip
    assert "size 1003 is not a multiple of the 2 ranks" in evidence
    _, evidence = cause_of(PASS, "wrong_answer", "size 1004: element 1002: expected 1, got 0", "",
                           EvaluateConfig(race_check=False), ranks=2)  # fmt: skip
    assert "multiple" not in evidence


def test_a_record_parevals_harness_never_built_is_named():
    _, evidence = cause_of(NOT_BUILT_THERE, "ok", "", "", EvaluateConfig(race_check=False), "return 0;\n}", (0, 20))
    assert "ParEval built none of the record's 20 outputs" in evidence


def test_a_rectangular_collapse_is_not_flagged():
    assert nonrectangular_collapse("#pragma omp parallel for collapse(2)\nfor (int i = 0; i < n; ++i)\n"
                                   "  for (int j = 0; j < m; ++j) x[i*m+j] = 0;") == ""
