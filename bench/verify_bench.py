#!/usr/bin/python3
"""Execute mode's verify step, measured (docs/execute-mode.md, issue 37).

Thirty intents with a known right answer (bench/verify_intents.json), run
through a real coderunner on a real engine with the scripted model of
tests/fake_llm standing in for the model, once with verify off and once
with verify checks. Sixteen of them get a plausible first program that is
subtly wrong (off by one, the wrong sort key, the top 10 for the top 5,
fractions for percents...); for those the script also holds the fixed
program the model gives when its checks fail. Every reply is recorded in
the file, so both runs see the same model.

Prints, per mode: the final answers that are right, wrong, or withheld
(unverified), and per intent the model calls, tokens, execution ms and
wall ms, with verify on as a ratio of verify off (the baseline, same run).

  bench/verify_bench.py --coderunner build/coderunner \
      --fake-llm build/tests/fake_llm/fake_llm_server --socket /run/coderunner/docker.sock
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
# What every checks program of the set starts with: the program's stdout,
# and one CHECK line per check (src/intent/verify_checks.h).
CHECK_HELPER = (
    "# checks\n"
    "import ast\n"
    "out = open('/tmp/program_stdout.txt').read().strip()\n"
    "def check(kind, name, ok, detail=''):\n"
    "    print(f\"CHECK {'PASS' if ok else 'FAIL'} {kind} {name}\" + ('' if ok else f' | {detail}'))\n")
AGENT = json.dumps({"name": "bench-generic", "description": "small computations",
                    "keywords": ["print", "numbers", "words", "list"],
                    "system_prompt": "Write the smallest program that does the task."})


def http(method, url, body=None, timeout=180):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def fenced(code):
    return "```python\n" + code + "\n```\n"


def script(intent):
    """The model's replies for one intent, each matched by its prompt."""
    fixed = intent["fixed"] or intent["first"]
    return [
        {"match": "Write an agent", "content": AGENT},
        {"match": "Language: ", "content": fenced(intent["first"])},
        {"match": "Write checks that would catch", "content": fenced(CHECK_HELPER + intent["checks"])},
        {"match": "of its checks failed", "content": fenced(fixed)},
        {"match": "did not: they crashed", "content": fenced(fixed)},
        {"match": "Raw output", "content": "Answer given."},
    ]


def start(args, work):
    llm = subprocess.Popen([args.fake_llm, "--port", "0"], stdout=subprocess.PIPE, text=True)
    llm_port = int(llm.stdout.readline().split()[-1])
    port = args.port
    config = os.path.join(work, "config.yaml")
    with open(config, "w") as f:
        f.write(f"server: {{listen: 127.0.0.1:{port}}}\n"
                f"engine: {{socket: {args.socket}}}\n"
                f"workspace_dir: {work}/workspaces\ndata_dir: {work}/data\n"
                f"instance: bench-verify\nauth: {{mode: none}}\n"
                f"artifacts: {{dir: {work}/artifacts}}\nvolumes: {{dir: {work}/volumes}}\n"
                # Every run executes: the cache would answer repeats.
                "jobs: {cache_ttl_s: 0}\n"
                f"llm: {{base_url: \"http://127.0.0.1:{llm_port}/v1\", model: fake, timeout_ms: 20000}}\n")
    log = open(os.path.join(work, "server.log"), "w")
    server = subprocess.Popen([args.coderunner, "serve", "--config", config], stdout=log,
                              stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            if http("GET", base + "/readyz")[0] == 200:
                break
        except OSError:
            pass
        time.sleep(0.2)
    return llm, llm_port, server, base


def run_intent(base, llm_port, intent, mode):
    llm = f"http://127.0.0.1:{llm_port}"
    http("POST", llm + "/_reset", {})
    http("POST", llm + "/_script", {"replies": script(intent)})
    status, accepted = http("POST", base + "/v1/intents",
                            {"intent": intent["intent"], "inputs": intent["inputs"],
                             "language": "python", "verify": mode})
    if status != 202:
        sys.exit(f"verify_bench: {intent['name']}: HTTP {status} {accepted}")
    _, rec = http("GET", f"{base}/v1/jobs/{accepted['id']}/wait?timeout_s=120")
    stdout = ((rec.get("result") or {}).get("stdout") or "").strip()
    if rec["status"] == "succeeded":
        outcome = "right" if stdout == intent["expected"] else "wrong"
    else:
        outcome = "withheld" if (rec.get("error") or {}).get("code") == "unverified" else "error"
    usage = rec.get("usage") or {}
    created = time.mktime(time.strptime(rec["created_at"][:19], "%Y-%m-%dT%H:%M:%S")) + float(
        "0." + rec["created_at"][20:23])
    finished = time.mktime(time.strptime(rec["finished_at"][:19], "%Y-%m-%dT%H:%M:%S")) + float(
        "0." + rec["finished_at"][20:23])
    return {"outcome": outcome, "calls": usage.get("llm_calls", 0),
            "tokens": usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0),
            "exec_ms": usage.get("exec_ms", 0), "wall_ms": (finished - created) * 1000,
            "attempts": len(rec.get("attempts") or [])}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--coderunner", required=True)
    p.add_argument("--fake-llm", required=True)
    p.add_argument("--socket", required=True)
    p.add_argument("--port", type=int, default=18299)
    p.add_argument("--intents", default=os.path.join(HERE, "verify_intents.json"))
    args = p.parse_args()
    intents = json.load(open(args.intents))
    work = tempfile.mkdtemp(prefix="coderunner-verify-bench-")
    llm, llm_port, server, base = start(args, work)
    try:
        results = {}
        for mode in ("off", "checks"):
            results[mode] = [run_intent(base, llm_port, i, mode) for i in intents]
    finally:
        server.terminate()
        server.wait()
        llm.kill()
    n = len(intents)
    subtle = sum(1 for i in intents if i["fixed"])
    print(f"== verify: {n} intents with a known answer, {subtle} with a subtly wrong first program")
    mean = {}
    for mode, rows in results.items():
        count = {k: sum(1 for r in rows if r["outcome"] == k) for k in ("right", "wrong", "withheld", "error")}
        mean[mode] = {k: sum(r[k] for r in rows) / n for k in ("calls", "tokens", "exec_ms", "wall_ms", "attempts")}
        m = mean[mode]
        print(f"  verify {mode:6}: right {count['right']}/{n}, wrong {count['wrong']}/{n} "
              f"({100 * count['wrong'] / n:.0f} %), withheld (unverified) {count['withheld']}, "
              f"errors {count['error']}; per intent: {m['attempts']:.2f} attempts, "
              f"{m['calls']:.2f} model calls, {m['tokens']:.0f} tokens, {m['exec_ms']:.0f} ms "
              f"execution, {m['wall_ms']:.0f} ms wall")
        for i, r in zip(intents, rows):
            if r["outcome"] not in ("right",) and not (mode == "off" and i["fixed"]):
                print(f"    {i['name']}: {r['outcome']}")
    on, off = mean["checks"], mean["off"]
    print("  verify checks / off, per intent: " + ", ".join(
        f"{k} {on[k] / off[k]:.2f}x" for k in ("calls", "tokens", "exec_ms", "wall_ms") if off[k]))


if __name__ == "__main__":
    main()
