"""The report's tables: a summary flattened into rows, the CSV and HTML writer, the PCGBench tables."""

import csv
import json

import pytest

from workflow_scripts.common import tables
from workflow_scripts.pcgbench import tables as pcgbench_tables


@pytest.mark.parametrize(
    ("summary", "rows"),
    [
        ({"a": 1, "b": {"c": 2.5, "d": {"e": True}}}, [("a", 1), ("b.c", 2.5), ("b.d.e", True)]),
        ({"ks": [1, 2], "note": "x"}, [("ks", "1, 2"), ("note", "x")]),
        ({"runs": [{"backend": "hf", "n": 2}, {"backend": "openai"}]},
         [("runs[0].backend", "hf"), ("runs[0].n", 2), ("runs[1].backend", "openai")]),
        ({"nested": [[1, 2], [3]]}, [("nested[0]", "1, 2"), ("nested[1]", "3")]),
        ({"failed": {}, "none": [], "missing": None}, [("failed", ""), ("none", ""), ("missing", None)]),
    ],
)  # fmt: skip
def test_flatten_summary(summary, rows):
    assert tables.flatten_summary(summary) == rows


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [(None, None, ""), (True, 4, "true"), (0.123456789, None, "0.123456789"), (0.123456789, 4, "0.1235"),
     (12345678.0, 4, "1.235e+07"), (7, 4, "7"), ("a<b", 4, "a<b"), (float("nan"), 4, "nan")],
)  # fmt: skip
def test_format_value(value, digits, text):
    assert tables.format_value(value, digits) == text


def test_write_table_csv_keeps_precision_html_rounds_and_escapes(tmp_path):
    rows = [("speedup", 1.23456789), ("name", "<script>x</script>"), ("ok", False)]
    tables.write_table(rows, ["key", "value"], csv_path=tmp_path / "t.csv", html_path=tmp_path / "t.html",
                       title="a & b", note="n")  # fmt: skip
    with open(tmp_path / "t.csv", newline="") as handle:
        assert list(csv.reader(handle)) == [["key", "value"], ["speedup", "1.23456789"],
                                            ["name", "<script>x</script>"], ["ok", "false"]]  # fmt: skip
    page = (tmp_path / "t.html").read_text()
    assert '<td class="num">1.235</td>' in page and "<title>a &amp; b</title>" in page
    assert "&lt;script&gt;x&lt;/script&gt;" in page and "<script>" not in page
    assert page.count("<tr>") == 1 + len(rows)


def test_write_table_refuses_a_ragged_row(tmp_path):
    with pytest.raises(ValueError, match="2 cells for 3 columns"):
        tables.write_table([(1, 2)], ["a", "b", "c"], csv_path=None, html_path=tmp_path / "t.html", title="t")


def test_main_writes_both_tables_with_provenance(tmp_path):
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps({"pass@1": 0.5, "by_model": {"omp": {"speedup": 1.7}}}))
    rows = tables.main(summary=summary, csv_path=tmp_path / "t/h.csv", html_path=tmp_path / "t/h.html", study="s")
    assert rows == [("pass@1", 0.5), ("by_model.omp.speedup", 1.7)]
    assert (tmp_path / "t/h.csv").read_text().splitlines()[2] == "by_model.omp.speedup,1.7"
    assert "s: headline numbers" in (tmp_path / "t/h.html").read_text()
    assert (tmp_path / "t/h.csv.prov.json").exists() and (tmp_path / "t/h.html.prov.json").exists()


@pytest.mark.parametrize("content", ["[]", "{}", "3"])
def test_main_refuses_a_summary_that_is_not_an_object(tmp_path, content):
    (tmp_path / "summary.json").write_text(content)
    with pytest.raises(ValueError, match=r"summary\.json: a study summary must be a non-empty JSON object"):
        tables.main(summary=tmp_path / "summary.json", csv_path=tmp_path / "t.csv", html_path=tmp_path / "t.html",
                    study="s")  # fmt: skip
    assert not (tmp_path / "t.csv").exists()


def _metrics(model, by_execution_model):
    return {"by_model": {model: by_execution_model}, "ks": [1]}


def test_pcgbench_metrics_rows_order_columns_and_leave_missing_metrics_empty():
    columns, rows = pcgbench_tables.metrics_rows({
        "serial": _metrics("serial", {"serial": {"pass@1": 1.0, "build@1": 1.0, "speedup_1@1": 0.99, "samples": 12,
                                                 "prompts": 12, "expected_speedup": 0.99}}),
        "reference": _metrics("reference", {"omp": {"pass@1": 1.0, "build@1": 1.0, "speedup_2@1": 1.9,
                                                    "speedup_1@1": 1.0, "prompts": 12, "samples": 12},
                                            "mpi": {"pass@1": 0.5, "build@1": 1.0, "prompts": 12, "samples": 12}}),
    })  # fmt: skip
    assert columns == ["generator", "model", "execution_model", "pass@1", "build@1", "speedup_1@1", "speedup_2@1",
                       "expected_speedup", "prompts", "samples"]  # fmt: skip
    assert rows == [
        ["reference", "reference", "mpi", 0.5, 1.0, None, None, None, 12, 12],
        ["reference", "reference", "omp", 1.0, 1.0, 1.0, 1.9, None, 12, 12],
        ["serial", "serial", "serial", 1.0, 1.0, 0.99, None, 0.99, 12, 12],
    ]


def test_pcgbench_metrics_columns_order_k_as_numbers_and_wrap_in_a_scrolling_box(tmp_path):
    by_model = {"omp": {f"{metric}@{k}": 0.5 for metric in ("pass", "speedup_n", "efficiency_n") for k in (1, 5, 10)}}
    columns, rows = pcgbench_tables.metrics_rows({"hf": _metrics("hf", by_model)})
    assert columns[3:6] == ["pass@1", "pass@5", "pass@10"]  # not pass@1, pass@10, pass@5
    tables.write_table(rows, columns, csv_path=None, html_path=tmp_path / "m.html", title="m")
    page = (tmp_path / "m.html").read_text()
    # a long head breaks at its "_", and the table scrolls in its own box: never cut off at the window's edge
    assert "<th>speedup_<wbr>n@10</th>" in page and '<div class="scroll"><table>' in page


# The frame a report shows a table in: the window less the menu opened beside it (about 480 px).
FRAMES = ((960, 820), (1440, 1000))  # in a 1440x900 and a 1920x1080 window


@pytest.mark.integration
def test_the_metrics_page_is_never_cut_off(tmp_path):
    """Sixteen columns (the metrics of a run with k up to 10): whole in the frame of a 1920-pixel window, and in the
    narrower one the table scrolls in its own box while the page itself does not reach past the frame."""
    from tests.report.chromium import HeadlessChromium

    metrics = [f"{metric}@{k}" for metric in ("pass", "build", "speedup_n", "efficiency_n") for k in (1, 5, 10)]
    by_model = {model: {**{name: 0.123456 for name in metrics[:11]}, "prompts": 68, "samples": 1360}
                for model in ("serial", "omp", "mpi", "mpi+omp", "kokkos", "cuda", "hip")}  # fmt: skip
    columns, rows = pcgbench_tables.metrics_rows({"generator_reference": _metrics("reference", by_model)})
    assert len(columns) == 16
    tables.write_table(rows, columns, csv_path=None, html_path=tmp_path / "m.html", title="metrics")
    with HeadlessChromium() as browser:
        for width, height in FRAMES:
            browser.set_window(width, height)
            browser.open(tmp_path / "m.html")
            seen = browser.evaluate("""(() => { const box = document.querySelector("div.scroll");
                return {page: document.documentElement.scrollWidth, window: window.innerWidth,
                        table: document.querySelector("table").getBoundingClientRect().right,
                        box: box.getBoundingClientRect().right, scrolls: box.scrollWidth > box.clientWidth}; })()""")
            browser.screenshot(tmp_path / f"metrics_{width}.png")
            assert seen["page"] <= seen["window"] and seen["box"] <= seen["window"], (width, seen)
            assert seen["table"] <= seen["window"] or seen["scrolls"], (width, seen)
            if width >= 1440:
                assert seen["table"] <= seen["window"], (width, seen)


def test_pcgbench_metrics_rows_refuse_metrics_without_by_model():
    with pytest.raises(ValueError, match="generator 'hf' have no `by_model`"):
        pcgbench_tables.metrics_rows({"hf": {"pass@1": 0.5}})


def test_pcgbench_reference_speedups_table_reads_numbers_back(tmp_path):
    (tmp_path / "ref.csv").write_text("problem,model,threads,valid,speedup_median,detail\n"
                                      "dense_la_axpy,omp,2,True,1.76583,\n")  # fmt: skip
    rows = pcgbench_tables.reference_speedups_table(table=tmp_path / "ref.csv", html_path=tmp_path / "ref.html")
    assert rows == [["dense_la_axpy", "omp", 2, "True", 1.76583, ""]]
    assert '<td class="num">1.766</td>' in (tmp_path / "ref.html").read_text()
