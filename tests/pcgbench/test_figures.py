"""Each PCGBench figure drawn on its own from metrics.json files of two generators (the translation figure from their
generation and translation results.parquet files), as its Snakemake rule does."""

import random

import pytest

from workflow_scripts.common import write_json
from workflow_scripts.pcgbench import figures
from workflow_scripts.pcgbench.metrics import compute_metrics

from .test_metrics import make_results


@pytest.fixture(scope="module")
def metrics_paths(tmp_path_factory):
    """metrics.json of generators "g" and "h" (folder name = generator name, as under results/pcgbench/), with their
    results.parquet beside them and the results of their translations (serial->omp) under translation/."""
    root = tmp_path_factory.mktemp("pcgbench_metrics")
    paths = []
    for seed, generator in enumerate(("g", "h")):
        results = make_results(random.Random(seed)).assign(generator=generator)
        paths.append(root / generator / "metrics.json")
        write_json(paths[-1], compute_metrics(results, ks=[1, 2]))
        results.to_parquet(root / generator / "results.parquet")
        (root / "translation" / generator).mkdir(parents=True)
        translated = make_results(random.Random(seed + 10)).assign(generator=generator, source_model="serial")
        translated.to_parquet(root / "translation" / generator / "results.parquet")
    return paths


@pytest.mark.parametrize("figure", sorted(figures.FIGURES))
def test_each_figure_is_drawn_alone(figure, metrics_paths, tmp_path, drawn):
    output = tmp_path / f"{figure}.png"
    figures.main(figure=figure, output=output, metrics_paths=metrics_paths,
                 results_paths=[p.with_name("results.parquet") for p in metrics_paths],
                 translation_results_paths=[p.parent.parent / "translation" / p.parent.name / "results.parquet"
                                            for p in metrics_paths])  # fmt: skip
    assert output.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and output.stat().st_size > 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([output.name, f"{output.name}.prov.json"])
    assert [figure["code_names"] for figure in drawn] == [[]]  # execution models, verdicts, problem types in words


def test_unknown_figure_is_named(metrics_paths, tmp_path):
    with pytest.raises(ValueError, match="'pass_at_5'.*pass_at_1, speedup_by_type, pass_at_1_heatmap"):
        figures.main(figure="pass_at_5", output=tmp_path / "x.png", metrics_paths=metrics_paths)
    assert not (tmp_path / "x.png").exists()
