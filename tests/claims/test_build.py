"""The claims table (workflow_scripts/claims/build.py) on synthetic summaries: rows follow the summaries, verdicts
follow the rules in the claims file, bad input stops with the file and key, and the history counts runs once."""

import copy
import csv
import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from workflow_scripts.claims import build
from workflow_scripts.claims.build import NOT, NOT_TESTABLE, PARTLY, REPRODUCED, ClaimsError
from workflow_scripts.claims.papers import PapersError, load_papers, paper_of

REPO_PAPERS = Path(__file__).resolve().parents[2] / "data/papers.yaml"

RLPF = "results/rlpf/summary.json"
SPARSE = "results/disttrain/sparse/summary.json"

# An RLPF-like claim (checks against same-run baselines, then the size against the paper's number), a claim
# judged on a projection with reduce/divide/complement, a claim per application, and one the tiny run cannot test.
CLAIMS = {
    "claims": [
        {
            "id": "rl_speedup", "study": "rlpf", "claim": "RL raises expected speedup.",
            "paper": {"value": 1.6, "source": "STUDIES.md, RLPF"}, "summary": RLPF,
            "measured": {"key": "task_sets/serial/rl/expected_speedup"},
            "extra": {"base": {"key": "task_sets/serial/base/expected_speedup"}},
            "verdict": {
                "checks": [{"label": "RL above base", "value": {"key": "task_sets/serial/rl/expected_speedup"},
                            "op": ">", "than": {"key": "task_sets/serial/base/expected_speedup"}}],
                "paper_ratio": {"direction": "higher", "reproduced": 0.9, "partly": 0.5},
                "context": "base {base}",
            },
        },
        {
            "id": "sparse_memory", "study": "disttrain/sparse", "claim": "Less memory.",
            "paper": {"value": 0.74, "source": "STUDIES.md, sparse"}, "summary": SPARSE,
            "measured": {"key": "measured/*/sparse_bytes", "reduce": "min",
                         "divide_by": {"key": "measured/*/dense_bytes", "reduce": "max"}, "complement": True},
            "projection": {"key": "projection/by_density/*/memory_reduction", "reduce": "max"},
            "projection_label": "projected memory reduction", "basis": "projection",
            "verdict": {"paper_ratio": {"direction": "higher", "reproduced": 0.9, "partly": 0.5}},
        },
        {
            "id": "per_app", "study": "monitoring", "claim": "Generalises.", "paper": {"source": "STUDIES.md"},
            "summary": RLPF, "measured": {"key": "apps/AMG"},
            "verdict": {"some_checks": "partly", "checks": [
                {"label": "AMG", "value": {"key": "apps/AMG"}, "op": "startswith", "than": "better"},
                {"label": "UMT", "value": {"key": "apps/UMT"}, "op": "startswith", "than": "better"}]},
        },
        {
            "id": "scale", "study": "corpus", "claim": "196k files.", "paper": {"value": 196000, "source": "STUDIES.md"},
            "summary": SPARSE, "measured": {"key": "files"},
            "verdict": {"not_testable": "the tiny config gathers {measured} files"},
        },
    ]
}  # fmt: skip

SUMMARIES = {
    RLPF: {
        "task_sets": {"serial": {"rl": {"expected_speedup": 0.8}, "base": {"expected_speedup": 0.0}}},
        "apps": {"AMG": "better than the baseline", "UMT": "NOT better than the baselines"},
    },
    SPARSE: {
        "measured": [{"sparse_bytes": 30.0, "dense_bytes": 100.0}, {"sparse_bytes": 60.0, "dense_bytes": 100.0}],
        "projection": {"by_density": [{"memory_reduction": 0.5}, {"memory_reduction": 0.7}]},
        "files": 201,
    },
}


def _rows(summaries=SUMMARIES, claims=CLAIMS, tmp_path=None):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(claims))
    return {row.claim.id: row for row in build.build_rows(build.load_claims(path), summaries)}


def _with(path: str, keys: str, value):
    summaries = copy.deepcopy(SUMMARIES)
    node = summaries[path]
    *parents, last = keys.split("/")
    for part in parents:
        node = node[part]
    node[last] = value
    return summaries


@pytest.mark.parametrize(
    ("rl", "base", "verdict", "in_reason"),
    [
        (0.8, 0.0, PARTLY, "50% of the paper's 1.6"),  # 0.5 <= 0.8 / 1.6 < 0.9
        (1.6, 0.0, REPRODUCED, "100% of the paper's 1.6"),
        (1.5, 0.0, REPRODUCED, "94% of the paper's 1.6"),
        (0.3, 0.0, PARTLY, "but measured 0.3 is 19%"),  # the direction holds, the size does not
        (0.3, 0.9, NOT, "0 of 1 checks hold, not: RL above base (0.3; needs above 0.9)"),  # below the base model
    ],
)
def test_row_number_and_verdict_follow_the_summary(tmp_path, rl, base, verdict, in_reason):
    summaries = _with(RLPF, "task_sets/serial/rl/expected_speedup", rl)
    summaries[RLPF]["task_sets"]["serial"]["base"]["expected_speedup"] = base
    row = _rows(summaries, tmp_path=tmp_path)["rl_speedup"]
    assert row.measured == rl
    assert row.paper == 1.6
    assert row.verdict == verdict
    assert in_reason in row.reason
    assert f"base {build.fmt(base)}" in row.reason
    assert row.as_csv()["measured"] == build.fmt(rl)


def test_projection_reduce_divide_complement(tmp_path):
    row = _rows(tmp_path=tmp_path)["sparse_memory"]
    assert row.measured == pytest.approx(1 - 30 / 100)
    assert row.projection == 0.7
    assert row.verdict == REPRODUCED  # the projection is judged, not the tiny number: 0.7 / 0.74 >= 0.9
    changed = _rows(_with(SPARSE, "projection/by_density", [{"memory_reduction": 0.2}]), tmp_path=tmp_path)
    assert changed["sparse_memory"].projection == 0.2
    assert changed["sparse_memory"].verdict == NOT


def test_some_checks_partly_and_not_testable(tmp_path):
    rows = _rows(tmp_path=tmp_path)
    assert rows["per_app"].verdict == PARTLY
    assert rows["per_app"].reason == "1 of 2 checks hold, not: UMT (NOT better than the baselines)."
    both = _with(RLPF, "apps/UMT", "better than the last-run baseline")
    assert _rows(both, tmp_path=tmp_path)["per_app"].verdict == REPRODUCED
    assert rows["scale"].verdict == NOT_TESTABLE
    assert rows["scale"].reason == "The tiny config gathers 201 files."


def test_testable_if_decides_between_not_testable_and_a_verdict(tmp_path):
    claims = copy.deepcopy(CLAIMS)
    claims["claims"][3]["verdict"] |= {
        "testable_if": [{"label": "a tenth of the paper's corpus", "value": {"key": "files"}, "op": ">=", "than": 19600}],
        "paper_ratio": {"direction": "higher", "reproduced": 0.9, "partly": 0.5},
    }
    tiny = _rows(claims=claims, tmp_path=tmp_path)["scale"]
    assert tiny.verdict == NOT_TESTABLE
    assert tiny.reason == "The tiny config gathers 201 files."  # its sentence says why; the failed check repeats it
    paper_scale = _rows(_with(SPARSE, "files", 150000), claims=claims, tmp_path=tmp_path)["scale"]
    assert paper_scale.verdict == PARTLY and "77% of the paper's 196000" in paper_scale.reason


def test_missing_key_names_file_key_and_claim(tmp_path):
    summaries = copy.deepcopy(SUMMARIES)
    del summaries[RLPF]["task_sets"]["serial"]["rl"]
    with pytest.raises(ClaimsError, match=r"results/rlpf/summary.json has no key 'task_sets/serial/rl/expected_speedup' "
                                          r"\(claim 'rl_speedup'\).*holds \['base'\]"):  # fmt: skip
        _rows(summaries, tmp_path=tmp_path)


def test_missing_summary_is_named(tmp_path):
    summaries = {RLPF: SUMMARIES[RLPF]}
    with pytest.raises(ClaimsError, match=r"reads results/disttrain/sparse/summary.json, which is not among"):
        _rows(summaries, tmp_path=tmp_path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": "red"}, r"claim 'rl_speedup': unknown field\(s\) \['colour'\]"),
        ({"verdict": {"checks": [{"label": "x", "value": {"key": "a"}, "op": "~"}]}}, r"checks\[0\].op: '~'"),
        ({"verdict": {"paper_ratio": {"direction": "up", "reproduced": 1, "partly": 0.5}}}, r"direction: 'up'"),
        ({"measured": {"key": "a", "reduce": "median"}}, r"measured.reduce: 'median'"),
        ({"basis": "projection"}, r"basis: 'projection' must be"),
        ({"projection": {"key": "a"}}, r"`projection` needs `projection_label`"),
        ({"verdict": {}}, r"give checks, paper_ratio or not_testable"),
    ],
)
def test_bad_claims_file_names_claim_and_field(tmp_path, change, message):
    claims = copy.deepcopy(CLAIMS)
    claims["claims"][0].update(change)
    with pytest.raises(ClaimsError, match=message):
        _rows(claims=claims, tmp_path=tmp_path)


def test_slash_in_a_summary_key(tmp_path):
    spec = build.ValueSpec(summary=RLPF, key="verdicts/loao/gbm/AMG")
    assert build.read_value(spec, {RLPF: {"verdicts": {"loao/gbm": {"AMG": "better"}}}}, "c") == "better"


def _write_summaries(root: Path, summaries) -> list[str]:
    for path, data in summaries.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(json.dumps(data))
    return sorted(summaries)


def _main(root: Path) -> list[dict[str, str]]:
    build.main(claims_file=str(root / "claims.yaml"), papers_file=str(REPO_PAPERS), summaries=sorted(SUMMARIES),
               output_csv="results/claims.csv", output_html="results/claims.html",
               output_tally="results/claims_tally.html", history="results/claims_history.csv")  # fmt: skip
    with open(root / "results/claims.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def test_main_writes_table_and_counts_each_set_of_summaries_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims.yaml").write_text(yaml.safe_dump(CLAIMS))
    _write_summaries(tmp_path, SUMMARIES)
    rows = _main(tmp_path)
    assert [row["claim_id"] for row in rows] == ["rl_speedup", "sparse_memory", "per_app", "scale"]
    assert rows[0]["measured_from"] == "results/rlpf/summary.json:task_sets/serial/rl/expected_speedup"
    assert rows[0]["history"] == "first recorded run"
    page = (tmp_path / "results/claims.html").read_text()
    assert "RL raises expected speedup." in page
    # One run recorded: no history column; the paper's source is a hover and a numbered note, not the cell's text.
    assert "<th>history</th>" not in page and "first recorded run" not in page
    assert '<span class="tip" title="STUDIES.md, RLPF">1.6</span> <a class="fn" href="#source-1">[1]</a>' in page
    assert '<li id="source-1">STUDIES.md, RLPF</li>' in page
    # Every row cites its study's paper (data/papers.yaml), linked on the page.
    assert rows[0]["paper_cited"].startswith("D. Nichols, P. Polasam") and "arxiv.org/abs/2404.18864" in rows[0]["paper_cited"]
    assert 'href="https://arxiv.org/abs/2404.18864"' in page and "Nichols et al. 2024" in page
    tally = (tmp_path / "results/claims_tally.html").read_text()
    verdicts = Counter(row["verdict"] for row in rows)
    assert f"{len(rows)} claims: " in tally and f"{verdicts[NOT_TESTABLE]} not testable here" in tally
    assert "app.showCategory('Claims')" in tally

    _main(tmp_path)  # the same summaries again: no new run in the history
    history = build.read_history("results/claims_history.csv")
    assert len({entry["summaries_sha256"] for entry in history}) == 1 and len(history) == 4

    _write_summaries(tmp_path, _with(RLPF, "task_sets/serial/rl/expected_speedup", 1.7))
    rows = _main(tmp_path)
    assert rows[0]["measured"] == "1.7" and rows[0]["verdict"] == REPRODUCED
    assert rows[0]["history"] == "held in 2 of 2 recorded runs (reproduced 1, partly 1)"
    assert rows[1]["history"] == "same verdict in all 2 recorded runs"
    assert "<th>history</th>" in (tmp_path / "results/claims.html").read_text()

    _write_summaries(tmp_path, _with(RLPF, "task_sets/serial/base/expected_speedup", 2.0))
    rows = _main(tmp_path)
    assert rows[0]["verdict"] == NOT
    assert rows[0]["history"] == "held in 2 of 3 recorded runs (reproduced 1, partly 1, not 1)"


def test_a_renamed_claim_keeps_its_recorded_runs(tmp_path):
    """A history written before a claim's id changed counts its runs under the new id; other ids are untouched."""
    path = tmp_path / "history.csv"
    old = [{"summaries_sha256": str(i), "recorded_utc": "", "claim_id": claim_id, "verdict": NOT, "measured": "",
            "projection": ""} for i, claim_id in enumerate(["rlpf_openmp_speedup", "rlpf_serial_speedup"])]  # fmt: skip
    path.write_text(build._history_csv(old))
    history = build.read_history(path)
    assert [entry["claim_id"] for entry in history] == ["rlpf_omp_speedup", "rlpf_serial_speedup"]
    assert build.history_note(history, "rlpf_omp_speedup") == "first recorded run"
    assert "rlpf_omp_speedup" in {claim.id for claim in build.load_claims(REPO_PAPERS.parent / "claims.yaml")}


def test_main_refuses_a_summary_the_rule_does_not_take(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims.yaml").write_text(yaml.safe_dump(CLAIMS))
    _write_summaries(tmp_path, SUMMARIES)
    with pytest.raises(ClaimsError, match=r"reads \['results/disttrain/sparse/summary.json'\], which the claims rule"):
        build.main(claims_file="claims.yaml", papers_file=str(REPO_PAPERS), summaries=[RLPF], output_csv="out.csv",
                   output_html="out.html", output_tally="tally.html", history="history.csv")  # fmt: skip
    assert not Path("out.csv").exists() and not Path("history.csv").exists()


def test_the_project_claims_file(repo_root):
    """data/claims.yaml loads, says where in its paper every number stands, and covers the ten studies, each of
    which data/papers.yaml cites."""
    claims = build.load_claims(repo_root / "data/claims.yaml")
    assert not [claim.id for claim in claims if "STUDIES.md" in claim.paper_source or len(claim.paper_source) < 20]
    papers = load_papers(repo_root / "data/papers.yaml")
    assert all(paper_of(papers, claim.study) is not None for claim in claims)
    studies = {claim.study for claim in claims}
    assert {"hpccoder", "pcgbench", "rlpf", "jorge", "monitoring", "disttrain/tensor3d", "disttrain/moe",
            "disttrain/sparse", "disttrain/survey", "disttrain/axonn"} <= studies  # fmt: skip
    assert all(path.startswith("results/") and path.endswith("summary.json") for path in build.summaries_named(claims))


def test_papers_file_refuses_an_unknown_paper_and_names_a_missing_study(tmp_path):
    papers = yaml.safe_load(REPO_PAPERS.read_text())
    cited = load_papers(REPO_PAPERS)
    assert paper_of(cited, "disttrain/axonn").short() == "Singh and Bhatele 2022"
    assert paper_of(cited, "generate") is None  # the project's own plumbing: no paper
    with pytest.raises(PapersError, match="does not list study 'nosuch'"):
        paper_of(cited, "nosuch")
    papers["studies"]["rlpf"] = "rlfp"
    (tmp_path / "papers.yaml").write_text(yaml.safe_dump(papers))
    with pytest.raises(PapersError, match=r"studies.rlpf: no paper 'rlfp'"):
        load_papers(tmp_path / "papers.yaml")
    papers["studies"]["rlpf"] = "rlpf"
    del papers["papers"]["jorge"]["url"]
    (tmp_path / "papers.yaml").write_text(yaml.safe_dump(papers))
    with pytest.raises(PapersError, match=r"papers.jorge: missing field\(s\) \['url'\]"):
        load_papers(tmp_path / "papers.yaml")
