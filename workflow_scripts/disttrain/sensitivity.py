"""One-at-a-time sensitivity of a projection's headline numbers, and the value of one assumption that gives the
paper's number.

A projection is a function `evaluate(inputs) -> {metric: value}` of a nested dict: its config section, with the
machine under "machine". A `Knob` names one assumption: one config key, or several that move together (height
and width), the group it belongs to (machine, model shape, batch, compute, overlap, memory, layout), and a range:
`low`..`high` (multiples of the configured value when `relative`, else absolute values) spread over `points`
values on a log or linear scale, or an explicit list of `values`. Keys whose configured value is an integer are
rounded to a multiple of `multiple_of`.

    rows = sweep(evaluate, inputs, knob, metrics, points=7)       # the knob moved, everything else as configured
    solve(evaluate, inputs, knob, "speedup", 0.26, rows)          # bisection to the paper's value, inside the range

`sweep` keeps a value that makes the projection impossible (no decomposition fits, a divisibility fails) with its
reason and no metric. `solve` starts from the swept bracket nearest the configured value, bisects it (on a log
scale for log knobs) and says whether the metric reaches the target continuously there or jumps past it (a best
decomposition or a fitting model switching).
`analyse` runs every knob for every metric and ranks the knobs by how far they move each metric (the swing).
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import io
import logging
import math
from collections.abc import Callable
from typing import Any

from workflow_scripts.common import write_json, write_text

logger = logging.getLogger(__name__)

Evaluate = Callable[[dict], dict[str, Any]]
GROUPS = ("machine", "model shape", "batch", "compute", "overlap", "memory", "layout")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Knob:
    name: str  # the assumption as the summary and figure name it
    paths: tuple[str, ...]  # dotted keys of the inputs, all set to the same value
    group: str  # one of GROUPS
    low: float | None = None  # with high: the range (multiples of the configured value when relative)
    high: float | None = None
    relative: bool = True
    scale: str = "log"  # "log" or "linear": how the points spread over low..high, and how solve bisects
    multiple_of: int = 1  # integer keys are rounded to a multiple of this
    values: tuple[float, ...] | None = None  # explicit values instead of low..high (no bisection between them)

    def __post_init__(self):
        where = f"sensitivity knob {self.name!r}"
        if not self.paths:
            raise ValueError(f"{where}: path is empty; give the dotted config key it varies")
        if self.group not in GROUPS:
            raise ValueError(f"{where}: group {self.group!r} is not one of {', '.join(GROUPS)}")
        if self.scale not in ("log", "linear"):
            raise ValueError(f"{where}: scale {self.scale!r} must be log or linear")
        if self.values is None:
            if self.low is None or self.high is None or not self.low < self.high:
                raise ValueError(f"{where}: give low < high (got {self.low}, {self.high}) or a list of values")
            if self.scale == "log" and self.low <= 0:
                raise ValueError(f"{where}: a log scale needs low > 0, got {self.low}; use scale: linear")
        if self.multiple_of < 1:
            raise ValueError(f"{where}: multiple_of must be >= 1, got {self.multiple_of}")

    @classmethod
    def from_config(cls, entry: dict) -> Knob:
        """From a config entry {name, path (a key or a list of keys), group, low, high, relative, scale,
        multiple_of, values}."""
        entry = dict(entry)
        path = entry.pop("path")
        values = entry.pop("values", None)
        return cls(paths=(path,) if isinstance(path, str) else tuple(path),
                   values=None if values is None else tuple(values), **entry)  # fmt: skip

    def baseline(self, inputs: dict) -> float:
        found = {path: get_path(inputs, path) for path in self.paths}
        if len(set(found.values())) != 1:
            raise ValueError(f"sensitivity knob {self.name!r} moves {list(found)} together, but their configured "
                             f"values differ: {found}; give them one knob each")  # fmt: skip
        return next(iter(found.values()))

    def cast(self, value: float, baseline: float) -> float:
        """The value as the config key takes it: integer keys rounded to a positive multiple of multiple_of."""
        if isinstance(baseline, int) and not isinstance(baseline, bool):
            return max(self.multiple_of, int(round(value / self.multiple_of)) * self.multiple_of)
        return float(value)

    def span(self, baseline: float) -> tuple[float, float]:
        if self.values is not None:
            return min(self.values), max(self.values)
        return (self.low * baseline, self.high * baseline) if self.relative else (self.low, self.high)

    def points(self, baseline: float, count: int) -> list[float]:
        """The swept values, sorted, the configured value among them."""
        if self.values is not None:
            raw = list(self.values)
        else:
            lo, hi = self.span(baseline)
            if self.scale == "log":
                raw = [lo * (hi / lo) ** (i / (count - 1)) for i in range(count)]
            else:
                raw = [lo + (hi - lo) * i / (count - 1) for i in range(count)]
        return sorted({self.cast(v, baseline) for v in raw} | {baseline})

    def midpoint(self, a: float, b: float, baseline: float) -> float:
        mid = math.sqrt(a * b) if self.scale == "log" and a > 0 and b > 0 else (a + b) / 2
        return self.cast(mid, baseline)


def get_path(inputs: dict, path: str) -> Any:
    node = inputs
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            raise ValueError(f"sensitivity: the inputs have no key {path!r} (at {key!r}); "
                             f"known keys there: {sorted(node) if isinstance(node, dict) else node!r}")  # fmt: skip
        node = node[key]
    return node


def with_value(inputs: dict, knob: Knob, value: float) -> dict:
    """A copy of the inputs with every key of the knob set to `value`."""
    out = copy.deepcopy(inputs)
    for path in knob.paths:
        *parents, last = path.split(".")
        node = out
        for key in parents:
            node = node[key]
        node[last] = value
    return out


def evaluate_at(evaluate: Evaluate, inputs: dict, knob: Knob, value: float) -> dict[str, Any]:
    """The projection with the knob at `value`; an impossible configuration gives {"error": reason}."""
    try:
        return evaluate(with_value(inputs, knob, value))
    except (ValueError, ZeroDivisionError) as error:  # the projection refuses the value, with its reason
        return {"error": str(error).splitlines()[0]}


def sweep(evaluate: Evaluate, inputs: dict, knob: Knob, metrics: list[str], points: int,
          boundary_steps: int = 6) -> list[dict]:  # fmt: skip
    """[{value, <metric>: value or None, ..., details or error}] over the knob's range, sorted by value.

    Where the projection becomes impossible between two swept values (a metric has a value at one and none at
    the other), `boundary_steps` bisections locate the edge and their points join the rows (`refined`: True), so
    that `solve` can see how far the metric gets before the edge.
    """
    baseline = knob.baseline(inputs)

    def row(value, refined=False):
        result = evaluate_at(evaluate, inputs, knob, value)
        return {"value": value, "baseline": value == baseline, "refined": refined,
                **{m: result.get(m) for m in metrics}, **{k: v for k, v in result.items() if k not in metrics}}  # fmt: skip

    rows = [row(value) for value in knob.points(baseline, points)]
    if knob.values is None:
        for metric in metrics:
            for a, b in zip(list(rows), list(rows[1:]), strict=False):
                if (a[metric] is None) == (b[metric] is None):
                    continue
                good, bad = (a, b) if b[metric] is None else (b, a)
                for _ in range(boundary_steps):
                    mid = knob.midpoint(good["value"], bad["value"], baseline)
                    if mid in (good["value"], bad["value"]) or any(r["value"] == mid for r in rows):
                        break
                    probe = row(mid, refined=True)
                    rows.append(probe)
                    good, bad = (probe, bad) if probe[metric] is not None else (good, probe)
        rows.sort(key=lambda r: r["value"])
    return rows


def _distance(knob: Knob, a: float, b: float) -> float:
    if knob.scale == "log" and a > 0 and b > 0:
        return abs(math.log(a / b))
    return abs(a - b)


def solve(evaluate: Evaluate, inputs: dict, knob: Knob, metric: str, target: float, rows: list[dict], *,
          rel_tol: float = 1e-3, max_iterations: int = 60, reach_tol: float = 0.01) -> dict:  # fmt: skip
    """The knob's value at which `metric` reaches `target`, by bisection inside the swept range.

    The bracket is the adjacent pair of swept values, nearest the configured value, between which the metric
    crosses the target (one side below it, the other at or above it, or the reverse). Bisection keeps that
    invariant until the bracket is `rel_tol` wide (or the integer steps meet), then returns its end on the
    target's side: `value`, the metric there (`metric_at_value`) and just across (`metric_across`).
    `continuous` is True when the metric at `value` is within `reach_tol` x |target| of the target; False means
    the metric jumps over the target at that value. Knobs with a list of values are not bisected.
    """
    baseline = knob.baseline(inputs)
    at_base = next(r[metric] for r in rows if r["value"] == baseline)
    if at_base is None:
        return {"reached": False, "reason": "the projection is impossible at the configured value"}
    below = at_base < target  # the side the configured value is on
    valid = [r for r in rows if r[metric] is not None]
    pairs = [(a, b) for a, b in zip(valid, valid[1:], strict=False) if (a[metric] < target) != (b[metric] < target)]
    if not pairs:
        closest = min(valid, key=lambda r: abs(r[metric] - target))
        return {"reached": False, "reason": f"not reached between {valid[0]['value']:.4g} and {valid[-1]['value']:.4g}",
                "closest_value": closest["value"], "closest_metric": closest[metric]}  # fmt: skip
    a, b = min(pairs, key=lambda p: min(_distance(knob, p[0]["value"], baseline),
                                        _distance(knob, p[1]["value"], baseline)))  # fmt: skip
    # near: the end on the configured value's side of the target; far: the end that reaches it.
    near, far = (a, b) if (a[metric] < target) == below else (b, a)
    near_v, near_m, far_v, far_m = near["value"], near[metric], far["value"], far[metric]
    iterations = 0
    while knob.values is None and iterations < max_iterations:
        if abs(far_v - near_v) <= rel_tol * max(abs(far_v), abs(near_v)):
            break
        mid = knob.midpoint(near_v, far_v, baseline)
        if mid in (near_v, far_v):  # integer steps met
            break
        iterations += 1
        y = evaluate_at(evaluate, inputs, knob, mid).get(metric)
        if y is None:  # impossible in between: stop at the bracket found so far
            break
        if (y < target) == below:
            near_v, near_m = mid, y
        else:
            far_v, far_m = mid, y
    continuous = abs(far_m - target) <= reach_tol * abs(target)
    change = far_v / baseline if knob.relative and baseline else far_v - baseline
    return {"reached": True, "value": far_v, "metric_at_value": far_m, "value_across": near_v,
            "metric_across": near_m, "continuous": continuous, "iterations": iterations,
            "change_from_configured": change, "change_kind": "ratio" if knob.relative and baseline else "difference"}  # fmt: skip


def _last_possible(rows: list[dict], metric: str, baseline: float) -> float | None:
    """The swept value farthest from the configured one, on the side of the first impossible value, at which
    the metric still has a value (the edge `sweep` located)."""
    bad = [r["value"] for r in rows if r[metric] is None]
    if not bad:
        return None
    edge = min(bad, key=lambda v: abs(v - baseline))
    side = [r["value"] for r in rows if r[metric] is not None and (r["value"] - baseline) * (edge - baseline) >= 0]
    return max(side, key=lambda v: abs(v - baseline)) if side else None


def analyse(evaluate: Evaluate, inputs: dict, knobs: list[Knob], targets: dict[str, float], *, points: int,
            rel_tol: float = 1e-3) -> dict:  # fmt: skip
    """Every knob swept and solved for every metric of `targets` ({metric: the paper's value}).

    Returns {metric: {configured, paper, knobs: [{name, group, paths, configured_value, range, low_metric,
    high_metric, min, max, swing, solved}], largest_swing, reaching}, "sweeps": {knob name: rows}} with the
    knobs ranked by swing (max - min of the metric over the knob's range).
    """
    metrics = list(targets)
    configured = evaluate(inputs)
    sweeps, out = {}, {}
    for knob in knobs:
        sweeps[knob.name] = sweep(evaluate, inputs, knob, metrics, points)
        logger.info("sensitivity: %s swept over %d values", knob.name, len(sweeps[knob.name]))
    for metric, target in targets.items():
        table = []
        for knob in knobs:
            rows = sweeps[knob.name]
            values = [r[metric] for r in rows if r[metric] is not None]
            baseline = knob.baseline(inputs)
            table.append({
                "name": knob.name, "group": knob.group, "paths": list(knob.paths), "configured_value": baseline,
                "range": [rows[0]["value"], rows[-1]["value"]],
                "metric_at_low": rows[0][metric], "metric_at_high": rows[-1][metric],
                "min": min(values) if values else None, "max": max(values) if values else None,
                "swing": (max(values) - min(values)) if values else 0.0,
                "impossible_values": [r["value"] for r in rows if r[metric] is None],
                "impossible_reason": next((r.get("error", "no value") for r in rows if r[metric] is None), None),
                "last_possible": _last_possible(rows, metric, baseline),
                "solved": solve(evaluate, inputs, knob, metric, target, rows, rel_tol=rel_tol),
            })  # fmt: skip
        table.sort(key=lambda row: -row["swing"])
        out[metric] = {"configured": configured[metric], "paper": target, "knobs": table,
                       "largest_swing": table[0]["name"] if table else None,
                       "reaching": [row["name"] for row in table if row["solved"]["reached"]]}  # fmt: skip
    out["sweeps"] = sweeps
    return out


def statement(metric: str, label: str, result: dict, fmt: Callable[[float], str]) -> str:
    """One paragraph a reader can act on: the gap, the assumption that moves it most, and what each assumption
    would have to be for the paper's number. Every number comes from `result` (analyse's entry for `metric`)."""
    table = result["knobs"]
    top = table[0]
    lines = [f"{label}: {fmt(result['configured'])} projected, paper {fmt(result['paper'])}. "
             f"It moves most with {top['name']} ({top['group']}): {fmt(top['min'])} to {fmt(top['max'])} over "
             f"{top['range'][0]:.4g} to {top['range'][1]:.4g} (configured {top['configured_value']:.4g})."]  # fmt: skip
    reached = [row for row in table if row["solved"]["reached"]]
    if reached:
        parts = []
        for row in reached:
            s = row["solved"]
            how = (f"{s['change_from_configured']:.3g}x the configured value" if s["change_kind"] == "ratio"
                   else f"configured {row['configured_value']:.4g}")  # fmt: skip
            jump = ("" if s["continuous"] else f", not continuous: {fmt(s['metric_across'])} at "
                    f"{s['value_across']:.4g}, {fmt(s['metric_at_value'])} at {s['value']:.4g}")  # fmt: skip
            parts.append(f"{row['name']} = {s['value']:.4g} ({how}{jump})")
        lines.append("The paper's value is reached, one assumption at a time, at: " + "; ".join(parts) + ".")
    edges = [f"{row['name']} {'below' if min(row['impossible_values']) < row['configured_value'] else 'above'} "
             f"{row['last_possible']:.4g} ({row['impossible_reason']})"
             for row in table if row["impossible_values"] and row["last_possible"] is not None]  # fmt: skip
    if edges:
        lines.append("The projection has no value for " + "; ".join(edges) + ".")
    missed = [f"{row['name']} (closest {fmt(row['solved']['closest_metric'])} at {row['solved']['closest_value']:.4g})"
              for row in table if not row["solved"]["reached"] and "closest_value" in row["solved"]]  # fmt: skip
    if missed:
        lines.append("Not reached within their ranges: " + "; ".join(missed) + ".")
    return " ".join(lines)


def table_csv(result: dict, knobs: list[Knob], metrics: list[str]) -> str:
    """The sweeps as CSV: one row per knob and value, the metrics and the projection's details beside them."""
    details = sorted({k for rows in result["sweeps"].values() for r in rows for k in r}
                     - {"value", "baseline", "refined", "error", *metrics})  # fmt: skip
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["assumption", "group", "config_keys", "value", "is_configured", "is_refined", *metrics, *details,
                     "error"])  # fmt: skip
    for knob in knobs:
        for r in result["sweeps"][knob.name]:
            writer.writerow([knob.name, knob.group, " ".join(knob.paths), r["value"], r["baseline"], r["refined"],
                             *(r[m] for m in metrics), *(r.get(k, "") for k in details), r.get("error", "")])  # fmt: skip
    return buffer.getvalue()


def run(evaluate: Evaluate, inputs: dict, section: dict, targets: dict[str, float], labels: dict[str, str],
        formats: dict[str, Callable[[float], str]], json_path: str, csv_path: str) -> dict:  # fmt: skip
    """Analyse every knob of the config's sensitivity `section` ({points, rel_tol, knobs}); write the JSON
    (tables, statements and sweeps) and the CSV of the sweeps."""
    knobs = [Knob.from_config(entry) for entry in section["knobs"]]
    names = [k.name for k in knobs]
    if len(set(names)) != len(names):
        raise ValueError(f"sensitivity knobs must have distinct names, got {names}")
    result = analyse(evaluate, inputs, knobs, targets, points=section["points"], rel_tol=section["rel_tol"])
    for metric in targets:
        result[metric]["statement"] = statement(metric, labels[metric], result[metric], formats[metric])
        logger.info("%s", result[metric]["statement"])
    write_json(json_path, result)
    write_text(csv_path, table_csv(result, knobs, list(targets)))
    return result


def summary_section(result: dict) -> dict:
    """What a study summary carries from `run`'s result: per metric the configured and paper values, the
    statement, and one row per knob (range, the metric's extremes, and the solved value); the sweeps stay in the
    sensitivity files."""
    metrics = [key for key in result if key != "sweeps"]
    solved_keys = ("reached", "value", "metric_at_value", "value_across", "metric_across", "continuous",
                   "change_from_configured", "change_kind", "reason", "closest_value", "closest_metric")  # fmt: skip
    out = {}
    for metric in metrics:
        entry = result[metric]
        out[metric] = {
            "configured": entry["configured"], "paper": entry["paper"], "statement": entry["statement"],
            "largest_swing": entry["largest_swing"], "reaching": entry["reaching"],
            "table": [{"assumption": row["name"], "group": row["group"], "config_keys": row["paths"],
                       "configured_value": row["configured_value"], "range": row["range"], "min": row["min"],
                       "max": row["max"], "swing": row["swing"], "impossible_values": row["impossible_values"],
                       "impossible_reason": row["impossible_reason"], "last_possible": row["last_possible"],
                       "solved": {k: v for k, v in row["solved"].items() if k in solved_keys}}
                      for row in entry["knobs"]],
        }  # fmt: skip
    return out
