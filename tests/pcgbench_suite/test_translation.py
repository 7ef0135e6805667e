"""ParEval's translation task (pareval_files/translation-prompts.json, ParEval commit 4c9877f; README.md there)
against this suite: the suite's own translation prompts (export-prompts --task translation) are ParEval's 143 tasks
in its format; every one of ParEval's records matches the problem its name names; the suite's reference bodies
of the target model, written into its records as outputs, build and validate; and a record that declares another
interface is refused.

Which records are built rotates like the references (conftest.py): one record per translation pair, drawn by the
rotation seed (PCGBENCH_TEST_ALL=1: all 143, beyond pytest's default per-test limit: add --timeout=3000).
"""

from __future__ import annotations

import collections
import json
import os
import random
from pathlib import Path

import pytest

from workflow_scripts.measure import suite
from workflow_scripts.pcgbench import pareval_format as pf
from workflow_scripts.pcgbench import translation as tr
from workflow_scripts.pcgbench.__main__ import main as cli
from workflow_scripts.pcgbench.evaluation import EvaluateConfig, evaluate_samples
from workflow_scripts.pcgbench.samples import load_samples

from .conftest import rotation_seed
from .test_pareval_compat import PROBLEMS

PAREVAL_TRANSLATIONS = Path(__file__).parent / "pareval_files" / "translation-prompts.json"
PAREVAL_COUNTS = {"serial->omp": 54, "serial->mpi": 54, "cuda->kokkos": 35}


def key(record: dict) -> tuple[str, str, str]:
    return record["name"], record["translation_src_model"], record["translation_dst_model"]


def pareval_translation_records(bodies=lambda problem, exec_model: suite.reference_body(problem, exec_model)) -> list[dict]:
    """ParEval's 143 translation records as they are, each given one output (by default the suite's reference body
    of the target model)."""
    records = json.loads(PAREVAL_TRANSLATIONS.read_text())
    return [dict(r, outputs=[bodies(PROBLEMS[pf.problem_name(r)], r["parallelism_model"])]) for r in records]


def test_the_export_is_parevals_143_tasks_in_its_format(tmp_path):
    theirs = {key(r): r for r in json.loads(PAREVAL_TRANSLATIONS.read_text())}
    ours = tr.export_translation_prompts(list(PROBLEMS.values()), tmp_path / "t.json", numbering="pareval")
    assert sorted(map(key, ours)) == sorted(theirs) and len(ours) == 143
    assert collections.Counter(tr.pair_name(src, dst) for _, src, dst in map(key, ours)) == PAREVAL_COUNTS
    for record in ours:
        parevals = theirs[key(record)]
        assert list(record) == [*parevals, "outputs"] and record["outputs"] == []  # ParEval's fields, in its order
        assert record["translation_function_name"] == parevals["translation_function_name"]
        problem, src, dst = PROBLEMS[pf.problem_name(record)], record["translation_src_model"], record["parallelism_model"]
        assert record["prompt"] == pf.prompt_record(problem, dst)["prompt"]  # the target's generation prompt
        assert record["translation_src_example"] == (pf.prompt_record(problem, src)["prompt"] + "\n"
                                                     + suite.reference_body(problem, src).rstrip("\n"))  # fmt: skip
    # ParEval's layout, in its file and ours: the commented source, then the target's prompt as the last lines.
    for record in [*ours, *theirs.values()]:
        src, dst, name = record["translation_src_model"], record["translation_dst_model"], record["translation_function_name"]
        head = f"// {tr.EXEC_MODEL_NAMES[src]} implementation of {name}\n"
        tail = f"\n\n// {tr.EXEC_MODEL_NAMES[dst]} implementation of {name}\n{record['prompt']}\n"
        text = record["translation_prompt"]
        assert text.startswith(head) and text.endswith(tail), record["name"]
        assert all(line.startswith("//") for line in text[len(head):-len(tail)].splitlines())
    # The suite's folder names, and only the pairs asked for.
    subset = tr.export_translation_prompts(list(PROBLEMS.values()), tmp_path / "s.json", pairs=["serial->omp"])
    assert len(subset) == 54 and all(r["name"] in PROBLEMS and r["parallelism_model"] == "omp" for r in subset)


def test_export_prompts_task_translation_on_the_command_line(tmp_path, capsys):
    out = tmp_path / "translation.json"
    assert cli(["export-prompts", str(out), "--task", "translation", "--numbering", "pareval"]) == 0
    assert len(json.loads(out.read_text())) == 143 and "wrote 143 translation prompts" in capsys.readouterr().out
    assert cli(["export-prompts", str(out), "--task", "translation", "--pairs", "cuda->kokkos",
                "--problems", "reduce_average,geometry_count_in_circle"]) == 0  # fmt: skip
    assert [key(r) for r in json.loads(out.read_text())] == [("reduce_average", "cuda", "kokkos")]
    for argv, message in ((["--task", "translation", "--models", "omp"], "--models: a translation task is named by its pair"),
                          (["--pairs", "serial->omp"], "--pairs names translation pairs: add --task translation"),
                          (["--task", "translation", "--pairs", "serial->hip"], "unknown translation pair(s) 'serial->hip'")):  # fmt: skip
        assert cli(["export-prompts", str(tmp_path / "x.json"), *argv]) == 2
        assert message in capsys.readouterr().err


def test_parevals_143_translation_records_match(tmp_path):
    path = tmp_path / "translations.json"
    path.write_text(json.dumps(pareval_translation_records(lambda problem, exec_model: "}")))
    samples, unscored = load_samples(path, "pareval", suite.DATA_ROOT)
    assert [(u.record, u.exec_model, u.status, u.reason) for u in unscored] == []  # no no_driver, no prompt_mismatch
    assert collections.Counter(tr.pair_name(s.source_exec_model, s.exec_model) for s in samples) == PAREVAL_COUNTS
    assert {s.task for s in samples} == {tr.TRANSLATION}


def chosen_records(records: list[dict]) -> list[dict]:
    """One record per pair, drawn by the rotation seed (all of them with PCGBENCH_TEST_ALL=1)."""
    if os.environ.get("PCGBENCH_TEST_ALL") == "1":
        return records
    rng = random.Random(f"{rotation_seed()}-translation")
    return [rng.choice([r for r in records if tr.pair_name(*key(r)[1:]) == pair]) for pair in PAREVAL_COUNTS]


def test_reference_bodies_in_parevals_translation_records_pass(tmp_path):
    path = tmp_path / "translations.json"
    path.write_text(json.dumps(chosen_records(pareval_translation_records())))
    samples, unscored = load_samples(path, "pareval", suite.DATA_ROOT)
    assert unscored == []
    # The interface is what this test is about: no race check (a ThreadSanitizer build and run per OpenMP sample).
    cfg = EvaluateConfig(cache_dir=tmp_path / "cache", reps=1, warmup=0, validations=1, stress_validations=0,
                         max_cores=2, run_timeout_s=60.0, ks=(1,), race_check=False)
    rows, skipped = evaluate_samples(samples, tmp_path / "out", cfg)
    assert skipped == {}
    got = {(r.problem, r.source_model, r.model): (r.verdict, r.detail) for r in rows.drop_duplicates("sample_id").itertuples()}
    assert {k: v for k, v in got.items() if v[0] != "ok"} == {}
    assert set(got) == {(s.problem.name, s.source_exec_model, s.exec_model) for s in samples} and len(got) == len(samples)
    assert set(rows["task"]) == {tr.TRANSLATION}


def test_a_translation_record_of_another_interface_is_refused(tmp_path):
    record = next(r for r in pareval_translation_records() if r["name"] == "27_reduce_average"
                  and r["translation_dst_model"] == "omp")  # fmt: skip
    theirs, other = "double average(std::vector<double> const& x) {", "double average(std::vector<float> const& x) {"
    assert record["prompt"].endswith(theirs) and record["translation_prompt"].endswith(theirs + "\n")
    both = dict(record, prompt=record["prompt"].replace(theirs, other),
                translation_prompt=record["translation_prompt"].replace(theirs, other))
    told = dict(record, translation_prompt=record["translation_prompt"].replace(theirs, other))  # what the model saw
    path = tmp_path / "translations.json"
    path.write_text(json.dumps([record, both, told]))
    samples, unscored = load_samples(path, "pareval", suite.DATA_ROOT)
    assert len(samples) == 1  # ParEval's own record is scored
    assert [(u.status, len(u.samples)) for u in unscored] == [(pf.PROMPT_MISMATCH, 1)] * 2
    for refused in unscored:
        assert pf.canonical(other.removesuffix("{")) in refused.reason and pf.canonical(theirs.removesuffix("{")) in refused.reason
    assert unscored[1].reason.startswith("translation_prompt: ")


@pytest.mark.parametrize(("change", "message"), [
    ({"translation_dst_model": "mpi"}, "field 'translation_dst_model' is 'mpi' but 'parallelism_model' is 'omp'"),
    ({"translation_src_model": "fortran"}, "field 'translation_src_model' is 'fortran'; expected one of"),
    ({"translation_src_model": "omp"}, "are both 'omp'"),
    ({"translation_prompt": None}, "field 'translation_prompt' is a NoneType"),
])  # fmt: skip
def test_a_malformed_translation_record_names_its_field(tmp_path, change, message):
    record = next(r for r in pareval_translation_records() if r["translation_dst_model"] == "omp")
    path = tmp_path / "translations.json"
    path.write_text(json.dumps([record, dict(record, **change)]))
    with pytest.raises(pf.GenerationsError, match=r"record 1 \(") as err:
        load_samples(path, "pareval", suite.DATA_ROOT)
    assert message in str(err.value)
