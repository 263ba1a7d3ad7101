// The official E2B code interpreter SDK (npm `@e2b/code-interpreter`,
// pinned by package-lock.json) against a live coderunner, unchanged: the
// same three variables as sdk_check.mjs point it at /e2b (docs/e2b.md).
// Run by E2bSdkTest (tests/integration/e2b_sdk_test.cc) on each engine, or
// by hand as sdk_check.mjs is.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { kReleasedCell } from './released_cell.mjs';

const clients = process.env.CODERUNNER_E2B_CLIENTS_DIR ?? '/var/cache/coderunner/e2b-clients';
const { Sandbox } = await import(`${clients}/node_modules/@e2b/code-interpreter/dist/index.mjs`);

// A PNG file starts with these 8 bytes.
const kPngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let sbx;
before(async () => {
  sbx = await Sandbox.create({ timeoutMs: 300_000 });
});
after(async () => {
  if (sbx) await Sandbox.kill(sbx.sandboxId);
});

test('runCode keeps state between calls and answers the last expression', async () => {
  const first = await sbx.runCode('x = 1');
  assert.equal(first.error, undefined);
  const second = await sbx.runCode('x + 1');
  assert.equal(second.text, '2');
  assert.equal(second.results.length, 1);
  assert.equal(second.results[0].isMainResult, true);
  assert.ok(second.executionCount >= 2, `executionCount ${second.executionCount}`);
});

test('stdout and stderr reach the callbacks and the logs', async () => {
  const out = [];
  const err = [];
  const run = await sbx.runCode('import sys\nprint("to out")\nprint("to err", file=sys.stderr)', {
    onStdout: (m) => out.push(m.line),
    onStderr: (m) => err.push(m.line),
  });
  assert.deepEqual(run.logs.stdout, ['to out\n']);
  assert.deepEqual(run.logs.stderr, ['to err\n']);
  assert.deepEqual(out, ['to out\n']);
  assert.deepEqual(err, ['to err\n']);
  assert.equal(run.text, undefined);
});

// The cell prints, then waits for a file the callback writes once it has
// the line: it ends only if its output streamed while it ran.
test('runCode streams its output to the callbacks while the cell runs', async () => {
  const seen = [];
  const run = await sbx.runCode(kReleasedCell, {
    timeoutMs: 60_000,
    onStdout: (m) => {
      seen.push(m.line);
      if (m.line === 'ready\n') sbx.files.write('/home/user/go', '');
    },
  });
  assert.deepEqual(seen, ['ready\n', 'released\n']);
  assert.deepEqual(run.logs.stdout, ['ready\n', 'released\n']);
  await sbx.files.remove('/home/user/go');
});

// A newline a write makes a line each, far more than a call holds unsent
// (1 MiB of lines): the rest comes at the end, nothing lost or repeated.
test('a flood of lines reaches the logs whole', async () => {
  const run = await sbx.runCode(
    "import sys\nfor _ in range(100000): sys.stdout.write('\\n')\nsys.stdout.flush()",
  );
  assert.equal(run.error, undefined);
  assert.equal(run.logs.stdout.join(''), '\n'.repeat(100000));
});

test('a matplotlib chart comes back as a PNG', async () => {
  const run = await sbx.runCode(
    'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.title("squares")\nplt.show()',
  );
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  const charts = run.results.filter((r) => r.png);
  assert.equal(charts.length, 1, JSON.stringify(run.results.map((r) => r.formats())));
  const png = Buffer.from(charts[0].png, 'base64');
  assert.deepEqual(png.subarray(0, 8), kPngSignature);
  assert.equal(charts[0].isMainResult, false);
});

test('a data frame comes back as HTML and text', async () => {
  const run = await sbx.runCode('import pandas as pd\npd.DataFrame({"a": [1, 2], "b": [3, 4]})');
  assert.equal(run.results.length, 1);
  assert.match(run.results[0].html, /<table/);
  assert.match(run.results[0].text, /a\s+b/);
});

test('an exception is the execution error, and the sandbox goes on', async () => {
  const errors = [];
  const run = await sbx.runCode('1 / 0', { onError: (e) => errors.push(e) });
  assert.equal(run.error.name, 'ZeroDivisionError');
  assert.equal(run.error.value, 'division by zero');
  assert.match(run.error.traceback, /ZeroDivisionError/);
  assert.equal(errors.length, 1);
  assert.equal((await sbx.runCode('x')).text, '1');
});

test('code runs in /home/user, where files.write puts files', async () => {
  await sbx.files.write('data.txt', 'from the SDK');
  const run = await sbx.runCode('import os\nprint(os.getcwd())\nopen("data.txt").read()');
  assert.deepEqual(run.logs.stdout, ['/home/user\n']);
  assert.equal(run.text, "'from the SDK'");
});

test('JavaScript and TypeScript contexts keep state of their own', async () => {
  const js = await sbx.createCodeContext({ language: 'javascript' });
  assert.equal(js.language, 'javascript');
  assert.equal(js.cwd, '/home/user');
  assert.equal((await sbx.runCode('let y = 40', { context: js })).error, undefined);
  const sum = await sbx.runCode('console.log(y + 2)', { context: js });
  assert.deepEqual(sum.logs.stdout, ['42\n'], JSON.stringify(sum));
  // runCode by language alone uses that language's default context.
  const ts = await sbx.runCode('const z: number = 5\nconsole.log(z * 2)', { language: 'ts' });
  assert.deepEqual(ts.logs.stdout, ['10\n'], JSON.stringify(ts));
  const again = await sbx.runCode('console.log(z + 1)', { language: 'typescript' });
  assert.deepEqual(again.logs.stdout, ['6\n'], JSON.stringify(again));
  // The Python interpreter's state is apart from theirs.
  assert.equal((await sbx.runCode('x')).text, '1');
});

test('contexts are listed, restarted with fresh state and removed', async () => {
  const py = await sbx.createCodeContext();
  assert.equal(py.language, 'python');
  await sbx.runCode('w = 3', { context: py });
  const fresh = await sbx.runCode('w', { context: py });
  assert.equal(fresh.text, '3');
  assert.equal((await sbx.runCode('"w" in dir()')).text, 'False');
  const listed = await sbx.listCodeContexts();
  assert.deepEqual(listed[0], { id: 'python', language: 'python', cwd: '/home/user' });
  assert.ok(listed.some((c) => c.id === py.id), JSON.stringify(listed));
  await sbx.restartCodeContext(py);
  const restarted = await sbx.runCode('w', { context: py });
  assert.equal(restarted.error.name, 'NameError');
  await sbx.removeCodeContext(py);
  assert.ok(!(await sbx.listCodeContexts()).some((c) => c.id === py.id));
  // The SDK leaves its request timer running when runCode is refused
  // (node would wait out the default 60 s before exiting): a short one.
  await assert.rejects(sbx.runCode('1', { context: py, requestTimeoutMs: 2_000 }), {
    name: 'NotFoundError',
  });
  await assert.rejects(sbx.removeCodeContext('python'), /400/);
});

test('a code context is no sandbox of the SDK', async () => {
  const listed = await Sandbox.list().nextItems();
  assert.deepEqual(listed.map((s) => s.sandboxId), [sbx.sandboxId]);
});
