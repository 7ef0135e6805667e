"""The papers the studies reproduce (`data/papers.yaml`): who wrote each, where it appeared, its link, and which
study reproduces which. The claims table and the report's front page cite them from here, so a citation is
written once.

    python -m workflow_scripts.claims.papers data/papers.yaml    # prints every study with its citation
"""

import argparse
import dataclasses
import html
from pathlib import Path

import yaml


class PapersError(ValueError):
    """A papers file that does not say what it must."""


@dataclasses.dataclass(kw_only=True, frozen=True)
class Paper:
    id: str
    title: str
    authors: tuple[str, ...]
    venue: str
    year: int
    pages: str | None
    url: str  # the paper's page (arXiv abstract or DOI)
    arxiv: str | None  # the arXiv page where `url` is a DOI
    checked: str  # where this entry was checked

    def short(self) -> str:
        """'Nichols et al. 2024' (a reference a reader recognises beside a number)."""
        surname = self.authors[0].split()[-1]
        if len(self.authors) == 2:
            return f"{surname} and {self.authors[1].split()[-1]} {self.year}"
        return f"{surname} et al. {self.year}" if len(self.authors) > 2 else f"{surname} {self.year}"

    def text(self) -> str:
        """The whole citation as plain text: authors, "title", venue, link."""
        return f'{", ".join(self.authors)}, "{self.title}", {self.where()}, {self.url}'

    def where(self) -> str:
        """'HPDC (...) 2024, pp. 1-12' or 'arXiv preprint 2023'."""
        return f"{self.venue} {self.year}" + (f", pp. {self.pages}" if self.pages else "")

    def html(self) -> str:
        """The whole citation as HTML, the title linked to the paper."""
        extra = f' (<a href="{html.escape(self.arxiv)}">arXiv</a>)' if self.arxiv else ""
        return (f'{html.escape(", ".join(self.authors))}, <a href="{html.escape(self.url)}">'
                f"{html.escape(self.title)}</a>, {html.escape(self.where())}{extra}")  # fmt: skip


_FIELDS = {"title", "authors", "venue", "year", "pages", "url", "arxiv", "checked"}
_REQUIRED = _FIELDS - {"arxiv", "pages"}


def load_papers(path: str | Path) -> dict[str, Paper | None]:
    """study -> the paper it reproduces (None: a study of this project's own that reproduces no paper)."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise PapersError(f"{path}: not valid YAML: {err}") from err
    if not isinstance(data, dict) or not isinstance(data.get("papers"), dict) or not isinstance(data.get("studies"), dict):
        raise PapersError(f"{path}: expected top-level `papers:` and `studies:` mappings")
    papers = {}
    for paper_id, entry in data["papers"].items():
        if not isinstance(entry, dict):
            raise PapersError(f"{path}: papers.{paper_id}: expected a mapping, got {entry!r}")
        if unknown := set(entry) - _FIELDS:
            raise PapersError(f"{path}: papers.{paper_id}: unknown field(s) {sorted(unknown)}; allowed: {sorted(_FIELDS)}")
        if missing := _REQUIRED - set(entry):
            raise PapersError(f"{path}: papers.{paper_id}: missing field(s) {sorted(missing)}")
        if not isinstance(entry["authors"], list) or not entry["authors"]:
            raise PapersError(f"{path}: papers.{paper_id}.authors: expected a list of names")
        papers[paper_id] = Paper(id=paper_id, title=str(entry["title"]), authors=tuple(map(str, entry["authors"])),
                                 venue=str(entry["venue"]), year=int(entry["year"]), url=str(entry["url"]),
                                 pages=str(entry["pages"]) if entry.get("pages") else None,
                                 arxiv=entry.get("arxiv"), checked=" ".join(str(entry["checked"]).split()))  # fmt: skip
    studies = {}
    for study, paper_id in data["studies"].items():
        if paper_id is not None and paper_id not in papers:
            raise PapersError(f"{path}: studies.{study}: no paper {paper_id!r} under `papers:` ({sorted(papers)})")
        studies[str(study)] = papers[paper_id] if paper_id is not None else None
    return studies


def paper_of(studies: dict[str, Paper | None], study: str, path: str | Path = "data/papers.yaml") -> Paper | None:
    """The paper `study` reproduces; a study the papers file does not list is an error that names the fix."""
    if study not in studies:
        raise PapersError(f"{path} does not list study {study!r} under `studies:`; add it (null for a study of "
                          "this project's own that reproduces no paper)")  # fmt: skip
    return studies[study]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("papers", nargs="?", default="data/papers.yaml")
    for name, cited in load_papers(parser.parse_args().papers).items():
        print(f"{name}: {cited.text() if cited else '(no paper)'}")
