"""The README and the pages under docs/: every relative link points to a file of the checkout (and, with a
#fragment, to a heading of that file, as GitHub names headings), the README stays a short front page whose
commands are `make run` and `make test` (CI runs the README's test command), and every docs page is linked
from it."""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

FENCED = re.compile(r"^```.*?^```", flags=re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", flags=re.M)


def prose(text: str) -> str:
    """The text without code blocks: brackets and parentheses in code are not links."""
    return FENCED.sub("", text)


def github_anchor(heading: str) -> str:
    """GitHub's id for a heading: lower case, punctuation (backticks, colons, dots...) dropped, spaces to '-'."""
    text = heading.strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(prose(page.read_text())):
        anchor = github_anchor(heading)
        # GitHub numbers repeated headings: name, name-1, name-2, ...
        count = seen.get(anchor, 0)
        found.add(anchor if count == 0 else f"{anchor}-{count}")
        seen[anchor] = count + 1
    return found


def broken_links(page: Path, root: Path) -> list[str]:
    """Each relative link of `page` that names no file under `root`, or no heading of the file it names."""
    broken = []
    for target in LINK.findall(INLINE_CODE.sub("", prose(page.read_text()))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ... are not files of the checkout
            continue
        path_part, _, fragment = target.partition("#")
        linked = (page.parent / path_part).resolve() if path_part else page
        if not linked.is_relative_to(root.resolve()) or not linked.exists():
            broken.append(f"{target}: no file {path_part}")
        elif fragment and (linked.suffix != ".md" or fragment not in anchors(linked)):
            broken.append(f"{target}: no heading #{fragment} in {linked.name}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page):
    assert broken_links(page, REPO) == []


def test_the_checker_finds_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "b.md").write_text("# B\n\n## Where results land\n")
    page = tmp_path / "docs" / "a.md"
    page.write_text("[ok](b.md#where-results-land) [gone](c.md) [bad](b.md#nowhere) [out](../../x.md)\n"
                    "`[code](c.md)`\n```\n[block](c.md)\n```\n[web](https://example.org/c.md)\n")  # fmt: skip
    assert broken_links(page, tmp_path) == ["c.md: no file c.md", "b.md#nowhere: no heading #nowhere in b.md",
                                            "../../x.md: no file ../../x.md"]  # fmt: skip


@pytest.mark.parametrize(("heading", "anchor"), [
    ("Between tiny and paper: `config/small.yaml`", "between-tiny-and-paper-configsmallyaml"),
    ("The sandbox as a normal user", "the-sandbox-as-a-normal-user"),
    ("Monitoring from a site's run-time table", "monitoring-from-a-sites-run-time-table"),
])  # fmt: skip
def test_github_anchor(heading, anchor):
    assert github_anchor(heading) == anchor


def test_the_readme_is_a_short_front_page_with_the_two_commands():
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) < 150
    first_block = FENCED.search(text).group(0)
    commands = [line.split("#")[0].strip() for line in first_block.splitlines()[1:-1]]
    assert commands == ["make run", "make test"]


def test_every_docs_page_is_linked_from_the_readme():
    linked = {target.partition("#")[0] for target in LINK.findall(prose((REPO / "README.md").read_text()))}
    assert {f"docs/{page.name}" for page in PAGES[1:]} <= linked
