#!/usr/bin/python3
"""The Execute tab (the Glass Lab) and the Context Panel in a real Chromium,
against a real coderunner whose model is the fake LLM (tests/fake_llm).

The intent "add 2 numbers together" matches the built-in python-default
agent (no discover call to the model), so each script is: the code, the fix
if any, the formatted answer (as tests/integration/intents_test.cc).
Element ids: web/README.md.
"""
import unittest
import uuid

import harness
import processes

# After harness: it explains a missing python3-selenium.
from selenium.webdriver.common.by import By

STAGES = ["discover_agent", "generate_code", "execute", "format_result"]
INTENT = "add 2 numbers together"
HOSTILE = "<img src=x onerror=alert(1)><script>alert(2)</script>"


class ExecuteTabTest(harness.BrowserTestCase):
    SERVER_YAML = 'llm: {base_url: "{llm}", model: fake-model, timeout_ms: 20000}\n'

    def setUp(self):
        self.since = self.mark_console()
        self.llm.reset()
        self.open_page()

    def tearDown(self):
        self.assert_no_alert()

    def test_four_stages_reach_succeeded_in_order_live(self):
        m = uuid.uuid4().hex[:12]
        answer = f"Result: 5 ({m}) {HOSTILE}"
        code = self.llm_code_reply(f"print(2 + 3)  # {HOSTILE}", delay_ms=1500)
        self.llm.script([code, processes.format_reply(answer)])
        self.submit_intent()
        # Live: while the model writes the code, discovery is done and the
        # code stage shows as running.
        seen = self.wait_for(lambda d: (lambda s: s if s.get("generate_code") == "running"
                                        else None)(self.stage_states()),
                             "generate_code never showed as running")
        self.assertEqual(seen["discover_agent"], "succeeded", seen)
        self.assertNotEqual(seen["execute"], "succeeded", seen)
        record = self.wait_intent()
        self.assertEqual(record["status"], "succeeded", record)
        self.assertEqual(self.stage_order(), STAGES)
        self.assertEqual(self.stage_states(), {s: "succeeded" for s in STAGES})
        self.assertEqual(len(self.attempts()), 1)
        self.assertEqual(self.text("exec-answer").strip(), answer)
        self.assertIn("5", self.text("exec-output"))
        self.assertEqual(self.js(
            "return document.querySelectorAll('#exec-answer img, #exec-answer script,"
            " #exec-attempts img, #exec-attempts script, #exec-output img').length"), 0)
        self.assert_console_clean(self.since)

    def test_a_retry_shows_two_attempts_with_the_first_error(self):
        self.llm.script([
            self.llm_code_reply("raise ValueError('first attempt fails')"),
            processes.fix_reply("python", "print(2 + 3)"),
            processes.format_reply("Result: 5"),
        ])
        self.submit_intent()
        record = self.wait_intent()
        self.assertEqual(record["status"], "succeeded", record)
        self.assertEqual(self.stage_states(), {s: "succeeded" for s in STAGES})
        attempts = self.attempts()
        self.assertEqual([a["n"] for a in attempts], ["1", "2"], attempts)
        self.assertIn("raise ValueError('first attempt fails')", attempts[0]["code"])
        self.assertIn("ValueError", attempts[0]["error"], attempts)
        self.assertIn("first attempt fails", attempts[0]["error"], attempts)
        self.assertIn("print(2 + 3)", attempts[1]["code"])
        self.assertEqual(self.text("exec-answer").strip(), "Result: 5")
        self.screenshot("playground-execute")
        self.assert_console_clean(self.since)

    def test_the_glass_lab_shows_the_checks_of_a_retried_intent(self):
        # verify: checks. The first program exits 0 with a wrong sum; the
        # model's check catches it, the retry fixes it, and the Glass Lab
        # shows every check of both runs and the verdict inside Execute.
        checks = ("# checks\n"
                  "out = open('/tmp/program_stdout.txt').read().strip()\n"
                  "ok = out == '5'\n"
                  "print(f\"CHECK {'PASS' if ok else 'FAIL'} example 2 + 3 is 5\""
                  " + ('' if ok else f' | got {out}'))\n")
        self.llm.script([
            self.llm_code_reply("print(2 + 2)"),
            {"match": "Write checks that would catch", "content": processes.fenced("python", checks)},
            {"match": "of its checks failed", "content": processes.fenced("python", "print(2 + 3)")},
            processes.format_reply("Result: 5"),
        ])
        self.show_tab("execute")
        self.js("document.getElementById('exec-verify').value = 'checks';")
        self.submit_intent()
        record = self.wait_intent()
        self.assertEqual(record["status"], "succeeded", record)
        self.assertTrue(record["verification"]["verified"], record["verification"])
        verify = self.js(
            "const v = document.querySelector('#exec-stages li[data-stage=execute] .stage-verify');"
            "return v && {state: v.dataset.verified, hidden: v.hidden, text: v.textContent,"
            " checks: [...v.querySelectorAll('li.check')].map((c) => c.dataset.passed)};")
        self.assertEqual(verify["state"], "verified", verify)
        self.assertFalse(verify["hidden"], verify)
        self.assertIn("1 example passed", verify["text"])
        self.assertEqual(verify["checks"], ["true"], verify)
        per_attempt = self.js(
            "return [...document.querySelectorAll('#exec-attempts .attempt')].map((a) =>"
            " [...a.querySelectorAll('ul.checks li.check')].map((c) => c.textContent));")
        self.assertEqual(len(per_attempt), 2, per_attempt)
        self.assertEqual(len(per_attempt[0]), 1, per_attempt)
        self.assertIn("example 2 + 3 is 5: got 4", per_attempt[0][0])
        self.assertTrue(per_attempt[0][0].startswith("\u2717"), per_attempt)
        self.assertTrue(per_attempt[1][0].startswith("\u2713"), per_attempt)
        self.assertIn("Verified: 1 example passed.", self.text("exec-answer"))
        self.screenshot("playground-verify")
        self.assert_console_clean(self.since)

    def test_context_panel_runs_a_tool_and_sends_a_workflow_to_chat(self):
        if not self.by_id("context").is_displayed():
            self.click("context-toggle")
        self.click("ctx-tab-tools")
        tool = self.entry("tool", "python")
        tool.find_element(By.CSS_SELECTOR, ".ctx-open").click()
        form = self.wait_for(lambda d: tool.find_element(By.CSS_SELECTOR, "form.ctx-form"),
                             "the tool's form never opened", harness.UI_WAIT_S)
        m = uuid.uuid4().hex[:12]
        box = form.find_element(By.CSS_SELECTOR, "textarea")
        box.clear()
        box.send_keys(f"print('from the panel', '{m}')")
        form.find_element(By.CSS_SELECTOR, ".ctx-execute").click()
        self.wait_for(lambda d: f"from the panel {m}" in tool.find_element(
            By.CSS_SELECTOR, ".ctx-result").text, "the tool's result never showed in the panel")
        self.screenshot("playground-context")
        # A workflow (agent) goes to the Execute tab with Send to Chat.
        self.click("ctx-tab-workflows")
        flow = self.entry("workflow", "python-default")
        flow.find_element(By.CSS_SELECTOR, ".ctx-open").click()
        send = self.wait_for(lambda d: flow.find_element(By.CSS_SELECTOR, ".ctx-send"),
                             "the workflow's form never opened", harness.UI_WAIT_S)
        send.click()
        self.wait_id("panel-execute")
        self.wait_for(lambda d: self.by_id("exec-intent").get_attribute("value").strip(),
                      "Send to Chat left #exec-intent empty", harness.UI_WAIT_S)
        self.assert_console_clean(self.since)

    # --- helpers ---------------------------------------------------------------

    @staticmethod
    def llm_code_reply(code, delay_ms=0):
        reply = processes.code_reply("python", code)
        if delay_ms:
            reply["delay_ms"] = delay_ms
        return reply

    def submit_intent(self):
        self.show_tab("execute")
        box = self.wait_id("exec-intent")
        box.clear()
        box.send_keys(INTENT)
        self.click("exec-button")

    def wait_intent(self):
        """The #exec-status once terminal, with the service's record of the intent."""
        self.wait_for(lambda d: d.execute_script(
            "const s = document.getElementById('exec-status');"
            "return !!s && arguments[0].includes(s.dataset.status);", list(harness.TERMINAL)),
            "#exec-status never reached a terminal data-status")
        status, _, body = self.server.api("GET", "/v1/jobs?limit=1")
        self.assertEqual(status, 200, body)
        _, _, record = self.server.api("GET", f"/v1/jobs/{body['jobs'][0]['id']}")
        self.assertEqual(record.get("kind"), "intent", record)
        self.assertEqual(self.by_id("exec-status").get_attribute("data-status"),
                         record["status"], "the page and the service disagree")
        self.assertEqual(len(record["stages"]), 4, record)
        return record

    def stage_order(self):
        return self.js("return [...document.querySelectorAll('#exec-stages li.stage')]"
                       ".map((s) => s.dataset.stage);")

    def stage_states(self):
        return self.js("const o = {};"
                       "document.querySelectorAll('#exec-stages li.stage')"
                       ".forEach((s) => { o[s.dataset.stage] = s.dataset.state; });"
                       "return o;")

    def attempts(self):
        return self.js(
            "const t = (a, sel) => (a.querySelector(sel) || {}).textContent || '';"
            "return [...document.querySelectorAll('#exec-attempts .attempt')].map((a) => ({"
            "  n: a.dataset.attempt, code: t(a, 'pre.attempt-code'),"
            "  error: t(a, 'pre.attempt-error'), status: t(a, '.attempt-status')}));")

    def entry(self, kind, name):
        """The Context Panel's li.ctx-entry of this kind and name, once listed."""
        return self.wait_for(lambda d: d.execute_script(
            "return [...document.querySelectorAll('li.ctx-entry')].find((e) =>"
            " e.dataset.kind === arguments[0] && e.dataset.name === arguments[1]) || null;",
            kind, name), f"no {kind} {name!r} in the Context Panel", harness.UI_WAIT_S)


if __name__ == "__main__":
    unittest.main(verbosity=2)
