"""ParEval JSON: export, import, malformed files (record index + field), unknown problems (no_driver)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from workflow_scripts.measure import suite
from workflow_scripts.pcgbench import pareval_format as pf

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


def test_a_prompt_file_without_outputs_is_recognised(tmp_path):
    path = tmp_path / "generation-prompts.json"
    path.write_text(json.dumps([{k: v for k, v in _record().items() if k != "outputs"}] * 3))
    with pytest.raises(ValueError, match="this is a prompt file .*evaluate GENERATIONS.json"):
        pf.load_generations(path)


def test_exported_prompts_end_in_the_signature_line():
    # ParEval's evaluator takes a prompt's last line as the signature: no newline after the "{".
    for problem in PROBLEMS[:5]:
        for exec_model in suite.EXECUTION_MODELS:
            text = pf.prompt_record(problem, exec_model)["prompt"]
            assert text.splitlines()[-1] == problem.signature(exec_model) + " {" and not text.endswith("\n")


def test_declared_interface_ignores_layout_and_comments():
    text = ("struct Point {\n\tdouble x,  y; // coordinates\n};\n\n/* Return it.\n   double f(int) {\n*/\n"
            "double  closest( std::vector<Point> const &points ) {")
    signature, structs = pf.declared_interface(text)
    assert signature == "double closest(std::vector<Point>const&points)"
    assert structs == {"Point": "double x,y;"}
    assert pf.canonical("Kokkos::View<const double*> &x") == pf.canonical("Kokkos::View<const double *>& x")


def test_comment_markers_inside_string_literals_are_declaration_text():
    # A "//" or "/*" in a string (a default argument, a struct's field initialiser) does not start a comment.
    assert pf.canonical('void f(const char *url = "http://x", int n)') == 'void f(const char*url="http://x",int n)'
    _, structs = pf.declared_interface('struct S {\n  const char *open = "/*";\n  int n;\n};\nvoid g(S s) {')
    assert structs == {"S": 'const char*open="/*";int n;'}


def test_a_prompt_of_another_interface_is_prompt_mismatch_with_both_signatures():
    problem = PROBLEMS[0]
    record = _record()
    head, _, last = record["prompt"].rpartition("\n")
    wrong = head + "\n" + last.replace("(", "(int extra, ", 1)
    matches = pf.match_generations([record, _record(prompt=wrong), _record(prompt="")], PROBLEMS)
    assert [m.status for m in matches] == ["", pf.PROMPT_MISMATCH, ""]
    reason = matches[1].reason
    assert "int extra" in reason and pf.canonical(problem.signature("omp")) in reason and problem.name in reason


def test_a_struct_with_other_fields_is_prompt_mismatch():
    with_struct = next(p for p in PROBLEMS if "struct" in p.types_for("omp"))
    record = dict(pf.prompt_record(with_struct, "omp"), outputs=[])
    name = pf.declared_interface(record["prompt"])[1]
    field_prompt = record["prompt"]
    first = sorted(name)[0]
    start = field_prompt.index("struct " + first)
    end = field_prompt.index("};", start)
    broken = field_prompt[:start] + f"struct {first} {{\n  int renamed_field;\n" + field_prompt[end:]
    [match] = pf.match_generations([dict(record, prompt=broken)], PROBLEMS)
    assert match.status == pf.PROMPT_MISMATCH and "renamed_field" in match.reason and first in match.reason


# ---------------------------------------------------------------------------------------------------------
# Text that cannot be written: refused by record and field, the rest of the file scored

LONE_SURROGATE = "\ud800"  # what JSON's "\ud800" reads as: a str UTF-8 cannot encode


def test_text_utf8_cannot_encode_is_refused_by_record_and_field(caplog):
    good = _record()
    body = good["outputs"][0]
    records = [
        _record(outputs=[body + "// " + LONE_SURROGATE + "\n", body]),  # one bad output: only it is refused
        _record(name=PROBLEMS[0].name + LONE_SURROGATE),
        _record(prompt=good["prompt"].replace("{", LONE_SURROGATE + " {")),
        good,
    ]
    matches = pf.match_generations(records, PROBLEMS, source="gen.json")
    assert [m.status for m in matches] == ["", pf.MALFORMED, pf.MALFORMED, ""]
    [(index, why)] = matches[0].refused
    assert index == 0
    assert why.startswith(f"gen.json: record 0 ({PROBLEMS[0].name!r}): field 'outputs' item 0 holds a lone UTF-16 "
                          "surrogate ('\\ud800' at offset")  # fmt: skip
    assert matches[1].reason.startswith("gen.json: record 1 (") and "field 'name'" in matches[1].reason
    assert matches[2].reason.startswith("gen.json: record 2 (") and "field 'prompt'" in matches[2].reason
    assert matches[3].refused == ()
    for reason in [why, matches[1].reason, matches[2].reason]:  # one line, writable anywhere
        assert "\n" not in reason and reason.encode("utf-8")
    assert sum("reported as malformed" in r.getMessage() for r in caplog.records) == 3


def test_nul_and_control_characters_are_read_as_text():
    # They encode: the compiler judges a body that holds them, like any other text.
    odd = "\x00\x01\x1b[2J\r\x7f"
    record = _record(outputs=[_record()["outputs"][0] + "// " + odd + "\n"], prompt=odd + "\n" + _record()["prompt"])
    [match] = pf.match_generations([record], PROBLEMS)
    assert (match.status, match.refused) == ("", ())
    assert pf.unencodable(odd) == ""


def test_a_refused_output_leaves_the_others_their_indexes(tmp_path):
    from workflow_scripts.pcgbench.samples import load_samples

    body = _record()["outputs"][0]
    path = tmp_path / "gen.json"
    # As a generator that splits a UTF-16 pair writes it: JSON's escape of a lone surrogate.
    records = [_record(outputs=[body, body + "// " + LONE_SURROGATE + "\n", body + "\n"]),
               _record(name=PROBLEMS[0].name + LONE_SURROGATE)]
    path.write_text(json.dumps(records))
    assert "\\ud800" in path.read_text()
    samples, unscored = load_samples(path, "gen", suite.DATA_ROOT)
    assert [s.sample_index for s in samples] == [0, 2]
    assert all(len(s.sample_id) == 20 and s.program_id for s in samples)
    assert [(u.record, u.status) for u in unscored] == [
        (PROBLEMS[0].name, pf.MALFORMED), (PROBLEMS[0].name + "\\ud800", pf.MALFORMED)]  # fmt: skip
    assert unscored[0].reason.startswith(f"{path}: record 0 ") and "field 'outputs' item 1" in unscored[0].reason
    assert unscored[1].reason.startswith(f"{path}: record 1 ") and "field 'name'" in unscored[1].reason
    json.dumps([u.__dict__ for u in unscored], ensure_ascii=False).encode("utf-8")  # printable, writable


def test_a_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "gen.json"
    path.write_bytes(b'[{"name": "\xff"}]')
    with pytest.raises(ValueError, match=re.escape(f"{path}: not UTF-8 text (byte 11)")):
        pf.load_generations(path)
