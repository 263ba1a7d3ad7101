// Sends programs of the hostile corpus (tests/hostile/) through the
// official E2B SDK's commands.run, each in a sandbox of its own, and prints
// one JSON line per program: what came back (exit code, stdout, stderr, or
// the error the SDK threw), the sandbox's limits (coderunner's own GET
// /v1/sandboxes/{id}, with the same key), the processes the sandbox still
// listed afterwards, and whether the sandbox could be killed. A last line,
// file "(after)", is `echo ok` in a new sandbox. E2bSdkTest
// (tests/integration/e2b_sdk_test.cc) judges the lines by what the jobs'
// suites expect of each program (tests/integration/hostile_attacks.h).
//
//   E2B_API_URL=... E2B_SANDBOX_URL=... E2B_API_KEY=... \
//   node tests/e2b/hostile_run.mjs PLAN.json
// PLAN.json: [{"file": "fork_bomb.js", "path": "/abs/tests/hostile/fork_bomb.js",
//              "template": "javascript", "run": "node", "timeout_ms": 20000}, ...]
import { readFileSync } from 'node:fs';

const clients = process.env.CODERUNNER_E2B_CLIENTS_DIR ?? '/var/cache/coderunner/e2b-clients';
const { Sandbox } = await import(`${clients}/node_modules/e2b/dist/index.mjs`);
const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const origin = new URL(process.env.E2B_API_URL).origin;

async function limitsOf(id) {
  const r = await fetch(`${origin}/v1/sandboxes/${id}`, {
    headers: { Authorization: `Bearer ${process.env.E2B_API_KEY}` },
  });
  return r.ok ? (await r.json()).limits ?? null : null;
}

// What commands.run gave: its result, or what it threw (a non-zero exit is
// a CommandExitError carrying the same fields).
async function run(sbx, cmd, timeoutMs) {
  try {
    const r = await sbx.commands.run(cmd, { timeoutMs });
    return { exit_code: r.exitCode, stdout: r.stdout, stderr: r.stderr, error: null };
  } catch (e) {
    return {
      exit_code: e.exitCode ?? null,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? '',
      error: { name: e.name, message: String(e.message).slice(0, 500) },
    };
  }
}

for (const attack of plan) {
  const sbx = await Sandbox.create(attack.template, { timeoutMs: 120_000 });
  await sbx.files.write(attack.file, readFileSync(attack.path));
  const result = await run(sbx, `${attack.run} ${attack.file}`, attack.timeout_ms);
  // A command past its timeoutMs is killed at that deadline; its kill and
  // its end may take a moment to be seen (5 s at most).
  let left = [];
  for (let i = 0; i < 50; i++) {
    left = (await sbx.commands.list()).map((p) => [p.cmd, ...p.args].join(' '));
    if (left.length === 0 || !result.error) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const limits = await limitsOf(sbx.sandboxId);
  const killed = await Sandbox.kill(sbx.sandboxId);
  console.log(JSON.stringify({ file: attack.file, ...result, limits, left, killed }));
}
const after = await Sandbox.create();
const ok = await run(after, 'echo ok', 10_000);
await Sandbox.kill(after.sandboxId);
console.log(JSON.stringify({ file: '(after)', ...ok }));
