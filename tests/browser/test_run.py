#!/usr/bin/python3
"""The Run and Sandboxes tabs in a real Chromium against a real coderunner.

Issue 18's "Tests in a real browser": a python job's output, live output
while the job runs, a matplotlib PNG displayed, hostile output and artifact
names as text with no dialog, Ctrl+Enter, sandbox cells in order, a
phone's width (every tab); stdin, args, a picked and a dropped file, a
timeout, Cancel; labels, keyboard tabs and the no-LLM notice (this
module's server has no model). Element ids: web/README.md.
"""
import os
import shutil
import tempfile
import unittest
import urllib.parse
import uuid

import harness
import processes

# After harness: it explains a missing python3-selenium.
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

HOSTILE_STDOUT = "<img src=x onerror=alert(1)><script>alert(2)</script>"
# Allowed by the artifact rules (isolation/file_path.h: no '/', no '\\', no
# control characters), so it reaches the page as a name.
HOSTILE_NAME = "<img src=x onerror=alert(1)>.txt"
HOSTILE_CONTENT = "<script>alert(3)</script>"

# Every control of the page (all tabs mounted) without an accessible name:
# aria-label, aria-labelledby, a <label>, a button's text or a title.
UNLABELLED_CONTROLS = """
const name = (e) => {
  if (e.getAttribute('aria-label')) return e.getAttribute('aria-label').trim();
  const by = e.getAttribute('aria-labelledby');
  if (by) return by.split(/\\s+/).map((id) =>
      (document.getElementById(id) || {}).textContent || '').join(' ').trim();
  if (e.labels && e.labels.length) return [...e.labels].map((l) => l.textContent).join(' ').trim();
  if (e.tagName === 'BUTTON') return e.textContent.trim();
  return (e.title || '').trim();
};
return [...document.querySelectorAll(
    'input, select, textarea, button, [contenteditable=true], [role=tab]')]
  .filter((e) => e.type !== 'hidden' && !name(e)).map((e) => e.outerHTML.slice(0, 200));
"""


def marker():
    """A word of its own per run: no two tests' programs are alike."""
    return "m" + uuid.uuid4().hex[:12]


class RunTabTest(harness.BrowserTestCase):

    def setUp(self):
        self.since = self.mark_console()
        self.open_page()

    def tearDown(self):
        self.assert_no_alert()

    def test_python_output_appears(self):
        m = marker()
        run = self.run_job(f"print('hello from the browser', '{m}')\n")
        self.assert_succeeded(run, f"hello from the browser {m}\n")
        self.assertEqual(self.newest_job()["result"]["stdout"], f"hello from the browser {m}\n")
        self.assert_console_clean(self.since)

    def test_live_output_shows_the_first_line_while_the_job_runs(self):
        m = marker()
        self.set_code("import time\n"
                      "for i in range(3):\n"
                      f"    print('line', i, '{m}', flush=True)\n"
                      "    time.sleep(1)\n")
        self.click("run-button")
        # One snapshot of both, taken when the first line shows.
        seen = self.wait_for(lambda d: d.execute_script(
            "const out = document.getElementById('run-stdout').textContent;"
            "const st = document.getElementById('run-status').dataset.status;"
            "return out.includes(arguments[0]) ? {out: out, status: st} : null;",
            f"line 0 {m}"), "the first line never showed in #run-stdout")
        self.assertEqual(seen["status"], "running", seen)
        self.assertNotIn(f"line 2 {m}", seen["out"], seen)
        run = self.wait_run_result()
        self.assert_succeeded(run, "".join(f"line {i} {m}\n" for i in range(3)))
        self.newest_job()
        self.assert_console_clean(self.since)

    def test_a_matplotlib_png_is_displayed(self):
        # The result cache is off (processes.DEFAULT_SECTIONS): no marker
        # needed, and the screenshot stays clean.
        run = self.run_job("import matplotlib.pyplot as plt\n"
                           "plt.figure(figsize=(5, 3))\n"
                           "plt.plot([1, 4, 2, 5, 3], marker='o')\n"
                           "plt.title('A matplotlib plot, shown from a blob: URL')\n"
                           "plt.savefig('/output/plot.png')\n"
                           "print('saved plot.png')\n")
        self.assert_succeeded(run, "saved plot.png\n")
        img = self.wait_for(lambda d: d.execute_script(
            "const li = [...document.querySelectorAll('#run-artifacts li.artifact')]"
            "  .find((e) => e.dataset.path === 'plot.png');"
            "const img = li && li.querySelector('img.artifact-image');"
            "return img && img.complete && img.naturalWidth > 0"
            "  ? {src: img.src, width: img.naturalWidth} : null;"),
            "plot.png never showed as a decoded img.artifact-image")
        self.assertTrue(img["src"].startswith("blob:"), img)
        self.newest_job()
        self.js("document.querySelector('#run-artifacts img.artifact-image')"
                ".scrollIntoView({block: 'center'})")
        self.screenshot("playground-run")
        self.assert_console_clean(self.since)

    def test_hostile_output_and_artifact_names_are_text(self):
        run = self.run_job(
            "import sys\n"
            f"with open('/output/{HOSTILE_NAME}', 'w') as f:\n"
            f"    f.write('{HOSTILE_CONTENT}')\n"
            f"sys.stdout.write('{HOSTILE_STDOUT}')\n")
        self.assert_succeeded(run, HOSTILE_STDOUT)
        self.assertEqual(self.js("return document.querySelectorAll("
                                 "'#run-stdout img, #run-stdout script').length"), 0)
        item = self.wait_for(lambda d: d.execute_script(
            "const li = [...document.querySelectorAll('#run-artifacts li.artifact')]"
            "  .find((e) => e.dataset.path === arguments[0]);"
            "const pre = li && li.querySelector('pre.artifact-preview');"
            "return pre && pre.textContent ? {"
            "  name: li.querySelector('.artifact-name').textContent,"
            "  preview: pre.textContent,"
            "  active: li.querySelectorAll('img:not(.artifact-image), script, iframe,"
            "    object, embed').length,"
            "  images: li.querySelectorAll('img').length} : null;", HOSTILE_NAME),
            "the hostile artifact never showed with its preview")
        self.assertEqual(item["name"], HOSTILE_NAME, item)
        self.assertEqual(item["preview"], HOSTILE_CONTENT, item)
        self.assertEqual(item["active"], 0, item)
        self.assertEqual(item["images"], 0, "a .txt artifact gets no image")
        self.assertEqual(self.js("return document.querySelectorAll('img[src=\"x\"]').length"), 0)
        self.assert_no_alert()
        # The artifact route itself: a download, never a document.
        job = self.newest_job()
        paths = [a["path"] for a in job["result"]["artifacts"]]
        self.assertEqual(paths, [HOSTILE_NAME])
        status, headers, body = processes.http("GET", self.server.url(
            f"/v1/jobs/{job['id']}/artifacts/{urllib.parse.quote(HOSTILE_NAME, safe='')}"))
        self.assertEqual(status, 200, body)
        self.assertEqual(body.decode(), HOSTILE_CONTENT)
        self.assertTrue(headers.get("content-disposition", "").startswith("attachment"), headers)
        self.assertEqual(headers.get("x-content-type-options"), "nosniff", headers)
        self.assert_console_clean(self.since)

    def test_an_svg_artifact_is_drawn_but_never_a_document(self):
        # Attacks: an SVG artifact with an onload handler and a <script>. As
        # an <img> it runs nothing; its blob: URL is revoked once drawn, so
        # "Open image in new tab" cannot make it a same-origin document; and
        # its own route is a sandboxed download.
        svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" '
               'onload="alert(1)"><script>alert(2)</script>'
               '<rect width="40" height="40" fill="red"/></svg>')
        run = self.run_job(f"open('/output/x.svg', 'w').write({svg!r})\nprint('svg')\n")
        self.assert_succeeded(run, "svg\n")
        img = self.wait_for(lambda d: d.execute_script(
            "const li = [...document.querySelectorAll('#run-artifacts li.artifact')]"
            "  .find((e) => e.dataset.path === 'x.svg');"
            "const img = li && li.querySelector('img.artifact-image');"
            "return img && img.complete && img.naturalWidth > 0 ? {src: img.src} : null;"),
            "x.svg never showed as a decoded img.artifact-image")
        self.assertTrue(img["src"].startswith("blob:"), img)
        self.assert_no_alert()
        self.assert_console_clean(self.since)
        # What "Open image in new tab" does: navigate to the image's URL.
        # (The page's own fetch() could not tell: connect-src blocks blob:.)
        page = self.driver.current_window_handle
        self.driver.switch_to.new_window("tab")
        try:
            self.driver.get(img["src"])
            root = self.driver.execute_script(
                "return document.documentElement ? document.documentElement.nodeName : null")
            self.assert_no_alert()
        finally:
            self.driver.close()
            self.driver.switch_to.window(page)
        self.assertNotEqual(str(root).lower(), "svg", "the SVG's blob: URL opened as a document")
        job = self.newest_job()
        status, headers, body = processes.http(
            "GET", self.server.url(f"/v1/jobs/{job['id']}/artifacts/x.svg"))
        self.assertEqual(status, 200, body)
        self.assertEqual(headers.get("content-type"), "application/octet-stream", headers)
        self.assertTrue(headers.get("content-disposition", "").startswith("attachment"), headers)
        self.assertIn("sandbox", headers.get("content-security-policy", ""), headers)
        self.assert_no_alert()

    def test_ctrl_enter_runs(self):
        m = marker()
        self.set_code(f"print('ran by keyboard', '{m}')\n")
        editor = self.wait_for(lambda d: d.find_element(By.CSS_SELECTOR, "#run-editor .cm-content"),
                               "no CodeMirror content in #run-editor")
        editor.click()
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys(Keys.ENTER) \
            .key_up(Keys.CONTROL).perform()
        run = self.wait_run_result()
        self.assert_succeeded(run, f"ran by keyboard {m}\n")
        self.assertEqual(self.js("return window.coderunnerPlayground.getCode()"),
                         f"print('ran by keyboard', '{m}')\n", "Ctrl+Enter must not type")
        self.newest_job()
        self.assert_console_clean(self.since)

    def test_stdin_args_and_files_reach_the_program(self):
        m = marker()
        path = os.path.join(tempfile.mkdtemp(prefix="coderunner-browser-file-"), "data.txt")
        self.addCleanup(shutil.rmtree, os.path.dirname(path))
        with open(path, "w") as f:
            f.write(f"from a file {m}\n")
        self.by_id("run-files").send_keys(path)
        # And one dropped onto the drop zone (a synthetic drop of a File).
        self.js("const dt = new DataTransfer();"
                "dt.items.add(new File([arguments[0]], 'dropped.txt', {type: 'text/plain'}));"
                "for (const type of ['dragenter', 'dragover', 'drop']) {"
                "  document.getElementById('run-dropzone').dispatchEvent(new DragEvent(type,"
                "    {dataTransfer: dt, bubbles: true, cancelable: true}));"
                "}", f"dropped {m}")
        self.wait_for(lambda d: all(n in (self.text("run-file-list") or "")
                                    for n in ("data.txt", "dropped.txt")),
                      "#run-file-list never listed data.txt and dropped.txt", harness.UI_WAIT_S)
        self.type_into("run-stdin", "from stdin")
        self.type_into("run-args", "one\ntwo words")
        run = self.run_job("import sys\n"
                           "print(sys.stdin.read().strip(), sys.argv[1:],"
                           " open('data.txt').read().strip(), open('dropped.txt').read())\n")
        self.assert_succeeded(run, f"from stdin ['one', 'two words'] from a file {m} dropped {m}\n")
        self.assert_console_clean(self.since)

    def test_the_tests_panel_judges_each_case(self):
        m = marker()
        self.set_code(f"# {m}\nn = int(input())\nprint(2 * n)\n")
        self.js("document.getElementById('run-tests').open = true")
        for _ in range(3):
            self.click("run-add-case")
        cases = self.driver.find_elements(By.CSS_SELECTOR, "#run-cases li.case")
        self.assertEqual(len(cases), 3)
        for case, (stdin, want) in zip(cases, [("2", "4"), ("3", "7"), ("<b>5</b>", "10")]):
            case.find_element(By.CSS_SELECTOR, "textarea.case-stdin").send_keys(stdin)
            case.find_element(By.CSS_SELECTOR, "textarea.case-expected").send_keys(want)
        self.click("run-judge")
        self.wait_run_result()
        self.wait_for(lambda d: self.js(
            "return document.getElementById('run-judge-verdict').dataset.verdict || null"),
            "#run-judge-verdict never said a verdict", harness.UI_WAIT_S)
        verdicts = self.js("return [...document.querySelectorAll('#run-verdicts tbody tr')]"
                           ".map((r) => r.dataset.verdict)")
        self.assertEqual(verdicts, ["accepted", "wrong_answer", "runtime_error"])
        self.assertEqual(self.by_id("run-judge-verdict").get_attribute("data-verdict"),
                         "wrong_answer")
        self.assertIn("1 of 3 cases accepted", self.text("run-judge-verdict"))
        # The service judged it: the job's record says the same.
        judged = self.newest_job()["result"]["judge"]
        self.assertEqual([c["verdict"] for c in judged["cases"]], verdicts)
        self.assert_console_clean(self.since)

    def test_a_timeout_is_said_plainly(self):
        self.type_into("run-timeout-ms", "1500")
        run = self.run_job(f"# {marker()}\nimport time\ntime.sleep(60)\n")
        self.assertEqual(run["status"], "timeout", run)
        said = self.text("run-status") + " " + run["detail"]
        self.assertIn("1500", said, "the limit it ran past")
        self.assertEqual(self.newest_job()["status"], "timeout")
        self.assert_console_clean(self.since)

    def test_cancel_stops_a_running_job(self):
        self.set_code(f"# {marker()}\nimport time\nprint('started', flush=True)\ntime.sleep(60)\n")
        self.click("run-button")
        self.wait_for(lambda d: "started" in (self.text("run-stdout") or ""),
                      "the job never started")
        self.click("run-cancel")
        run = self.wait_run_result()
        self.assertEqual(run["status"], "cancelled", run)
        self.assertEqual(self.newest_job()["status"], "cancelled")
        self.assert_console_clean(self.since)

    def test_sandbox_cells_keep_state_in_order(self):
        self.create_sandbox_in_tab()
        m = marker()
        for i, code in enumerate(["x = 41", f"print(x + 1, '{m}')"]):
            self.type_into("sbx-code", code)
            self.click("sbx-run")
            self.wait_for(lambda d: d.execute_script(
                "const c = document.querySelectorAll('#sbx-cells li.cell');"
                "const s = c.length === arguments[0] && c[arguments[0] - 1]"
                "  .querySelector('.cell-status');"
                "return !!s && /succeeded|failed|error|timeout|oom/.test(s.textContent);", i + 1),
                f"cell {i + 1} never finished")
        cells = self.js(
            "return [...document.querySelectorAll('#sbx-cells li.cell')].map((c) => ({"
            "  code: c.querySelector('pre.cell-code').textContent,"
            "  stdout: (c.querySelector('pre.cell-stdout') || {}).textContent || '',"
            "  status: c.querySelector('.cell-status').textContent}));")
        self.assertEqual([c["code"].strip() for c in cells], ["x = 41", f"print(x + 1, '{m}')"])
        self.assertEqual(cells[1]["stdout"].strip(), f"42 {m}", cells)
        self.assertIn("succeeded", cells[1]["status"], cells)
        self.screenshot("playground-sandboxes")
        self.click("sbx-delete")
        self.wait_for(lambda d: self.running_sandboxes() == [],
                      "the sandbox still runs after #sbx-delete")
        self.assert_console_clean(self.since)

    def test_sandbox_cells_show_charts_and_tables(self):
        self.create_sandbox_in_tab()
        # A data frame whose HTML would run a script and load an image if
        # it were put on the page as HTML: only its cells' text may appear.
        code = ("import matplotlib.pyplot as plt, pandas as pd\n"
                "plt.plot([1, 3, 2])\nplt.show()\n"
                "pd.DataFrame({'a': [1, 2], 'b': ['<img src=x onerror=alert(1)>', 'y']})")
        self.type_into("sbx-code", code)
        self.click("sbx-run")
        shown = self.wait_for(lambda d: d.execute_script(
            "const c = document.querySelector('#sbx-cells li.cell');"
            "const img = c && c.querySelector('img.cell-chart');"
            "const table = c && c.querySelector('table.cell-table');"
            "return img && img.complete && img.naturalWidth > 0 && table ? {"
            "  cells: [...table.querySelectorAll('td')].map((td) => td.textContent),"
            "  imgs: c.querySelectorAll('img').length,"
            "  scripts: document.querySelectorAll('#sbx-cells script').length} : null;"),
            "the cell never showed its chart and table")
        self.assertIn("<img src=x onerror=alert(1)>", shown["cells"], shown)
        self.assertEqual(shown["imgs"], 1, shown)
        self.assertEqual(shown["scripts"], 0, shown)
        self.screenshot("playground-sandbox-results")
        self.assert_console_clean(self.since)

    def test_phone_width_has_no_horizontal_scroll(self):
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": harness.PHONE[0], "height": harness.PHONE[1], "deviceScaleFactor": 2,
            "mobile": True})
        self.addCleanup(self.driver.execute_cdp_cmd, "Emulation.clearDeviceMetricsOverride", {})
        self.open_page()
        m = marker()
        run = self.run_job(f"print('small screen', '{m}')\n")
        self.assert_succeeded(run, f"small screen {m}\n")
        self.js("window.scrollTo(0, 0)")
        layout = self.js(
            "const b = document.getElementById('run-button').getBoundingClientRect();"
            "return {inner: window.innerWidth,"
            " scroll: document.scrollingElement.scrollWidth, left: b.left, right: b.right};")
        self.assertEqual(layout["inner"], harness.PHONE[0], layout)
        self.assertLessEqual(layout["scroll"], layout["inner"], layout)
        self.assertTrue(self.by_id("run-button").is_displayed())
        self.assertGreaterEqual(layout["left"], 0, layout)
        self.assertLessEqual(layout["right"], layout["inner"], layout)
        self.screenshot("playground-phone")
        for tab in ("execute", "sandboxes", "connect"):
            self.show_tab(tab)
            self.assertLessEqual(self.js("return document.scrollingElement.scrollWidth"),
                                 harness.PHONE[0], f"the {tab} tab scrolls sideways")
        self.assert_console_clean(self.since)

    def test_every_control_is_labelled_and_the_tabs_follow_the_keyboard(self):
        for tab in ("execute", "sandboxes", "connect", "run"):
            self.show_tab(tab)
        self.assertEqual(self.js(UNLABELLED_CONTROLS), [], "controls without a label")
        # WAI-ARIA tabs: an arrow key moves to the next tab, shows its panel,
        # and the focus shows (:focus-visible with an outline or a shadow).
        self.by_id("tab-run").click()
        ActionChains(self.driver).send_keys(Keys.ARROW_RIGHT).perform()
        focus = self.js(
            "const a = document.activeElement, cs = getComputedStyle(a);"
            "return {id: a.id, selected: a.getAttribute('aria-selected'),"
            " panel_hidden: document.getElementById('panel-execute').hidden,"
            " visible: a.matches(':focus-visible'),"
            " ring: (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0)"
            "   || cs.boxShadow !== 'none'};")
        self.assertEqual(focus, {"id": "tab-execute", "selected": "true", "panel_hidden": False,
                                 "visible": True, "ring": True})
        self.assert_console_clean(self.since)

    def test_execute_tab_without_an_llm_names_the_config_keys(self):
        # This module's server has no llm.base_url.
        self.show_tab("execute")
        notice = self.wait_id("exec-llm-missing")
        for key in ("llm.base_url", "llm.model"):
            self.assertIn(key, notice.text)
        self.assertFalse(self.by_id("exec-button").is_enabled(), "Execute without a model")
        self.assert_console_clean(self.since)

    # --- helpers ---------------------------------------------------------------

    def type_into(self, element_id, text):
        """Types into a textarea/input, or a CodeMirror editor inside the element."""
        el = self.wait_id(element_id)
        if el.tag_name in ("textarea", "input"):
            el.clear()
            el.send_keys(text)
            return
        content = el if "cm-content" in (el.get_attribute("class") or "") else \
            el.find_element(By.CSS_SELECTOR, ".cm-content")
        content.click()
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL) \
            .send_keys(Keys.DELETE).send_keys(text).perform()
        self.wait_for(lambda d: content.text.strip() == text, f"#{element_id} never held {text!r}")

    def create_sandbox_in_tab(self):
        """Creates a sandbox from the Sandboxes tab (deleted after the test)."""
        self.addCleanup(self.delete_running_sandboxes)
        self.show_tab("sandboxes")
        self.click("sbx-create")
        self.wait_for(lambda d: d.execute_script(
            "return document.getElementById('sbx-id').textContent.trim().startsWith('sbx-')"),
            "#sbx-id never named the new sandbox")

    def running_sandboxes(self):
        status, _, body = self.server.api("GET", "/v1/sandboxes?state=running")
        self.assertEqual(status, 200, body)
        return [s["id"] for s in body["sandboxes"]]

    def delete_running_sandboxes(self):
        for sid in self.running_sandboxes():
            self.server.api("DELETE", f"/v1/sandboxes/{sid}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
