// The Connect tab: how an agent reaches this coderunner through MCP
// (docs/mcp.md). Config snippets for a desktop assistant (stdio through
// `coderunner mcp`), an IDE agent (Streamable HTTP) and an agent framework
// (the official TypeScript SDK), filled in with this page's origin; and a
// check that opens a real MCP session with the key in use, lists the
// tools and ends the session.
import './connect_tab.css';
import * as api from './api.js';
import {el} from './dom.js';

const kAccept = 'application/json, text/event-stream';

function snippets(origin) {
  const url = `${origin}/mcp`;
  return [
    {id: 'desktop', title: 'Desktop assistant (stdio)',
     where: 'claude_desktop_config.json, or .cursor/mcp.json: the CLI relays stdio to this service',
     text: JSON.stringify({mcpServers: {coderunner: {
       command: 'coderunner', args: ['mcp', '--server', origin],
       env: {CODERUNNER_API_KEY: 'your-key'}}}}, null, 2)},
    {id: 'ide', title: 'IDE agent (Streamable HTTP)',
     where: '.vscode/mcp.json: the agent talks to /mcp directly',
     text: JSON.stringify({servers: {coderunner: {
       type: 'http', url,
       headers: {Authorization: 'Bearer ${env:CODERUNNER_API_KEY}'}}}}, null, 2)},
    {id: 'framework', title: 'Agent framework (TypeScript SDK)',
     where: 'npm install @modelcontextprotocol/sdk',
     text: [
       "import { Client } from '@modelcontextprotocol/sdk/client/index.js';",
       "import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';",
       '',
       "const client = new Client({ name: 'my-agent', version: '1.0.0' });",
       `await client.connect(new StreamableHTTPClientTransport(new URL('${url}'), {`,
       '  requestInit: { headers: { Authorization: `Bearer ${process.env.CODERUNNER_API_KEY}` } },',
       '}));',
       "const r = await client.callTool({ name: 'run_code',",
       "  arguments: { language: 'python', code: 'print(6*7)' } });",
       'console.log(r.structuredContent.stdout);',
     ].join('\n')},
  ];
}

function snippetBlock(s) {
  const code = el('pre', {class: 'connect-code', id: `connect-${s.id}`, tabindex: '0'}, s.text);
  const copy = el('button', {type: 'button', class: 'connect-copy',
                             'aria-label': `Copy the ${s.title} config`}, 'Copy');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(s.text);
      copy.textContent = 'Copied';
    } catch (e) {
      copy.textContent = 'Select and copy';
    }
  });
  return el('section', {class: 'connect-snippet', dataset: {snippet: s.id}},
      el('h3', {class: 'connect-subtitle'}, s.title),
      el('p', {class: 'hint'}, s.where), code, copy);
}

// One JSON-RPC message to /mcp; the parsed answer (the last event of a
// stream) and the response's session id.
async function rpc(message, session) {
  const headers = {'Content-Type': 'application/json', Accept: kAccept};
  if (api.apiKey()) headers.Authorization = `Bearer ${api.apiKey()}`;
  if (session) headers['Mcp-Session-Id'] = session;
  const res = await fetch('/mcp', {method: 'POST', headers, body: JSON.stringify(message)});
  const text = await res.text();
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
  const data = text.startsWith('{') ? text : (text.split('data: ').pop() || '');
  return {body: data ? JSON.parse(data) : null, session: res.headers.get('Mcp-Session-Id')};
}

async function check(out) {
  out.replaceChildren(el('p', {}, 'Opening an MCP session…'));
  try {
    const init = await rpc({jsonrpc: '2.0', id: 1, method: 'initialize', params: {
      protocolVersion: '2025-06-18', capabilities: {},
      clientInfo: {name: 'coderunner-playground', version: '1'}}});
    const session = init.session;
    await rpc({jsonrpc: '2.0', method: 'notifications/initialized'}, session);
    const tools = await rpc({jsonrpc: '2.0', id: 2, method: 'tools/list'}, session);
    const headers = {'Mcp-Session-Id': session};
    if (api.apiKey()) headers.Authorization = `Bearer ${api.apiKey()}`;
    await fetch('/mcp', {method: 'DELETE', headers});
    const names = ((tools.body && tools.body.result && tools.body.result.tools) || []).map((t) => t.name);
    out.replaceChildren(
        el('p', {class: 'connect-ok'},
            `Connected: protocol ${init.body.result.protocolVersion}, ${names.length} tools.`),
        el('ul', {class: 'connect-tools'}, ...names.map((n) => el('li', {}, n))));
  } catch (e) {
    out.replaceChildren(el('p', {class: 'connect-bad'}, `The MCP check failed: ${e.message}`));
  }
}

export function mountConnectTab(panel, app) {
  const origin = window.location.origin;
  const enabled = !app.info || !app.info.features || app.info.features.mcp !== false;
  const out = el('div', {class: 'connect-result', role: 'status'});
  const button = el('button', {type: 'button', id: 'connect-check'}, 'Check the MCP connection');
  button.addEventListener('click', () => check(out));
  panel.append(
      el('h2', {class: 'connect-title'}, 'Connect an agent (MCP)'),
      el('p', {class: 'connect-intro'}, enabled ?
        `Agents that speak the Model Context Protocol use ${origin}/mcp with the same API keys ` +
        'as this page: tools run_code, list_languages, the sandbox_* tools and, with a model, ' +
        'execute_intent; artifacts and sandbox files are resources.' :
        'The MCP server is off on this coderunner (mcp.enabled: false).'),
      ...snippets(origin).map(snippetBlock),
      el('div', {class: 'connect-actions'}, button), out);
}
