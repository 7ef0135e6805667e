"""Regenerate data/pareval_released/ (ParEval's released outputs with its own verdicts) from a ParEval checkout.

    .venv/bin/python benchmarks/pareval_released_data.py --pareval PATH/TO/ParEval [--out data/pareval_released]
                                                          [--check]

ParEval's repository (github.com/parallelcodefoundry/ParEval, MIT) kept, in its history, the outputs of the models
of its paper with its own verdict on each; `results/` is gone at its head, so everything is read with `git show`
from commit COMMIT below (the checkout needs that commit's blobs: a full clone, or `git fetch` of it). Written:

    translation/<model>.json.xz   results/e65a0dff/<model>/{omp,mpi,kokkos}.json, each file's judged records (its
                                  own execution model's; ParEval's results files repeat the other models' records
                                  unjudged): 143 records, 2,860 outputs per model, in ParEval's results format
    generation/<model>.json.xz    results/a8724ee8/<model>/: the per-model results files merged where they were
                                  released (CodeLlama-34B: 420 records, 8,400 judged outputs), else all.json (raw
                                  outputs, ParEval's generations format, no verdicts)
    metrics/<run>/...csv.xz       ParEval's published metrics: a8724ee8/all-metrics.csv and each model's metrics.csv
                                  (generation), e65a0dff/translation-metrics.csv and each model's metrics.csv
    manifest.json                 every file: its sources (path and git blob id at COMMIT), records, outputs, judged
    SHA256SUMS                    sha256sum's format, of every file above; pareval_results.py checks it on load

Kept per record: name, problem_type, language, parallelism_model, prompt, and for a translation the source and
target models and the translation prompt (what the suite's matching reads: pareval_format.py, translation.py);
per output: the code and ParEval's verdict fields (VERDICT_FIELDS). Dropped: the sampling settings (temperature
0.2, top_p 0.95, max_new_tokens 1024 throughout) and the source example a translation prompt already quotes. The
released outputs of the results files are checked against the same run's all.json, output by output, where both
were released. Compression is xz at preset 9 (deterministic: running this twice writes the same bytes; --check
compares with what is there and writes nothing).
"""

import argparse
import hashlib
import json
import lzma
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMIT = "962462dd69cd7967e83d42168dedae117738b5ae"  # ParEval, "Add magicoder (#20)", 2024-02-21
TRANSLATION_RUN = "results/e65a0dff"
GENERATION_RUN = "results/a8724ee8"
TRANSLATION_TARGETS = ("omp", "mpi", "kokkos")
GENERATION_EXEC_MODELS = ("serial", "omp", "mpi", "mpi+omp", "kokkos", "cuda", "hip")
RECORD_FIELDS = ("name", "problem_type", "language", "parallelism_model", "prompt")
TRANSLATION_FIELDS = ("translation_src_model", "translation_dst_model", "translation_prompt")
VERDICT_FIELDS = ("generated_output", "source_write_success", "did_build", "is_source_valid", "did_any_run",
                  "did_all_run", "are_any_valid", "are_all_valid", "best_sequential_runtime", "runs")  # fmt: skip
XZ_PRESET = 9


def git_show(checkout: Path, path: str) -> bytes | None:
    """The blob at COMMIT:path, or None where the checkout lacks it (a partial clone) or the path does not exist."""
    done = subprocess.run(["git", "-C", str(checkout), "show", f"{COMMIT}:{path}"], capture_output=True)
    return done.stdout if done.returncode == 0 else None


def blob_id(checkout: Path, path: str) -> str:
    return subprocess.run(["git", "-C", str(checkout), "rev-parse", f"{COMMIT}:{path}"], capture_output=True,
                          text=True, check=True).stdout.strip()  # fmt: skip


def listing(checkout: Path, folder: str) -> list[str]:
    """The paths under `folder` at COMMIT whose blobs the checkout holds (a partial clone lists absent ones too)."""
    out = subprocess.run(["git", "-C", str(checkout), "ls-tree", "-r", "--name-only", COMMIT, folder + "/"],
                         capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
    present = subprocess.run(["git", "-C", str(checkout), "cat-file", "--batch-check"], input="\n".join(
        f"{COMMIT}:{p}" for p in out), capture_output=True, text=True, check=True).stdout.splitlines()  # fmt: skip
    return [p for p, line in zip(out, present, strict=True) if not line.endswith("missing")]


def trimmed(record: dict, judged: bool) -> dict:
    fields = RECORD_FIELDS + (TRANSLATION_FIELDS if "translation_src_model" in record else ())
    kept = {field: record[field] for field in fields}
    kept["outputs"] = [{f: o[f] for f in VERDICT_FIELDS} for o in record["outputs"]] if judged else record["outputs"]
    return kept


def judged_records(checkout: Path, run_dir: str, exec_models: tuple[str, ...]) -> tuple[list[dict], list[str]] | None:
    """The records each model's results file judged (its outputs are dicts), in the models' order, or None when any
    of the files was not released."""
    records, sources = [], []
    for exec_model in exec_models:
        path = f"{run_dir}/{exec_model}.json"
        blob = git_show(checkout, path)
        if blob is None:
            return None
        mine = [r for r in json.loads(blob) if r["parallelism_model"] == exec_model]
        assert all(isinstance(o, dict) for r in mine for o in r["outputs"]), f"{path}: unjudged {exec_model} outputs"
        records += [trimmed(r, judged=True) for r in mine]
        sources.append(path)
    return records, sources


def check_against_raw(checkout: Path, run_dir: str, records: list[dict]) -> None:
    """The judged outputs are the run's raw outputs (all.json), output by output, where all.json was released."""
    blob = git_show(checkout, f"{run_dir}/all.json")
    if blob is None:
        return
    raw = {(r["name"], r["parallelism_model"]): r["outputs"] for r in json.loads(blob)}
    for record in records:
        got = [o["generated_output"] for o in record["outputs"]]
        if raw.get((record["name"], record["parallelism_model"])) != got:
            raise SystemExit(f"{run_dir}: {record['name']} ({record['parallelism_model']}): the results file's "
                             "outputs differ from all.json's")


def compressed(data: bytes) -> bytes:
    # format=FORMAT_XZ with a fixed preset and check: the same bytes every run (no timestamps in xz).
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=XZ_PRESET)


def as_json(records: list[dict]) -> bytes:
    return (json.dumps(records, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def build(checkout: Path) -> tuple[dict[str, bytes], list[dict]]:
    """{relative path: compressed bytes} and the manifest's entries."""
    files, manifest = {}, []

    def add(rel: str, data: bytes, sources: list[str], **counts) -> None:
        files[rel] = compressed(data)
        manifest.append({"file": rel, "sources": {s: blob_id(checkout, s) for s in sources}, **counts})

    def count(records: list[dict]) -> dict:
        outputs = sum(len(r["outputs"]) for r in records)
        judged = sum(isinstance(o, dict) for r in records for o in r["outputs"])
        return {"records": len(records), "outputs": outputs, "judged_outputs": judged}

    for run_dir, task, exec_models in ((TRANSLATION_RUN, "translation", TRANSLATION_TARGETS),
                                       (GENERATION_RUN, "generation", GENERATION_EXEC_MODELS)):  # fmt: skip
        model_dirs = sorted({p.split("/")[2] for p in listing(checkout, run_dir) if p.count("/") == 3})
        for model_dir in model_dirs:
            folder = f"{run_dir}/{model_dir}"
            judged = judged_records(checkout, folder, exec_models)
            if judged is not None:
                records, sources = judged
                check_against_raw(checkout, folder, records)
            else:
                blob = git_show(checkout, f"{folder}/all.json")
                if blob is None or task == "translation":
                    continue  # nothing of this model's outputs was released (or only without verdicts)
                records, sources = [trimmed(r, judged=False) for r in json.loads(blob)], [f"{folder}/all.json"]
            add(f"{task}/{model_dir}.json.xz", as_json(records), sources, **count(records))
        for path in listing(checkout, run_dir):
            if path.endswith("metrics.csv") and "scaling" not in path:
                rel = path.removeprefix("results/")
                add(f"metrics/{rel}.xz", git_show(checkout, path), [path])
    return files, manifest


def checksums(files: dict[str, bytes]) -> str:
    return "".join(f"{hashlib.sha256(data).hexdigest()}  {rel}\n" for rel, data in sorted(files.items()))


def main(checkout: Path, out: Path, check: bool = False) -> int:
    if git_show(checkout, f"{TRANSLATION_RUN}/translation-metrics.csv") is None:
        raise SystemExit(f"{checkout}: no ParEval commit {COMMIT[:7]} with its results/ here; clone "
                         f"github.com/parallelcodefoundry/ParEval (or `git fetch origin {COMMIT}` in it)")
    files, manifest = build(checkout)
    files["manifest.json"] = (json.dumps({"repository": "https://github.com/parallelcodefoundry/ParEval",
                                          "commit": COMMIT, "files": manifest}, indent=1) + "\n").encode()  # fmt: skip
    sums = checksums(files)
    if check:
        old = (out / "SHA256SUMS").read_text() if (out / "SHA256SUMS").exists() else ""
        print("the same bytes as in " + str(out) if old == sums else f"{out} differs from what this writes")
        return 0 if old == sums else 1
    for rel, data in files.items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    (out / "SHA256SUMS").write_text(sums)
    total = sum(map(len, files.values()))
    print(sums, end="")
    print(f"wrote {len(files)} files, {total / 1e6:.2f} MB, to {out}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pareval", type=Path, required=True, help="a ParEval checkout holding commit " + COMMIT[:7])
    parser.add_argument("--out", type=Path, default=REPO / "data" / "pareval_released")
    parser.add_argument("--check", action="store_true", help="compare with the files there; write nothing")
    args = parser.parse_args()
    sys.exit(main(args.pareval, args.out, args.check))
