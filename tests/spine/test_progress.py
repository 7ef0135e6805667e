"""The progress reporter: when it logs, and the rate and time left it states, on a fake clock."""

import logging
import threading

import pytest

from workflow_scripts.common.progress import Progress, format_duration, step_callback


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def lines(caplog):
    caplog.set_level(logging.INFO, logger="test.progress")
    return lambda: [r.getMessage() for r in caplog.records if r.name == "test.progress"]


@pytest.mark.parametrize(("seconds", "text"), [(0, "0.0s"), (4.26, "4.3s"), (42, "42s"), (187, "3m07s"),
                                               (7500, "2h05m"), (3 * 86400 + 4 * 3600, "3d04h")])  # fmt: skip
def test_format_duration(seconds, text):
    assert format_duration(seconds) == text


def test_start_first_estimate_every_interval_and_end(lines):
    clock = FakeClock()
    progress = Progress("compiles", total=100, unit="compile", logger=logging.getLogger("test.progress"),
                        every_s=30, clock=clock)  # fmt: skip
    assert lines() == ["compiles [0/100] started"]
    clock.now += 2.0
    progress.advance()  # the first item gives the first estimate: 0.5/s, 99 left -> 198 s
    assert lines()[-1] == "compiles [1/100] 2.0 s/compile, elapsed 2.0s, ~3m18s left"
    for _ in range(9):  # 10 items in 20 s: no line until 30 s have passed since the last one
        clock.now += 2.0
        progress.advance()
    assert len(lines()) == 2
    clock.now += 12.0  # 11 items at 32 s: 30 s after the last line (89 left at 11/32 s)
    progress.advance(note="loss 1.5")
    assert lines()[-1] == "compiles [11/100] 2.9 s/compile, elapsed 32s, ~4m19s left; loss 1.5"
    clock.now += 1.0
    progress.advance(89)  # the last item: no progress line, the closing one says it all
    assert len(lines()) == 3
    progress.finish()
    progress.finish()  # once only
    assert lines()[-1] == "compiles [100/100] finished in 33s, 3.0 compile/s"
    assert len(lines()) == 4


def test_fast_items_rate_per_second(lines):
    clock = FakeClock()
    progress = Progress("samples", total=1000, unit="sample", logger=logging.getLogger("test.progress"),
                        every_s=10, clock=clock)  # fmt: skip
    clock.now += 0.5
    progress.advance(20)
    assert lines()[-1] == "samples [20/1000] 40.0 sample/s, elapsed 0.5s, ~24s left"


def test_threads_count_every_item(lines):
    progress = Progress("compiles", total=400, logger=logging.getLogger("test.progress"), every_s=3600)
    threads = [threading.Thread(target=lambda: [progress.advance() for _ in range(100)]) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    progress.finish()
    assert progress.done == 400 and lines()[-1].startswith("compiles [400/400] finished in")


def test_disabled_counts_without_logging(lines):
    progress = Progress("steps", total=3, logger=logging.getLogger("test.progress"), enabled=False, every_s=0)
    progress.advance(3)
    progress.finish()
    assert progress.done == 3 and lines() == []


def test_bad_total_is_refused():
    with pytest.raises(ValueError, match="total must be >= 0"):
        Progress("x", total=-1)


def test_trainer_callback_reports_steps_on_rank_zero(lines):
    from transformers import TrainerControl, TrainerState

    callback = step_callback("pretraining", logger=logging.getLogger("test.progress"), every_s=0)
    state = TrainerState(max_steps=3, global_step=0, is_world_process_zero=True)
    control = TrainerControl()
    callback.on_train_begin(None, state, control)
    for step in range(3):
        state.global_step = step + 1
        callback.on_log(None, state, control, logs={"loss": 2.0 - step / 2})
        callback.on_step_end(None, state, control)
    callback.on_train_end(None, state, control)
    got = lines()
    assert got[0] == "pretraining [0/3] started"
    assert got[1].startswith("pretraining [1/3]") and got[1].endswith("left; loss 2")
    assert got[-1].startswith("pretraining [3/3] finished in") and got[-1].endswith("loss 1")

    other_rank = step_callback("pretraining", logger=logging.getLogger("test.progress"))
    other_rank.on_train_begin(None, TrainerState(max_steps=3, is_world_process_zero=False), control)
    assert other_rank.progress is None
