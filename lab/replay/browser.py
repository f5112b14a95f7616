"""A headless Chromium driven over the DevTools protocol: what the replay's browser tests, its
load-time benchmark and the docs' screenshot use.

Why this and not Playwright: the lab needs four protocol calls (navigate, evaluate, screenshot, the
console's errors) against the Debian ``chromium`` the CI installs; ``websocket-client`` (a small,
well-kept pure-Python package) speaks the protocol, while Playwright would add a Node driver and its
own browser builds that the machine does not need.

WebGL runs on SwiftShader (software; no GPU on a CI host): ``--use-angle=swiftshader
--enable-unsafe-swiftshader``.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu-sandbox", "--use-angle=swiftshader",
         "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--disable-background-networking", "--mute-audio", "--hide-scrollbars")


def find_browser() -> str | None:
    """The Chromium to drive: $LAB_CHROMIUM, else the first of :data:`CANDIDATES` on PATH."""
    env = os.environ.get("LAB_CHROMIUM")
    if env:
        return env if shutil.which(env) or Path(env).is_file() else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with one page; ``with Browser() as b: b.open(path)``."""

    def __init__(self, executable: str | None = None, width: int = 1280, height: int = 720, timeout: float = 60.0):
        import websocket  # websocket-client

        exe = executable or find_browser()
        if exe is None:
            raise BrowserError("no Chromium found (install the Debian package `chromium`, or set LAB_CHROMIUM)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="lab-chromium-")
        self.proc = subprocess.Popen([exe, *FLAGS, f"--window-size={width},{height}", "--remote-debugging-port=0",
                                      f"--user-data-dir={self.profile}", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while not port_file.is_file() or not port_file.read_text().strip():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise BrowserError(f"{exe} did not start its DevTools endpoint")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        pages = []
        while not pages:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                pages = [p for p in json.load(r) if p.get("type") == "page"]
            if not pages:
                time.sleep(0.05)
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=timeout,
                                              suppress_origin=True)
        self._id = 0
        self.errors: list[str] = []
        self.messages: list[str] = []
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    # -- protocol ---------------------------------------------------------------------------------
    def call(self, method: str, **params):
        self._id += 1
        my = self._id
        self.ws.send(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my:
                if "error" in msg:
                    raise BrowserError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self._event(msg)

    def _event(self, msg: dict) -> None:
        m, p = msg.get("method"), msg.get("params", {})
        if m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.errors.append(f"exception: {d.get('exception', {}).get('description') or d.get('text')}")
        elif m == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            self.messages.append(f"{p.get('type')}: {text}")
            if p.get("type") in ("error", "assert"):
                self.errors.append(f"console.{p.get('type')}: {text}")
        elif m == "Log.entryAdded":
            e = p.get("entry", {})
            self.messages.append(f"log {e.get('level')}: {e.get('text')}")
            if e.get("level") == "error":
                self.errors.append(f"log: {e.get('text')} ({e.get('url', '')})")

    def evaluate(self, expression: str, await_promise: bool = False):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=await_promise)
        if "exceptionDetails" in r:
            raise BrowserError(f"{expression}: {r['exceptionDetails'].get('exception', {}).get('description')}")
        return r.get("result", {}).get("value")

    # -- what the tests need ----------------------------------------------------------------------
    def open(self, path: Path | str, ready: str = "window.labReplay !== undefined") -> float:
        """Navigate to ``path`` as a file URL and wait until ``ready`` is true; returns the seconds
        from navigation to ready as the page measured them (performance.now() at the hook's creation)."""
        url = Path(path).resolve().as_uri()
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + self.timeout
        while not self.evaluate(f"!!({ready})"):
            if time.monotonic() > deadline:
                raise BrowserError(f"{url}: not ready after {self.timeout:g} s; errors: {self.errors}")
            time.sleep(0.05)
        ms = self.evaluate("window.labReplay && window.labReplay.readyMs")
        return float(ms) / 1000.0 if ms is not None else float("nan")

    def canvas_png(self) -> bytes:
        """The WebGL canvas as PNG (the page keeps its drawing buffer)."""
        url = self.evaluate("document.querySelector('#view canvas').toDataURL('image/png')")
        return base64.b64decode(url.split(",", 1)[1])

    def screenshot(self) -> bytes:
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])

    def close(self) -> None:
        try:
            if getattr(self, "ws", None) is not None:
                self.ws.close()
        finally:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
