"""Build the HPC code corpus: extract, filter, deduplicate, tag and split the fetched sources.

Input: the sources manifest written by `sources.py` (each source's unpacked folder).
Steps, in order (HPC-Coder's corpus recipe, STUDIES.md):
  1. extraction of C, C++, CUDA and Fortran files (by extension);
  2. filters: not UTF-8, over `max_file_bytes`, under `min_tokens` tokens, generated files (a header
     that says it was generated);
  3. exact deduplication by sha256 of the bytes, then near-duplicate removal with MinHash/LSH
     (datasketch) over word shingles, both across all sources, so no file has a copy in the other split;
  4. tags per file: language, parallel models used (OpenMP, MPI, CUDA, Kokkos, pthreads, SYCL), license;
  5. train/validation split by source repository (a repository's files are all on one side).
Outputs: `<dataset_dir>/train.parquet` and `validation.parquet` (load with
`datasets.load_dataset("parquet", data_files={...})`) and a statistics JSON.

Run: `snakemake corpus` (rules/corpus.smk), or call `main(...)` from Python.
"""


import dataclasses
import hashlib
import logging
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
from datasketch import MinHash, MinHashLSH

from workflow_scripts.common import Progress, Provenance, atomic_path, read_json, write_json
from workflow_scripts.common.c_scanner import has_cpp_constructs, parallel_models
from workflow_scripts.common.config import schema_default
from workflow_scripts.corpus.sources import STATUS_OK, iter_source_files, license_for

logger = logging.getLogger(__name__)

LANGUAGE_BY_EXTENSION = {
    ".c": "c", ".h": "c",  # .h is re-tagged C++ below when it holds C++ constructs
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
    ".h++": "cpp", ".ipp": "cpp", ".tpp": "cpp",
    ".cu": "cuda", ".cuh": "cuda",
    ".f": "fortran", ".for": "fortran", ".f77": "fortran", ".f90": "fortran", ".f95": "fortran",
    ".f03": "fortran", ".f08": "fortran",
}  # fmt: skip
LANGUAGES = ("c", "cpp", "cuda", "fortran")
GENERATED_MARKERS = re.compile(
    r"generated\s+by|automatically\s+generated|auto-?generated|do\s+not\s+edit|this\s+file\s+was\s+generated",
    re.IGNORECASE,
)
GENERATED_HEADER_CHARS = 1000  # markers are looked for in the file's head only: a "generated" word later is prose
TOKEN_RE = re.compile(r"[A-Za-z_]\w*|\d+|[^\s\w]")
SPDX_RE = re.compile(r"SPDX-License-Identifier:\s*([\w.+() -]+?)\s*(\*/|$)", re.MULTILINE)

DROP_ENCODING, DROP_SIZE, DROP_TOKENS, DROP_GENERATED = "not_utf8", "too_large", "too_few_tokens", "generated"
DROP_EXACT, DROP_NEAR = "exact_duplicate", "near_duplicate"


@dataclasses.dataclass(kw_only=True)
class CorpusConfig:
    """Filters, deduplication and split of the corpus (config section `corpus`)."""

    languages: list[str] = schema_default("corpus.languages")
    max_file_bytes: int = schema_default("corpus.max_file_bytes")  # the paper drops files over 1 MB
    min_tokens: int = schema_default("corpus.min_tokens")  # ... and files under 15 tokens
    # estimated Jaccard similarity at or above which a file is a near copy
    near_dup_threshold: float = schema_default("corpus.near_dedup.threshold")
    minhash_permutations: int = schema_default("corpus.near_dedup.num_perm")
    # word n-grams hashed into the MinHash
    shingle_tokens: int = schema_default("corpus.near_dedup.shingle_tokens")
    # share of files (approximately: whole repositories move)
    validation_fraction: float = schema_default("corpus.validation_fraction")
    validation_sources: list[str] = schema_default("corpus.validation_sources")  # fixed choice; empty: seeded

    def __post_init__(self) -> None:
        unknown = sorted(set(self.languages) - set(LANGUAGES))
        if unknown or not self.languages:
            raise ValueError(f"corpus.languages: {unknown or 'empty'} (allowed: {', '.join(LANGUAGES)})")
        if self.max_file_bytes < 1:
            raise ValueError(f"corpus.max_file_bytes: {self.max_file_bytes} (allowed: >= 1)")
        if self.min_tokens < 0:
            raise ValueError(f"corpus.min_tokens: {self.min_tokens} (allowed: >= 0)")
        # MinHash LSH needs at least two bands: with 128 permutations that caps the threshold near 0.98.
        if not 0.0 < self.near_dup_threshold <= 0.98:
            raise ValueError(f"corpus.near_dedup.threshold: {self.near_dup_threshold} (allowed: > 0 and <= 0.98)")
        if self.minhash_permutations < 16 or self.shingle_tokens < 1:
            raise ValueError("corpus.near_dedup: num_perm >= 16 and shingle_tokens >= 1 are needed")
        if not 0.0 < self.validation_fraction < 1.0:
            raise ValueError(f"corpus.validation_fraction: {self.validation_fraction} (allowed: between 0 and 1)")

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> "CorpusConfig":
        # Keys the config leaves out keep the fields' (the schema's) defaults.
        keys = ("languages", "max_file_bytes", "min_tokens", "validation_fraction", "validation_sources")
        near_fields = {"threshold": "near_dup_threshold", "num_perm": "minhash_permutations",
                       "shingle_tokens": "shingle_tokens"}  # fmt: skip
        return cls(**{key: section[key] for key in keys if key in section},
                   **{near_fields[key]: value for key, value in section.get("near_dedup", {}).items()})


# ---------------------------------------------------------------------------------------------------
# per-file functions (unit-tested)


def language_of(path: str | Path, text: str | None = None) -> str | None:
    suffix = Path(path).suffix
    language = LANGUAGE_BY_EXTENSION.get(suffix) or LANGUAGE_BY_EXTENSION.get(suffix.lower())
    if suffix in (".F", ".F90"):
        language = "fortran"
    if language == "c" and suffix == ".h" and text is not None and has_cpp_constructs(text):
        language = "cpp"
    return language


def count_tokens(text: str) -> int:
    return len(TOKEN_RE.findall(text))


def is_generated(text: str) -> bool:
    return bool(GENERATED_MARKERS.search(text[:GENERATED_HEADER_CHARS]))


def spdx_license(text: str) -> str | None:
    found = SPDX_RE.search(text[:4000])
    return found.group(1).strip() if found else None


def minhash_of(text: str, num_perm: int, shingle_tokens: int, seed: int) -> MinHash:
    tokens = TOKEN_RE.findall(text)
    shingles = {" ".join(tokens[i : i + shingle_tokens]) for i in range(max(1, len(tokens) - shingle_tokens + 1))}
    signature = MinHash(num_perm=num_perm, seed=seed)
    signature.update_batch([s.encode("utf-8") for s in shingles])
    return signature


def deduplicate(files: list[dict[str, Any]], cfg: CorpusConfig, seed: int) -> tuple[list[dict], list[dict]]:
    """Drop exact copies (sha256) then near copies (MinHash LSH); the first file in order is kept.

    `files` are dicts with at least `text` and an `id`; returns (kept, dropped) where each dropped
    entry says which kept file it duplicates.
    """
    kept, dropped, by_hash = [], [], {}
    for record in files:
        digest = hashlib.sha256(record["text"].encode("utf-8")).hexdigest()
        record["sha256"] = digest
        if digest in by_hash:
            dropped.append({"id": record["id"], "reason": DROP_EXACT, "duplicate_of": by_hash[digest]})
            continue
        by_hash[digest] = record["id"]
        kept.append(record)
    lsh = MinHashLSH(threshold=cfg.near_dup_threshold, num_perm=cfg.minhash_permutations)
    signatures: dict[str, MinHash] = {}
    unique = []
    progress = Progress("near-duplicate checks", total=len(kept), unit="file", logger=logger)
    for record in kept:
        signature = minhash_of(record["text"], cfg.minhash_permutations, cfg.shingle_tokens, seed)
        # LSH returns candidates; the estimated Jaccard confirms them (LSH alone has false positives).
        matches = sorted(c for c in lsh.query(signature) if signature.jaccard(signatures[c]) >= cfg.near_dup_threshold)
        if matches:
            dropped.append({"id": record["id"], "reason": DROP_NEAR, "duplicate_of": matches[0]})
        else:
            lsh.insert(record["id"], signature)
            signatures[record["id"]] = signature
            unique.append(record)
        progress.advance()
    progress.finish()
    return unique, dropped


def split_by_repository(file_counts: dict[str, int], cfg: CorpusConfig, seed: int) -> dict[str, str]:
    """Assign each repository wholly to "train" or "validation" (no file of a repository on both sides).

    With `validation_sources` set, those go to validation. Otherwise repositories are shuffled with the
    seed and moved to validation until it holds at least `validation_fraction` of the files, always
    leaving at least one repository for training.
    """
    repos = sorted(file_counts)
    if len(repos) < 2:
        raise ValueError(f"a split by repository needs at least two repositories with files, got {repos}")
    if cfg.validation_sources:
        missing = sorted(set(cfg.validation_sources) - set(repos))
        if missing:
            raise ValueError(f"corpus.validation_sources: {missing} have no files in the corpus (have: {repos})")
        if set(cfg.validation_sources) >= set(repos):
            raise ValueError("corpus.validation_sources: every repository is in validation; leave one for training")
        return {repo: "validation" if repo in cfg.validation_sources else "train" for repo in repos}
    order = repos[:]
    random.Random(seed).shuffle(order)
    total = sum(file_counts.values())
    assignment = {repo: "train" for repo in repos}
    held = 0
    for repo in order[:-1]:
        if held >= cfg.validation_fraction * total:
            break
        assignment[repo] = "validation"
        held += file_counts[repo]
    return assignment


# ---------------------------------------------------------------------------------------------------


def collect_files(manifest: dict[str, Any], cfg: CorpusConfig) -> tuple[list[dict], Counter]:
    """Read every source file of the wanted languages and apply the filters; returns (files, drop counts)."""
    files, drops = [], Counter()
    for source in manifest["sources"]:
        if source["status"] != STATUS_OK:
            continue
        root = Path(source["tree"])
        rules = [(rule["files"], rule["license"]) for rule in source.get("license_rules", [])]
        for path in iter_source_files(root, source.get("include", [])):
            if language_of(path) is None and path.suffix not in (".F", ".F90"):
                continue
            relpath = path.relative_to(root).as_posix()
            raw = path.read_bytes()
            if len(raw) > cfg.max_file_bytes:
                drops[DROP_SIZE] += 1
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                drops[DROP_ENCODING] += 1
                continue
            language = language_of(path, text)
            if language not in cfg.languages:
                continue
            if count_tokens(text) < cfg.min_tokens:
                drops[DROP_TOKENS] += 1
                continue
            if is_generated(text):
                drops[DROP_GENERATED] += 1
                continue
            files.append({
                "id": f"{source['name']}/{relpath}",
                "repo": source["name"],
                "path": relpath,
                "language": language,
                "parallel_models": parallel_models(text, language),
                "license": spdx_license(text) or license_for(relpath, rules, source["license"]),
                "text": text,
                "lines": text.count("\n") + (0 if text.endswith("\n") else 1),
                "bytes": len(raw),
            })  # fmt: skip
    return files, drops


def statistics(frame: pd.DataFrame) -> dict[str, Any]:
    by_language = frame.groupby("language").agg(files=("path", "size"), lines=("lines", "sum"))
    exploded = frame.assign(model=frame["parallel_models"].map(lambda m: list(m) or ["none"])).explode("model")
    by_model = exploded.groupby("model").agg(files=("path", "size"), lines=("lines", "sum"))
    by_repo = frame.groupby(["repo", "split"]).agg(files=("path", "size"), lines=("lines", "sum")).reset_index()
    return {
        "files": int(len(frame)),
        "lines": int(frame["lines"].sum()),
        "bytes": int(frame["bytes"].sum()),
        "by_language": {k: {"files": int(v.files), "lines": int(v.lines)} for k, v in by_language.iterrows()},
        "by_parallel_model": {k: {"files": int(v.files), "lines": int(v.lines)} for k, v in by_model.iterrows()},
        "by_repository": {row.repo: {"split": row.split, "files": int(row.files), "lines": int(row.lines)}
                          for row in by_repo.itertuples()},  # fmt: skip
        "by_license": {str(k): int(v) for k, v in frame["license"].value_counts().sort_index().items()},
    }


def main(manifest_path: str | Path, train_path: str | Path, validation_path: str | Path, stats_path: str | Path,
         section: dict[str, Any], seed: int) -> dict[str, Any]:  # fmt: skip
    cfg = CorpusConfig.from_config(section)
    prov = Provenance.start(step="corpus.build", config=section, seed=seed)
    manifest = read_json(manifest_path)
    files, drops = collect_files(manifest, cfg)
    logger.info("extracted %d files after filters; dropped %s", len(files), dict(drops))
    kept, dropped = deduplicate(files, cfg, seed)
    drops.update(Counter(d["reason"] for d in dropped))
    logger.info("deduplication kept %d files: %d exact and %d near copies removed", len(kept),
                drops[DROP_EXACT], drops[DROP_NEAR])  # fmt: skip
    if not kept:
        raise ValueError("the corpus is empty after filtering: check corpus.sources and the filters")
    frame = pd.DataFrame(kept).drop(columns=["id"])
    assignment = split_by_repository(frame["repo"].value_counts().to_dict(), cfg, seed)
    frame["split"] = frame["repo"].map(assignment)
    columns = ["repo", "path", "language", "parallel_models", "license", "lines", "bytes", "sha256", "text"]
    for split, target in (("train", train_path), ("validation", validation_path)):
        part = frame[frame["split"] == split].sort_values(["repo", "path"])[columns].reset_index(drop=True)
        with atomic_path(target, suffix=".parquet") as tmp:
            part.to_parquet(tmp, index=False)
    stats = statistics(frame)
    stats["dropped"] = {reason: int(drops[reason]) for reason in
                        (DROP_ENCODING, DROP_SIZE, DROP_TOKENS, DROP_GENERATED, DROP_EXACT, DROP_NEAR)}  # fmt: skip
    stats["near_duplicates"] = [d for d in dropped if d["reason"] == DROP_NEAR][:200]
    stats["splits"] = {split: {"repositories": sorted(r for r, s in assignment.items() if s == split),
                               "files": int((frame["split"] == split).sum())} for split in ("train", "validation")}  # fmt: skip
    stats["sources"] = [{k: s.get(k) for k in ("name", "kind", "status", "origin", "version", "license", "tree_sha256", "error")}
                        for s in manifest["sources"]]  # fmt: skip
    write_json(stats_path, stats)
    prov.finish([train_path, validation_path, stats_path])
    return stats


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.input.manifest, smk.output.train, smk.output.validation, smk.output.stats, smk.params.corpus, smk.params.seed)
