// coderunner stateful-sandbox driver for JavaScript (Node 20, built-ins only).
//
// Runs as `node /workspace/.coderunner-repl.js FIFO` for the whole life of a
// sandbox. User code runs in one persistent vm context, so top-level var,
// let, const, function and class declarations survive between calls.
//
// Protocol (shared with repl.py and repl.sh). Calls arrive on FIFO, opened
// read-write so that we never read EOF while the service restarts. A call:
//   "CRX1" + uint32 little-endian payload length + payload
//   payload = nonce ([0-9a-f]{8,64}) NUL timeout_ms (ASCII decimal) NUL code
// A bad frame cannot be skipped (we would not know where the next starts):
// one line on stderr and exit 3; the service restarts the sandbox. After each
// call, each with one write() and nothing after it until the next call:
//   stdout: "\x1e" 'coderunner-init {"eof":"NONCE"}\n'
//   stderr: "\x1e" 'coderunner-init {...,"timed_out":T,"eof":"NONCE"}\n'
// (coderunner-init's own end lines, so calls parse like cold jobs).
// Exit codes: 1 for a thrown error, n & 0xff for process.exit(n), 124 and
// timed_out=1 past timeout_ms, 130 and timed_out=1 on SIGINT.
//
// Reading is asynchronous so that the user's timers and promises keep
// running between calls; calls still run strictly one at a time.
//
// With --typescript (before FIFO), each cell is TypeScript: esbuild (the one
// tsx runs on, found through the tsx on PATH) strips its types first, with no
// type check. import becomes require, as in a JavaScript cell, unless the
// cell uses top-level await, which only untouched module syntax keeps (such
// a cell cannot also import: split it). An esbuild error is the cell's
// SyntaxError, "cell.ts:LINE:COLUMN: message".
'use strict';
const fs = require('fs');
const path = require('path');
const util = require('util');
const vm = require('vm');

const MAX_PAYLOAD = 64 << 20;  // Far above any call the service accepts.

function writeAll(fd, text) {
  // Node makes stdout/stderr pipes non-blocking: wait out EAGAIN ourselves.
  let buf = Buffer.from(text);
  while (buf.length) {
    try {
      buf = buf.subarray(fs.writeSync(fd, buf));
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

function fail(msg) {
  writeAll(2, `coderunner repl: ${msg}\n`);
  process.exit(3);
}

class ExitSignal {  // What the user's process.exit(n) throws instead of exiting.
  constructor(code) { this.code = code === undefined ? 0 : (Number(code) | 0) & 0xff; }
}

let current = null;  // The call awaiting a promise: {finish(() => result)}.

// The user's `process`: the real one, except that exit() ends the call.
const userProcess = new Proxy(process, {
  get(target, key) {
    if (key === 'exit') return (code) => { throw new ExitSignal(code); };
    const v = Reflect.get(target, key, target);
    return typeof v === 'function' ? v.bind(target) : v;
  },
});
const realRequire = require('module').createRequire(path.join(process.cwd(), 'cell.js'));
const userRequire = Object.assign(
  (id) => (id === 'process' || id === 'node:process' ? userProcess : realRequire(id)),
  { resolve: realRequire.resolve, cache: realRequire.cache });

const typescript = process.argv.includes('--typescript');
const cellModule = { exports: {} };
const ctx = vm.createContext({
  console: new console.Console({ stdout: process.stdout, stderr: process.stderr }),
  require: userRequire, process: userProcess, Buffer, URL, URLSearchParams,
  TextEncoder, TextDecoder, AbortController, structuredClone, queueMicrotask,
  setTimeout, setInterval, setImmediate, clearTimeout, clearInterval, clearImmediate,
  atob, btoa, performance,
  // What a CommonJS file has, as `node main.js` and `tsx main.ts` give it
  // (esbuild's CommonJS output of a cell with `export` assigns module.exports).
  __dirname: process.cwd(), __filename: path.join(process.cwd(), typescript ? 'cell.ts' : 'cell.js'),
  module: cellModule, exports: cellModule.exports,
});
ctx.global = vm.runInContext('globalThis', ctx);

function describe(err) {
  // Our own frames (the vm call, this file) are noise to the user.
  const text = err && typeof err.stack === 'string' ? err.stack : util.inspect(err);
  return text.split('\n')
    .filter((l) => !(/^\s+at /.test(l) && (l.includes(__filename) || l.includes('(node:vm:'))))
    .join('\n') + '\n';
}

let acorn;  // Node bundles acorn (for its own REPL) but does not export it.
function loadAcorn() {
  if (acorn === undefined) {
    try {
      const m = { exports: {} };
      new Function('module', 'exports', process.binding('natives')['internal/deps/acorn/acorn/dist/acorn'])(m, m.exports);
      acorn = m.exports;
    } catch { acorn = null; }
  }
  return acorn;
}

const names = (p) => (!p ? [] : p.type === 'Identifier' ? [p.name]  // What a declaration binds.
  : p.type === 'ObjectPattern' ? p.properties.flatMap((q) => names(q.value || q.argument))
  : p.type === 'ArrayPattern' ? p.elements.flatMap((q) => names(q))
  : names(p.left || p.argument));  // AssignmentPattern, RestElement.

// Top-level await is not valid in a script: like Node's REPL, run the cell
// in an async function and declare its top-level names outside it, so that
// they persist like any others. Edits stay on their lines (so do errors').
function wrapAwait(code) {
  if (!loadAcorn()) return `(async () => {${code}\n})()`;
  const body = acorn.parse(code, { ecmaVersion: 'latest', allowAwaitOutsideFunction: true }).body;
  const edits = [];  // [start, end, replacement]
  const insert = (at, text) => edits.push([at, at, text]);
  let hoisted = '';
  for (const st of body) {
    if (st.type === 'VariableDeclaration') {  // let a = 1, {b} = c  ->  void (a = 1, {b} = c)
      hoisted += `${st.kind === 'var' ? 'var' : 'let'} ${st.declarations.flatMap((d) => names(d.id)).join(', ')}; `;
      edits.push([st.start, st.start + st.kind.length, 'void (']);
      insert(st.declarations.at(-1).end, ')');
    } else if (st.type === 'FunctionDeclaration') {
      hoisted += `var ${st.id.name}; `;
      insert(st.start, `globalThis.${st.id.name} = ${st.id.name}; `);
    } else if (st.type === 'ClassDeclaration') {
      hoisted += `let ${st.id.name}; `;
      insert(st.start, `${st.id.name} = `);
      insert(st.end, ';');
    }
  }
  const last = body.at(-1);
  if (last && last.type === 'ExpressionStatement') {  // Its value is awaited, like a script's.
    insert(last.start, 'return (');
    insert(last.expression.end, ')');
  }
  let out = code;
  // Back to front; of two edits at one place, the later-added goes after.
  edits.forEach((e, i) => e.push(i));
  for (const [s, e, t] of edits.sort((x, y) => y[0] - x[0] || y[3] - x[3])) out = out.slice(0, s) + t + out.slice(e);
  return `${hoisted}(async () => {${out}\n})()`;
}

let esbuild;
function loadEsbuild() {
  if (esbuild === undefined) {
    const tsx = (process.env.PATH || '').split(':').map((d) => path.join(d, 'tsx'))
      .find((p) => { try { fs.accessSync(p, fs.constants.X_OK); return true; } catch { return false; } });
    if (!tsx) fail('--typescript: no tsx on PATH');
    esbuild = require('module').createRequire(fs.realpathSync(tsx))('esbuild');
  }
  return esbuild;
}

function syntaxError(e) {  // esbuild's first error, where it is in the cell.
  const first = e && e.errors && e.errors[0];
  if (!first) return e;
  const at = first.location ? `cell.ts:${first.location.line}:${first.location.column}: ` : '';
  const err = new SyntaxError(at + first.text);
  err.stack = `SyntaxError: ${err.message}`;
  return err;
}

function toJavaScript(code) {
  if (!typescript) return code;
  const options = { loader: 'ts', sourcefile: 'cell.ts', target: 'node20' };
  try {
    return loadEsbuild().transformSync(code, { ...options, format: 'cjs' }).code;
  } catch (e) {
    if (!/Top-level await/.test(e && e.message)) throw syntaxError(e);
  }
  try { return loadEsbuild().transformSync(code, options).code; } catch (e) { throw syntaxError(e); }
}

function compile(code) {
  try {
    return new vm.Script(code, { filename: 'cell.js' });
  } catch (e) {
    if (!code.includes('await')) throw e;
    try { return new vm.Script(wrapAwait(code), { filename: 'cell.js' }); } catch { throw e; }
  }
}

const timeoutResult = (ms) => (process.stderr.write(`TimeoutError: execution exceeded ${ms} ms\n`), [124, true]);
const interruptResult = () => (process.stderr.write('KeyboardInterrupt: execution interrupted\n'), [130, true]);

function errorResult(e, timeoutMs) {  // -> [exit code, timed out]
  if (e instanceof ExitSignal) return [e.code, false];
  if (e && e.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return timeoutResult(timeoutMs);
  if (e && e.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED') return interruptResult();
  process.stderr.write(describe(e));
  return [1, false];
}

async function runCall(code, timeoutMs) {
  const t0 = Date.now();
  let result;
  try {
    result = compile(toJavaScript(code)).runInContext(ctx, {
      breakOnSigint: true, ...(timeoutMs > 0 ? { timeout: Math.min(timeoutMs, 2 ** 32 - 1) } : {}),
    });
  } catch (e) {
    return errorResult(e, timeoutMs);
  }
  if (!result || typeof result.then !== 'function') return [0, false];
  return new Promise((resolve) => {
    let timer;
    // The first of result, timer and SIGINT wins. A timed-out call's promise
    // may still settle during a later call: it must not end that one.
    const call = { finish(make) {
      if (current !== call) return;
      current = null;
      clearTimeout(timer);
      resolve(make());
    } };
    current = call;
    if (timeoutMs > 0) {
      const left = Math.min(Math.max(0, timeoutMs - (Date.now() - t0)), 2 ** 31 - 1);  // setTimeout's range.
      timer = setTimeout(() => call.finish(() => timeoutResult(timeoutMs)), left);
    }
    Promise.resolve(result).then(() => call.finish(() => [0, false]),
      (e) => call.finish(() => errorResult(e, timeoutMs)));
  });
}

// Errors from the user's callbacks must not kill the driver (and its state).
process.on('uncaughtException', (e) => {
  if (current && e instanceof ExitSignal) current.finish(() => [e.code, false]);
  else if (!(e instanceof ExitSignal)) process.stderr.write(describe(e));
});
// A running script is stopped by breakOnSigint; a call awaiting a promise
// here; a SIGINT between calls is stale and must not kill us.
process.on('SIGINT', () => current && current.finish(interruptResult));

function readExact(fd, n) {
  const buf = Buffer.alloc(n);
  return new Promise((resolve) => {
    const step = (off) => {
      if (off === n) return resolve(buf);
      fs.read(fd, buf, off, n - off, null, (err, got) => {
        if (err || got === 0) fail(`request channel: ${err ? err.message : 'closed'}`);
        step(off + got);
      });
    };
    step(0);
  });
}

function readNumber(file, key) {  // The first number in file, or the one after key; -1 if none.
  try {
    const m = fs.readFileSync(file, 'utf8').match(key ? new RegExp(`^${key} (\\d+)$`, 'm') : /^(\d+)/);
    if (m) return Number(m[1]);
  } catch { /* Not in a cgroup we can read. */ }
  return -1;
}
const firstOf = (...v) => v.find((x) => x >= 0) ?? -1;

function cpuUs() {
  // Ours plus the children we waited for (/proc/self/stat cutime, cstime; USER_HZ = 100).
  const u = process.cpuUsage();
  let children = 0;
  try {
    const s = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    children = (Number(f[13]) + Number(f[14])) * 10000;
  } catch { /* No /proc. */ }
  return u.user + u.system + children;
}

async function drained() {
  // User output still queued in a stream must land before the markers.
  for (const s of [process.stdout, process.stderr]) {
    while (s.writableLength > 0) await new Promise((r) => setImmediate(r));
  }
}

async function main() {
  let fd;
  try { fd = fs.openSync(process.argv[process.argv.length - 1], 'r+'); } catch (e) { fail(e.message); }
  if (typescript) loadEsbuild();  // A missing esbuild fails the start, not a call.
  for (;;) {
    const head = await readExact(fd, 8);
    if (head.toString('latin1', 0, 4) !== 'CRX1') fail(`bad frame magic ${JSON.stringify(head.toString('latin1', 0, 4))}`);
    const n = head.readUInt32LE(4);
    if (n > MAX_PAYLOAD) fail(`frame too large (${n} bytes)`);
    const payload = await readExact(fd, n);
    const a = payload.indexOf(0);
    const b = payload.indexOf(0, a + 1);
    const nonce = payload.toString('latin1', 0, a);
    const tmo = payload.toString('latin1', a + 1, b);
    if (a < 0 || b < 0 || !/^[0-9a-f]{8,64}$/.test(nonce) || !/^[0-9]+$/.test(tmo)) fail('malformed frame');
    const t0 = process.hrtime.bigint();
    const c0 = cpuUs();
    const [exitCode, timedOut] = await runCall(payload.toString('utf8', b + 1), Number(tmo));
    const wall = Number((process.hrtime.bigint() - t0) / 1000n);
    const cpu = cpuUs() - c0;
    const mem = firstOf(readNumber('/sys/fs/cgroup/memory.peak'),
      readNumber('/sys/fs/cgroup/memory/memory.max_usage_in_bytes'));
    const ooms = firstOf(readNumber('/sys/fs/cgroup/memory.events', 'oom_kill'),
      readNumber('/sys/fs/cgroup/memory/memory.oom_control', 'oom_kill'));
    await drained();
    writeAll(1, `\x1ecoderunner-init {"eof":"${nonce}"}\n`);
    writeAll(2, `\x1ecoderunner-init {"exit_code":${exitCode},"signal":0,"wall_us":${wall},` +
      `"cpu_us":${cpu},"memory_peak_bytes":${mem},"oom_kills":${ooms},"output_bytes":-1,` +
      `"output_entries":-1,"output_violation":"","output_rolled_back":0,` +
      `"timed_out":${timedOut ? 1 : 0},"eof":"${nonce}"}\n`);
  }
}

main().catch((e) => fail(`driver error: ${e && e.stack}`));
