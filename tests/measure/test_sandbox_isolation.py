"""The sandbox's isolation from the host and from earlier runs, and its health read from the wrappers alone.

Each test closes one hole an adversarial review found (sandbox.py's docstring says how):
- a program (or a compile error) that prints a wrapper's error line is judged like any other program, and
  only a wrapper that never started the program stops the evaluation (the sentinel);
- every run has a user namespace of its own: a key added to the kernel's keyrings in one run is gone in the
  next, while the process limit still holds;
- runs and the confined compiler see no host /tmp, /var, /run, /home, /root: neither users' files there nor
  sockets; the compiler still reads the project's folders wherever they lie;
- a run's standard input carries the caller's bytes through every wrapper.

Every program runs through the sandbox (run_sandboxed) or the confinement (run_confined); none on the host.
"""

import ctypes
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from workflow_scripts.measure import build_cache, sandbox, verdicts
from workflow_scripts.measure.sandbox import SandboxLimits, run_sandboxed, verdict_for

INSIDE = "/tmp/prog"  # where a test executable appears inside the sandbox
SYSTEM_PYTHON = "/usr/bin/python3"  # under /usr, so the sandbox shows it
FAKE_WRAPPER_ERROR = "bwrap: Can't mount proc on /newroot/proc: Operation not permitted"
# The host folders where users' files and services' sockets live: none may show inside.
HIDDEN = ("/tmp", "/var", "/var/tmp", "/run", "/var/run", "/home", "/root", "/mnt", "/media", "/srv")

KEYRING_PROBE = r"""
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
/* "add": put a key into the user, user-session and session keyrings; "find": look for it in each. */
int main(int argc, char **argv) {
  const int rings[] = {-4 /* user */, -5 /* user-session */, -3 /* session */};
  const char *names[] = {"user", "user_session", "session"};
  for (int i = 0; i < 3; ++i) {
    long id = strcmp(argv[1], "add") == 0
                  ? syscall(SYS_add_key, "user", "pcgbench-probe", "leak", 4, rings[i])
                  : syscall(SYS_keyctl, 10 /* KEYCTL_SEARCH */, rings[i], "user", "pcgbench-probe", 0);
    int add = argv[1][0] == 'a';
    printf("%s=%s ", names[i], id > 0 ? (add ? "added" : "found") : (add ? "refused" : "absent"));
  }
  printf("\n");
  return 0;
}
"""


def run(argv: list[str], **kwargs) -> sandbox.SandboxResult:
    limits = kwargs.pop("limits", SandboxLimits(wall_s=10.0))
    return run_sandboxed(argv, limits=limits, **kwargs)


@pytest.fixture
def host_secret_files():
    """A world-readable file in the host's /tmp and one in /var/tmp, each holding a distinct token."""
    made = {}
    for folder in ("/tmp", "/var/tmp"):
        fd, name = tempfile.mkstemp(prefix="pcgbench-isolation-", dir=folder)
        token = f"leaked_token_{os.path.basename(name)[-8:]}_{folder.strip('/').replace('/', '_')}"
        os.write(fd, token.encode() + b"\n")
        os.close(fd)
        os.chmod(name, 0o644)
        made[Path(name)] = token
    yield made
    for path in made:
        path.unlink(missing_ok=True)


# ---- 1. health from the wrappers, not from the program's text


@pytest.mark.parametrize("code, line", [(1, FAKE_WRAPPER_ERROR), (127, "setpriv: setgroups failed: Operation not "
                                        "permitted"), (125, "nice: cannot set niceness: Permission denied")])  # fmt: skip
def test_a_program_printing_a_wrapper_error_is_judged_as_itself(code, line):
    result = run(["sh", "-c", 'echo "$1" >&2; exit "$2"', "sh", line, str(code)])
    assert (result.outcome, result.returncode, result.stderr.strip()) == (sandbox.EXITED, code, line)
    assert verdict_for(result) == verdicts.CRASH


def test_a_compile_error_naming_a_wrapper_is_a_build_error(tmp_path):
    work = sandbox.confined_workdir("pcgbench-isolation-")
    try:
        source = work / "sample.cpp"
        source.write_text(f'#line 1 "{FAKE_WRAPPER_ERROR}"\nint x = ;\n')
        code, log = build_cache._run_compiler(["g++", "-c", str(source), "-o", str(work / "sample.o")],
                                        build_cache.BuildConfig(cache_dir=tmp_path), work)  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert code == 1 and log.startswith(FAKE_WRAPPER_ERROR) and "error" in log


def test_a_wrapper_that_never_starts_the_program_is_a_sandbox_failure(monkeypatch):
    """A wrapper that exits 0, silent, without running the program is caught too: no sentinel, no result."""
    sandbox.check_sandbox()
    monkeypatch.setattr(sandbox, "unprivileged_argv", lambda argv, limits: ["sh", "-c", "echo 'wrapper gave up' >&2"])
    with pytest.raises(sandbox.SandboxFailure, match="wrapper gave up.*not the sample"):
        run(["sh", "-c", "echo hello"])


def test_a_slow_start_of_the_wrappers_does_not_count_against_the_programs_limit(monkeypatch):
    """The wall-clock limit is the program's, from the sentinel on: wrappers that take longer to start than a short
    limit (a loaded machine: seconds under a load of 20) neither time the program out nor fail the sandbox."""
    real = sandbox.sentinel_argv
    monkeypatch.setattr(sandbox, "sentinel_argv", lambda fd: ["sh", "-c", 'sleep 1; exec "$@"', "slow", *real(fd)])
    result = sandbox.run_sandboxed(["sh", "-c", "echo started"], limits=sandbox.SandboxLimits(wall_s=0.5))
    assert (result.outcome, result.returncode, result.stdout) == (sandbox.EXITED, 0, "started\n")
    assert result.wall_s >= 1.0
    timed = sandbox.run_sandboxed(["sleep", "30"], limits=sandbox.SandboxLimits(wall_s=0.5))
    assert timed.outcome == sandbox.TIMEOUT and timed.wall_s < 10


def test_no_process_inside_holds_the_sentinels_pipe():
    """The only pipes any process inside holds are the program's stdout and stderr (stdin is /dev/null): the
    sentinel step closed its pipe before the exec, and bwrap's PID 1 closed its copy (readable in rootless mode)."""
    code = "import glob, os\ndef pipes(paths):\n    return sorted({os.readlink(p) for p in paths if os.path.exists(p) and " \
           "os.readlink(p).startswith('pipe:')})\n" \
           "print(pipes(glob.glob('/proc/[0-9]*/fd/*')), pipes(['/proc/self/fd/1', '/proc/self/fd/2']))"  # fmt: skip
    every, own = run([SYSTEM_PYTHON, "-c", code]).stdout.strip().split("] [")
    assert every + "]" == "[" + own and len(own.split(",")) == 2


# ---- 2. a user namespace per run, in root mode too


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> Path:
    """The hostile and harmless test programs of test_sandbox.py."""
    exe = tmp_path_factory.mktemp("programs") / "programs"
    subprocess.run(["g++", "-O1", "-std=c++17", "-pthread", str(Path(__file__).with_name("programs.cpp")), "-o",
                    str(exe)], check=True)  # fmt: skip
    return exe


@pytest.fixture(scope="module")
def keyring_probe(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("keyring")
    (folder / "probe.c").write_text(KEYRING_PROBE)
    subprocess.run(["gcc", "-O1", str(folder / "probe.c"), "-o", str(folder / "probe")], check=True)
    return folder / "probe"


def test_keys_added_in_one_run_are_gone_in_the_next(keyring_probe):
    binds = {keyring_probe: INSIDE}
    added = run([INSIDE, "add"], binds=binds).stdout
    assert "user=added" in added and "user_session=added" in added, added
    assert run([INSIDE, "find"], binds=binds).stdout.split() == ["user=absent", "user_session=absent", "session=absent"]


def test_a_harness_with_a_session_keyring_shares_it_with_no_run(keyring_probe):
    """A harness started from a login (pam_keyinit) or a systemd service has a session keyring of its own, which
    a process keeps across the uid drop and into its user namespace: each run gets a fresh one instead."""
    libc = ctypes.CDLL(None, use_errno=True)
    number = sandbox.KEYCTL_SYSCALL.get(os.uname().machine)
    if number is None:
        pytest.skip(f"no keyctl number for {os.uname().machine}")
    binds, keyrings = {keyring_probe: INSIDE}, []

    def in_a_thread_with_a_session_keyring():
        keyrings.append(libc.syscall(number, sandbox.KEYCTL_JOIN_SESSION_KEYRING, None))  # this thread's alone
        keyrings.append(run([INSIDE, "add"], binds=binds).stdout)
        keyrings.append(run([INSIDE, "find"], binds=binds).stdout)
        keyrings.append(libc.syscall(number, 0, -3, 0))  # KEYCTL_GET_KEYRING_ID of the session keyring

    thread = threading.Thread(target=in_a_thread_with_a_session_keyring)
    thread.start()
    thread.join()
    joined, added, found, still = keyrings
    assert joined > 0 and "session=added" in added and found.split()[-1] == "session=absent"
    assert still == joined  # the harness's own keyring is untouched


def test_the_program_has_its_own_user_namespace_as_an_unprivileged_uid_outside():
    """In root mode uid 65534 inside and outside (never root outside: RLIMIT_NPROC must apply); in rootless mode
    bwrap nests the namespace in one of its own, where the calling user is 0, and the map names that."""
    outside = "0" if sandbox.rootless() else str(sandbox.SANDBOX_UID)
    result = run(["sh", "-c", "cat /proc/self/uid_map /proc/self/gid_map; id -u; grep CapEff /proc/self/status"])
    uid, gid = str(sandbox.SANDBOX_UID), str(sandbox.SANDBOX_UID)
    assert result.stdout.split() == [uid, outside, "1", gid, outside, "1", uid, "CapEff:", "0000000000000000"]


def test_the_process_limit_holds_in_the_programs_own_user_namespace(programs):
    """A fork bomb stops at RLIMIT_NPROC: the uid outside the program's namespace is not root. A shell counts
    the namespace's processes with a glob (a builtin: it cannot fork any more either): at most the limit's, and
    bwrap's PID 1 (root's in root mode, the user's in rootless mode: not uid 65534 of the program's namespace).
    The shell counts until the bomb is near its limit (a loaded machine grows it slowly), for at most ~8 s."""
    count = "set -- /proc/[0-9]*"
    wait = f"i=0; {count}; while [ $# -lt 60 ] && [ $i -lt 80 ]; do sleep 0.1; i=$((i+1)); {count}; done"
    result = run(["sh", "-c", f"{INSIDE} fork_bomb & {wait}; {count}; echo $#"], binds={programs: INSIDE},
                 limits=SandboxLimits(wall_s=15.0, max_processes=64))  # fmt: skip
    assert result.outcome == sandbox.EXITED and 32 < int(result.stdout) <= 64 + 1, result
    ps = subprocess.run(["ps", "-u", str(sandbox.SANDBOX_UID), "-o", "stat=,comm="], capture_output=True, text=True)
    assert not [line for line in ps.stdout.splitlines() if line.split()[-1] == "prog" and line.split()[0][0] != "Z"]


def test_a_fork_bomb_leaves_a_run_beside_it_able_to_fork(programs):
    """The process limit counts each run's own processes: a bomb that has reached its limit does not make a
    concurrent run's forks fail (with the limit on uid 65534's processes as a whole, it did: `Cannot fork`)."""
    bomb: list[sandbox.SandboxResult] = []
    thread = threading.Thread(target=lambda: bomb.append(run([INSIDE, "fork_bomb"], binds={programs: INSIDE},
                                                             limits=SandboxLimits(wall_s=4.0, max_processes=64))))  # fmt: skip
    thread.start()
    try:
        time.sleep(1.5)  # the bomb is at its limit
        beside = run(["sh", "-c", "for i in 1 2 3 4 5 6 7 8; do sleep 0.1 & done; wait; echo forked"],
                     limits=SandboxLimits(wall_s=5.0, max_processes=64))  # fmt: skip
    finally:
        thread.join()
    assert (beside.outcome, beside.stdout) == (sandbox.EXITED, "forked\n"), beside
    assert verdict_for(bomb[0]) == verdicts.VERDICT_TIMEOUT


# ---- 3. the mount view: the system's software and what is bound in by name, nothing of users' places


def test_runs_see_none_of_the_hosts_user_folders(host_secret_files):
    checks = " ".join(HIDDEN)
    result = run(["sh", "-c", f"for p in {checks}; do [ -e $p ] && echo $p; done; cat {' '.join(map(str, host_secret_files))}"])
    # Only the private /tmp: nothing below it is the host's.
    assert result.stdout.split() == ["/tmp"] and "leaked_token" not in result.stdout + result.stderr
    assert run(["sh", "-c", "ls -A /tmp"]).stdout == ""


@pytest.mark.parametrize("folder", ["/var/tmp", "/tmp"])
def test_runs_cannot_connect_to_host_sockets(folder):
    path = Path(tempfile.mkdtemp(prefix="pcgbench-isolation-sock-", dir=folder))
    path.chmod(0o755)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path / "s"))
        (path / "s").chmod(0o777)
        server.listen(1)
        code = "import socket, sys\ns = socket.socket(socket.AF_UNIX)\ntry:\n    s.connect(sys.argv[1]); print('connected')\n" \
               "except OSError as err:\n    print('refused', err.errno)"  # fmt: skip
        result = run([SYSTEM_PYTHON, "-c", code, str(path / "s")])
        assert result.stdout.startswith("refused"), result
    finally:
        server.close()
        shutil.rmtree(path, ignore_errors=True)


def compile_confined(source: str, tmp_path: Path, flags: tuple[str, ...] = ()) -> tuple[int, str, bytes]:
    """Compile `source` to an object through build_cache._run_compiler; (exit code, log, the object's bytes or b"")."""
    work = sandbox.confined_workdir("pcgbench-isolation-")
    try:
        (work / "sample.cpp").write_text(source)
        code, log = build_cache._run_compiler(["g++", *flags, "-c", str(work / "sample.cpp"), "-o", str(work / "sample.o")],
                                        build_cache.BuildConfig(cache_dir=tmp_path), work)  # fmt: skip
        obj = (work / "sample.o").read_bytes() if (work / "sample.o").exists() else b""
        return code, log, obj
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_the_compiler_cannot_include_host_files(host_secret_files, tmp_path):
    for path, token in host_secret_files.items():
        code, log, _ = compile_confined(f'#include "{path}"\nint main() {{}}\n', tmp_path)
        assert code != 0 and token not in log and "No such file" in log, log


def test_the_compiler_cannot_embed_host_files(host_secret_files, tmp_path):
    for path, token in host_secret_files.items():
        code, log, obj = compile_confined(f'asm(".section .rodata\\n.incbin \\"{path}\\"\\n.text");\n', tmp_path)
        assert code != 0 and token.encode() not in obj and token not in log, log


def test_the_compiler_reads_the_project_folders_wherever_they_lie(tmp_path, monkeypatch):
    """A project folder below one uid 65534 cannot enter on the host (a clone in a 0700 folder under /tmp or
    /root) is still read: the sandbox binds it at its own path, with parents it makes traversable."""
    private = Path(tempfile.mkdtemp(prefix="pcgbench-isolation-checkout-"))  # mode 0700, in the host's /tmp
    try:
        data = private / "data"
        data.mkdir(mode=0o755)
        (data / "project_header.hpp").write_text("constexpr int from_the_project = 7;\n")
        (data / "project_header.hpp").chmod(0o644)
        monkeypatch.setattr(sandbox, "project_folders", lambda: [data])
        code, log, obj = compile_confined('#include "project_header.hpp"\nint f() { return from_the_project; }\n',
                                          tmp_path, (f"-I{data}",))  # fmt: skip
        assert code == 0 and obj, log
    finally:
        shutil.rmtree(private, ignore_errors=True)


# ---- 4. standard input


def test_stdin_reaches_the_program_and_ends():
    result = run(["sh", "-c", "cat; echo end"], stdin=b"nonce 1234\n")
    assert result.stdout == "nonce 1234\nend\n"
    assert run(["sh", "-c", "cat; echo end"]).stdout == "end\n"  # None: /dev/null


def test_stdin_passes_the_priority_step():
    if not sandbox.can_raise_priority():
        pytest.skip("needs CAP_SYS_NICE (root)")
    result = run(["sh", "-c", "read secret; echo got $secret; nice"], stdin=b"s3cret\n", nice=-5)
    assert result.stdout == "got s3cret\n-5\n"


def test_stdin_that_the_program_never_reads_blocks_nothing():
    big = b"x" * (4 << 20)  # far past a pipe's buffer: the supervisor must not wait to write it all
    result = run(["sh", "-c", "echo done"], stdin=big)
    assert (result.outcome, result.stdout) == (sandbox.EXITED, "done\n") and result.wall_s < 5.0
    result = run(["sleep", "30"], stdin=big, limits=SandboxLimits(wall_s=1.0))
    assert result.outcome == sandbox.TIMEOUT and result.wall_s < 4.0
    result = run(["sh", "-c", "yes"], stdin=big, limits=SandboxLimits(wall_s=10.0, output_bytes=1 << 16))
    assert result.outcome == sandbox.OUTPUT_LIMIT and len(result.stdout) == 1 << 16
