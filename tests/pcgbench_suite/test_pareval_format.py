"""ParEval JSON: export, import, malformed files (record index + field), unknown problems (no_driver)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from workflow_scripts.pcgbench import pareval_format as pf
from workflow_scripts.pcgbench import suite

PROBLEMS = suite.load_suite()


def test_export_roundtrip(tmp_path):
    out = tmp_path / "prompts.json"
    records = pf.export_prompts(PROBLEMS, suite.EXECUTION_MODELS, out)
    assert len(records) == len(PROBLEMS) * 7
    loaded = pf.load_generations(out)
    assert loaded == records
    assert all(r["outputs"] == [] and r["language"] == "cpp" for r in loaded)
    matches = pf.match_generations(loaded, PROBLEMS)
    assert all(m.status == "" and m.problem.name == m.record["name"] for m in matches)


def test_cli_export_prompts(tmp_path):
    out = tmp_path / "all.json"
    proc = subprocess.run([sys.executable, "-m", "workflow_scripts.pcgbench", "export-prompts", str(out)],
                          capture_output=True, text=True, cwd=suite.REPO_ROOT)
    assert proc.returncode == 0, proc.stderr
    records = json.loads(out.read_text())
    assert len(records) == 7 * len(PROBLEMS)
    assert {r["parallelism_model"] for r in records} == set(suite.EXECUTION_MODELS)
    assert all(r["prompt"].rstrip().endswith("{") for r in records)


def _record(**changes):
    record = pf.prompt_record(PROBLEMS[0], "omp")
    record["outputs"] = [suite.reference_body(PROBLEMS[0], "omp")]
    record.update(changes)
    return record


@pytest.mark.parametrize(("data", "message"), [
    ({"name": "x"}, "expected a JSON list"),
    ([_record(), 5], "record 1: expected an object"),
    ([_record(), {k: v for k, v in _record().items() if k != "outputs"}], "record 1: field 'outputs' is missing"),
    ([_record(outputs="body")], "record 0: field 'outputs' must be a list"),
    ([_record(), _record(), _record(outputs=["ok", 3])], "record 2: field 'outputs' item 1 must be a string"),
    ([_record(parallelism_model="openacc")], "record 0: field 'parallelism_model'"),
    ([_record(language="fortran")], "record 0: field 'language'"),
    ([_record(name=7)], "record 0: field 'name' must be a str"),
])
def test_malformed_files_name_record_and_field(tmp_path, data, message):
    path = tmp_path / "gen.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=message):
        pf.load_generations(path)


def test_invalid_json_names_line(tmp_path):
    path = tmp_path / "gen.json"
    path.write_text('[\n{"name": }\n]')
    with pytest.raises(ValueError, match="line 2"):
        pf.load_generations(path)


def test_unknown_problems_are_no_driver_and_rest_matched(tmp_path):
    known = _record()
    numbered = _record(name="12_" + PROBLEMS[0].name)  # ParEval's numbering
    unknown = _record(name="99_stencil_heat_3d", problem_type="stencil")
    path = tmp_path / "gen.json"
    path.write_text(json.dumps([known, unknown, numbered]))
    matches = pf.match_generations(pf.load_generations(path), PROBLEMS)
    assert [m.status for m in matches] == ["", pf.NO_DRIVER, ""]
    assert matches[1].problem is None and matches[1].index == 1
    assert matches[2].problem.name == PROBLEMS[0].name


def test_problem_type_mismatch_is_malformed():
    with pytest.raises(ValueError, match="record 0: field 'problem_type'"):
        pf.match_generations([_record(problem_type="graph" if PROBLEMS[0].problem_type != "graph" else "sort")],
                             PROBLEMS)
