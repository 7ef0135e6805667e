"""The headline numbers of a study (workflow_scripts/claims/headline.py): the project's headlines file names
3-6 numbers per registered study, each found in that study's claims or summary; a study's rows put the paper's
number beside this run's and fill the one-line finding from the numbers."""

import json
from pathlib import Path

import PIL.Image
import pytest
import yaml
from PIL import PngImagePlugin

from workflow_scripts.claims import build, headline
from workflow_scripts.claims.build import ClaimsError

REPO = Path(__file__).resolve().parents[2]
HEADLINES = {"studies": {"rlpf": {
    "finding": "RL {rl_speedup.measured} against base {base}.",
    "figures": ["expected_speedup"],
    "numbers": [{"claim": "rl_speedup"},
                {"name": "base", "label": "base expected speedup", "key": "task_sets/serial/base/expected_speedup"},
                {"name": "tasks", "label": "tasks", "key": "task_sets/*/base/tasks", "reduce": "sum"}]}}}  # fmt: skip
CLAIMS = {"claims": [{
    "id": "rl_speedup", "study": "rlpf", "claim": "RL raises expected speedup.",
    "paper": {"value": 1.6, "source": "'0.9 -> 1.6 serial' (notes)"}, "summary": "results/rlpf/summary.json",
    "measured": {"key": "task_sets/serial/rl/expected_speedup"}, "measured_label": "RL expected speedup",
    "verdict": {"paper_ratio": {"direction": "higher", "reproduced": 0.9, "partly": 0.5}}}]}  # fmt: skip
SUMMARY = {"task_sets": {"serial": {"rl": {"expected_speedup": 1.2}, "base": {"expected_speedup": 0.5, "tasks": 5}},
                         "omp": {"base": {"tasks": 4}}}}  # fmt: skip


def _figure(path: Path, caption: str) -> str:
    """A small PNG carrying its caption as figures.add_caption leaves it (the Description field)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    info = PngImagePlugin.PngInfo()
    info.add_text("Description", caption)
    PIL.Image.new("RGB", (40, 30), "white").save(path, pnginfo=info)
    return str(path)


def _run(tmp_path: Path, headlines: dict, summary: dict = SUMMARY) -> list[dict]:
    (tmp_path / "headlines.yaml").write_text(yaml.safe_dump(headlines))
    (tmp_path / "claims.yaml").write_text(yaml.safe_dump(CLAIMS))
    (tmp_path / "results/rlpf").mkdir(parents=True, exist_ok=True)
    (tmp_path / "results/rlpf/summary.json").write_text(json.dumps(summary))
    drawn = [_figure(tmp_path / f"results/rlpf/figures/{name}.png", f"{name} <caption> ≥ 1")
             for name in ("training_curves", "expected_speedup")]
    return headline.main(study="rlpf", summary="results/rlpf/summary.json", headlines_file="headlines.yaml",
                         claims_file="claims.yaml", papers_file=str(REPO / "data/papers.yaml"), output_csv="h.csv",
                         output_html="h.html", output_front="front.html",
                         figures=headline.front_page_figures("headlines.yaml", "rlpf", drawn))  # fmt: skip


def test_rows_finding_and_paper(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = _run(tmp_path, HEADLINES)
    assert [(row["number"], row["this_run"], row["paper"], row["verdict"]) for row in rows] == [
        ("RL expected speedup", 1.2, "1.6", build.PARTLY), ("base expected speedup", 0.5, "", ""), ("tasks", 9, "", "")]
    front = (tmp_path / "front.html").read_text()
    assert "RL 1.2 against base 0.5." in front and "Performance-Aligned LLMs for Generating Fast Code" in front
    assert "Its 1 claim: 1 partly." in front and front.count("<tr>") == 4
    assert "RL expected speedup" in (tmp_path / "h.html").read_text()
    # The figure the headline names, inline as a data URI with its caption as alt text; the other stays in the
    # category, and the category's own page holds the numbers without figures.
    assert front.count("<img ") == 1 and 'src="data:image/png;base64,' in front
    assert 'alt="expected_speedup &lt;caption&gt; ≥ 1"' in front and "training_curves" not in front
    assert "<img " not in (tmp_path / "h.html").read_text()
    # under it, the report's link to the figure's full caption (a result's key is its path as the rule names it)
    assert 'href="javascript:app.showResultInfo(&quot;' + str(tmp_path / "results/rlpf/figures/expected_speedup.png") in front
    # Another run's numbers, another finding: nothing is typed into the page.
    summary = json.loads(json.dumps(SUMMARY))
    summary["task_sets"]["serial"]["rl"]["expected_speedup"] = 1.7
    _run(tmp_path, HEADLINES, summary)
    assert "RL 1.7 against base 0.5." in (tmp_path / "front.html").read_text()


def test_a_config_that_left_a_number_out_shows_it_as_not_measured(tmp_path, monkeypatch):
    # A run of the RL part alone (the base task sets left out by its config): the headline is still written.
    monkeypatch.chdir(tmp_path)
    rows = _run(tmp_path, HEADLINES, {"task_sets": {"serial": {"rl": {"expected_speedup": 1.2}}}})
    assert [(row["this_run"], row["verdict"]) for row in rows] == [
        (1.2, build.PARTLY), (None, headline.NOT_MEASURED), (None, headline.NOT_MEASURED)]
    assert "RL 1.2 against base none." in (tmp_path / "front.html").read_text()
    # Nor does the claim's own number stop it.
    rows = _run(tmp_path, HEADLINES, {"task_sets": {"serial": {"base": {"expected_speedup": 0.5, "tasks": 5}}}})
    assert [(row["this_run"], row["verdict"]) for row in rows][0] == (None, headline.NOT_MEASURED)
    assert "no key" in rows[0]["read_from"]
    # The claims table itself still stops on a key its summary lacks (a typo in the claims file).
    with pytest.raises(build.MissingKey, match="has no key"):
        build.build_rows(build.load_claims("claims.yaml"), {"results/rlpf/summary.json": {}})


@pytest.mark.parametrize("change, message", [
    (lambda h: h["studies"]["rlpf"].update(finding="RL {nothing}."), r"finding names \['nothing'\]"),
    # a claim's number is named by its part: the bare id would not say which of its numbers
    (lambda h: h["studies"]["rlpf"].update(finding="RL {rl_speedup}."), r"finding names \['rl_speedup'\]"),
    (lambda h: h["studies"]["rlpf"]["numbers"][0].update(label="x"), "takes `claim` and `show` only"),
    (lambda h: h["studies"]["rlpf"]["numbers"][0].update(show="projection"), "'projection' is not one of"),
    (lambda h: h["studies"]["rlpf"].update(figures=["a", "b", "c"]), "figures: name the figures .* at most 2"),
    (lambda h: h["studies"]["rlpf"]["numbers"][0].update(claim="no_such_claim"), "no claim 'no_such_claim'"),
    (lambda h: h["studies"]["rlpf"]["numbers"].pop(), "2 numbers; a headline has 3-6"),
    (lambda h: h["studies"].pop("rlpf"), "studies.rlpf: expected `finding`"),
])  # fmt: skip
def test_bad_headlines_name_study_and_field(tmp_path, monkeypatch, change, message):
    monkeypatch.chdir(tmp_path)
    headlines = json.loads(json.dumps(HEADLINES))
    change(headlines)
    with pytest.raises(ClaimsError, match=message):
        _run(tmp_path, headlines)


def test_the_project_headlines_cover_every_study_with_three_to_six_numbers():
    claims = build.load_claims(REPO / "data/claims.yaml")
    studies = yaml.safe_load((REPO / "data/papers.yaml").read_text())["studies"]
    for study in studies:
        loaded = headline.load_headlines(REPO / "data/headlines.yaml", study, claims, f"results/{study}/summary.json")
        assert 3 <= len(loaded.numbers) <= 6, study
        assert 1 <= len(loaded.figures) <= 2, f"{study}: name the figures that carry its finding"
        # a figure's name is its file's (results/<study>/figures/<name>.png), which its caption file ends with
        assert all(list(REPO.glob(f"rules/captions/*{name}.rst")) for name in loaded.figures), (study, loaded.figures)
        # every claim of the study is among its headline numbers: the front page shows what the tally counts
        assert {c.id for c in claims if c.study == study} <= {n.claim.id for n in loaded.numbers if n.claim}, study
