"""Content-addressed build cache for generated samples: each distinct sample is compiled once, ever.

Run from Snakemake (rule pcgbench_build: every sample of a generations file into the cache, beside other
jobs) or through the evaluation, which finds every entry built.

    cache = BuildCache(BuildConfig(cache_dir=Path("results/pcgbench/build_cache"), jobs=2))
    results = cache.build_all([BuildRequest(problem=p, exec_model="omp", body=body), ...])

Two levels, both keyed by SHA-256:
- object: the sample's translation unit (prompt + body), the compile command with the paths replaced by
  placeholders, and the compiler's version text. The same body generated twice (common at low temperature)
  hashes the same and is compiled once; a re-run finds every key and compiles nothing.
- executable: the object's key, the driver object's content hash and the link command.
A failed compile is cached too (its trimmed log is the result), so a re-run does not retry it. Driver
objects (one per problem and execution model, serial sharing OpenMP's: toolchains.driver_exec_model; keyed by the hash
of their sources and flags) are kept in the machine's build cache (machine_cache.machine_cache_dir), so that every
evaluation on the machine reuses them, and are compiled beside the first samples rather than before them.
Entries are written to a temporary name and renamed, so concurrent builders and killed runs never leave a
half-written entry under a real key. Compiles of distinct keys run in parallel (`jobs` threads, each
running one compiler process). The compiler reads generated source, so it runs as the unprivileged
sandbox user under the sandbox's limits, in the sandbox's mount view (sandbox.run_confined: no host /tmp, /var,
/run or home folders, so `#include` or `.incbin` of a host file fails). A failure of the sandbox itself raises
(sandbox.SandboxFailure, judged from the wrappers' own status) instead of becoming a failed build. Every built
sample is then inspected (tampering.py): what its object defines or calls beyond its function is its verdict
(BuildResult.finding), and it is never run. Entries above max_entry_mb are build errors; the cache is trimmed to
max_cache_mb, least recently used first.
"""


import concurrent.futures
import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from workflow_scripts.common import Progress, write_json
from workflow_scripts.common.config import schema_default
from workflow_scripts.measure import driver_program, sandbox, suite, tampering, toolchains
from workflow_scripts.measure.toolchains import compiler_version

logger = logging.getLogger(__name__)

# Fixed names that stand for a build's temporary files in the command line a cache key hashes, so that the key
# depends on the compiler, flags and inputs, never on where a build happened to run.
KEY_SOURCE_PATH, KEY_OBJECT_PATH = Path("@SRC@"), Path("@OBJ@")


@dataclasses.dataclass(kw_only=True)
class BuildConfig:
    cache_dir: Path  # where objects and executables are kept (driver objects: the machine's cache)
    jobs: int = schema_default("measure.jobs")  # compiler processes at once
    # ParEval's limit is 30 s; nvcc needs more
    compile_timeout_s: float = schema_default("measure.compile_timeout_s")
    compiler_memory_mb: int = 8192  # address-space limit of one compiler process
    log_chars: int = 2000  # how much of a failing compiler's output is kept in the result
    # An object or executable larger than this is a build error, never an entry (a sample's `static char
    # big[200 << 20] = {1};` is 200 MB in its object and again in its executable; the suite's largest is a few MB).
    max_entry_mb: int = 64
    # The cache's objects and executables together; past it the least recently used are removed (trim), so that
    # a stream of large samples cannot fill the disk. A removed entry is built again when it is asked for.
    max_cache_mb: int = 8192

    def __post_init__(self) -> None:
        # Absolute: the sandboxed compiler runs in its own working directory.
        self.cache_dir = Path(self.cache_dir).resolve()
        for name in ("jobs", "compile_timeout_s", "compiler_memory_mb", "log_chars", "max_entry_mb", "max_cache_mb"):
            if not getattr(self, name) > 0:
                raise ValueError(f"BuildConfig.{name} must be > 0, got {getattr(self, name)!r}")


@dataclasses.dataclass(frozen=True)
class BuildRequest:
    problem: suite.Problem
    exec_model: str
    body: str
    sanitizer: str | None = None  # toolchains.TSAN: the race-check build of an OpenMP sample (run.check_races)


@dataclasses.dataclass(kw_only=True)
class BuildResult:
    key: str  # the executable's key (or the object's when the compile failed)
    ok: bool
    exe: Path | None
    log: str  # the compiler's output, trimmed (empty on success unless it warned)
    compile_s: float  # time spent compiling and linking in this run (0 when everything was cached)
    cached: bool  # True when nothing had to be compiled
    # What the sample's object defines or calls beyond its function (tampering.inspect_sample): the sample's
    # verdict, never run. None when clean, and for race-check builds (the regular build of the source is inspected).
    finding: tampering.Finding | None = None


def _digest(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def trim_log(text: str, limit: int) -> str:
    """Keep the head (the first errors are the informative ones) and the tail of a long compiler log."""
    if len(text) <= limit:
        return text
    head = limit * 3 // 4
    return text[:head] + f"\n[... {len(text) - limit} characters trimmed ...]\n" + text[-(limit - head):]


def _run_compiler(argv: list[str], cfg: BuildConfig, workdir: Path) -> tuple[int, str]:
    """Run one compiler command confined; returns (exit code, combined output).

    The compiler reads generated source, so it runs in the sandbox (sandbox.run_confined): it sees only the
    system's software, the project's folders and `workdir`, as uid 65534 in a user namespace of its own (an
    `#include` or `.incbin` of /etc/shadow, of a file in the host's /tmp or a home, fails instead of landing in
    the build log or the object), with a wall-clock limit (template recursion, `#include </dev/zero>`), an
    address-space limit and the other rlimits, writing only to `workdir`. A compile error is a failed build
    whatever its text says; only a sandbox whose wrappers failed raises (sandbox.SandboxFailure).
    """
    limits = sandbox.SandboxLimits(wall_s=cfg.compile_timeout_s, cpu_limit_s=int(cfg.compile_timeout_s) + 1,
                                   memory_mb=cfg.compiler_memory_mb, file_size_mb=512, max_processes=256,
                                   nofile=1024, output_bytes=1 << 20)  # fmt: skip
    result = sandbox.run_confined(argv, limits=limits, workdir=workdir)
    output = result.stdout + result.stderr
    if result.outcome == sandbox.TIMEOUT:
        return 124, output + f"\ncompiler killed after {cfg.compile_timeout_s:g} s"
    if result.outcome != sandbox.EXITED:
        how = f"signal {result.signal_number}" if result.signal_number else result.outcome
        return 125, output + f"\ncompiler stopped: {how}"
    return result.returncode, output


def _work_folder(name: str) -> Path:
    """A fresh folder that only the confined compiler and we can write to (sandbox.confined_workdir)."""
    return sandbox.confined_workdir(f"pcgbench-{name}-")


def _install(built: Path, entry: Path, mode: int = 0o644) -> None:
    """Put a built file into the cache under its key atomically (copy to a temporary name, rename), so that
    a killed run never leaves a half-written entry under a real key."""
    tmp = entry.with_name(f".{entry.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    shutil.copyfile(built, tmp)
    tmp.chmod(mode)
    os.replace(tmp, entry)


class BuildCache:
    def __init__(self, cfg: BuildConfig) -> None:
        self.cfg = cfg
        self.objects = cfg.cache_dir / "objects"
        self.exes = cfg.cache_dir / "exes"
        self.drivers = driver_program.drivers_dir()
        for folder in (self.objects, self.exes, self.drivers):
            folder.mkdir(parents=True, exist_ok=True)

    # ---- keys

    def object_key(self, request: BuildRequest) -> str:
        source = suite.sample_source(request.problem, request.exec_model, request.body)
        template = toolchains.compile_sample_argv(request.problem, request.exec_model, KEY_SOURCE_PATH, KEY_OBJECT_PATH,
                                                  request.sanitizer)  # fmt: skip
        return _digest("object", source, json.dumps(template), compiler_version(template[0]))

    # ---- one entry

    def _compile_object(self, request: BuildRequest, key: str) -> tuple[bool, str, float]:
        """Compile (or find) the object for `key`; returns (ok, trimmed log, seconds spent compiling)."""
        obj, meta = self.objects / f"{key}.o", self.objects / f"{key}.json"
        if meta.exists():
            record = json.loads(meta.read_text())
            # A failure logged by a broken sandbox of an earlier version of the harness (which judged sandbox
            # health from the compiler's output) is no verdict on the sample: compile it again. A sample that
            # writes such a line itself gains only a compile.
            broken = not record["ok"] and record["log"].lstrip().startswith(("bwrap: ", "prlimit: ", "setpriv: "))
            if (not record["ok"] or obj.exists()) and not broken:
                if obj.exists():
                    os.utime(obj)  # recently used: the last to go when the cache is trimmed
                return record["ok"], record["log"], 0.0
        suffix = suite.sample_suffix(request.exec_model)
        work = _work_folder(key[:16])
        tmp_src, tmp_obj = work / f"sample{suffix}", work / "sample.o"
        tmp_src.write_text(suite.sample_source(request.problem, request.exec_model, request.body))
        tmp_src.chmod(0o644)
        started = time.perf_counter()
        argv = toolchains.compile_sample_argv(request.problem, request.exec_model, tmp_src, tmp_obj, request.sanitizer)
        code, output = _run_compiler(argv, self.cfg, work)
        seconds = time.perf_counter() - started
        # The log names the work folder's file; show the sample's name instead.
        output = output.replace(str(tmp_src), f"sample{suffix}")
        ok = code == 0 and tmp_obj.exists()
        if ok and (too_big := self._too_big(tmp_obj, "object")):
            ok, output = False, output + too_big
        if ok:
            _install(tmp_obj, obj)
        shutil.rmtree(work, ignore_errors=True)
        log = trim_log(output, self.cfg.log_chars)
        write_json(meta, {"ok": ok, "log": log, "compile_s": seconds})
        return ok, log, seconds

    def _link(self, request: BuildRequest, object_key: str, driver_obj: Path) -> tuple[str, bool, str, float]:
        template = toolchains.link_argv(request.problem, request.exec_model, KEY_OBJECT_PATH, KEY_SOURCE_PATH,
                                        KEY_OBJECT_PATH, request.sanitizer)  # fmt: skip
        driver_hash = hashlib.sha256(driver_obj.read_bytes()).hexdigest()
        key = _digest("exe", object_key, driver_hash, json.dumps(template))
        exe = self.exes / key
        if exe.exists():
            os.utime(exe)  # recently used (trim)
            return key, True, "", 0.0
        work = _work_folder(key[:16])
        sample_obj, work_driver = work / "sample.o", work / "driver.o"
        shutil.copyfile(self.objects / f"{object_key}.o", sample_obj)
        shutil.copyfile(driver_obj, work_driver)
        started = time.perf_counter()
        code, output = _run_compiler(toolchains.link_argv(request.problem, request.exec_model, sample_obj, work_driver,
                                                          work / "sample.exe", request.sanitizer), self.cfg, work)
        seconds = time.perf_counter() - started
        tmp = work / "sample.exe"
        if code == 0 and tmp.exists() and (too_big := self._too_big(tmp, "executable")):
            code, output = 1, output + too_big
        if code != 0 or not tmp.exists():
            shutil.rmtree(work, ignore_errors=True)
            return key, False, trim_log(output, self.cfg.log_chars), seconds
        # World-readable and executable: the sandbox runs it as an unprivileged user.
        _install(tmp, exe, mode=0o755)
        shutil.rmtree(work, ignore_errors=True)
        return key, True, trim_log(output, self.cfg.log_chars), seconds

    def _too_big(self, built: Path, what: str) -> str:
        """Why `built` may not become an entry (larger than max_entry_mb), or ""."""
        size_mb = built.stat().st_size / 2**20
        if size_mb <= self.cfg.max_entry_mb:
            return ""
        return (f"\nthe {what} is {size_mb:.0f} MB, above the build cache's limit of {self.cfg.max_entry_mb} MB per "
                "entry (BuildConfig.max_entry_mb): not kept, not run")

    def trim(self) -> int:
        """Remove the least recently used objects and executables until the cache holds at most max_cache_mb;
        returns how many were removed. An object's record stays (its verdict and log), so a removed object is
        compiled again only when a sample needs it."""
        entries = [p for folder in (self.objects, self.exes) for p in folder.iterdir()
                   if p.is_file() and not p.name.startswith(".") and p.suffix != ".json"]  # fmt: skip
        stats = {p: p.stat() for p in entries}
        total = sum(st.st_size for st in stats.values())
        limit = self.cfg.max_cache_mb * 2**20
        removed = 0
        for path in sorted(entries, key=lambda p: stats[p].st_mtime):
            if total <= limit:
                break
            path.unlink(missing_ok=True)
            total -= stats[path].st_size
            removed += 1
        if removed:
            logger.info("build cache over %d MB: removed the %d least recently used entries", self.cfg.max_cache_mb,
                        removed)  # fmt: skip
        return removed

    # ---- many at once

    def build_all(self, requests: list[BuildRequest]) -> list[BuildResult]:
        """Build every request (distinct sources once, in parallel); results in the order of `requests`."""
        with self.building(requests) as results:
            return [result.result() for result in results]

    @contextlib.contextmanager
    def building(self, requests: list[BuildRequest], overlap: bool = True) -> Iterator[list[concurrent.futures.Future]]:
        """Start building every request and give one future BuildResult per request, in the order of
        `requests`, while the builds go on: a caller may use the first results before the last are built.
        Leaving the block waits for the builds started (the queued ones are cancelled if it raised). Without
        `overlap` every build is done before the block starts (a caller whose runs would share the compilers'
        cores: MeasureConfig.overlaps_builds_and_runs).

        Distinct sources are built once. The pool works in the order of `requests`, each preceded by what it
        needs that is not queued yet: on a cold machine its standard header (precompiled once per machine; a
        compile waits on its model's) and its driver. Each driver object is queued one (problem, exec_model) ahead of
        the first source that links it, so that no link holds its worker idle while its driver compiles (0.6 s
        against 0.1 s for a source). A source's cache key names its header's precompiled form, so it is computed
        by the worker, once that header is built: the first samples are built and run while the race-check
        builds' header (clang's) is still being precompiled."""
        pool = concurrent.futures.ThreadPoolExecutor(self.cfg.jobs)
        try:
            if any(r.sanitizer is not None for r in requests):  # without the race check's tools, stop here
                ok, why = toolchains.race_check_status()
                if not ok:
                    raise RuntimeError(why)
            headers: dict[tuple[str, str | None], concurrent.futures.Future] = {}

            def queue_header(exec_model: str, sanitizer: str | None) -> None:
                if (exec_model, sanitizer) not in headers:
                    headers[exec_model, sanitizer] = pool.submit(toolchains.standard_header_dir, exec_model, sanitizer)

            # One driver per (problem, driver execution model): serial and OpenMP samples of a problem share theirs.
            kinds = {(r.problem.name, toolchains.driver_exec_model(r.exec_model)): r.problem for r in requests}
            position = {kind: i for i, kind in enumerate(kinds)}
            order = list(kinds)
            drivers: dict[tuple[str, str], concurrent.futures.Future] = {}

            def queue_driver(i: int) -> None:
                if i < len(order) and order[i] not in drivers:
                    queue_header(order[i][1], None)
                    drivers[order[i]] = pool.submit(driver_program.build_driver, kinds[order[i]], order[i][1], self.drivers)

            # Requests for the same source (problem, exec_model, sanitizer, body) have the same key.
            first_request: dict[tuple, BuildRequest] = {}
            for request in requests:
                first_request.setdefault(_source_identity(request), request)
            logger.info("building %d samples: %d distinct sources", len(requests), len(first_request))
            # Counted per distinct source (compile and link, or found in the cache), as the pool finishes them.
            progress = Progress("builds", total=len(first_request), unit="build", logger=logger)

            def build_one(request: BuildRequest, header: concurrent.futures.Future,
                          driver: concurrent.futures.Future) -> BuildResult:  # fmt: skip
                header.result()
                key = self.object_key(request)
                if (refused := tampering.file_probe(request.body)) is not None:  # not compiled: its log would quote
                    progress.advance()
                    return BuildResult(key=key, ok=True, exe=None, log="", compile_s=0.0, cached=False,
                                       finding=refused)  # fmt: skip
                ok, log, compile_s = self._compile_object(request, key)
                finding = None
                if ok:
                    exe_key, ok, link_log, link_s = self._link(request, key, driver.result())
                    if ok and request.sanitizer is None:
                        finding = tampering.inspect_source(request.exec_model, request.body) or tampering.inspect_sample(
                            request.problem, request.exec_model, self.objects / f"{key}.o", driver.result(),
                            self.exes / exe_key)  # fmt: skip
                    key, log, compile_s = exe_key, (log + link_log).strip(), compile_s + link_s
                progress.advance()
                return BuildResult(key=key, ok=ok, exe=self.exes / key if ok else None, log=log, compile_s=compile_s,
                                   cached=compile_s == 0.0, finding=finding)  # fmt: skip

            built = {}
            for identity, request in first_request.items():
                queue_header(request.exec_model, request.sanitizer)
                i = position[(request.problem.name, toolchains.driver_exec_model(request.exec_model))]
                queue_driver(i)
                queue_driver(i + 1)
                built[identity] = pool.submit(build_one, request, headers[request.exec_model, request.sanitizer],
                                              drivers[order[i]])  # fmt: skip
            # A duplicate's result is its first occurrence's, cached and with its compile time counted once.
            results, seen = [], set()
            for identity in map(_source_identity, requests):
                results.append(built[identity] if identity not in seen else _as_duplicate(built[identity]))
                seen.add(identity)
            if not overlap:
                concurrent.futures.wait(results)
            yield results
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        progress.finish()
        self.trim()


def _source_identity(request: BuildRequest) -> tuple:
    """What a request's source and flags, hence its cache key, are made of."""
    return request.problem.name, request.exec_model, request.sanitizer, request.body


def _as_duplicate(first: concurrent.futures.Future) -> concurrent.futures.Future:
    """A future of `first`'s BuildResult as a duplicate's: cached, no compile time of its own."""
    duplicate: concurrent.futures.Future = concurrent.futures.Future()

    def copy(done: concurrent.futures.Future) -> None:
        if done.exception() is not None:
            duplicate.set_exception(done.exception())
        else:
            duplicate.set_result(dataclasses.replace(done.result(), compile_s=0.0, cached=True))

    first.add_done_callback(copy)
    return duplicate
