// The official E2B code interpreter SDK against a fleet of two coderunner
// nodes on one PostgreSQL: the sandbox is created through node A
// (E2B_API_URL, E2B_SANDBOX_URL), then every call of the SDK goes through
// node B (E2B_OTHER_NODE_URL), which holds nothing and relays each call to
// A, streams included. Run by PgForwardTest
// (tests/integration/pg_forward_test.cc); by hand with two fleet nodes:
//
//   E2B_API_URL=http://A/e2b E2B_SANDBOX_URL=http://A/e2b E2B_OTHER_NODE_URL=http://B/e2b \
//   E2B_API_KEY=KEY E2B_OTHER_API_KEY=KEY_OF_ANOTHER_TENANT node --test tests/e2b/fleet_check.mjs
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { kReleasedCell } from './released_cell.mjs';

const clients = process.env.CODERUNNER_E2B_CLIENTS_DIR ?? '/var/cache/coderunner/e2b-clients';
const { Sandbox } = await import(`${clients}/node_modules/@e2b/code-interpreter/dist/index.mjs`);
const viaB = { apiUrl: process.env.E2B_OTHER_NODE_URL, sandboxUrl: process.env.E2B_OTHER_NODE_URL };
const otherKey = process.env.E2B_OTHER_API_KEY;

let created;  // Through A.
let sbx;      // The same sandbox, through B.
before(async () => {
  created = await Sandbox.create({ metadata: { suite: 'e2b-fleet' }, timeoutMs: 300_000 });
  sbx = await Sandbox.connect(created.sandboxId, viaB);
});
after(async () => {
  if (created) await Sandbox.kill(created.sandboxId);
});

// Resolves once `predicate()` holds, polling.
async function until(predicate, what) {
  for (let i = 0; i < 200; i++) {
    if (predicate()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('the sandbox is described and given a new timeout through the other node', async () => {
  const info = await Sandbox.getInfo(created.sandboxId, viaB);
  assert.equal(info.sandboxId, created.sandboxId);
  assert.equal(info.metadata.suite, 'e2b-fleet');
  await sbx.setTimeout(120_000);
  const later = await created.getInfo();
  assert.ok(later.endAt.getTime() - Date.now() <= 121_000, `endAt ${later.endAt.toISOString()}`);
});

test('a command streams through the other node while it runs', async () => {
  const out = [];
  // It prints, then waits for its stdin: what reaches the callback before
  // the input is sent was relayed while the command ran.
  const handle = await sbx.commands.run('echo ready; read line; echo "got $line"', {
    background: true,
    stdin: true,
    onStdout: (d) => out.push(d),
  });
  await until(() => out.join('').includes('ready\n'), 'the first line, relayed');
  assert.ok(!out.join('').includes('got'), out.join(''));
  await sbx.commands.sendStdin(handle.pid, 'relayed\n');
  const done = await handle.wait();
  assert.equal(done.exitCode, 0);
  assert.equal(done.stdout, 'ready\ngot relayed\n');
  const r = await sbx.commands.run('echo partial; exit 3').catch((e) => e);
  assert.equal(r.exitCode, 3);
  assert.equal(r.stdout, 'partial\n');
});

test('files are written and read through the other node, past a megabyte', async () => {
  const big = new Uint8Array(1536 * 1024).map((_, i) => (i * 7) & 0xff);
  await sbx.files.write('/home/user/big.bin', big);
  assert.deepEqual(await created.files.read('/home/user/big.bin', { format: 'bytes' }), big);
  assert.deepEqual(await sbx.files.read('big.bin', { format: 'bytes' }), big);
  assert.equal(await sbx.files.makeDir('made'), true);
  assert.deepEqual((await sbx.files.list('made')).length, 0);
  assert.equal(await sbx.files.exists('big.bin'), true);
  await sbx.files.remove('big.bin');
  assert.equal(await created.files.exists('big.bin'), false);
});

test('code keeps its state across both nodes', async () => {
  await created.runCode('x = 41');
  const r = await sbx.runCode('x + 1');
  assert.equal(r.text, '42');
  const js = await sbx.createCodeContext({ language: 'javascript' });
  await sbx.runCode('let y = 40', { context: js });
  const sum = await created.runCode('console.log(y + 2)', { context: js });
  assert.deepEqual(sum.logs.stdout, ['42\n']);
  const err = await sbx.runCode('1 / 0');
  assert.equal(err.error.name, 'ZeroDivisionError');
});

test('runCode streams through the other node while the cell runs', async () => {
  const seen = [];
  const run = await sbx.runCode(kReleasedCell, {
    timeoutMs: 60_000,
    onStdout: (m) => {
      seen.push(m.line);
      if (m.line === 'ready\n') created.files.write('/home/user/go', '');
    },
  });
  assert.deepEqual(seen, ['ready\n', 'released\n']);
  assert.equal(run.error, undefined);
});

test("another tenant's key reaches nothing through the other node", async () => {
  await assert.rejects(Sandbox.getInfo(created.sandboxId, { ...viaB, apiKey: otherKey }));
  await assert.rejects(Sandbox.connect(created.sandboxId, { ...viaB, apiKey: otherKey }));
  assert.equal(await Sandbox.kill(created.sandboxId, { ...viaB, apiKey: otherKey }), false);
  assert.equal((await sbx.commands.run('echo still here')).stdout, 'still here\n');
});

test('a sandbox killed through the other node is gone from both', async () => {
  const other = await Sandbox.create();
  assert.equal(await Sandbox.kill(other.sandboxId, viaB), true);
  await assert.rejects(Sandbox.getInfo(other.sandboxId));
  await assert.rejects(Sandbox.getInfo(other.sandboxId, viaB));
});
