"""`snakemake corpus` in a temporary copy of the repository, on local sources (one of them missing)."""

import pytest
import yaml

from tests.conftest import run_snakemake
from workflow_scripts.common import read_json

from .test_build import DIFFERENT, KERNEL, REAL_SNIPPETS


@pytest.mark.integration
def test_snakemake_corpus_target_on_local_sources(tmp_path, workflow_dir):
    work = workflow_dir
    for name, files in {"alpha": {"blas.c": KERNEL, "mpi.c": DIFFERENT}, "beta": {"omp.c": REAL_SNIPPETS[0][0] * 3}}.items():
        for relpath, text in files.items():
            (tmp_path / "sources" / name / relpath).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / "sources" / name / relpath).write_text(text)
    override = {"corpus": {
        "cache_dir": str(tmp_path / "cache"),
        "sources": [{"name": "alpha", "kind": "local", "path": str(tmp_path / "sources" / "alpha")},
                    {"name": "beta", "kind": "local", "path": str(tmp_path / "sources" / "beta")},
                    {"name": "gone", "kind": "git", "url": str(tmp_path / "no-such-repository")}],
        "min_sources": 2,
        "validation_sources": ["beta"],
    }}  # fmt: skip
    (work / "override.yaml").write_text(yaml.safe_dump(override))
    result = run_snakemake(work, "corpus", "--configfile", "config/config.yaml", "override.yaml", timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    summary = read_json(work / "results/corpus/summary.json")
    assert summary["sources_ok"] == ["alpha", "beta"] and list(summary["sources_failed"]) == ["gone"]
    assert summary["files"] == 3 and summary["splits"]["validation"]["repositories"] == ["beta"]
    assert (work / "results/corpus/figures/corpus_composition.png").stat().st_size > 0
    assert (work / "results/corpus/summary.json.prov.json").exists()
    assert "gone" in (work / "results/corpus/logs/sources.log").read_text()
