"""Drive headless Chromium over the DevTools protocol, on a pipe: open a page, run JavaScript in it, and
collect every script error it logs.

`chromium-headless-shell --remote-debugging-pipe` reads protocol commands from its file descriptor 3 and
writes replies and events to descriptor 4, each message one JSON object ended by a NUL byte
(https://chromedevtools.github.io/devtools-protocol/). A pipe needs no port and no websocket library. Script
errors are the page's uncaught exceptions (`Runtime.exceptionThrown`), its `console.error`/`console.assert`
calls (`Runtime.consoleAPICalled`) and the browser's own error entries for it (`Log.entryAdded`, level
error: a resource that failed to load, a refused script).
"""

import base64
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

BINARY = "chromium-headless-shell"  # the Debian package of the same name (Makefile DEBIAN_PACKAGES)


class BrowserError(RuntimeError):
    pass


class HeadlessChromium:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, binary: str | None = None, timeout_s: float = 60.0):
        self.binary = binary or shutil.which(BINARY)
        if self.binary is None:
            raise BrowserError(f"{BINARY} is not installed: run `make setup` as root, or "
                               f"`apt-get install {BINARY}` (Debian)")  # fmt: skip
        self.timeout_s = timeout_s
        self.errors: list[str] = []  # script errors of the page, in the order they came
        self._next_id = 0
        self._replies: dict[int, queue.Queue] = {}
        self._events: queue.Queue = queue.Queue()
        self._lock = threading.Lock()

    def __enter__(self) -> "HeadlessChromium":
        self._profile = tempfile.TemporaryDirectory(prefix="report-chromium-")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def as_fds_3_and_4():  # runs in the child before exec; fds 3 and 4 survive close_fds via pass_fds
            os.dup2(to_browser_read, 3)
            os.dup2(from_browser_write, 4)

        self._process = subprocess.Popen(
            [self.binary, "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", f"--user-data-dir={self._profile.name}", "about:blank"],  # fmt: skip
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=as_fds_3_and_4, pass_fds=(3, 4), start_new_session=True,
        )  # fmt: skip
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._stderr_tail: list[str] = []
        threading.Thread(target=self._read_stderr, daemon=True).start()
        threading.Thread(target=self._read_messages, daemon=True).start()
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.send(f"{domain}.enable", session=self.session)
        return self

    def __exit__(self, *exc_info) -> None:
        try:
            self.send("Browser.close", timeout_s=5)
        except BrowserError:
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # the whole session: the browser and its renderer processes
            os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
        os.close(self._to_browser)
        self._profile.cleanup()

    # -- the protocol --------------------------------------------------------------------------------
    def send(self, method: str, params: dict | None = None, *, session: str | None = None,
             timeout_s: float | None = None) -> dict[str, Any]:  # fmt: skip
        """Send one command and wait for its reply; a protocol error raises BrowserError."""
        with self._lock:
            self._next_id += 1
            message_id = self._next_id
            self._replies[message_id] = queue.Queue(maxsize=1)
        message = {"id": message_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        try:
            reply = self._replies[message_id].get(timeout=timeout_s or self.timeout_s)
        except queue.Empty:
            raise BrowserError(f"no reply to {method} in {timeout_s or self.timeout_s} s; browser stderr:\n"
                               + "\n".join(self._stderr_tail[-20:])) from None  # fmt: skip
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def _read_messages(self) -> None:
        buffer = b""
        while chunk := os.read(self._from_browser, 1 << 16):
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for raw in messages:
                message = json.loads(raw)
                if "id" in message:
                    self._replies[message["id"]].put(message)
                else:
                    self._record_error(message)
                    self._events.put(message)
        os.close(self._from_browser)

    def _read_stderr(self) -> None:
        for line in self._process.stderr:
            self._stderr_tail = (self._stderr_tail + [line.decode(errors="replace").rstrip()])[-200:]

    def _record_error(self, event: dict) -> None:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            described = details.get("exception", {}).get("description") or details.get("text", "")
            self.errors.append(f"uncaught exception: {described} (line {details.get('lineNumber')})")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", []))
            self.errors.append(f"console.{params['type']}: {text}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            self.errors.append(f"browser log ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}")

    # -- the page ------------------------------------------------------------------------------------
    def open(self, path: Path) -> None:
        """Load a local file and wait for its load event (scripts have run by then)."""
        self._drain_events()
        self.send("Page.navigate", {"url": path.resolve().as_uri()}, session=self.session)
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            try:
                event = self._events.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if event.get("method") == "Page.loadEventFired" and event.get("sessionId") == self.session:
                return
        raise BrowserError(f"{path} did not finish loading in {self.timeout_s} s")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited if it is a promise)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, session=self.session)  # fmt: skip
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise BrowserError(f"script failed: {details.get('exception', {}).get('description') or details}")
        return result["result"].get("value")

    def set_window(self, width: int, height: int) -> None:
        """Lay the page out as in a browser window of `width` x `height` CSS pixels (a desktop, not a phone)."""
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False}, session=self.session)  # fmt: skip

    def screenshot(self, path: Path) -> None:
        """Save what the window shows now as a PNG."""
        shot = self.send("Page.captureScreenshot", {"format": "png"}, session=self.session)
        Path(path).write_bytes(base64.b64decode(shot["data"]))

    def _drain_events(self) -> None:
        while not self._events.empty():
            self._events.get_nowait()
