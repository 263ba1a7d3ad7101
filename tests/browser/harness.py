"""The browser tests' base class: one coderunner, one fake LLM and one
headless Chromium per test class (one ctest module), torn down even on
failure.

Run with Debian's python3 (/usr/bin/python3) and python3-selenium; the
system Chromium (/usr/bin/chromium) and its chromedriver, never a
downloaded browser. Waits are bounded WebDriverWaits on conditions; nothing
sleeps as an assertion and nothing asserts a duration.

On a failing test the output gets a screenshot's path, the browser console
and the server log's tail (see BrowserTestCase.run).
"""
import base64
import os
import re
import signal
import unittest

import processes

INSTALL_HINT = ("the browser tests need Debian's chromium, chromium-driver and python3-selenium "
                "(scripts/install-deps.sh) and run under /usr/bin/python3")
try:
    from selenium import webdriver
    from selenium.common.exceptions import (NoAlertPresentException, TimeoutException,
                                            WebDriverException)
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as e:
    raise SystemExit(f"{e}: {INSTALL_HINT}")

CHROMIUM = os.environ.get("CODERUNNER_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CODERUNNER_CHROMEDRIVER", "/usr/bin/chromedriver")
DESKTOP = (1280, 900)
PHONE = (390, 844)
# Bound on any one wait: a job on a busy 2-core CI machine, an intent's
# four stages. A bound, not an expectation: waits end as soon as they can.
WAIT_S = 120
# Bound on what the page shows without waiting for a job (an element after
# a click, the editor): short, so a missing element fails fast.
UI_WAIT_S = 20
TERMINAL = ("succeeded", "failed", "timeout", "oom", "error", "cancelled")
# Console lines that are never acceptable: a CSP violation or a script error.
CSP_RE = re.compile(r"Content Security Policy|Refused to (execute|apply|load|connect)", re.I)


def screenshot_dir():
    """$CODERUNNER_SCREENSHOT_DIR (ctest: <build>/browser-screenshots), per engine."""
    root = os.environ.get("CODERUNNER_SCREENSHOT_DIR") or os.path.join(os.getcwd(),
                                                                       "browser-screenshots")
    path = os.path.join(root, os.environ.get("CODERUNNER_TEST_ENGINE", "engine"))
    os.makedirs(path, exist_ok=True)
    return path


def new_driver():
    """Headless Chromium at desktop size; alerts stay open (so a test sees them)."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            raise RuntimeError(f"{path} is missing: {INSTALL_HINT}")
    o = webdriver.ChromeOptions()
    o.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu",
              f"--window-size={DESKTOP[0]},{DESKTOP[1]}", "--disable-dev-shm-usage",
              "--no-first-run", "--disable-extensions"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    o.set_capability("unhandledPromptBehavior", "ignore")
    service = Service(CHROMEDRIVER,
                      popen_kw={"preexec_fn": processes.die_with_parent(signal.SIGTERM)})
    return webdriver.Chrome(service=service, options=o)


class BrowserTestCase(unittest.TestCase):
    """Base: setUpClass starts the fake LLM, the server and the browser.

    Subclasses set SERVER_YAML (extra config; "{llm}" becomes the fake LLM's
    base URL) and may call cls.start_server themselves.
    """

    SERVER_YAML = ""
    llm = server = driver = None

    @classmethod
    def setUpClass(cls):
        cls.console = []
        try:
            cls.llm = processes.FakeLlm()
            yaml = cls.SERVER_YAML.replace("{llm}", cls.llm.base_url)
            cls.server = processes.Server(yaml)
            cls.driver = new_driver()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for stop in (lambda: cls.driver and cls.driver.quit(),
                     lambda: cls.server and cls.server.stop(),
                     lambda: cls.llm and cls.llm.stop()):
            try:
                stop()
            except Exception as e:  # Keep tearing down the rest.
                print(f"teardown: {e!r}")
        cls.driver = cls.server = cls.llm = None

    # --- failure diagnostics -------------------------------------------------

    def run(self, result=None):
        result = result if result is not None else self.defaultTestResult()
        before = len(result.failures) + len(result.errors)
        super().run(result)
        if len(result.failures) + len(result.errors) > before:
            self.dump_diagnostics()
        return result

    def dump_diagnostics(self):
        name = self.id().split(".")[-1]
        print(f"\n===== diagnostics for {self.id()}")
        try:
            print("screenshot:", self.screenshot(f"failure-{name}"))
            print("url:", self.driver.current_url)
        except Exception as e:
            print(f"no screenshot: {e!r}")
        print("----- browser console")
        for entry in self.console_log():
            print(f"{entry['level']}: {entry['message']}")
        if self.server is not None:
            print("----- server log (tail)")
            print(self.server.log_tail(80))
        print("=====")

    # --- page -----------------------------------------------------------------

    def open_page(self, path="/"):
        """Loads the page and waits for body[data-ready=true] (every tab mounted)."""
        self.driver.get(self.server.url(path))
        self.wait_for(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"),
                      "the page never set body[data-ready=true]")

    def wait_for(self, condition, message, timeout=WAIT_S, poll=0.05):
        """condition(driver)'s first truthy value; fails with `message` after timeout s."""
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=poll).until(condition)
        except TimeoutException:
            self.fail(f"{message} (waited {timeout} s)")

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def by_id(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def wait_id(self, element_id, visible=True):
        """The element with this id once present (and displayed if `visible`)."""
        def ready(d):
            found = d.find_elements(By.ID, element_id)
            return found[0] if found and (not visible or found[0].is_displayed()) else False
        return self.wait_for(ready, f"#{element_id} never appeared", UI_WAIT_S)

    def click(self, element_id):
        el = self.wait_id(element_id)
        self.wait_for(lambda d: el.is_enabled(), f"#{element_id} stayed disabled", UI_WAIT_S)
        self.js("arguments[0].scrollIntoView({block: 'center'})", el)
        el.click()

    def text(self, element_id):
        return self.js("const e = document.getElementById(arguments[0]);"
                       "return e ? e.textContent : null;", element_id)

    def show_tab(self, name):
        self.click(f"tab-{name}")
        self.wait_id(f"panel-{name}")

    def set_code(self, code):
        """Sets the Run editor through window.coderunnerPlayground (no auto-indent)."""
        self.wait_for(lambda d: d.execute_script(
            "return !!(window.coderunnerPlayground && window.coderunnerPlayground.setCode)"),
            "window.coderunnerPlayground.setCode is missing", UI_WAIT_S)
        self.js("window.coderunnerPlayground.setCode(arguments[0])", code)
        self.assertEqual(self.js("return window.coderunnerPlayground.getCode()"), code)

    def run_job(self, code=None):
        """Sets the code (if given), clicks Run and waits for a terminal
        #run-status; {status, exit_code, stdout, stderr} as the page shows them.
        Load the page first: a status left by an earlier run would count."""
        if code is not None:
            self.set_code(code)
        self.click("run-button")
        return self.wait_run_result()

    def wait_run_result(self):
        self.wait_for(lambda d: d.execute_script(
            "const s = document.getElementById('run-status');"
            "return !!s && arguments[0].includes(s.dataset.status);", list(TERMINAL)),
            "#run-status never reached a terminal data-status")
        return self.js(
            "const t = (id) => (document.getElementById(id) || {}).textContent;"
            "return {status: document.getElementById('run-status').dataset.status,"
            " exit_code: t('run-exit-code'), stdout: t('run-stdout'), stderr: t('run-stderr'),"
            " detail: t('run-status-detail')};")

    def assert_succeeded(self, run, stdout):
        """The run succeeded with exit code 0 and exactly this stdout."""
        self.assertEqual(run["status"], "succeeded", run)
        self.assertRegex(run["exit_code"] or "", r"(^|\D)0(\D|$)", run)
        self.assertEqual(run["stdout"], stdout, run)

    def newest_job(self, key=None):
        """The newest job record (GET /v1/jobs?limit=1), asserting it was not cached."""
        status, _, body = self.server.api("GET", "/v1/jobs?limit=1", key=key)
        self.assertEqual(status, 200, body)
        self.assertTrue(body["jobs"], body)
        status, _, job = self.server.api("GET", f"/v1/jobs/{body['jobs'][0]['id']}", key=key)
        self.assertEqual(status, 200, job)
        self.assertIsNot(job.get("cached"), True, "a browser test must really run its job")
        return job

    def assert_no_alert(self):
        """No dialog (alert, confirm, prompt) is open."""
        try:
            alert = self.driver.switch_to.alert
            text = alert.text
        except NoAlertPresentException:
            return
        alert.dismiss()
        self.fail(f"a dialog opened: {text!r}")

    # --- screenshots and console ----------------------------------------------

    def screenshot(self, name):
        """Saves the whole page (beyond the viewport) as <dir>/<name>.png; its path."""
        path = os.path.join(screenshot_dir(), f"{name}.png")
        try:
            metrics = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            view = metrics.get("cssLayoutViewport") or metrics["layoutViewport"]
            shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": max(size["width"], view["clientWidth"]),
                         "height": max(size["height"], view["clientHeight"]), "scale": 1}})
            with open(path, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        except WebDriverException:
            self.driver.save_screenshot(path)
        return path

    def console_log(self):
        """Every browser console entry since the class started (kept across calls)."""
        try:
            type(self).console.extend(self.driver.get_log("browser"))
        except WebDriverException:
            pass
        return list(type(self).console)

    def mark_console(self):
        """Where the console stands now: pass to assert_console_clean(since=...)."""
        return len(self.console_log())

    def assert_console_clean(self, since=0, allow=()):
        """No CSP violation and no error (SEVERE) in the console since `since`,
        except messages matching one of the `allow` regexes (never a CSP one)."""
        bad = []
        for entry in self.console_log()[since:]:
            msg = entry["message"]
            if CSP_RE.search(msg):
                bad.append(f"CSP: {msg}")
            elif entry["level"] == "SEVERE" and not any(re.search(a, msg) for a in allow):
                bad.append(f"{entry['level']}: {msg}")
        self.assertEqual(bad, [], "the browser console shows errors")
