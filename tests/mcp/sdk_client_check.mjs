// The official MCP TypeScript SDK (@modelcontextprotocol/sdk, pinned by
// tests/mcp/package-lock.json) as a client of coderunner's MCP server, over
// either transport:
//
//   node tests/mcp/sdk_client_check.mjs --transport http|stdio \
//     --server http://127.0.0.1:PORT --key KEY_A --other-key KEY_B \
//     [--coderunner /path/to/coderunner] [--clients-dir DIR]
//
// http: StreamableHTTPClientTransport on SERVER/mcp, the key as a bearer
// header. stdio: StdioClientTransport spawning `coderunner mcp --server
// SERVER` with the key in CODERUNNER_API_KEY. KEY_A and KEY_B belong to two
// tenants. DIR holds node_modules/@modelcontextprotocol/sdk (default:
// $CODERUNNER_MCP_CLIENTS_DIR, else /var/cache/coderunner/mcp-clients).
//
// Runs every check below in order, prints one JSON line
// ({"transport", "passed": [...], "failed": [{"check", "error"}]}) and exits
// 1 if any failed, naming it on stderr. Run by McpClientTest
// (tests/integration/mcp_test.cc).
import { Buffer } from 'node:buffer';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

const { values: opts } = parseArgs({
  options: {
    transport: { type: 'string' },
    server: { type: 'string' },
    key: { type: 'string' },
    'other-key': { type: 'string' },
    coderunner: { type: 'string' },
    'clients-dir': { type: 'string' },
  },
});
for (const name of ['transport', 'server', 'key', 'other-key']) {
  if (!opts[name]) usage(`--${name} is required`);
}
if (!['http', 'stdio'].includes(opts.transport)) usage('--transport is http or stdio');
if (opts.transport === 'stdio' && !opts.coderunner) usage('--transport stdio needs --coderunner');

function usage(message) {
  console.error(`sdk_client_check: ${message}`);
  process.exit(2);
}

const clientsDir =
  opts['clients-dir'] ||
  process.env.CODERUNNER_MCP_CLIENTS_DIR ||
  '/var/cache/coderunner/mcp-clients';
const sdkDir = path.join(clientsDir, 'node_modules/@modelcontextprotocol/sdk/dist/esm');
const sdk = (file) => import(pathToFileURL(path.join(sdkDir, file)).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { LoggingMessageNotificationSchema } = await sdk('types.js');

const server = opts.server.replace(/\/+$/, '');
const mcpUrl = `${server}/mcp`;
// Generous: a cold container of a language not yet pulled into the pool.
const kCallTimeoutMs = 180000;
// For a job whose run time this check is not about: the data stack's
// import alone takes half a second on an idle machine, and CI stalled one
// past the 10 s default at its ASan stage's start. 30 s is within every
// tier's maximum.
const kUnhurriedLimits = { timeout_ms: 30000 };
const kPngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

class CheckError extends Error {}
function expect(condition, message, detail) {
  if (!condition) {
    const shown = detail === undefined ? '' : `: ${JSON.stringify(detail).slice(0, 1500)}`;
    throw new CheckError(`${message}${shown}`);
  }
}

// A new client over the transport under test, holding `key`.
function newTransport(key) {
  if (opts.transport === 'http') {
    return new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
  }
  return new StdioClientTransport({
    command: opts.coderunner,
    args: ['mcp', '--server', server],
    env: { ...process.env, CODERUNNER_API_KEY: key },
    stderr: 'inherit',
  });
}

async function connect(key) {
  const client = new Client({ name: 'coderunner-sdk-check', version: '1.0.0' });
  const transport = newTransport(key);
  await client.connect(transport, { timeout: 60000 });
  return { client, transport };
}

// Every info-level (or higher) log message the main client received.
const logMessages = [];
const { client, transport } = await connect(opts.key);
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logMessages.push(n.params));

// A job's own limits (`run_code`'s `limits`); none: the defaults.
async function run(language, code, options = {}, limits = undefined) {
  return client.callTool(
    { name: 'run_code', arguments: { language, code, ...(limits && { limits }) } },
    undefined,
    { timeout: kCallTimeoutMs, ...options },
  );
}

// The REST API as tenant A.
async function rest(pathAndQuery) {
  const r = await fetch(`${server}${pathAndQuery}`, {
    headers: { Authorization: `Bearer ${opts.key}` },
  });
  expect(r.ok, `GET ${pathAndQuery} answered ${r.status}`, await r.clone().text());
  return r.json();
}

// Polls `done` every 500 ms until it holds; false after `budgetMs` (which
// only keeps a broken server from hanging the check).
async function eventually(done, budgetMs = 60000) {
  const end = Date.now() + budgetMs;
  while (Date.now() < end) {
    if (await done()) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

const checks = [];
const check = (name, fn) => checks.push({ name, fn });

check('tools', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const want of [
    'run_code',
    'list_languages',
    'sandbox_create',
    'sandbox_execute',
    'sandbox_list',
    'sandbox_files',
    'sandbox_delete',
  ]) {
    expect(names.includes(want), `tool ${want} not listed`, names);
  }
  for (const t of tools) {
    expect(typeof t.title === 'string' && t.title, `tool ${t.name} has no title`, t);
    expect(t.description, `tool ${t.name} has no description`, t);
    expect(t.inputSchema?.type === 'object', `tool ${t.name}: inputSchema not an object`, t);
    expect(t.outputSchema?.type === 'object', `tool ${t.name}: outputSchema not an object`, t);
    expect(t.annotations && typeof t.annotations === 'object', `tool ${t.name}: no annotations`, t);
  }
});

check('list_languages', async () => {
  const r = await client.callTool({ name: 'list_languages', arguments: {} });
  expect(!r.isError, 'list_languages failed', r);
  const names = (r.structuredContent?.languages ?? []).map((l) => l.name);
  for (const want of ['python', 'javascript', 'typescript', 'bash']) {
    expect(names.includes(want), `list_languages lacks ${want}`, r.structuredContent);
  }
});

check('run_each_language', async () => {
  const programs = [
    ['python', 'print(6*7)'],
    ['javascript', 'console.log(6*7)'],
    ['typescript', 'const n: number = 6;\nconsole.log(n * 7)'],
    ['bash', 'echo $((6*7))'],
  ];
  for (const [language, code] of programs) {
    const r = await run(language, code);
    const s = r.structuredContent;
    expect(!r.isError, `${language}: isError`, r);
    expect(s?.stdout === '42\n', `${language}: stdout is not "42\\n"`, s);
    expect(s.status === 'succeeded' && s.exit_code === 0, `${language}: not succeeded`, s);
    expect(typeof s.job_id === 'string' && s.job_id, `${language}: no job_id`, s);
    const text = r.content.find((c) => c.type === 'text');
    expect(text?.text.includes('42'), `${language}: no text block with the output`, r.content);
  }
});

check('log_messages', async () => {
  // run_each_language's calls each sent an info message when accepted
  // and when finished (logging/setLevel's default is info).
  expect(logMessages.some((m) => m.level === 'info'), 'no info log message', logMessages);
});

check('matplotlib_image', async () => {
  const r = await run(
    'python',
    "import matplotlib; matplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n" +
      "plt.plot([1, 2])\nplt.savefig('/output/plot.png')\n",
    {},
    kUnhurriedLimits,
  );
  expect(!r.isError, 'the plot failed', r.structuredContent);
  const image = r.content.find((c) => c.type === 'image');
  expect(image, 'no image content', r.content.map((c) => c.type));
  expect(image.mimeType === 'image/png', 'image mimeType', image.mimeType);
  const bytes = Buffer.from(image.data, 'base64');
  expect(bytes.subarray(0, 8).equals(kPngSignature), 'image data is not a PNG', image.data.slice(0, 40));
  const artifact = (r.structuredContent?.artifacts ?? []).find((a) => a.path === 'plot.png');
  expect(artifact?.uri, 'plot.png is not among the artifacts', r.structuredContent.artifacts);
  expect(artifact.size === bytes.length, 'the image is not the whole artifact', artifact);
});

check('artifact_resources', async () => {
  const text = 'a,b\n1,2\n';
  const blob = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const r = await run(
    'python',
    `open('/output/data.csv', 'w').write(${JSON.stringify(text)})\n` +
      "open('/output/blob.bin', 'wb').write(bytes(range(256)))\n",
  );
  expect(!r.isError, 'the run failed', r.structuredContent);
  const artifacts = r.structuredContent?.artifacts ?? [];
  for (const [name, want, field] of [
    ['data.csv', Buffer.from(text), 'text'],
    ['blob.bin', blob, 'blob'],
  ]) {
    const a = artifacts.find((x) => x.path === name);
    expect(a?.uri, `${name} has no uri`, artifacts);
    expect(a.size === want.length && a.mime_type, `${name}: size or mime_type`, a);
    const link = r.content.find((c) => c.type === 'resource_link' && c.uri === a.uri);
    expect(link, `no resource_link for ${name}`, r.content);
    const read = await client.readResource({ uri: a.uri });
    const c = read.contents?.[0];
    expect(c?.uri === a.uri && field in c, `${name}: resources/read has no ${field}`, read);
    const got = field === 'text' ? Buffer.from(c.text) : Buffer.from(c.blob, 'base64');
    expect(got.equals(want), `${name}: resources/read bytes differ`, c);
  }
});

check('sandbox_state', async () => {
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, undefined, {
      timeout: kCallTimeoutMs,
    });
    expect(!r.isError, `${name} failed`, r);
    return r.structuredContent;
  };
  const box = await call('sandbox_create', { language: 'python' });
  expect(typeof box.id === 'string' && box.id, 'sandbox_create gave no id', box);
  try {
    const set = await call('sandbox_execute', { sandbox_id: box.id, code: 'x = 41' });
    expect(set.status === 'succeeded', 'x = 41 did not succeed', set);
    const get = await call('sandbox_execute', { sandbox_id: box.id, code: 'print(x + 1)' });
    expect(get.stdout === '42\n' && get.state_lost === false, 'the state was not kept', get);
  } finally {
    const gone = await call('sandbox_delete', { sandbox_id: box.id });
    expect(gone.deleted === true && gone.id === box.id, 'sandbox_delete', gone);
  }
});

check('failing_program_is_error', async () => {
  const r = await run('python', "import sys\nprint('out')\nsys.exit(1)");
  expect(r.isError === true, 'a program exiting 1 is not isError', r);
  const s = r.structuredContent;
  expect(s?.exit_code === 1 && s.status === 'failed' && s.stdout === 'out\n', 'its result', s);
});

check('progress', async () => {
  const seen = [];
  const r = await run('python', "import time\ntime.sleep(3)\nprint('done')", {
    onprogress: (p) => seen.push(p),
  });
  expect(r.structuredContent?.stdout === 'done\n', 'the run', r.structuredContent);
  expect(seen.length >= 1, 'no notifications/progress during a 3 s run');
});

check('cancel', async () => {
  const cancelled = async () =>
    new Set((await rest('/v1/jobs?status=cancelled&limit=100')).jobs.map((j) => j.id));
  const before = await cancelled();
  const abort = new AbortController();
  // Cancelled as soon as the server says the job is under way.
  const call = run('python', 'import time\ntime.sleep(60)', {
    signal: abort.signal,
    onprogress: () => abort.abort('the check cancels it'),
  });
  let outcome;
  try {
    outcome = await call;
  } catch (e) {
    outcome = e;
  }
  expect(abort.signal.aborted, 'the call ended before any progress', outcome);
  const found = await eventually(async () => [...(await cancelled())].some((id) => !before.has(id)));
  expect(found, 'no job of the tenant became cancelled (GET /v1/jobs?status=cancelled)');
});

check('unknown_key_refused', async () => {
  let error;
  try {
    const other = await connect('not-a-key-of-this-server');
    await other.client.close();
  } catch (e) {
    error = e;
  }
  expect(error, 'a client with an unknown key connected');
  if (opts.transport === 'http') expect(error.code === 401, 'not a 401', String(error));
});

if (opts.transport === 'http') {
  check('other_tenants_session_is_404', async () => {
    const post = (key) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${key}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Mcp-Session-Id': transport.sessionId,
          'MCP-Protocol-Version': transport.protocolVersion ?? '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'ping-1', method: 'ping' }),
      });
    expect(transport.sessionId, 'the SDK client got no session id');
    const theirs = await post(opts['other-key']);
    expect(theirs.status === 404, `tenant B with tenant A's session: ${theirs.status}`, await theirs.text());
    const ours = await post(opts.key);
    expect(ours.status === 200, `tenant A with its own session: ${ours.status}`, await ours.text());
  });
}

const passed = [];
const failed = [];
for (const { name, fn } of checks) {
  try {
    await fn();
    passed.push(name);
  } catch (e) {
    const error = e instanceof CheckError ? e.message : (e?.stack ?? String(e));
    failed.push({ check: name, error });
    console.error(`sdk_client_check (${opts.transport}): FAILED ${name}: ${error}`);
  }
}
await client.close().catch(() => {});
console.log(JSON.stringify({ transport: opts.transport, passed, failed }));
process.exit(failed.length ? 1 : 0);
