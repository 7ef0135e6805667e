"""Run under torchrun (1 process): log a progress line, wait for <go file> (at most 120 s), then log the end.

The test reads the rule log while this waits: the line must be there before the run ends."""

import logging
import sys
import time
from pathlib import Path

from workflow_scripts.common import Progress

logger = logging.getLogger("live_worker")


def main(go_file: str) -> None:
    logging.basicConfig(level="INFO", format="%(asctime)s %(name)s: %(message)s")
    progress = Progress("worker steps", total=2, unit="step", logger=logger)
    time.sleep(0.2)  # one step's work
    progress.advance()
    deadline = time.monotonic() + 120
    while not Path(go_file).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    progress.advance()
    progress.finish()


if __name__ == "__main__":
    main(sys.argv[1])
