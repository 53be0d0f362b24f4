#!/usr/bin/env python3
"""Loads a page in headless Chromium over the DevTools protocol, as a user
would: collects every console error and uncaught exception, clicks what it is
told to (real mouse events at the element's place on the screen), and
reports what the page's info pane shows after each click, as JSON; and the
values of expressions evaluated in the page between the clicks.

usage: html_browser.py PAGE.html SCREENSHOT.png [STEP …]
  STEP: a CSS selector; the element is scrolled into view and clicked.
        js:EXPRESSION: evaluated in the page as it is then; its value (JSON)
        goes to "values", in order.
Exits 77 (skip) when Chromium or python3-websocket is missing."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

try:
    import websocket  # python3-websocket
except ImportError:
    print("skipped: python3-websocket is not installed")
    sys.exit(77)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROMIUM:
    print("skipped: no chromium")
    sys.exit(77)


class Page:
    def __init__(self, ws):
        self.ws, self.next_id, self.errors, self.loaded = ws, 0, [], False

    def _event(self, msg):
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
        elif method == "Runtime.exceptionThrown":
            d = params["exceptionDetails"]
            self.errors.append("exception: " + d.get("exception", {}).get("description", d.get("text", "")))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.errors.append("log: " + params["entry"]["text"])
        elif method == "Page.loadEventFired":
            self.loaded = True

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self._event(msg)

    def pump(self, seconds):
        self.ws.settimeout(0.1)
        end = time.time() + seconds
        while time.time() < end:
            try:
                self._event(json.loads(self.ws.recv()))
            except websocket.WebSocketTimeoutException:
                pass
        self.ws.settimeout(30)

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def click(self, selector):
        box = self.evaluate(f"""(() => {{
            const e = document.querySelector({json.dumps(selector)});
            if (!e) return null;
            e.scrollIntoView({{block: "center"}});
            if (e instanceof SVGGeometryElement) {{  // a point on the stroke, not the box's middle
                const p = e.getPointAtLength(e.getTotalLength() / 2), m = e.getScreenCTM();
                return {{x: m.a * p.x + m.c * p.y + m.e, y: m.b * p.x + m.d * p.y + m.f}};
            }}
            const r = e.getBoundingClientRect();
            return {{x: r.left + Math.min(r.width / 2, 40), y: r.top + r.height / 2}};
        }})()""")
        if box is None:
            raise RuntimeError(f"nothing on the page matches {selector}")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box["x"], y=box["y"], button="left", clickCount=1)
        self.pump(0.3)


def main():
    page_file, screenshot, clicks = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
    profile_dir = tempfile.mkdtemp(prefix="sprof-chromium.")
    # No sandbox: the tests run as root and as nobody in containers without
    # user namespaces; the page is our own local file.
    browser = subprocess.Popen([CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                "--remote-debugging-port=0", f"--user-data-dir={profile_dir}",
                                "--window-size=1400,900", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile_dir, "DevToolsActivePort")
        for _ in range(600):
            if os.path.exists(port_file) and open(port_file).read().count("\n") >= 1:
                break
            if browser.poll() is not None:
                sys.exit(f"chromium exited with status {browser.returncode}")
            time.sleep(0.1)
        port = open(port_file).read().split()[0]
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        target = next(t for t in targets if t["type"] == "page")
        page = Page(websocket.create_connection(target["webSocketDebuggerUrl"], timeout=30))
        for domain in ("Runtime", "Log", "Page"):
            page.call(domain + ".enable")
        page.call("Page.navigate", url="file://" + page_file)
        for _ in range(300):
            if page.loaded:
                break
            page.pump(0.1)
        if not page.loaded:
            sys.exit("the page did not load within 30 s")
        page.pump(0.5)
        result = {"title": page.evaluate("document.title"), "clicks": [], "values": []}
        for selector in clicks:
            if selector.startswith("js:"):
                result["values"].append(page.evaluate(selector[3:]))
                continue
            page.click(selector)
            result["clicks"].append({"selector": selector,
                                     "info": page.evaluate("document.getElementById('info-body').innerText")})
        shot = page.call("Page.captureScreenshot", format="png")
        with open(screenshot, "wb") as out:
            import base64
            out.write(base64.b64decode(shot["data"]))
        result["errors"] = page.errors
        print(json.dumps(result, indent=1))
    finally:
        browser.kill()
        browser.wait()
        shutil.rmtree(profile_dir, ignore_errors=True)


main()
