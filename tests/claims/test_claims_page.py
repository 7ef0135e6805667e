"""The claims page of the project's claims file, on fixture summaries (tests/claims/test_headline_labels.py), in
headless Chromium: it is never wider than the frame the report shows it in, each paper's source is a hover and a
note under the table rather than the cell's text, and a reason is words, not operators."""

import json
import re
from pathlib import Path

import pytest

from tests.claims.test_headline_labels import REPO, STUDIES, _fixture_summaries, _specs_and_kinds
from workflow_scripts.claims import build

pytestmark = pytest.mark.integration

FRAMES = ((960, 820), (1440, 1000))  # the report's frame in a 1440x900 and a 1920x1080 window, less the menu


def _claims_page(tmp_path: Path) -> tuple[Path, list[build.Row]]:
    claims = build.load_claims(REPO / "data/claims.yaml")
    summaries = {}
    for study in STUDIES:
        summaries |= _fixture_summaries(*_specs_and_kinds(claims, study, f"results/{study}/summary.json"))
    paths = []
    for name, data in summaries.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(json.dumps(data))
        paths.append(str(tmp_path / name))
    rows = build.main(claims_file=str(REPO / "data/claims.yaml"), papers_file=str(REPO / "data/papers.yaml"),
                      summaries=paths, output_csv=str(tmp_path / "claims.csv"), output_html=str(tmp_path / "claims.html"),
                      output_tally=str(tmp_path / "tally.html"), history=str(tmp_path / "history.csv"),
                      results=str(tmp_path / "results"))  # fmt: skip
    return tmp_path / "claims.html", rows


def test_the_claims_page_reads_in_a_frame(tmp_path):
    from tests.report.chromium import HeadlessChromium

    page, rows = _claims_page(tmp_path)
    assert not [row.reason for row in rows if re.search(r"\(\S+ (==|<=?|>=?) \S+\)", row.reason)]
    with HeadlessChromium() as browser:
        for width, height in FRAMES:
            browser.set_window(width, height)
            browser.open(page)
            seen = browser.evaluate("""({page: document.documentElement.scrollWidth, window: window.innerWidth,
                notes: document.querySelectorAll("ol.sources li").length,
                history: [...document.querySelectorAll("th")].some(th => th.innerText === "history"),
                sourceInCell: [...document.querySelectorAll("td")].some(td => td.innerText.includes("(checked:"))})""")
            browser.screenshot(tmp_path / f"claims_{width}.png")
            assert seen["page"] <= seen["window"], (width, seen)
            assert seen["notes"] == len(rows) and not seen["sourceInCell"] and not seen["history"], seen
