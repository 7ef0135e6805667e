"""Corpus building: filters, exact and near-duplicate removal, parallel-model tags, split by repository."""

import textwrap

import pandas as pd
import pytest

from workflow_scripts.common import write_json
from workflow_scripts.corpus import build
from workflow_scripts.corpus.build import CorpusConfig, deduplicate, parallel_models, split_by_repository

# A real-looking kernel file long enough for MinHash shingles to be meaningful.
KERNEL = textwrap.dedent("""\
    #include <stddef.h>
    /* y = a*x + y over n elements, the BLAS axpy */
    void axpy(size_t n, double a, const double *x, double *y) {
      for (size_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
    }
    /* dot product with a running sum */
    double dot(size_t n, const double *x, const double *y) {
      double sum = 0.0;
      for (size_t i = 0; i < n; ++i) sum += x[i] * y[i];
      return sum;
    }
    /* scale a vector in place */
    void scal(size_t n, double a, double *x) {
      for (size_t i = 0; i < n; ++i) x[i] *= a;
    }
    /* copy x into y */
    void copy(size_t n, const double *x, double *y) {
      for (size_t i = 0; i < n; ++i) y[i] = x[i];
    }
    /* the largest absolute value */
    double amax(size_t n, const double *x) {
      double best = 0.0;
      for (size_t i = 0; i < n; ++i) { double v = x[i] < 0 ? -x[i] : x[i]; if (v > best) best = v; }
      return best;
    }
""")
# The same file with one comment reworded: a near copy, not an exact one.
NEAR_COPY = KERNEL.replace("/* scale a vector in place */", "/* scale the vector x in place */")
DIFFERENT = textwrap.dedent("""\
    #include <mpi.h>
    int main(int argc, char **argv) {
      int rank, size;
      MPI_Init(&argc, &argv);
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      double local = rank, total = 0.0;
      MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      MPI_Finalize();
      return 0;
    }
""")


def _records(*texts):
    return [{"id": f"repo/file{i}.c", "text": text} for i, text in enumerate(texts)]


def test_exact_duplicate_is_dropped_and_names_the_kept_copy():
    kept, dropped = deduplicate(_records(KERNEL, DIFFERENT, KERNEL), CorpusConfig(), seed=1)
    assert [r["id"] for r in kept] == ["repo/file0.c", "repo/file1.c"]
    assert dropped == [{"id": "repo/file2.c", "reason": build.DROP_EXACT, "duplicate_of": "repo/file0.c"}]


def test_near_duplicate_is_dropped_but_different_code_is_kept():
    kept, dropped = deduplicate(_records(KERNEL, NEAR_COPY, DIFFERENT), CorpusConfig(), seed=1)
    assert NEAR_COPY != KERNEL
    assert [r["id"] for r in kept] == ["repo/file0.c", "repo/file2.c"]
    assert dropped == [{"id": "repo/file1.c", "reason": build.DROP_NEAR, "duplicate_of": "repo/file0.c"}]


def test_near_duplicate_threshold_controls_what_counts_as_a_copy():
    # At a threshold of 0.98 the reworded file (Jaccard about 0.92) is not a copy.
    kept, dropped = deduplicate(_records(KERNEL, NEAR_COPY), CorpusConfig(near_dup_threshold=0.98), seed=1)
    assert len(kept) == 2 and dropped == []


# Snippets from real HPC codes (SUNDIALS nvector_openmp.c, p4est, a CUDA SAXPY kernel, Kokkos and SYCL
# tutorials, pigz-style pthreads), each with the models it uses.
REAL_SNIPPETS = [
    ("#pragma omp parallel for default(none) private(i) shared(N,c,xd,zd) schedule(static) \\\n"
     "   num_threads(NV_NUM_THREADS_OMP(x))\n  for (i = 0; i < N; i++) zd[i] = c*xd[i];\n", "c", ["omp"]),
    ("  mpiret = MPI_Allreduce (&lsum, &gsum, 1, MPI_DOUBLE, MPI_SUM, mpicomm);\n  SC_CHECK_MPI (mpiret);\n", "c", ["mpi"]),
    ("__global__ void saxpy(int n, float a, float *x, float *y) {\n  int i = blockIdx.x*blockDim.x + threadIdx.x;\n"
     "  if (i < n) y[i] = a*x[i] + y[i];\n}\n", "cuda", ["cuda"]),
    ("Kokkos::parallel_reduce(\"dot\", n, KOKKOS_LAMBDA(const int i, double &acc) { acc += x(i) * y(i); }, result);\n",
     "cpp", ["kokkos"]),
    ("sycl::queue q;\nq.parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) { y[i] += a * x[i]; }).wait();\n", "cpp", ["sycl"]),
    ("    if (pthread_create(&th, &attr, ignition, capsule) != 0) throw(errno, \"cannot create thread\");\n", "c", ["pthreads"]),
    ("#include <omp.h>\n#include <mpi.h>\nint nthreads = omp_get_max_threads();\nMPI_Barrier(MPI_COMM_WORLD);\n", "c", ["omp", "mpi"]),
    ("!$omp parallel do reduction(+:s)\ndo i = 1, n\n  s = s + x(i)\nend do\n", "fortran", ["omp"]),
    ("for (int i = 0; i < n; ++i) y[i] += a * x[i];  // pragma omp in a word: ompf is not OpenMP\n", "c", []),
]  # fmt: skip


@pytest.mark.parametrize(("snippet", "language", "expected"), REAL_SNIPPETS)
def test_parallel_model_tags_on_real_snippets(snippet, language, expected):
    assert parallel_models(snippet, language) == expected


@pytest.mark.parametrize(
    ("name", "text", "language"),
    [("a.c", "int x;", "c"), ("a.cu", "", "cuda"), ("a.F90", "", "fortran"), ("a.hpp", "", "cpp"),
     ("a.h", "namespace sundials { class Foo {}; }", "cpp"), ("a.h", "typedef struct { int n; } vec;", "c"),
     ("a.py", "", None), ("CMakeLists.txt", "", None)],
)  # fmt: skip
def test_language_by_extension_and_header_content(name, text, language):
    assert build.language_of(name, text) == language


def test_generated_files_and_spdx_licenses_are_recognised():
    assert build.is_generated("/* Generated by Cython 3.0.11 */\nint x;")
    assert build.is_generated("! This file was automatically generated by SWIG (http://www.swig.org).\n")
    assert not build.is_generated("int x;\n" + "/* a comment */\n" * 200 + "/* generated by hand later */")
    assert build.spdx_license("/* SPDX-License-Identifier: BSD-3-Clause */\nint x;") == "BSD-3-Clause"


def test_split_keeps_each_repository_on_one_side_and_is_seeded():
    counts = {"a": 50, "b": 30, "c": 10, "d": 10}
    cfg = CorpusConfig(validation_fraction=0.2)
    first = split_by_repository(counts, cfg, seed=7)
    assert first == split_by_repository(counts, cfg, seed=7)
    assert set(first.values()) == {"train", "validation"}
    assert sum(counts[r] for r, s in first.items() if s == "validation") >= 0.2 * sum(counts.values())
    fixed = split_by_repository(counts, CorpusConfig(validation_sources=["c"]), seed=7)
    assert fixed == {"a": "train", "b": "train", "c": "validation", "d": "train"}
    with pytest.raises(ValueError, match="validation_sources.*'zz'"):
        split_by_repository(counts, CorpusConfig(validation_sources=["zz"]), seed=7)


def _source(tmp_path, name, files):
    root = tmp_path / name
    for relpath, text in files.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_bytes(text if isinstance(text, bytes) else text.encode())
    return {"name": name, "kind": "local", "status": "ok", "tree": str(root), "include": [], "license": "MIT",
            "origin": f"local {name}", "version": "local", "tree_sha256": "x"}  # fmt: skip


def test_build_main_writes_a_leakage_free_loadable_dataset(tmp_path):
    """Two repositories share a file (an exact copy) and a near copy: neither may sit on both sides."""
    repo_a = _source(tmp_path, "alpha", {"src/blas.c": KERNEL, "src/mpi_main.c": DIFFERENT, "tiny.c": "int x;",
                                         "latin1.c": b"/* caf\xe9 */ int main(void) { return 0; } " * 5,
                                         "gen.c": "/* Generated by Cython */\n" + DIFFERENT.replace("rank", "r"),
                                         "README.md": "not code"})  # fmt: skip
    repo_b = _source(tmp_path, "beta", {"copy_of_blas.c": KERNEL, "near.c": NEAR_COPY,
                                        "omp.c": REAL_SNIPPETS[0][0] * 3})  # fmt: skip
    manifest = tmp_path / "sources.json"
    write_json(manifest, {"sources": [repo_a, repo_b, {"name": "gone", "kind": "git", "status": "failed", "error": "x"}]})
    paths = {k: tmp_path / f"{k}.parquet" for k in ("train", "validation")}
    stats = build.main(manifest, paths["train"], paths["validation"], tmp_path / "stats.json",
                       {"validation_sources": ["beta"], "min_tokens": 15}, seed=3)  # fmt: skip
    assert stats["dropped"] == {"not_utf8": 1, "too_large": 0, "too_few_tokens": 1, "generated": 1,
                                "exact_duplicate": 1, "near_duplicate": 1}  # fmt: skip
    from datasets import load_dataset

    data = load_dataset("parquet", data_files={k: str(v) for k, v in paths.items()})
    train, validation = data["train"].to_pandas(), data["validation"].to_pandas()
    assert set(train["repo"]) == {"alpha"} and set(validation["repo"]) == {"beta"}
    assert set(train["sha256"]).isdisjoint(validation["sha256"])
    assert sorted(validation["path"]) == ["omp.c"]
    assert list(validation["parallel_models"].iloc[0]) == ["omp"]
    mpi_row = train[train["path"] == "src/mpi_main.c"].iloc[0]
    assert list(mpi_row["parallel_models"]) == ["mpi"] and mpi_row["license"] == "MIT" and mpi_row["language"] == "c"
    assert stats["by_language"]["c"]["files"] == 3
    assert isinstance(pd.read_parquet(paths["train"]), pd.DataFrame)
