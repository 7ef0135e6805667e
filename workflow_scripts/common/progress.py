"""Progress of a long loop, with a rate and the time left, logged into the rule's log as it runs.

    progress = Progress("builds", total=len(sources), unit="build", logger=logger)
    for source in sources:
        build(source)
        progress.advance()
    progress.finish()

Lines look like `builds [120/4000] 3.1 build/s, elapsed 38s, ~20m50s left` (`12.5 s/step` when an item
takes over a second). One is logged at the start, one after the first item (the first estimate), then at
most every `every_s` seconds, and one at the end. They go through `logging` (configure_logging sends them
to the rule's log file, and a logging.FileHandler flushes after every record), so they are in the log
while the step runs, not when it ends. `advance` may be called from several threads (a pool of compiles).
`step_callback(what)` reports a Hugging Face Trainer's optimizer steps through the same lines.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

_default_logger = logging.getLogger(__name__)

EVERY_S = 30.0  # at most one line per this many seconds (besides the first estimate and the end)


def format_duration(seconds: float) -> str:
    """Short human time: 42s, 3m07s, 2h05m, 3d04h."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f}s" if seconds >= 10 else f"{seconds:.1f}s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours}h{minutes:02d}m"
    days, hours = divmod(hours, 24)
    return f"{days}d{hours:02d}h"


def format_rate(per_s: float, unit: str) -> str:
    """Items per second, or seconds per item when that reads better (slow steps such as training)."""
    if per_s >= 1 or per_s == 0:
        return f"{per_s:.1f} {unit}/s"
    return f"{1 / per_s:.1f} s/{unit}"


class Progress:
    """Counts finished items of a known total and logs `[done/total] rate, elapsed, ~time left`.

    `unit` names one item in the rate ("build/s", or "s/build" below one per second); `every_s` bounds how
    often a line is logged; `clock` is a seconds counter (time.monotonic; tests pass a fake one). Items
    already done before the loop (a resumed run) are left out of `total`, so the rate and the estimate are
    of this run's work. `enabled` False counts without logging (the ranks other than 0 of a distributed
    worker).
    """

    def __init__(self, what: str, total: int, *, unit: str = "item", logger: logging.Logger | None = None,
                 every_s: float = EVERY_S, clock: Callable[[], float] = time.monotonic,
                 start_line: bool = True, enabled: bool = True) -> None:  # fmt: skip
        if total < 0:
            raise ValueError(f"Progress({what!r}): total must be >= 0, got {total}")
        if every_s < 0:
            raise ValueError(f"Progress({what!r}): every_s must be >= 0, got {every_s}")
        self.what, self.total, self.unit, self.every_s, self.enabled = what, total, unit, every_s, enabled
        self.logger = logger or _default_logger
        self.clock = clock
        self.done = 0
        self.started = clock()
        self._last_line = self.started
        self._first_estimate_logged = False
        self._finished = False
        self._lock = threading.Lock()
        if start_line and enabled:
            self.logger.info("%s [0/%d] started", self.what, self.total)

    def line(self, note: str = "") -> str:
        """The progress line for now (without logging it)."""
        elapsed = self.clock() - self.started
        text = f"{self.what} [{self.done}/{self.total}] "
        if self.done and elapsed > 0:
            rate = self.done / elapsed
            text += (f"{format_rate(rate, self.unit)}, elapsed {format_duration(elapsed)}, "
                     f"~{format_duration((self.total - self.done) / rate)} left")  # fmt: skip
        else:
            text += f"elapsed {format_duration(elapsed)}, time left not known yet"
        return f"{text}; {note}" if note else text

    def advance(self, n: int = 1, note: str = "") -> None:
        """Count `n` more items done; log a line if it is the first estimate or `every_s` has passed."""
        with self._lock:
            self.done += n
            now = self.clock()
            due = not self._first_estimate_logged or now - self._last_line >= self.every_s
            if due and self.done < self.total and self.enabled:
                self._first_estimate_logged = True
                self._last_line = now
                self.logger.info("%s", self.line(note))

    def finish(self, note: str = "") -> None:
        """Log the closing line (once): items done, the mean rate and the time taken."""
        with self._lock:
            if self._finished or not self.enabled:
                return
            self._finished = True
            elapsed = self.clock() - self.started
            rate = f", {format_rate(self.done / elapsed, self.unit)}" if self.done and elapsed > 0 else ""
            text = f"{self.what} [{self.done}/{self.total}] finished in {format_duration(elapsed)}{rate}"
            self.logger.info("%s", f"{text}; {note}" if note else text)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.finish()


def step_callback(what: str, logger: logging.Logger | None = None, every_s: float = EVERY_S):
    """A transformers TrainerCallback that logs the Trainer's optimizer steps through Progress (rank 0 only),
    with the latest logged loss as the note."""
    from transformers import TrainerCallback

    class ProgressCallback(TrainerCallback):
        def __init__(self) -> None:
            self.progress: Progress | None = None
            self.note = ""

        def on_train_begin(self, args, state, control, **kwargs):
            if state.is_world_process_zero:
                # A resumed run starts at global_step > 0: only the steps left are this run's work.
                self.progress = Progress(what, total=max(0, state.max_steps - state.global_step), unit="step",
                                         logger=logger, every_s=every_s)  # fmt: skip

        def on_log(self, args, state, control, logs=None, **kwargs):
            if logs and "loss" in logs:
                self.note = f"loss {logs['loss']:.4g}"

        def on_step_end(self, args, state, control, **kwargs):
            if self.progress is not None:
                self.progress.advance(note=self.note)

        def on_train_end(self, args, state, control, **kwargs):
            if self.progress is not None:
                self.progress.finish(note=self.note)

    return ProgressCallback()
