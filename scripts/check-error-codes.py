#!/usr/bin/env python3
"""Fails when an error code the service can answer with is missing from the
"Errors" section of the API reference (docs/api.md).

Every Status reason in src/ and include/ (a literal last argument of a
...Error(...) call, or the value of a kReason... constant) is an error.code
some client may read, in an HTTP answer or in a job's result, unless it is
listed in NEVER_ANSWERED below with the reason it never reaches a client.
src/cli/ (the client's own failures, shown as its exit code) and
src/config/ (refused configurations, printed at startup) are left out.

  scripts/check-error-codes.py [REPO_ROOT]
"""
import os
import re
import sys

# Reasons that stay inside the service: each is turned into another
# answer before any client could see it.
NEVER_ANSWERED = {
    "invalid_egress_rule": "an egress rule of the configuration (tiers.<name>.egress_allow), refused at startup",
    "bad_request": "the egress proxy's reading of a job's request: the job gets a 400, the record the outcome",
    "aborted": "the service cut its own engine call short (a cancel); the job ends cancelled",
    "bind_failed": "the listener could not bind: the service does not start",
    "delivery_lost": "a webhook delivery lease moved to another node; it retries there",
    "file_too_large": "a read bounded by the service; the caller reports its own code",
    "invalid_claim": "store contract check on the service's own claim",
    "invalid_delivery_claim": "store contract check on the service's own claim",
    "invalid_job": "store contract check on the service's own record",
    "invalid_node": "store contract check on the service's own node record",
    "invalid_notice": "a malformed fleet notice, dropped and logged",
    "invalid_config": "a configuration refused at startup (server.listen): the service does not start",
    "invalid_options": "store options refused at startup",
    "invalid_store_options": "store options refused at startup",
    "invalid_placement": "store contract check on the service's own record",
    "invalid_transition": "store contract check on the service's own move",
    "job_exists": "an id collision on insert; a new id is drawn",
    "job_terminal": "a move that lost to a cancel; the cancel's status stands",
    "lease_lost": "another node owns the job now; its result stands",
    "schema_too_new": "the database was migrated by a newer version: the service does not start",
    "skipped": "an artifact left out; listed under artifacts_skipped with its own reason",
    "store_password_unset": "the store's password variable is unset: the service does not start",
    "fleet_not_built": "store.kind postgres in a build without the fleet: the service does not start",
    "webhook_secret_missing": "the signing secret variable is unset: the service does not start",
}

# Where the error tables live.
DOC = "docs/api.md"

ERROR_CALL = re.compile(
    r"\b(?:InvalidArgument|NotFound|AlreadyExists|FailedPrecondition|ResourceExhausted|"
    r"Unavailable|Internal|DeadlineExceeded)Error\(")
LAST_LITERAL = re.compile(r',\s*"([a-z][a-z0-9_]*)"\s*$')
CONSTANT = re.compile(r'\b(kReason\w*|k\w*Reason\w*)(?:\[\])?\s*=\s*"([a-z][a-z0-9_]*)"')


def call_arguments(text, start):
    depth, i = 1, start
    while i < len(text) and depth:
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
        i += 1
    return text[start:i - 1]


def produced_codes(root):
    codes = {}
    for top in ("src", "include"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            rel = os.path.relpath(dirpath, root)
            if rel.startswith(("src/cli", "src/config", "include/coderunner/cli",
                               "include/coderunner/config")):
                continue
            for f in sorted(files):
                if not f.endswith((".h", ".cc")):
                    continue
                path = os.path.join(dirpath, f)
                text = open(path, encoding="utf-8", errors="replace").read()
                for m in CONSTANT.finditer(text):
                    codes.setdefault(m.group(2), os.path.relpath(path, root))
                for m in ERROR_CALL.finditer(text):
                    literal = LAST_LITERAL.search(call_arguments(text, m.end()))
                    if literal:
                        codes.setdefault(literal.group(1), os.path.relpath(path, root))
    return codes


def errors_section(root):
    """The text under DOC's "Errors" heading, up to the next heading of its
    level or above; None without one."""
    lines = open(os.path.join(root, DOC), encoding="utf-8").read().split("\n")
    level, out, fence = None, [], False
    for line in lines:
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^(#{1,6})\s+(.*?)\s*$", line)
        if level is None:
            if m and m.group(2) == "Errors":
                level = len(m.group(1))
            continue
        if m and len(m.group(1)) <= level:
            break
        out.append(line)
    return "\n".join(out) if level is not None else None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    section = errors_section(root)
    if section is None:
        print(f"check-error-codes: {DOC} has no Errors heading", file=sys.stderr)
        return 1
    missing = []
    for code, where in sorted(produced_codes(root).items()):
        if code in NEVER_ANSWERED or f"`{code}`" in section:
            continue
        missing.append(f"{where}: error code `{code}` is not in {DOC}'s Errors section")
    for m in missing:
        print(m, file=sys.stderr)
    if missing:
        print(f"check-error-codes: {len(missing)} code(s) undocumented", file=sys.stderr)
        return 1
    print(f"check-error-codes: every error code a client can read is in {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
