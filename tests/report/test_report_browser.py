"""The HTML report, opened in headless Chromium: every study's section, figures and tables are there, and the
page logs no script error.

The report of a whole tiny run takes about 25 minutes to make, so by default the workflow runs here for real
on two cheap studies only (the corpus on local sources, and monitoring: under a minute together), and
`snakemake --report` reports those two targets. Every registered study must still be on the front page (from
the workflow's own list: the dry run of `all`), with a link to its category when it is in the report and the
command that adds it when not. REPORT_TEST_ALL=1 runs the whole tiny workflow instead and checks every
study's category the same way.

What a person at a normal window size can reach: at 1440x900 and 1920x1080 the front page's title must be in
view on load and not under the side bar, and every study's section must come into view by scrolling (a page
centred in a box smaller than itself has parts that no scrolling reaches). Screenshots of both sizes are kept
beside the report (`screenshot_<width>x<height>.png` in the test's temporary folder) for a person to look at.

What a category must hold comes from the run, not from the report: every figure the study's rules drew
(results/<study>/figures/*.png) and its tables (results/<study>/tables/headline_numbers.csv and .html, plus
PCGBench's metrics and reference-speedup tables), so a report item that goes missing fails the test.
"""

import os
import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import copy_workflow, run_snakemake
from tests.corpus.test_build import DIFFERENT, KERNEL, REAL_SNIPPETS
from tests.report.chromium import HeadlessChromium
from workflow_scripts.claims.headline import front_page_figures

pytestmark = pytest.mark.integration

RUN_ALL = os.environ.get("REPORT_TEST_ALL") == "1"
WINDOWS = ((1440, 900), (1920, 1080))  # a laptop and a desktop monitor, in CSS pixels
CHEAP_TARGETS = ("corpus", "monitoring")  # two categories: one alone would show as "Results", unnamed
HEADLINE_TABLES = ("tables/headline_numbers.csv", "tables/headline_numbers.html", "tables/summary_flat.csv")
EXTRA_TABLES = {"pcgbench": ("tables/metrics.csv", "tables/metrics.html", "reference_speedups.csv",
                             "tables/reference_speedups.html")}  # fmt: skip


def _local_corpus(root: Path) -> dict:
    """A config override: the corpus from two local folders (the default downloads Debian packages)."""
    for name, files in {"alpha": {"blas.c": KERNEL, "mpi.c": DIFFERENT}, "beta": {"omp.c": REAL_SNIPPETS[0][0] * 3}}.items():
        for relpath, text in files.items():
            (root / "sources" / name / relpath).parent.mkdir(parents=True, exist_ok=True)
            (root / "sources" / name / relpath).write_text(text)
    return {"corpus": {"cache_dir": str(root / "cache"), "min_sources": 2, "validation_sources": ["beta"],
                       "sources": [{"name": "alpha", "kind": "local", "path": str(root / "sources" / "alpha")},
                                   {"name": "beta", "kind": "local", "path": str(root / "sources" / "beta")}]}}  # fmt: skip


@pytest.fixture(scope="module")
def report_run(tmp_path_factory):
    """(workflow copy, report.html, every registered study, the studies in the report) after a real run."""
    root = tmp_path_factory.mktemp("report")
    work = copy_workflow(root / "repo")
    config_args = ["--configfile", "config/config.yaml"]
    if not RUN_ALL:
        (work / "local_corpus.yaml").write_text(yaml.safe_dump(_local_corpus(root)))
        config_args.append("local_corpus.yaml")
    targets = ["all"] if RUN_ALL else list(CHEAP_TARGETS)
    run_snakemake(work, *targets, *config_args, check=True, timeout=7200 if RUN_ALL else 600)
    run_snakemake(work, *targets, "--report", "report.html", *config_args, check=True, timeout=600)
    # Every study the workflow registers makes a headline table for `all`: the dry run names them all.
    dry_run = run_snakemake(work, "all", "--forceall", "--dry-run", *config_args, check=True, timeout=300)
    registered = sorted(set(re.findall(r"results/(\S+?)/tables/headline_numbers\.html", dry_run.stdout)))
    reported = registered if RUN_ALL else sorted(CHEAP_TARGETS)
    return work, work / "report.html", registered, reported


def test_the_workflow_registers_every_study(report_run):
    _, _, registered, _ = report_run
    assert len(registered) >= 12 and set(CHEAP_TARGETS) <= set(registered), registered
    assert {"pcgbench", "jorge", "disttrain/tensor3d", "disttrain/axonn"} <= set(registered), registered


def test_report_in_chromium(report_run):
    work, report, registered, reported = report_run
    with HeadlessChromium() as browser:
        browser.open(report)

        # The front page: the workflow description names every study, and links the ones in this report.
        front = browser.evaluate("document.body.innerText")
        assert "Performance of parallel code and parallel deep learning, reproduced" in front
        links = browser.evaluate("[...document.querySelectorAll('a')].map(a => a.getAttribute('href') || '')")
        for study in registered:
            assert f"results/{study}/" in front, f"the front page does not describe {study}"
            linked = any(f"app.showCategory('{study}')" in href for href in links)
            assert linked == (study in reported), f"{study}: linked={linked}, in report={study in reported}"
        assert "Docutils System Messages" not in front and "System Message" not in front
        # Per study in the report, its finding, its paper and its headline numbers (data/headlines.yaml) on the
        # front page; the claims tally is there only when the Claims page is.
        shown = browser.evaluate("""[...document.querySelectorAll('div.prose p.finding')].map(p => ({
            finding: p.innerText, rows: p.nextElementSibling.nextElementSibling.querySelectorAll('tbody tr').length,
            paper: p.nextElementSibling.innerText}))""")  # fmt: skip
        assert len(shown) == len(reported), shown
        for entry in shown:
            assert 3 <= entry["rows"] <= 6 and entry["paper"].startswith(("Paper: ", "Reproduces no paper")), entry
        assert ("claims:" in front and "Claims page" in front) == ("Claims" in reported)
        # The figures that carry each finding (data/headlines.yaml), inline: as many as the run drew of them.
        shown_figures = browser.evaluate("[...document.querySelectorAll('div.prose figure.front img')].length")
        assert shown_figures == len(_front_figures(work, reported)) >= len(reported), shown_figures

        assert sorted(browser.evaluate("Object.keys(categories)")) == reported
        for study in reported:
            expected = sorted(
                [str(p.relative_to(work)) for p in (work / "results" / study / "figures").glob("*.png")]
                + [f"results/{study}/{name}" for name in HEADLINE_TABLES + EXTRA_TABLES.get(study, ())]
            )
            assert any(name.endswith(".png") for name in expected), f"{study} drew no figure"
            _check_category(browser, study, expected)

        assert browser.errors == [], "script errors in the report:\n" + "\n".join(browser.errors)


# Where an element is on screen, and whether a person sees it there: on-screen, and the topmost thing at its
# top-left corner and its middle (a side bar or another box over it fails). Scrolls it into view first when asked.
_SEEN_JS = """(async ([selector, index, scroll]) => {
    const element = document.querySelectorAll(selector)[index];
    if (!element) return null;
    if (scroll) {
        element.scrollIntoView({block: "start", inline: "start"});
        await new Promise(done => setTimeout(done, 50));
    }
    const box = element.getBoundingClientRect();
    const points = [[box.left + 2, box.top + 2], [box.left + Math.min(box.width, 200) / 2, box.top + box.height / 2]];
    const onTop = points.every(([x, y]) => {
        const hit = document.elementFromPoint(x, y);
        return hit !== null && (hit === element || element.contains(hit));
    });
    return {text: element.innerText.trim().slice(0, 80), top: box.top, left: box.left, bottom: box.bottom,
            right: box.right, onTop, width: window.innerWidth, height: window.innerHeight};
})"""


def check_front_page_reachable(browser: HeadlessChromium, report: Path, width: int, height: int,
                               screenshot: Path | None = None) -> list[str]:  # fmt: skip
    """Open `report` in a `width` x `height` window; the problems a person would have reaching the front page's
    title (on load) and each of its sections (by scrolling), as sentences (none: all reachable)."""
    browser.set_window(width, height)
    browser.open(report)
    browser.evaluate("new Promise(done => setTimeout(done, 300))")  # React renders, the rule graph is laid out
    if screenshot is not None:
        browser.screenshot(screenshot)

    def seen(selector: str, index: int, scroll: bool) -> dict | None:
        return browser.evaluate(f"{_SEEN_JS}({[selector, index, scroll]!r})".replace("True", "true").replace("False", "false"))

    problems = []  # positions are fractional CSS pixels: scrolled into view, a heading may sit at -0.05
    title = seen("div.prose h1.title", 0, False)
    if title is None:
        return [f"{width}x{height}: the front page has no title"]
    if not (-1 <= title["top"] and title["bottom"] <= height and title["onTop"]):
        problems.append(f"{width}x{height}: the title is not in view on load: {title}")
    # docutils makes the first heading the document's title and the next level of sections h1 as well
    sections = browser.evaluate("document.querySelectorAll('div.prose h1:not(.title)').length")
    if sections == 0:
        problems.append(f"{width}x{height}: the front page has no sections")
    for index in range(sections):
        section = seen("div.prose h1:not(.title)", index, True)
        if not (-1 <= section["top"] < height and 0 <= section["left"] < width and section["onTop"]):
            problems.append(f"{width}x{height}: section {section['text']!r} cannot be scrolled into view: {section}")
    return problems


def test_front_page_is_reachable_at_normal_window_sizes(report_run):
    _, report, _, _ = report_run
    with HeadlessChromium() as browser:
        problems = [problem for width, height in WINDOWS for problem in check_front_page_reachable(
            browser, report, width, height, report.parent / f"screenshot_{width}x{height}.png")]  # fmt: skip
    assert problems == [], "\n".join(problems)


def _front_figures(work: Path, studies: list[str]) -> list[str]:
    """The figures data/headlines.yaml puts on the front page for `studies`, of those the run drew."""
    return [figure for study in studies for figure in front_page_figures(
        work / "data/headlines.yaml", study, [str(p) for p in (work / "results" / study / "figures").glob("*.png")])]


# Every element that reaches past the window's right edge and is not inside a box that scrolls it.
_CLIPPED_JS = """(() => {
    const scrolls = e => { for (let a = e.parentElement; a; a = a.parentElement) {
        const x = getComputedStyle(a).overflowX; if (x === "auto" || x === "scroll") return a.clientWidth < a.scrollWidth
            && a.getBoundingClientRect().right <= window.innerWidth + 1; } return false; };
    return [...document.querySelectorAll("body *")].filter(e => { const box = e.getBoundingClientRect();
        return box.width > 0 && box.right > window.innerWidth + 1 && !scrolls(e); })
        .map(e => `${e.tagName}.${e.className} right=${Math.round(e.getBoundingClientRect().right)}`).slice(0, 5);
})()"""


def test_front_page_figures_are_readable_and_no_view_is_clipped(report_run):
    """At 1440x900 and 1920x1080: each front-page figure at the text's width or its own, whichever is less; and
    after a study is opened from the menu (the menu widens), nothing reaches past the window's right edge."""
    _, report, _, reported = report_run
    problems = []
    with HeadlessChromium() as browser:
        for width, height in WINDOWS:
            browser.set_window(width, height)
            browser.open(report)
            browser.evaluate("new Promise(done => setTimeout(done, 300))")
            for figure in browser.evaluate("""[...document.querySelectorAll('div.prose figure.front img')].map(i => ({
                    natural: i.naturalWidth, shown: i.getBoundingClientRect().width,
                    text: i.closest('div.prose').clientWidth, alt: i.alt.slice(0, 60)}))"""):  # fmt: skip
                if figure["shown"] < 0.95 * min(figure["natural"], figure["text"]) or figure["natural"] == 0:
                    problems.append(f"{width}x{height}: a front-page figure is shown too small: {figure}")
            problems += [f"{width}x{height}, front page: clipped {e}" for e in browser.evaluate(_CLIPPED_JS)]
            for study in reported:
                browser.evaluate(f"""(async () => {{
                    app.setView({{navbarMode: "menu"}});
                    await new Promise(done => setTimeout(done, 50));
                    [...document.querySelectorAll("li a")].find(a => a.innerText.trim() === {study!r}).click();
                    await new Promise(done => setTimeout(done, 200));
                }})()""")  # fmt: skip
                browser.screenshot(report.parent / f"screenshot_{width}x{height}_{study.replace('/', '_')}.png")
                problems += [f"{width}x{height}, {study} opened: clipped {e}" for e in browser.evaluate(_CLIPPED_JS)]
    assert problems == [], "\n".join(problems)


def _check_category(browser: HeadlessChromium, study: str, expected: list[str]) -> None:
    """Open the study from the menu as a reader would; its list, captions, images and tables must be whole.
    (The menu's list of results is Snakemake's `table.table-auto`; the front page beside it has tables too.)"""
    listed = browser.evaluate(f"""(async () => {{
        app.setView({{navbarMode: "menu"}});
        await new Promise(done => setTimeout(done, 50));
        const item = [...document.querySelectorAll("li a")].find(a => a.innerText.trim() === {study!r});
        if (!item) return null;
        item.click();
        await new Promise(done => setTimeout(done, 100));
        return [...document.querySelectorAll("table.table-auto tbody tr td:first-child")].map(cell => cell.innerText.trim());
    }})()""")  # fmt: skip
    assert listed is not None, f"no menu entry for {study}"
    assert sorted(listed) == expected, f"{study}: the report lists {sorted(listed)}, the run made {expected}"

    for path in expected:
        entry = browser.evaluate(f"""(async () => {{
            const entry = results[{path!r}];
            const [header, payload] = entry.data_uri.split(",", 2);
            const text = header.endsWith(";base64") ? new TextDecoder().decode(
                Uint8Array.from(atob(payload), c => c.charCodeAt(0))) : "";
            let width = 0, rows = 0, lines = 0;
            if (entry.mime_type === "image/png") {{
                const image = new Image();
                image.src = entry.data_uri;
                await image.decode();
                width = image.naturalWidth;
            }} else if (entry.mime_type === "text/html") {{
                rows = new DOMParser().parseFromString(text, "text/html").querySelectorAll("tbody tr").length;
            }} else {{
                lines = text.split("\\n").filter(line => line.length > 0).length;
            }}
            return {{mime: entry.mime_type, caption: entry.caption.replace(/<[^>]+>/g, "").trim(), width, rows,
                     lines}};
        }})()""")  # fmt: skip
        assert entry["caption"], f"{path} has no caption"
        if path.endswith(".png"):
            assert entry["mime"] == "image/png" and entry["width"] > 0, (path, entry)
        elif path.endswith(".html"):
            assert entry["mime"] == "text/html" and entry["rows"] > 0, (path, entry)
        else:
            assert entry["mime"] == "text/csv" and entry["lines"] > 1, (path, entry)

    # The viewer: a figure opens as an image, a table as a page in a frame.
    figure = next(path for path in expected if path.endswith(".png"))
    table = f"results/{study}/tables/headline_numbers.html"
    shown = browser.evaluate(f"""(async () => {{
        const view = async path => {{
            const row = [...document.querySelectorAll("table.table-auto tbody tr")].find(
                r => r.querySelector("td").innerText.trim() === path);
            row.querySelector("a[iconname=eye]").click();
            await new Promise(done => setTimeout(done, 200));
        }};
        await view({figure!r});
        const image = [...document.querySelectorAll("img")].find(
            i => i.getAttribute("src") === results[{figure!r}].data_uri);
        if (image) await image.decode();
        const figureWidth = image ? image.naturalWidth : 0;
        await view({table!r});
        const frame = document.querySelector("iframe");
        return {{figureWidth, frame: frame ? frame.getAttribute("src") === results[{table!r}].data_uri : false}};
    }})()""")  # fmt: skip
    assert shown["figureWidth"] > 0, f"{study}: {figure} did not display"
    assert shown["frame"], f"{study}: {table} did not display"


def test_chromium_reports_a_script_error(tmp_path):
    """The error capture itself: a page that throws and logs an error is caught both ways."""
    page = tmp_path / "broken.html"
    page.write_text("<html><body><script>console.error('logged'); null.property;</script></body></html>")
    with HeadlessChromium() as browser:
        browser.open(page)
        browser.evaluate("new Promise(done => setTimeout(done, 50))")
    assert any("console.error: logged" in error for error in browser.errors), browser.errors
    assert any("uncaught exception: TypeError" in error for error in browser.errors), browser.errors
