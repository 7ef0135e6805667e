"""Run programs through the sandbox as whoever runs this script, and print what happened as one JSON line.

test_rootless.py runs it as an unprivileged uid (from the root test process, with setpriv), so that the
harness takes its rootless mode exactly as it would for a normal user on a cluster node:

    python3 tests/measure/rootless_probe.py sandbox SPEC.json    # run_sandboxed, one case at a time
    python3 tests/measure/rootless_probe.py evaluate SPEC.json   # evaluate_samples on given bodies

sandbox SPEC: {"exe": host path, "cases": [{"name", "args", "limits": {...}, "nice": 0, "stdin": text}, ...]};
each case runs `exe args` (or its "argv", with exe at /tmp/prog) in the sandbox, "stdin" on its standard input ("@PROBE_PID@" in args becomes this
script's PID). evaluate SPEC: {"problem", "samples": [{"model", "body"}, ...], "out_dir",
"cache_dir", "config": {EvaluateConfig fields}}. Both report, besides the results, the warnings the harness
logged and any process of this uid other than this script left alive after the runs (there must be none).
"""

import json
import logging
import os
import sys
import time
from pathlib import Path

from workflow_scripts.measure import sandbox

INSIDE = "/tmp/prog"  # where the executable appears inside the sandbox


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def live_processes() -> list[str]:
    """Live processes of this uid other than this script (and its threads)."""
    left = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue  # gone meanwhile
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if not fields.get("Uid", "").split() or "State" not in fields:
            continue  # read while the process was being torn down: its status is partly gone, and so is it
        # A zombie has ended: bwrap's orphaned PID 1 lingers as one until the machine's init reaps it.
        if int(fields["Uid"].split()[0]) == os.getuid() and not fields["State"].strip().startswith("Z"):
            left.append(f"{entry.name} {fields['Name'].strip()}")
    return left


def survivors(grace_s: float = 5.0) -> list[str]:
    """What a run left alive. bwrap exits as soon as the program has, while the sandbox's PID 1 is still
    tearing the namespace down (every process in it already SIGKILLed, its tmpfs being freed), so a process
    counts only if it is still alive `grace_s` later."""
    deadline = time.monotonic() + grace_s
    while (left := live_processes()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def run_cases(spec: dict) -> dict:
    results = {}
    for case in spec["cases"]:
        limits = sandbox.SandboxLimits(**({"wall_s": 5.0} | case.get("limits", {})))
        args = [arg.replace("@PROBE_PID@", str(os.getpid())) for arg in case.get("args", [])]
        result = sandbox.run_sandboxed(case.get("argv", [INSIDE, *args]), limits=limits, binds={Path(spec["exe"]): INSIDE},
                                       nice=case.get("nice", 0),
                                       stdin=case["stdin"].encode() if "stdin" in case else None)  # fmt: skip
        results[case["name"]] = {
            "outcome": result.outcome, "returncode": result.returncode, "signal": result.signal_number,
            "verdict": sandbox.verdict_for(result, cpu_limit_s=limits.cpu_limit_s), "wall_s": result.wall_s,
            "stdout": result.stdout[:300], "stdout_len": len(result.stdout), "stderr": result.stderr[-300:],
            "survivors": survivors(),
        }  # fmt: skip
    return results


def evaluate(spec: dict) -> dict:
    from workflow_scripts.measure import suite
    from workflow_scripts.pcgbench.evaluation import EvaluateConfig, evaluate_samples
    from workflow_scripts.pcgbench.samples import Sample

    problem = suite.get_problem(spec["problem"])
    samples = [Sample(generator="rootless", problem=problem, exec_model=s["model"], sample_index=i, body=s["body"])
               for i, s in enumerate(spec["samples"])]  # fmt: skip
    cfg = EvaluateConfig(cache_dir=Path(spec["cache_dir"]), **spec["config"])
    rows, _ = evaluate_samples(samples, Path(spec["out_dir"]), cfg)
    first = rows.drop_duplicates("sample_id").sort_values("sample_index")
    return {"verdicts": list(first["verdict"]), "details": list(first["detail"])}


def main(mode: str, spec_path: Path) -> dict:
    collect = Collect()
    logging.getLogger().addHandler(collect)
    spec = json.loads(spec_path.read_text())
    out = {"uid": os.getuid(), "rootless": sandbox.rootless()}
    try:
        out["results"] = run_cases(spec) if mode == "sandbox" else evaluate(spec)
    except sandbox.SandboxUnavailable as err:  # the harness's own failure, reported as such
        out["error"] = f"{type(err).__name__}: {err}"
    out["warnings"] = collect.messages
    out["survivors"] = survivors()
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], Path(sys.argv[2]))))
