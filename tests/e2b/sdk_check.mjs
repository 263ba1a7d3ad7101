// The official E2B SDK (npm `e2b`, pinned by package-lock.json) against a
// live coderunner, unchanged: only E2B_API_URL, E2B_SANDBOX_URL and
// E2B_API_KEY point it at /e2b (docs/e2b.md). Run by E2bSdkTest
// (tests/integration/e2b_sdk_test.cc) on each engine, or by hand:
//
//   E2B_API_URL=http://127.0.0.1:8080/e2b E2B_SANDBOX_URL=http://127.0.0.1:8080/e2b \
//   E2B_API_KEY=KEY E2B_OTHER_API_KEY=KEY_OF_ANOTHER_TENANT \
//   CODERUNNER_E2B_CLIENTS_DIR=/var/cache/coderunner/e2b-clients node --test tests/e2b/sdk_check.mjs
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

const clients = process.env.CODERUNNER_E2B_CLIENTS_DIR ?? '/var/cache/coderunner/e2b-clients';
const { Sandbox, CommandExitError } = await import(`${clients}/node_modules/e2b/dist/index.mjs`);
const otherKey = process.env.E2B_OTHER_API_KEY;

let sbx;
before(async () => {
  sbx = await Sandbox.create({ metadata: { suite: 'e2b-sdk' }, timeoutMs: 300_000 });
});
after(async () => {
  if (sbx) await Sandbox.kill(sbx.sandboxId);
});

// Resolves once `predicate()` holds, polling (a background command's output
// arrives when it arrives).
async function until(predicate, what) {
  for (let i = 0; i < 200; i++) {
    if (predicate()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('a sandbox is listed, described and given a new timeout', async () => {
  const listed = await Sandbox.list({ query: { metadata: { suite: 'e2b-sdk' } } }).nextItems();
  assert.ok(listed.some((s) => s.sandboxId === sbx.sandboxId), JSON.stringify(listed));
  const info = await sbx.getInfo();
  assert.equal(info.sandboxId, sbx.sandboxId);
  assert.equal(info.metadata.suite, 'e2b-sdk');
  await sbx.setTimeout(120_000);
  const later = await sbx.getInfo();
  assert.ok(later.endAt.getTime() - Date.now() <= 121_000, `endAt ${later.endAt.toISOString()}`);
});

test('commands.run answers stdout, stderr and the exit code in /home/user', async () => {
  const r = await sbx.commands.run('pwd; echo hi; echo oops >&2');
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, '/home/user\nhi\n');
  assert.equal(r.stderr, 'oops\n');
  await assert.rejects(sbx.commands.run('echo partial; exit 3'), (e) => {
    assert.ok(e instanceof CommandExitError, String(e));
    assert.equal(e.exitCode, 3);
    assert.equal(e.stdout, 'partial\n');
    return true;
  });
});

test('commands.run streams output to its callbacks as it comes', async () => {
  const seen = [];
  const r = await sbx.commands.run('for i in 1 2 3; do echo $i; sleep 0.2; done; echo done >&2', {
    onStdout: (d) => seen.push(['out', d]),
    onStderr: (d) => seen.push(['err', d]),
  });
  assert.equal(seen.filter(([k]) => k === 'out').map(([, d]) => d).join(''), '1\n2\n3\n');
  assert.ok(seen.filter(([k]) => k === 'out').length >= 2, 'more than one stdout chunk');
  assert.deepEqual(seen.at(-1), ['err', 'done\n']);
  assert.equal(r.stdout, '1\n2\n3\n');
});

test('a background command reads its stdin, is listed and is killed', async () => {
  const handle = await sbx.commands.run('cat', { background: true, stdin: true });
  assert.ok(handle.pid > 0);
  await sbx.commands.sendStdin(handle.pid, 'hello from stdin\n');
  await until(() => handle.stdout.includes('hello from stdin'), 'the echoed stdin');
  const running = await sbx.commands.list();
  assert.ok(running.some((p) => p.pid === handle.pid), JSON.stringify(running));
  assert.equal(await sbx.commands.kill(handle.pid), true);
  await assert.rejects(handle.wait());
  await until(() => true, 'nothing');
  const after = await sbx.commands.list();
  assert.ok(!after.some((p) => p.pid === handle.pid), JSON.stringify(after));
  assert.equal(await sbx.commands.kill(999999), false);
});

test('files are written, read, listed, made, found and removed', async () => {
  const written = await sbx.files.write('notes/a.txt', 'hello file');
  assert.equal(written.path, '/home/user/notes/a.txt');
  assert.equal(await sbx.files.read('notes/a.txt'), 'hello file');
  assert.equal(await sbx.files.read('/home/user/notes/a.txt'), 'hello file');
  const bytes = new Uint8Array([0, 1, 2, 250, 255]);
  await sbx.files.write('/home/user/bin.dat', bytes);
  assert.deepEqual(await sbx.files.read('bin.dat', { format: 'bytes' }), bytes);
  const r = await sbx.commands.run('cat notes/a.txt');
  assert.equal(r.stdout, 'hello file');
  const entries = await sbx.files.list('notes');
  assert.deepEqual(entries.map((e) => [e.name, e.type]), [['a.txt', 'file']]);
  assert.equal(await sbx.files.makeDir('made/deep'), true);
  assert.equal(await sbx.files.makeDir('made/deep'), false);
  assert.equal((await sbx.files.getInfo('made/deep')).type, 'dir');
  assert.equal(await sbx.files.exists('notes/a.txt'), true);
  await sbx.files.rename('notes/a.txt', 'notes/b.txt');
  assert.equal(await sbx.files.exists('notes/a.txt'), false);
  await sbx.files.remove('notes/b.txt');
  assert.equal(await sbx.files.exists('notes/b.txt'), false);
  await assert.rejects(sbx.files.read('no/such/file'));
});

test("another tenant's key reaches nothing of the sandbox", { skip: !otherKey }, async () => {
  await assert.rejects(Sandbox.getInfo(sbx.sandboxId, { apiKey: otherKey }));
  await assert.rejects(Sandbox.connect(sbx.sandboxId, { apiKey: otherKey }));
  assert.equal(await Sandbox.kill(sbx.sandboxId, { apiKey: otherKey }), false);
  const theirs = await Sandbox.list({ apiKey: otherKey }).nextItems();
  assert.ok(!theirs.some((s) => s.sandboxId === sbx.sandboxId));
  assert.equal((await sbx.commands.run('echo still here')).stdout, 'still here\n');
});

test('a killed sandbox is gone', async () => {
  const other = await Sandbox.create();
  assert.equal(await Sandbox.kill(other.sandboxId), true);
  assert.equal(await Sandbox.kill(other.sandboxId), false);
  await assert.rejects(Sandbox.getInfo(other.sandboxId));
});

test('what runs in the sandbox is contained', async () => {
  const run = (cmd) => sbx.commands.run(cmd).then((r) => r, (e) => e);
  const uid = await run('id -u');
  assert.notEqual(uid.stdout.trim(), '0');
  // An exec keeps the container's hardening: no capability, no new
  // privileges, the seccomp filter.
  const status = await run("grep -E '^(CapEff|CapPrm|NoNewPrivs|Seccomp):' /proc/self/status");
  const fields = Object.fromEntries(status.stdout.trim().split('\n').map((l) => l.split(/:\s+/)));
  assert.deepEqual(fields, {
    CapPrm: '0000000000000000', CapEff: '0000000000000000', NoNewPrivs: '1', Seccomp: '2',
  });
  const root = await run('touch /etc/owned');
  assert.notEqual(root.exitCode, 0);
  assert.match(root.stderr, /Read-only file system/);
  const net = await run('cat /sys/class/net/*/operstate | sort | tr "\\n" " "');
  assert.equal(net.stdout.trim(), 'unknown', `interfaces: ${net.stdout}`);
  // /home/user is bounded (E2B_HOME_BYTES, the test's e2b.home_bytes).
  const limit = Number(process.env.E2B_HOME_BYTES ?? 0);
  if (limit > 0) {
    const fill = await run(`head -c ${2 * limit} /dev/zero > fill.bin; echo $?; stat -c %s fill.bin`);
    const [rc, size] = fill.stdout.trim().split('\n');
    assert.notEqual(rc, '0', 'writing twice the bound failed');
    assert.ok(Number(size) <= limit, `fill.bin holds ${size} bytes, bound ${limit}`);
    await sbx.files.remove('fill.bin');
  }
});
