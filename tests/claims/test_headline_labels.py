"""Every number on a study's headline table is the number its label names.

For every study of the project, a fixture summary is built from the keys that data/claims.yaml and
data/headlines.yaml read (every key its own value, so two numbers never agree by chance); the study's front-page
fragment is rendered by workflow_scripts/claims/headline.py; and each row's shown number is held to the key that
its label is written beside in those files: a claim's `measured_label` to its `measured`, its `projection_label`
to its `projection`, a headline value's `label` to its `key`. A label put beside another number (the projection
under the measured label, as the report once showed) fails here.
"""

import html.parser
import itertools
import json
from pathlib import Path

import pytest
import yaml

from workflow_scripts.claims import build, headline

REPO = Path(__file__).resolve().parents[2]
STUDIES = list(yaml.safe_load((REPO / "data/papers.yaml").read_text())["studies"])


def _specs_and_kinds(claims: list[build.Claim], study: str, summary: str) -> tuple[list[build.ValueSpec], dict]:
    """Every value spec a study's claims and headline read, and the kind of leaf each key needs: bool where a
    check asks `true` or a reduce asks all/any, a string where a check asks `startswith`, else a number."""
    specs, kinds = [], {}

    def add(spec, kind="number"):
        while isinstance(spec, build.ValueSpec):
            specs.append(spec)
            if spec.reduce in ("all", "any"):
                kind = "bool"
            if spec.reduce and "*" not in spec.key:  # the fold is over the leaf itself: a list
                kind = f"{kind} list"
            kinds.setdefault((spec.summary, spec.key), kind)
            spec = spec.divide_by

    for claim in claims:
        if claim.study != study:
            continue
        for spec in (claim.measured, claim.projection, claim.paper_value, *claim.extra.values()):
            add(spec)
        for check in (*claim.checks, *claim.testable_if):
            add(check.value, {"true": "bool", "startswith": "text"}.get(check.op, "number"))
            add(check.than)
    for number in headline.load_headlines(REPO / "data/headlines.yaml", study, claims, summary).numbers:
        add(number.value)
    return specs, kinds


def _fixture_summaries(specs: list[build.ValueSpec], kinds: dict) -> dict[str, dict]:
    """Summaries holding every key of `specs`; a "*" becomes the entries already there (two new ones where there
    are none, one more where they are list indices), each leaf a value of its own. Values fall as they are made,
    so an entry a "*" adds is below the named ones (a min over them is not the first entry by chance)."""
    counter = itertools.count(1)

    def leaf(kind: str):
        n = next(counter)
        if kind.endswith(" list"):
            return [leaf(kind.removesuffix(" list")) for _ in range(2 + n % 3)]
        return {"bool": n % 2 == 0, "text": f"better {n}"}.get(kind, 1000 / (n + 7))

    trees: dict[str, dict] = {}
    # keys without "*" first, so that a "*" spans the named entries they made (tasks/lm and tasks/*)
    for spec in sorted(specs, key=lambda s: s.key.count("*")):
        kind = kinds[(spec.summary, spec.key)]
        nodes = [trees.setdefault(spec.summary, {})]
        parts = spec.key.split("/")
        for depth, part in enumerate(parts):
            last = depth == len(parts) - 1
            children = []
            for node in nodes:
                if part == "*":
                    if not node:
                        node.update({"0": {}, "1": {}})
                    elif all(name.isdigit() for name in node) and len(node) == 1:
                        node[str(len(node))] = {} if not last else None
                    names = list(node)
                else:
                    node.setdefault(part, {} if not last else None)
                    names = [part]
                for name in names:
                    if last:
                        if node[name] in (None, {}):
                            node[name] = leaf(kind)
                    else:
                        if node[name] is None:
                            node[name] = {}
                        children.append(node[name])
            nodes = children

    def as_lists(node):  # entries named 0, 1, ... are a list, as in the studies' summaries
        if isinstance(node, dict):
            node = {name: as_lists(child) for name, child in node.items()}
            if node and all(name.isdigit() for name in node):
                return [node[str(i)] for i in range(len(node))]
        return node

    return {path: as_lists(tree) for path, tree in trees.items()}


class _Rows(html.parser.HTMLParser):
    """(label, shown number) of each row of the fragment's headline table."""

    def __init__(self):
        super().__init__()
        self.rows, self._cells, self._in_cell = [], None, False

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._cells = []
        elif tag == "td" and self._cells is not None:
            self._cells.append("")
            self._in_cell = True

    def handle_endtag(self, tag):
        if tag == "td":
            self._in_cell = False
        elif tag == "tr" and self._cells:
            self.rows.append((self._cells[0], self._cells[1]))
            self._cells = None

    def handle_data(self, data):
        if self._in_cell:
            self._cells[-1] += data


def _labelled_keys(claims: list[build.Claim], study: str) -> dict[str, list[build.ValueSpec]]:
    """label -> the value specs written beside it in data/claims.yaml and data/headlines.yaml, read from the files
    themselves (not through the headline code under test)."""
    raw_claims = {entry["id"]: entry for entry in yaml.safe_load((REPO / "data/claims.yaml").read_text())["claims"]}
    by_id = {claim.id: claim for claim in claims}
    labelled: dict[str, list[build.ValueSpec]] = {}
    entry = yaml.safe_load((REPO / "data/headlines.yaml").read_text())["studies"][study]
    for number in entry["numbers"]:
        if "claim" in number:
            raw, claim = raw_claims[number["claim"]], by_id[number["claim"]]
            for part in ("measured", "projection"):
                if raw.get(part):
                    labelled.setdefault(raw[f"{part}_label"], []).append(getattr(claim, part))
        else:
            spec = build.value_spec({k: number[k] for k in ("key", "reduce") if k in number},
                                    f"results/{study}/summary.json", study)  # fmt: skip
            labelled.setdefault(number["label"], []).append(spec)
    return labelled


def render_and_check(tmp_path: Path, study: str) -> list[str]:
    """Render `study`'s front-page fragment from fixture summaries; the rows whose number is not its label's, as
    sentences (none: every row is right)."""
    claims = build.load_claims(REPO / "data/claims.yaml")
    summary = f"results/{study}/summary.json"
    specs, kinds = _specs_and_kinds(claims, study, summary)
    summaries = _fixture_summaries(specs, kinds)
    assert set(summaries) == {summary}, f"{study}'s claims read other summaries: {sorted(summaries)}"
    (tmp_path / summary).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / summary).write_text(json.dumps(summaries[summary]))
    front = tmp_path / "front.html"
    headline.main(study=study, summary=str(tmp_path / summary), headlines_file=str(REPO / "data/headlines.yaml"),
                  claims_file=str(REPO / "data/claims.yaml"), papers_file=str(REPO / "data/papers.yaml"),
                  output_csv=str(tmp_path / "h.csv"), output_html=str(tmp_path / "h.html"), output_front=str(front),
                  results=str(tmp_path / "results"))  # fmt: skip
    parser = _Rows()
    parser.feed(front.read_text())
    labelled = _labelled_keys(claims, study)
    problems = []
    expected_numbers = {}
    for label, shown in parser.rows:
        if label not in labelled:
            problems.append(f"{study}: the row {label!r} has a label written beside no key of the data files")
            continue
        expected = {build.fmt(build.read_value(spec, summaries, study)) for spec in labelled[label]}
        if shown not in expected:
            problems.append(f"{study}: {label!r} shows {shown}, but its key ({labelled[label][0].describe()}) "
                            f"holds {sorted(expected)}")  # fmt: skip
        expected_numbers[label] = expected
    # The fixture can tell numbers apart: rows of different keys show different numbers (yes/no aside).
    for (a, va), (b, vb) in itertools.combinations(expected_numbers.items(), 2):
        if va & vb - {"yes", "no"} and {s.describe() for s in labelled[a]} != {s.describe() for s in labelled[b]}:
            problems.append(f"{study}: the fixture gives {a!r} and {b!r} the same number {sorted(va & vb)}")
    if len(parser.rows) != len(headline.load_headlines(REPO / "data/headlines.yaml", study, claims, summary).numbers):
        problems.append(f"{study}: the fragment shows {len(parser.rows)} rows")
    return problems


@pytest.mark.parametrize("study", STUDIES)
def test_every_shown_number_is_the_one_its_label_names(tmp_path, study):
    assert render_and_check(tmp_path, study) == []


def test_a_projection_label_says_projected_and_a_measured_label_does_not():
    """The words of a label match the number's kind: a reader tells the tiny run's number from the model's."""
    for claim in build.load_claims(REPO / "data/claims.yaml"):
        assert not claim.projection or claim.projection_label.startswith("projected "), claim.id
        assert "project" not in claim.measured_label, claim.id
