"""The harness as a normal user (rootless mode): the sandbox's own checks, the hostile programs contained with
the same verdicts as in root mode, an evaluation that judges samples and not the harness, and a broken
sandbox that stops before any sample is judged.

The root test process drops to an unprivileged uid (setpriv) and runs rootless_probe.py as that uid, which
runs the programs through sandbox.run_sandboxed and evaluate_samples and prints what happened. The venv's
interpreter links into root's home (mode 700), so the probe runs under the system's python3 (same version)
with the repository and the venv's site-packages on PYTHONPATH. Every hostile program runs only through the
sandbox, and only after the harmless checks of this mode have passed.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import pytest

from tests.pcgbench.test_evaluate import HOSTILE, hostile_body
from workflow_scripts.measure import sandbox, suite, verdicts
from workflow_scripts.pcgbench import evaluation
from workflow_scripts.pcgbench.evaluation import EvaluateConfig, evaluate_samples
from workflow_scripts.pcgbench.samples import Sample

REPO = Path(__file__).resolve().parents[2]
PROBE = Path(__file__).with_name("rootless_probe.py")
PROGRAMS = Path(__file__).with_name("programs.cpp")
SYSTEM_PYTHON = Path("/usr/bin/python3")
# Not 65534: root-mode sandboxes (this suite's other tests, other runs on the machine) run as 65534, and
# they would share its per-user process count and its process listings with the programs here.
ROOTLESS_UID = 65533
FAKE_WRAPPER_ERROR = "bwrap: Can't mount proc on /newroot/proc: Operation not permitted"
# Prints the pipes that every process inside holds, then those of its own stdout and stderr.
PIPES_SEEN = ("import glob, os\ndef pipes(paths):\n    return sorted({os.readlink(p) for p in paths if os.path.exists(p) "
              "and os.readlink(p).startswith('pipe:')})\n"
              "print(pipes(glob.glob('/proc/[0-9]*/fd/*')))\nprint(pipes(['/proc/self/fd/1', '/proc/self/fd/2']))")
DROP = ["setpriv", f"--reuid={ROOTLESS_UID}", f"--regid={ROOTLESS_UID}", "--clear-groups", "--inh-caps=-all"]

as_unprivileged_user = pytest.mark.skipif(os.geteuid() != 0, reason="drops to an unprivileged uid from root (as a "
                                          "normal user the engine's other tests run in rootless mode themselves)")


def uid_processes(grace_s: float = 5.0) -> list[str]:
    """Live processes of ROOTLESS_UID still there `grace_s` later (not zombies, which have ended: a sandbox's
    PID 1 may tear its namespace down after bwrap has exited and wait a moment for init to reap it)."""
    deadline = time.monotonic() + grace_s
    while True:
        out = subprocess.run(["ps", "-u", str(ROOTLESS_UID), "-o", "pid=,stat=,comm="], capture_output=True, text=True)
        live = [line for line in out.stdout.splitlines() if not line.split()[1].startswith("Z")]
        if not live or time.monotonic() > deadline:
            return live
        time.sleep(0.05)


@pytest.fixture(scope="module")
def workdir():
    """A folder the unprivileged uid owns (pytest's own temporary folders are root's, mode 700)."""
    if not SYSTEM_PYTHON.exists():
        pytest.skip(f"{SYSTEM_PYTHON} is missing")
    version = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True,
                             text=True).stdout.strip()  # fmt: skip
    if version != str(sys.version_info[:2]):
        pytest.skip(f"{SYSTEM_PYTHON} is Python {version}, not the venv's {sys.version_info[:2]}")
    # The unprivileged uid must reach the checkout (a clone inside a mode-700 folder, e.g. mktemp -d, it cannot).
    blocked = [str(p) for p in PROBE.resolve().parents if p.stat().st_mode & 0o001 == 0]
    if blocked:
        pytest.skip(f"uid {ROOTLESS_UID} cannot enter {blocked[0]}: clone the repository where others may read")
    folder = Path(tempfile.mkdtemp(prefix="pcgbench-rootless-"))
    os.chown(folder, ROOTLESS_UID, ROOTLESS_UID)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def programs(workdir) -> Path:
    exe = workdir / "programs"
    subprocess.run(["g++", "-O1", "-std=c++17", "-pthread", str(PROGRAMS), "-o", str(exe)], check=True)
    exe.chmod(0o755)
    return exe


def probe(mode: str, spec: dict, workdir: Path) -> dict:
    """Run rootless_probe.py as ROOTLESS_UID; its report, after checking it ran unprivileged, in rootless mode,
    and left no process of that uid behind."""
    spec_path = workdir / f"{mode}.json"
    spec_path.write_text(json.dumps(spec))
    site_packages = Path(sysconfig.get_paths()["purelib"]).resolve()  # the venv's, wherever its link points
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(workdir), "TMPDIR": str(workdir),
           "LANG": "C.UTF-8", "PYTHONPATH": f"{REPO}:{site_packages}", "PYTHONDONTWRITEBYTECODE": "1"}  # fmt: skip
    proc = subprocess.run([*DROP, str(SYSTEM_PYTHON), str(PROBE), mode, str(spec_path)], env=env, cwd=workdir,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.splitlines()[-1])
    assert (report["uid"], report["rootless"], report.get("error")) == (ROOTLESS_UID, True, None)
    assert report["survivors"] == [] and uid_processes() == []
    return report


HARMLESS_PASSED = []  # set when the harmless checks pass: the hostile programs run only after them


@as_unprivileged_user
def test_rootless_sandbox_runs_harmless_programs_as_uid_65534_without_raised_priority(workdir, programs):
    cases = [
        {"name": "hello", "args": ["hello", "world"]},
        {"name": "exit3", "args": ["exit3"]},
        {"name": "whoami", "args": ["whoami"]},
        {"name": "priority", "args": ["priority"], "nice": -7},
        {"name": "priority_again", "args": ["priority"], "nice": -7},
        {"name": "sleep", "args": ["sleep", "30"], "limits": {"wall_s": 1.0}},
        # A wrapper's error line printed by the program is the program's: a crash, not a broken sandbox.
        {"name": "fake_wrapper_error", "argv": ["sh", "-c", 'echo "$1" >&2; exit 1', "sh", FAKE_WRAPPER_ERROR]},
        {"name": "stdin", "argv": ["sh", "-c", "cat; echo end"], "stdin": "nonce 1234\n"},
        # Of the host's /tmp, /var, /run and homes nothing shows; the private /tmp holds only the bound program.
        {"name": "host_folders", "argv": ["sh", "-c", "for p in /var /run /home /root /srv /mnt; do [ -e $p ] && "
                                          "echo $p; done; ls -A /tmp"]},  # fmt: skip
        {"name": "uid_map", "argv": ["cat", "/proc/self/uid_map"]},
        # No process inside (bwrap's PID 1 is readable here: the same uid) holds the sentinel's pipe.
        {"name": "pipes", "argv": ["/usr/bin/python3", "-c", PIPES_SEEN]},
    ]
    report = probe("sandbox", {"exe": str(programs), "cases": cases}, workdir)
    got = report["results"]
    assert (got["hello"]["outcome"], got["hello"]["returncode"], got["hello"]["stdout"]) == (sandbox.EXITED, 0,
                                                                                             "hello world\n")
    assert (got["exit3"]["verdict"], got["exit3"]["stderr"]) == (verdicts.CRASH, "bad\n")
    assert got["whoami"]["stdout"] == f"uid={sandbox.SANDBOX_UID} cwd_writable=1\n"
    # No raised priority as a normal user: the program keeps the harness's nice value and cannot lower it.
    own = os.getpriority(os.PRIO_PROCESS, 0)
    assert got["priority"]["stdout"] == got["priority_again"]["stdout"] == f"nice={own} lowered=0\n"
    assert sum("CAP_SYS_NICE" in w for w in report["warnings"]) == 1  # one warning, not one per run
    assert got["sleep"]["verdict"] == verdicts.VERDICT_TIMEOUT and got["sleep"]["wall_s"] < 4.0
    assert (got["fake_wrapper_error"]["verdict"], got["fake_wrapper_error"]["stderr"]) == (verdicts.CRASH,
                                                                                           FAKE_WRAPPER_ERROR + "\n")
    assert got["stdin"]["stdout"] == "nonce 1234\nend\n"
    assert got["host_folders"]["stdout"] == "prog\n"
    # bwrap nests the program's namespace in one of its own, where the calling user is 0: the map names that uid.
    assert got["uid_map"]["stdout"].split() == [str(sandbox.SANDBOX_UID), "0", "1"]
    every, own = got["pipes"]["stdout"].splitlines()
    assert every == own and own.count("pipe:") == 2  # only its stdout and stderr
    HARMLESS_PASSED.append(True)


@as_unprivileged_user
def test_rootless_sandbox_contains_hostile_programs(workdir, programs):
    if not HARMLESS_PASSED:
        pytest.skip("the rootless sandbox's harmless checks did not pass (run with them)")
    # A folder outside the sandbox's /tmp that the unprivileged user may write on the host: read-only inside
    # (in the checkout's ignored .cache/, never its results/).
    (REPO / ".cache" / "tests").mkdir(parents=True, exist_ok=True)
    outside = Path(tempfile.mkdtemp(prefix="rootless-outside-", dir=REPO / ".cache" / "tests"))
    os.chown(outside, ROOTLESS_UID, ROOTLESS_UID)
    canary = outside / "canary"
    canary.write_text("keep")
    os.chown(canary, ROOTLESS_UID, ROOTLESS_UID)
    cases = [
        {"name": "fork_bomb", "args": ["fork_bomb"], "limits": {"wall_s": 3.0, "max_processes": 64}},
        # What stops the bomb: RLIMIT_NPROC, counted in the sandbox's user namespace. A shell counts the
        # namespace's processes with a glob (a builtin: it cannot fork any more either).
        {"name": "fork_bomb_count", "argv": ["sh", "-c", "/tmp/prog fork_bomb & sleep 1.5; set -- /proc/[0-9]*; "
                                             "echo $#"], "limits": {"wall_s": 5.0, "max_processes": 64}},
        {"name": "infinite_loop", "args": ["infinite_loop"], "limits": {"wall_s": 1.5}},
        {"name": "cpu_burn", "args": ["cpu_burn"], "limits": {"wall_s": 10.0, "cpu_limit_s": 1}},
        {"name": "huge_alloc", "args": ["huge_alloc"]},
        {"name": "disk_filler", "args": ["disk_filler"], "limits": {"file_size_mb": 16}},
        {"name": "many_files", "args": ["many_files"], "limits": {"tmp_mb": 32}},
        {"name": "tcp", "args": ["tcp"]},
        {"name": "write_outside", "args": ["write_outside", str(outside / "escape_marker")]},
        {"name": "delete", "args": ["delete", str(canary)]},
        {"name": "delete_own_exe", "args": ["delete", "/tmp/prog"]},
        {"name": "kill_parent", "args": ["kill_parent"]},
        {"name": "kill_all", "args": ["kill_all"]},  # the probe, the same user outside, must survive it
        {"name": "kill_pid", "args": ["kill_pid", "@PROBE_PID@"]},  # the probe's own PID: not in the namespace
        {"name": "print_1gb", "args": ["print_1gb"], "limits": {"output_bytes": 1 << 16}},
        {"name": "stack_overflow", "args": ["stack_overflow"]},
        {"name": "detached_thread", "args": ["detached_thread"], "limits": {"wall_s": 10.0}},
        {"name": "detached_daemon", "args": ["detached_daemon"], "limits": {"wall_s": 10.0}},
    ]
    try:
        got = probe("sandbox", {"exe": str(programs), "cases": cases}, workdir)["results"]
        assert not (outside / "escape_marker").exists() and canary.read_text() == "keep"
    finally:
        shutil.rmtree(outside, ignore_errors=True)
    assert 32 < int(got.pop("fork_bomb_count")["stdout"]) <= 64
    got_verdicts = {name: run["verdict"] for name, run in got.items()}
    assert got_verdicts == {
        "fork_bomb": verdicts.VERDICT_TIMEOUT, "infinite_loop": verdicts.VERDICT_TIMEOUT,
        "cpu_burn": verdicts.KILLED_RESOURCE_LIMIT, "huge_alloc": verdicts.KILLED_RESOURCE_LIMIT,
        "disk_filler": verdicts.KILLED_RESOURCE_LIMIT, "many_files": None, "tcp": None, "write_outside": None,
        "delete": None, "delete_own_exe": None, "kill_parent": None, "kill_all": None, "kill_pid": None,
        "print_1gb": verdicts.KILLED_RESOURCE_LIMIT, "stack_overflow": verdicts.CRASH, "detached_thread": None,
        "detached_daemon": None,
    }  # fmt: skip
    # Nothing outlived its run, the bomb included.
    assert {name: run["survivors"] for name, run in got.items() if run["survivors"]} == {}
    assert got["disk_filler"]["signal"] == 25  # SIGXFSZ
    assert got["many_files"]["stdout"] == "stopped\n"
    assert got["tcp"]["stdout"].startswith("refused")
    assert all(got[name]["stdout"].startswith("denied") for name in ("write_outside", "delete", "delete_own_exe"))
    # Its parent is the namespace's PID 1 and, in rootless mode, the same uid: kill() returns 0 but the kernel
    # drops a signal sent to a namespace's init from inside it, so the run goes on and ends by itself.
    assert got["kill_parent"]["stdout"] in ("kill_parent 0\n", "kill_parent -1\n")
    assert got["kill_pid"]["stdout"] == "kill_pid -1\n"  # no such PID inside
    assert got["print_1gb"]["outcome"] == sandbox.OUTPUT_LIMIT and got["print_1gb"]["stdout_len"] == 1 << 16
    assert got["stack_overflow"]["signal"] == 11
    for name in ("detached_thread", "detached_daemon"):
        assert got[name]["stdout"] == "main done\n" and got[name]["wall_s"] < 5.0


@as_unprivileged_user
def test_rootless_evaluation_judges_samples_not_the_harness(workdir, problem):
    if not HARMLESS_PASSED:
        pytest.skip("the rootless sandbox's harmless checks did not pass (run with them)")
    bodies = [suite.reference_body(problem, "serial")]
    bodies += [hostile_body(problem, "serial", HOSTILE[name][0]) for name in ("fork_bomb", "infinite_loop")]
    # A signal handler, which no name list refuses: the kernel's system-call filter does, for a normal user too.
    bodies.append("void pcg_arm(); pcg_arm();\n" + suite.reference_body(problem, "serial")
                  + "#include <csignal>\nstatic void pcg_late(int) {}\nvoid pcg_arm() { std::signal(SIGALRM, pcg_late); }\n")
    spec = {"problem": problem.name, "samples": [{"model": "serial", "body": body} for body in bodies],
            "out_dir": str(workdir / "evaluation"), "cache_dir": str(workdir / "cache"),
            "config": {"reps": 1, "warmup": 0, "validations": 1, "run_timeout_s": 5.0, "cpu_limit_s": 20,
                       "ks": [1]}}  # fmt: skip
    report = probe("evaluate", spec, workdir)
    # The fork bomb is refused from its object before any run (resource_overuse: tampering.py); the loop runs; the
    # handler is refused by the kernel (tampering).
    assert report["results"]["verdicts"] == [verdicts.OK, verdicts.RESOURCE_OVERUSE, verdicts.VERDICT_TIMEOUT,
                                             verdicts.TAMPERING], report  # fmt: skip


def test_a_broken_sandbox_stops_the_evaluation_before_any_sample(tmp_path, cache_dir, problem, monkeypatch):
    """A wrapper that cannot work (here: bwrap given an option it does not know) fails the self-check, which
    raises naming the tool before anything is built, run or written; nothing is blamed on a sample."""
    real_argv = sandbox.sandbox_argv
    monkeypatch.setattr(sandbox, "sandbox_argv", lambda *args, **kwargs: [real_argv(*args, **kwargs)[0],
                                                                           "--no-such-option", *real_argv(*args, **kwargs)[1:]])  # fmt: skip
    sandbox.check_sandbox.cache_clear()
    samples = [Sample(generator="broken", problem=problem, exec_model="serial", sample_index=0,
                      body=suite.reference_body(problem, "serial"))]  # fmt: skip
    try:
        with pytest.raises(sandbox.SandboxUnavailable, match="bwrap.*--no-such-option"):
            evaluate_samples(samples, tmp_path, EvaluateConfig(cache_dir=cache_dir, reps=1, warmup=0, ks=(1,)))
    finally:
        sandbox.check_sandbox.cache_clear()
    assert not (tmp_path / evaluation.RESUME_LOG).exists() or (tmp_path / evaluation.RESUME_LOG).read_text() == ""


def test_a_wrapper_failing_during_a_run_stops_it_instead_of_judging(tmp_path, monkeypatch):
    """After the self-check, a run whose wrapper fails (setpriv refused, as for a normal user before rootless
    mode) raises SandboxFailure; the compile of a sample is never recorded as a build_error for it."""
    from workflow_scripts.measure import build_cache

    sandbox.check_sandbox()
    real_argv = sandbox.unprivileged_argv
    monkeypatch.setattr(sandbox, "unprivileged_argv", lambda argv, limits: real_argv(["setpriv", "--reuid=0", "--",
                                                                                       *argv], limits))  # fmt: skip
    cfg = build_cache.BuildConfig(cache_dir=tmp_path)
    with pytest.raises(sandbox.SandboxFailure, match="setpriv.*not the sample"):
        build_cache._run_compiler(["true"], cfg, tmp_path)


# ---- the modes' command lines and refusals (no unprivileged process needed)


def test_root_mode_drops_with_setpriv_into_a_user_namespace_and_rootless_mode_uses_bwraps(monkeypatch, tmp_path):
    limits = sandbox.SandboxLimits()
    inner = [*sandbox.sentinel_argv(9), "prog"]  # the sentinel step, then the program
    monkeypatch.setattr(sandbox, "rootless", lambda: False)
    root = sandbox.sandbox_argv(["prog"], limits, sentinel_fd=9)
    # The drop, then uid 65534's own user namespace, then the limits in it (they count its processes only).
    assert "--unshare-user" not in root and root[root.index("setpriv"):root.index("prlimit")] == [
        "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--",
        "unshare", "--user", "--map-user=65534", "--map-group=65534", "--"]  # fmt: skip
    rlimits = sandbox.unprivileged_argv([], limits)
    assert root[root.index("prlimit"):] == rlimits[rlimits.index("prlimit"):] + inner
    confined = sandbox.confined_argv(["cc"], limits, tmp_path, sentinel_fd=9)  # the compiler: the same chain
    assert confined[0] == "bwrap" and confined[confined.index("setpriv"):] == [*root[root.index("setpriv"):-1], "cc"]
    monkeypatch.setattr(sandbox, "rootless", lambda: True)
    sandbox.can_raise_priority.cache_clear()
    try:
        rootless = sandbox.sandbox_argv(["prog"], limits, nice=-20, sentinel_fd=9)
    finally:
        sandbox.can_raise_priority.cache_clear()
    assert rootless[:6] == ["bwrap", "--unshare-user", "--uid", "65534", "--gid", "65534"]
    assert not {"setpriv", "unshare"} & set(rootless) and "nice" not in " ".join(rootless)  # no uid drop, no priority
    assert rootless[rootless.index("--") + 1] == "prlimit" and rootless[-len(inner):] == inner
    confined = sandbox.confined_argv(["cc"], limits, tmp_path)
    assert confined[:6] == rootless[:6] and f" --bind {tmp_path} {tmp_path} " in " ".join(confined)
    assert not {"setpriv", "unshare"} & set(confined) and confined[-1] == "cc"


def test_forbidden_user_namespaces_stop_rootless_mode_saying_what_to_ask_for(monkeypatch):
    monkeypatch.setattr(sandbox, "rootless", lambda: True)
    # A namespace bwrap cannot make (no such uid syntax) stands in for a kernel that forbids them.
    monkeypatch.setattr(sandbox, "USER_NAMESPACE", ("--unshare-user", "--uid", "not-a-uid"))
    sandbox.check_user_namespaces.cache_clear()
    try:
        with pytest.raises(sandbox.SandboxUnavailable, match="user namespaces.*max_user_namespaces.*Apptainer"):
            sandbox.check_user_namespaces()
    finally:
        sandbox.check_user_namespaces.cache_clear()


def test_limits_above_a_normal_users_hard_limits_are_refused_by_name(monkeypatch):
    import resource

    monkeypatch.setattr(sandbox, "rootless", lambda: True)
    real = resource.getrlimit
    monkeypatch.setattr(sandbox.resource, "getrlimit", lambda which: (1 << 30, 1 << 30) if which == resource.RLIMIT_AS
                        else real(which))  # fmt: skip
    with pytest.raises(sandbox.SandboxUnavailable, match=r"memory_mb=4096 .* \(1024\)"):
        sandbox.check_limits(sandbox.SandboxLimits(memory_mb=4096))
    sandbox.check_limits(sandbox.SandboxLimits(memory_mb=512))


def test_a_failed_build_logged_by_a_broken_sandbox_is_built_again(tmp_path, problem):
    from workflow_scripts.measure import BuildCache, BuildConfig, BuildRequest, build_cache

    cache = BuildCache(BuildConfig(cache_dir=tmp_path))
    request = BuildRequest(problem=problem, exec_model="serial", body=suite.reference_body(problem, "serial"))
    key = cache.object_key(request)
    build_cache.write_json(cache.objects / f"{key}.json", {"ok": False, "compile_s": 0.0,
                                                     "log": "setpriv: setgroups failed: Operation not permitted\n"})
    [result] = cache.build_all([request])
    assert result.ok and not result.cached
