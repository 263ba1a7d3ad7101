#!/usr/bin/python3
"""Auth and headers in a real Chromium: with auth.mode api_keys a wrong key
is explained (#banner, 401) and the right one runs; the key lives in
sessionStorage only; GET / carries a strict CSP with frame-ancestors; with
ui.enabled false GET / is 404 while the API answers.
"""
import secrets
import unittest
import uuid

import harness
import processes

KEY = "browser-" + secrets.token_hex(16)
WRONG_KEY = "browser-wrong-" + secrets.token_hex(8)
# A refused call shows in Chromium's console as a failed resource load.
REFUSED_LOAD = r"status of 401"


def directives(csp):
    """{name: [values]} of a Content-Security-Policy header."""
    out = {}
    for part in csp.split(";"):
        words = part.split()
        if words:
            out[words[0].lower()] = words[1:]
    return out


class AuthTest(harness.BrowserTestCase):
    SERVER_YAML = processes.api_keys_yaml({KEY: "browser-tenant"})

    def setUp(self):
        self.since = self.mark_console()

    def tearDown(self):
        self.assert_no_alert()

    def test_a_wrong_key_is_explained_and_the_right_key_runs(self):
        self.open_page()
        self.js("sessionStorage.clear(); localStorage.clear();")
        self.open_page()
        self.wait_id("auth-form")
        self.by_id("auth-key").send_keys(WRONG_KEY)
        self.click("auth-save")
        m = "m" + uuid.uuid4().hex[:12]
        code = f"print('with the right key', '{m}')\n"
        self.set_code(code)
        self.click("run-button")
        banner = self.wait_for(lambda d: d.execute_script(
            "const b = document.getElementById('banner');"
            "return !b.hidden && b.textContent.includes('401') ? b.textContent : null;"),
            "#banner never explained the 401")
        self.assertNotIn(m, self.text("run-stdout") or "")
        print("banner for a wrong key:", banner)
        # The right key; it survives a reload (sessionStorage), not the tab.
        self.by_id("auth-key").send_keys(KEY)
        self.click("auth-save")
        self.open_page()
        storage = self.js("return {session: Object.keys(sessionStorage).map("
                          "(k) => sessionStorage.getItem(k)), local: localStorage.length,"
                          " cookie: document.cookie};")
        self.assertIn(KEY, storage["session"], storage)
        self.assertEqual(storage["local"], 0, storage)
        self.assertEqual(storage["cookie"], "", storage)
        self.assertTrue(self.by_id("banner").get_attribute("hidden") is not None
                        or not self.text("banner"), "a stale banner after the right key")
        run = self.run_job(code)
        self.assert_succeeded(run, f"with the right key {m}\n")
        self.newest_job(key=KEY)
        self.assert_console_clean(self.since, allow=[REFUSED_LOAD])

    def test_the_connect_tab_opens_an_mcp_session_with_the_key(self):
        """Issue 33: the Connect tab's snippets name this origin's /mcp, and
        its check opens a real MCP session with the key, lists the tools and
        ends the session; without the key the check says 401."""
        self.open_page()
        self.js("sessionStorage.clear();")
        self.open_page()
        self.show_tab("connect")
        origin = self.js("return window.location.origin")
        self.assertIn(f'"url": "{origin}/mcp"', self.text("connect-ide"))
        self.assertIn(f'"--server",\n        "{origin}"', self.text("connect-desktop"))
        self.assertIn(f"new URL('{origin}/mcp')", self.text("connect-framework"))
        self.click("connect-check")
        refused = self.wait_for(lambda d: d.execute_script(
            "const e = document.querySelector('.connect-bad');"
            "return e ? e.textContent : null;"), "the check without a key never failed")
        self.assertIn("HTTP 401", refused)
        self.by_id("auth-key").send_keys(KEY)
        self.click("auth-save")
        self.show_tab("connect")
        self.click("connect-check")
        tools = self.wait_for(lambda d: d.execute_script(
            "const e = document.querySelector('.connect-ok');"
            "return e ? [...document.querySelectorAll('.connect-tools li')]"
            "  .map((li) => li.textContent) : null;"), "the MCP check never connected")
        for name in ("run_code", "list_languages", "sandbox_create", "sandbox_execute"):
            self.assertIn(name, tools)
        self.screenshot("playground-connect")
        self.assert_console_clean(self.since, allow=[REFUSED_LOAD])

    def test_the_page_carries_a_strict_csp(self):
        status, headers, body = processes.http("GET", self.server.url("/"))
        self.assertEqual(status, 200, body)
        csp = directives(headers.get("content-security-policy", ""))
        self.assertEqual(csp.get("script-src"), ["'self'"], csp)
        for d in ("script-src", "default-src"):
            for bad in ("'unsafe-inline'", "'unsafe-eval'", "*", "data:", "blob:"):
                self.assertNotIn(bad, csp.get(d, []), f"{d}: {csp}")
        self.assertEqual(csp.get("frame-ancestors"), ["'none'"], csp)
        self.assertEqual(csp.get("default-src"), ["'none'"], csp)
        self.assertEqual(csp.get("connect-src"), ["'self'"], csp)
        self.assertNotIn(b"<script>", body, "no inline script in the page")
        # The page needs no key (the API behind it does).
        status, _, _ = processes.http("GET", self.server.url("/v1/jobs?limit=1"))
        self.assertEqual(status, 401)

    def test_ui_disabled_serves_no_page_but_the_api(self):
        off = processes.Server("ui: {enabled: false}\npool: {enabled: false}\n", index=1)
        self.addCleanup(off.stop)
        status, _, _ = processes.http("GET", off.url("/"))
        self.assertEqual(status, 404)
        status, _, _ = processes.http("GET", off.url("/ui/app.js"))
        self.assertEqual(status, 404)
        status, _, body = processes.http("GET", off.url("/v1/languages"))
        self.assertEqual(status, 200, body)


if __name__ == "__main__":
    unittest.main(verbosity=2)
