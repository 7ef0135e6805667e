"""Fetch the corpus sources once into a cache and record where each came from.

Inputs: the `corpus.sources` list of the config. Each source is one "repository" of the corpus:
  - `debian`: a Debian source package, fetched with `apt-get source` through a private apt
    configuration (its own sources list with `deb-src` copies of the system's `deb` entries, its own
    lists and cache folders, `APT_CONFIG` pointing at it); the system's apt setup is never touched;
  - `pypi`: a source distribution, `pip download --no-deps --no-binary PKG PKG==VERSION`;
  - `local`: a directory given by path (read in place);
  - `git`: a git repository given by path or URL, cloned at `revision` (default: its HEAD).
Output: a manifest (JSON) with, per source, its origin, version, license, checksums, the folder its
files were unpacked into, and `status` "ok" or "failed" with the error. A source that cannot be
fetched is reported by name and the others go on; the step fails only when fewer than
`min_sources` sources could be had.

The cache is `<cache_dir>/<name>/` with `source.json` written last: a source whose record exists is
not fetched again (delete its folder to refetch).

Run: `snakemake corpus_sources` (rules/corpus.smk), or call `main(...)` from Python.
"""


import dataclasses
import fnmatch
import hashlib
import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from workflow_scripts.common import Progress, Provenance, read_json, write_json
from workflow_scripts.common.config import schema_default
from workflow_scripts.common.io import sha256_file

logger = logging.getLogger(__name__)

SOURCE_KINDS = ("debian", "pypi", "local", "git")
STATUS_OK = "ok"
STATUS_FAILED = "failed"
RECORD_NAME = "source.json"
COMMAND_TIMEOUT_S = 600  # one download or clone; a stuck mirror must not hang the workflow
SYSTEM_APT_SOURCES = (Path("/etc/apt/sources.list"), Path("/etc/apt/sources.list.d"))


class FetchError(RuntimeError):
    """A source could not be fetched; the message names the source and the failing command."""


@dataclasses.dataclass(kw_only=True)
class SourceSpec:
    """One corpus source, as written in `corpus.sources` of the config."""

    name: str  # repository name in the corpus; the unit of the train/validation split
    kind: str  # one of SOURCE_KINDS
    package: str | None = None  # debian / pypi: the package name
    version: str | None = None  # debian / pypi: exact version (pypi: required)
    path: str | None = None  # local: the directory
    url: str | None = None  # git: a path or URL to clone
    revision: str | None = None  # git: branch, tag or commit (default: HEAD)
    include: list[str] = dataclasses.field(default_factory=list)  # sub-folders to keep; empty: all
    license: str | None = None  # overrides the detected license (local/git sources often need it)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]*", self.name or ""):
            raise ValueError(f"corpus.sources: name {self.name!r} must be letters, digits and ._+- only")
        if self.kind not in SOURCE_KINDS:
            raise ValueError(f"corpus.sources[{self.name}].kind: {self.kind!r} (allowed: {', '.join(SOURCE_KINDS)})")
        needed = {"debian": ["package"], "pypi": ["package", "version"], "local": ["path"], "git": ["url"]}
        for field in needed[self.kind]:
            if not getattr(self, field):
                raise ValueError(f"corpus.sources[{self.name}]: kind {self.kind} needs '{field}'")
        for sub in self.include:
            if Path(sub).is_absolute() or ".." in Path(sub).parts:
                raise ValueError(f"corpus.sources[{self.name}].include: {sub!r} must be a relative path inside the source")


@dataclasses.dataclass(kw_only=True)
class FetchConfig:
    """The fetch step's settings (config section `corpus`)."""

    cache_dir: Path  # where sources are unpacked once
    sources: list[SourceSpec]
    min_sources: int = schema_default("corpus.min_sources")  # fewer fetched sources than this is an error

    def __post_init__(self) -> None:
        self.cache_dir = Path(self.cache_dir)
        if not self.sources:
            raise ValueError("corpus.sources: at least one source is needed")
        names = [s.name for s in self.sources]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"corpus.sources: names must be unique, repeated: {', '.join(duplicates)}")
        if not 1 <= self.min_sources <= len(self.sources):
            raise ValueError(f"corpus.min_sources: {self.min_sources} (allowed: 1 to the number of sources, {len(self.sources)})")

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> "FetchConfig":
        return cls(
            cache_dir=Path(section["cache_dir"]),
            sources=[SourceSpec(**spec) for spec in section["sources"]],
            **{key: section[key] for key in ("min_sources",) if key in section},  # else the schema's default
        )


# ---------------------------------------------------------------------------------------------------
# helpers


def _run(command: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None, what: str) -> str:
    """Run a tool; on failure raise FetchError with the command and the tail of its output."""
    try:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    except FileNotFoundError as err:
        raise FetchError(f"{what}: the tool '{command[0]}' is not installed") from err
    except subprocess.TimeoutExpired as err:
        raise FetchError(f"{what}: `{' '.join(command)}` ran past {COMMAND_TIMEOUT_S} s") from err
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-6:])
        raise FetchError(f"{what}: `{' '.join(command)}` exited {done.returncode}:\n{tail}")
    return done.stdout


def tree_checksum(root: Path, include: list[str]) -> tuple[str, int]:
    """sha256 over the sorted (relative path, file sha256) pairs of the kept files; and the file count."""
    digest = hashlib.sha256()
    count = 0
    for path in iter_source_files(root, include):
        digest.update(f"{path.relative_to(root).as_posix()}\0{sha256_file(path)}\n".encode())
        count += 1
    return digest.hexdigest(), count


def iter_source_files(root: Path, include: list[str]):
    """Every regular file under root (or under its `include` sub-folders), sorted, no symlinks, no .git."""
    tops = [root / sub for sub in include] if include else [root]
    for top in tops:
        if not top.exists():
            raise FetchError(f"include folder '{top.relative_to(root)}' does not exist in {root.name}")
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d != ".git")
            for filename in sorted(filenames):
                path = Path(dirpath) / filename
                if path.is_file() and not path.is_symlink():
                    yield path


def _safe_extract(archive: Path, dest: Path) -> None:
    """Unpack a tar or zip archive, refusing members that would land outside `dest`."""
    dest.mkdir(parents=True, exist_ok=True)
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            for member in zf.namelist():
                if Path(member).is_absolute() or ".." in Path(member).parts:
                    raise FetchError(f"{archive.name}: unsafe member path {member!r}")
            zf.extractall(dest)
        return
    with tarfile.open(archive) as tf:
        tf.extractall(dest, filter="data")  # 'data' rejects absolute paths, '..', devices and links out


def _single_top_folder(folder: Path) -> Path:
    entries = [p for p in folder.iterdir()]
    return entries[0] if len(entries) == 1 and entries[0].is_dir() else folder


# ---------------------------------------------------------------------------------------------------
# license detection

LICENSE_PATTERNS = (  # (SPDX-like name, regex on a license text); first match wins, so specific first
    ("Apache-2.0", r"Apache License,?\s+Version 2\.0"),
    ("LGPL-3.0", r"GNU LESSER GENERAL PUBLIC LICENSE\s+Version 3"),
    ("LGPL-2.1", r"GNU LESSER GENERAL PUBLIC LICENSE\s+Version 2\.1"),
    ("GPL-3.0", r"GNU GENERAL PUBLIC LICENSE\s+Version 3"),
    ("GPL-2.0", r"GNU GENERAL PUBLIC LICENSE\s+Version 2"),
    ("MPL-2.0", r"Mozilla Public License,?\s+(version|v\.?)\s*2\.0"),
    ("BSD-3-Clause", r"Neither the name of"),
    ("BSD-2-Clause", r"Redistributions in binary form must reproduce"),
    ("MIT", r"Permission is hereby granted, free of charge"),
    ("BSL-1.0", r"Boost Software License"),
)


def detect_license_text(text: str) -> str | None:
    for name, pattern in LICENSE_PATTERNS:
        if re.search(pattern, text, flags=re.IGNORECASE):
            return name
    return None


def detect_tree_license(root: Path) -> str:
    for candidate in sorted(root.iterdir()):
        if candidate.is_file() and re.match(r"(LICEN[CS]E|COPYING)", candidate.name, flags=re.IGNORECASE):
            found = detect_license_text(candidate.read_text(encoding="utf-8", errors="replace"))
            if found:
                return found
    return "unknown"


def parse_debian_copyright(text: str) -> list[tuple[list[str], str]]:
    """DEP-5 `debian/copyright`: [(file patterns, license short name)] in file order.

    The last stanza whose pattern matches a file gives that file's license (DEP-5 rule).
    """
    rules = []
    for stanza in re.split(r"\n\s*\n", text):
        files = re.search(r"^Files:(.*(?:\n[ \t].*)*)", stanza, flags=re.MULTILINE)
        license_ = re.search(r"^License:[ \t]*(\S.*)$", stanza, flags=re.MULTILINE)
        if files and license_:
            rules.append((files.group(1).split(), license_.group(1).strip()))
    return rules


def license_for(relpath: str, rules: list[tuple[list[str], str]], default: str) -> str:
    found = default
    for patterns, license_ in rules:
        if any(fnmatch.fnmatchcase(relpath, pattern) for pattern in patterns):
            found = license_
    return found


# ---------------------------------------------------------------------------------------------------
# the four kinds of source


def private_apt_config(apt_dir: Path, system_sources: tuple[Path, ...] = SYSTEM_APT_SOURCES) -> Path:
    """Write an apt configuration whose sources are deb-src copies of the system's deb entries.

    Lists, caches and state live under `apt_dir`, so `apt-get update` with it changes nothing of the
    system's apt setup. Returns the path to give as APT_CONFIG.
    """
    apt_dir = apt_dir.resolve()  # apt reads relative Dir:: entries against its own root, not the cwd
    parts = apt_dir / "sources.list.d"
    for sub in (parts, apt_dir / "lists" / "partial", apt_dir / "cache" / "archives" / "partial", apt_dir / "state"):
        sub.mkdir(parents=True, exist_ok=True)
    one_line, deb822 = [], []
    files = []
    for entry in system_sources:
        if entry.is_file():
            files.append(entry)
        elif entry.is_dir():
            files.extend(sorted(p for p in entry.iterdir() if p.suffix in (".list", ".sources")))
    for file in files:
        text = file.read_text(encoding="utf-8", errors="replace")
        if file.suffix == ".sources":
            for stanza in re.split(r"\n\s*\n", text):
                if re.search(r"^Types:.*\bdeb\b", stanza, flags=re.MULTILINE) and not re.search(
                    r"^Enabled:\s*no", stanza, flags=re.MULTILINE | re.IGNORECASE
                ):
                    deb822.append(re.sub(r"^Types:.*$", "Types: deb-src", stanza.strip(), flags=re.MULTILINE))
        else:
            one_line += [re.sub(r"^deb\s", "deb-src ", line.strip()) for line in text.splitlines()
                         if re.match(r"^deb\s", line.strip())]  # fmt: skip
    if not one_line and not deb822:
        raise FetchError("debian sources: the system has no `deb` entries to copy as `deb-src`")
    (parts / "src.list").write_text("\n".join(one_line) + "\n", encoding="utf-8")
    (parts / "src.sources").write_text("\n\n".join(deb822) + "\n", encoding="utf-8")
    empty = apt_dir / "empty.list"
    empty.write_text("", encoding="utf-8")
    conf = apt_dir / "apt.conf"
    conf.write_text(
        "\n".join([
            f'Dir::State "{apt_dir / "state"}";',
            f'Dir::State::Lists "{apt_dir / "lists"}";',
            f'Dir::Cache "{apt_dir / "cache"}";',
            f'Dir::Etc::SourceList "{empty}";',
            f'Dir::Etc::SourceParts "{parts}";',
            # dpkg's status stays the system's (read only): apt-get source does not install anything.
            'Dir::State::status "/var/lib/dpkg/status";',
        ]) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    return conf


class DebianFetcher:
    """`apt-get source` through a private apt configuration; `apt-get update` runs once per fetch."""

    def __init__(self, apt_dir: Path):
        self.apt_dir = apt_dir
        self._env: dict[str, str] | None = None
        self._error: FetchError | None = None

    def env(self) -> dict[str, str]:
        if self._error is not None:  # a failed update is not retried for every package
            raise FetchError(str(self._error))
        if self._env is None:
            conf = private_apt_config(self.apt_dir)
            env = dict(os.environ, APT_CONFIG=str(conf), DEBIAN_FRONTEND="noninteractive")
            logger.info("apt-get update with the private deb-src configuration %s", conf)
            try:
                _run(["apt-get", "update", "-q"], env=env, what="debian sources: apt-get update")
            except FetchError as err:
                self._error = err
                raise
            self._env = env
        return self._env

    def fetch(self, spec: SourceSpec, work: Path) -> dict[str, Any]:
        target = spec.package if not spec.version else f"{spec.package}={spec.version}"
        _run(["apt-get", "source", "-q", target], cwd=work, env=self.env(), what=f"source '{spec.name}' (debian {target})")
        dsc = sorted(work.glob("*.dsc"))
        unpacked = sorted(p for p in work.iterdir() if p.is_dir())
        if len(dsc) != 1 or len(unpacked) != 1:
            raise FetchError(f"source '{spec.name}': apt-get source left {len(dsc)} .dsc files and {len(unpacked)} folders")
        dsc_text = dsc[0].read_text(encoding="utf-8", errors="replace")
        version = re.search(r"^Version:\s*(\S+)", dsc_text, flags=re.MULTILINE).group(1)
        homepage = re.search(r"^Homepage:\s*(\S+)", dsc_text, flags=re.MULTILINE)
        copyright_file = unpacked[0] / "debian" / "copyright"
        rules = parse_debian_copyright(copyright_file.read_text(encoding="utf-8", errors="replace")) if copyright_file.exists() else []
        package_license = license_for("*", [(p, lic) for p, lic in rules if "*" in p], "unknown")
        if package_license == "unknown":  # no `Files: *` stanza: the upstream license file says it
            package_license = detect_tree_license(unpacked[0])
        archives = {p.name: sha256_file(p) for p in sorted(work.iterdir()) if p.is_file()}
        return {
            "origin": f"debian source package {spec.package} (apt-get source)"
            + (f", upstream {homepage.group(1)}" if homepage else ""),
            "version": version,
            "license": package_license,
            "license_rules": [{"files": p, "license": lic} for p, lic in rules],
            "archives_sha256": archives,
            "tree": unpacked[0],
        }


def fetch_pypi(spec: SourceSpec, work: Path) -> dict[str, Any]:
    download = work / "download"
    download.mkdir()
    _run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", spec.package,
         f"{spec.package}=={spec.version}", "--dest", str(download), "--quiet", "--disable-pip-version-check"],
        what=f"source '{spec.name}' (pypi {spec.package}=={spec.version})",
    )  # fmt: skip
    archives = sorted(download.iterdir())
    if len(archives) != 1 or not re.search(r"\.(tar\.gz|tgz|tar\.bz2|zip)$", archives[0].name):
        raise FetchError(f"source '{spec.name}': expected one source distribution, got {[a.name for a in archives]}")
    _safe_extract(archives[0], work / "unpacked")
    tree = _single_top_folder(work / "unpacked")
    license_ = "unknown"
    pkg_info = tree / "PKG-INFO"
    if pkg_info.exists():
        meta = pkg_info.read_text(encoding="utf-8", errors="replace")
        found = re.search(r"^License-Expression:\s*(\S.*)$", meta, flags=re.MULTILINE) or re.search(
            r"^License:\s*(\S.{0,60})$", meta, flags=re.MULTILINE
        )
        classifier = re.search(r"^Classifier: License :: .* :: (.+)$", meta, flags=re.MULTILINE)
        if found and found.group(1).strip().upper() != "UNKNOWN":
            license_ = found.group(1).strip()
        elif classifier:
            license_ = classifier.group(1).strip()
    if license_ == "unknown":
        license_ = detect_tree_license(tree)
    return {
        "origin": f"PyPI source distribution {spec.package}=={spec.version} (pip download --no-binary)",
        "version": spec.version,
        "license": license_,
        "archives_sha256": {archives[0].name: sha256_file(archives[0])},
        "tree": tree,
    }


def fetch_git(spec: SourceSpec, work: Path) -> dict[str, Any]:
    tree = work / "tree"
    what = f"source '{spec.name}' (git {spec.url})"
    _run(["git", "clone", "--quiet", "--no-checkout", spec.url, str(tree)], what=what)
    _run(["git", "-C", str(tree), "checkout", "--quiet", spec.revision or "HEAD"], what=what)
    commit = _run(["git", "-C", str(tree), "rev-parse", "HEAD"], what=what).strip()
    shutil.rmtree(tree / ".git")  # the commit is recorded; history is not corpus text
    return {
        "origin": f"git repository {spec.url}",
        "version": commit,
        "license": detect_tree_license(tree),
        "archives_sha256": {},
        "tree": tree,
    }


def describe_local(spec: SourceSpec) -> dict[str, Any]:
    tree = Path(spec.path).expanduser().resolve()
    if not tree.is_dir():
        raise FetchError(f"source '{spec.name}': local path {spec.path} is not a directory")
    version = "local"
    if (tree / ".git").exists():
        try:
            version = _run(["git", "-C", str(tree), "rev-parse", "HEAD"], what=f"source '{spec.name}'").strip()
        except FetchError:
            pass
    return {"origin": f"local directory {tree}", "version": version, "license": detect_tree_license(tree),
            "archives_sha256": {}, "tree": tree}  # fmt: skip


# ---------------------------------------------------------------------------------------------------


def fetch_source(spec: SourceSpec, cache_dir: Path, debian: DebianFetcher) -> dict[str, Any]:
    """Fetch one source into `<cache_dir>/<name>/` (or reuse it) and return its manifest record."""
    folder = cache_dir / spec.name
    record_path = folder / RECORD_NAME
    if spec.kind == "local":
        info = describe_local(spec)
    elif record_path.exists():
        record = read_json(record_path)
        if record.get("spec") == dataclasses.asdict(spec):
            logger.info("source %s: cached (%s %s)", spec.name, record["kind"], record["version"])
            return record
        logger.info("source %s: its config changed since it was cached; fetching again", spec.name)
        shutil.rmtree(folder)
        info = None
    else:
        info = None
    if info is None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".tmp-{spec.name}-", dir=cache_dir))
        try:
            fetcher = {"debian": debian.fetch, "pypi": fetch_pypi, "git": fetch_git}[spec.kind]
            info = fetcher(spec, work)
            # The whole work folder becomes the cache entry in one rename: no half-fetched entry.
            relative_tree = Path(info["tree"]).relative_to(work)
            if folder.exists():
                shutil.rmtree(folder)
            os.replace(work, folder)
            info["tree"] = folder / relative_tree
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    tree = Path(info["tree"])
    checksum, file_count = tree_checksum(tree, spec.include)
    record = {
        "name": spec.name,
        "kind": spec.kind,
        "status": STATUS_OK,
        "spec": dataclasses.asdict(spec),
        **info,
        "license": spec.license or info["license"],
        "tree": str(tree),
        "include": list(spec.include),
        "tree_sha256": checksum,
        "file_count": file_count,
    }
    if spec.kind != "local":
        write_json(record_path, record)
    logger.info("source %s: %s %s, license %s, %d files", spec.name, spec.kind, record["version"], record["license"], file_count)
    return record


def fetch_all(cfg: FetchConfig) -> list[dict[str, Any]]:
    """Fetch every source; a failure is recorded (and logged by name) and the others go on."""
    debian = DebianFetcher(cfg.cache_dir / "apt")
    records = []
    progress = Progress("sources", total=len(cfg.sources), unit="source", logger=logger)
    for spec in cfg.sources:
        try:
            records.append(fetch_source(spec, cfg.cache_dir, debian))
        except (FetchError, OSError, ValueError, tarfile.TarError, zipfile.BadZipFile) as err:
            logger.error("source %s (%s) could not be fetched: %s", spec.name, spec.kind, err)
            records.append({"name": spec.name, "kind": spec.kind, "status": STATUS_FAILED,
                            "spec": dataclasses.asdict(spec), "error": str(err)})  # fmt: skip
        progress.advance()
    progress.finish()
    return records


def main(manifest_path: str | Path, section: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    cfg = FetchConfig.from_config(section)
    prov = Provenance.start(step="corpus.sources", config=section, seed=seed)
    records = fetch_all(cfg)
    ok = [r["name"] for r in records if r["status"] == STATUS_OK]
    failed = {r["name"]: r["error"] for r in records if r["status"] == STATUS_FAILED}
    if len(ok) < cfg.min_sources:
        raise FetchError(
            f"only {len(ok)} of {len(records)} corpus sources could be fetched (corpus.min_sources is {cfg.min_sources}); "
            + "failed: " + "; ".join(f"{name}: {error}" for name, error in failed.items())
        )
    if failed:
        logger.warning("corpus goes on without %d failed source(s): %s", len(failed), ", ".join(failed))
    write_json(manifest_path, {"sources": records, "ok": ok, "failed": sorted(failed)})
    prov.finish([manifest_path])
    return records


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.output.manifest, smk.params.corpus, smk.params.seed)
