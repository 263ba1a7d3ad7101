// The Context Panel's inline forms: a workflow (an agent) runs an intent
// (POST /v1/intents, then GET /v1/jobs/{id}/wait) and a tool (a language)
// runs code (POST /v1/execute); either shows its result in .ctx-result, or
// sends its entry to the Execute tab (app.execute.fill). All output is text.
import * as api from './api.js';
import {el, field, formatMs} from './dom.js';

const kWaitSeconds = 120;
const kTerminal = new Set(['succeeded', 'failed', 'timeout', 'oom', 'cancelled', 'error']);

// An example intent and inputs per language, for a workflow's form.
const kExamples = {
  python: {intent: 'add 2 numbers together', inputs: {a: 1, b: 1}},
  javascript: {intent: 'reverse the string s', inputs: {s: 'hello'}},
  typescript: {intent: 'sum the primes below n', inputs: {n: 100}},
  bash: {intent: 'count the words in text', inputs: {text: 'one two three'}},
};

// A hello-world per language, for a tool's form.
const kHello = {
  python: 'import sys\nname = sys.stdin.read().strip() or "world"\nprint(f"Hello, {name}!")\n',
  javascript: 'const name = require("fs").readFileSync(0, "utf8").trim() || "world";\nconsole.log(`Hello, ${name}!`);\n',
  typescript: 'import {readFileSync} from "fs";\nconst name: string = readFileSync(0, "utf8").trim() || "world";\nconsole.log(`Hello, ${name}!`);\n',
  bash: 'read -r name || true\necho "Hello, ${name:-world}!"\n',
};

let formCount = 0;

// The object a JSON inputs box holds, or throws an Error to show.
function parseInputs(text) {
  if (!text.trim()) return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`Inputs: not JSON (${e.message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error('Inputs: one JSON object, e.g. {"a": 1}');
  }
  return value;
}

function labelled(label, text) {
  return el('div', {class: 'ctx-out'}, el('span', {class: 'ctx-out-label'}, label),
      el('pre', {class: 'output'}, text));
}

// Shows `parts` (nodes) in `box`, with data-status for tests and styles.
function show(box, status, ...parts) {
  box.dataset.status = status;
  box.replaceChildren(...parts);
}

function showError(box, err) {
  show(box, 'error', el('p', {class: 'ctx-error', role: 'alert'}, api.explain(err)));
}

function showIntent(box, rec) {
  const parts = [el('p', {class: `ctx-status status-${rec.status}`}, `${rec.status} (${rec.id})`)];
  if (typeof rec.answer === 'string' && rec.answer) parts.push(labelled('Answer', rec.answer));
  if (rec.error && rec.error.code) parts.push(labelled('Error', `${rec.error.code}: ${rec.error.message || ''}`));
  if (rec.result && typeof rec.result.stdout === 'string') parts.push(labelled('Output', rec.result.stdout));
  show(box, rec.status, ...parts);
}

function showRun(box, r) {
  const exit = r.exit_code === null || r.exit_code === undefined ? '' : `, exit ${r.exit_code}`;
  const ms = r.metrics && r.metrics.wall_ms !== undefined ? `, ${formatMs(r.metrics.wall_ms)}` : '';
  show(box, r.status, el('p', {class: `ctx-status status-${r.status}`}, `${r.status}${exit}${ms}`),
      labelled('stdout', r.stdout || ''), labelled('stderr', r.stderr || ''));
}

async function runIntent(body, box) {
  show(box, 'running', el('p', {class: 'ctx-status status-running'}, 'Running…'));
  const {body: accepted} = await api.post('/v1/intents', body);
  let rec = accepted;
  while (!kTerminal.has(rec.status)) {
    rec = (await api.get(`/v1/jobs/${accepted.id}/wait?timeout_s=${kWaitSeconds}`)).body;
  }
  showIntent(box, rec);
}

// The form shell: fields, Execute (submit) and Send to Chat, the result.
function shell(fields, onExecute, onSend) {
  const execute = el('button', {type: 'submit', class: 'primary ctx-execute'}, 'Execute');
  const send = el('button', {type: 'button', class: 'ctx-send'}, 'Send to Chat');
  const result = el('div', {class: 'ctx-result', 'aria-live': 'polite'});
  const form = el('form', {class: 'ctx-form', id: `ctx-form-${++formCount}`},
      ...fields, el('div', {class: 'ctx-actions'}, execute, send), result);
  form.hidden = true;
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    execute.disabled = true;
    try {
      await onExecute(result);
    } catch (err) {
      showError(result, err);
    } finally {
      execute.disabled = false;
    }
  });
  send.addEventListener('click', () => {
    try {
      onSend();
    } catch (err) {
      showError(result, err);
    }
  });
  return form;
}

function inputsBox(id, inputs) {
  return el('textarea', {id, class: 'ctx-inputs', rows: 3, spellcheck: 'false',
                         value: JSON.stringify(inputs || {}, null, 1).replace(/\n\s*/g, ' ')});
}

// The form of a workflow (an agent of GET /v1/agents).
export function workflowForm(agent, app) {
  const n = formCount + 1;
  const example = kExamples[agent.language] || kExamples.python;
  const intent = el('textarea', {id: `ctx-intent-${n}`, class: 'ctx-intent', rows: 2, value: example.intent});
  const inputs = inputsBox(`ctx-inputs-${n}`, example.inputs);
  const values = () => ({intent: intent.value.trim(), language: agent.language, inputs: parseInputs(inputs.value)});
  return shell(
      [field('Intent', intent), field('Inputs (JSON object)', inputs)],
      async (box) => {
        const v = values();
        if (!v.intent) throw new Error('Write an intent first.');
        await runIntent(v, box);
      },
      () => {
        if (!app.execute) throw new Error('The Execute tab is not available.');
        app.execute.fill(values());
      });
}

// The form of a tool (a language of GET /v1/languages).
export function toolForm(language, app) {
  const n = formCount + 1;
  const code = el('textarea', {id: `ctx-code-${n}`, class: 'ctx-code', rows: 5, spellcheck: 'false',
                               value: kHello[language.name] || ''});
  const stdin = el('textarea', {id: `ctx-stdin-${n}`, class: 'ctx-stdin', rows: 1, spellcheck: 'false'});
  const inputs = inputsBox(`ctx-tool-inputs-${n}`, {});
  return shell(
      [field('Code', code), field('stdin', stdin),
       field('Inputs for Send to Chat (JSON object)', inputs)],
      async (box) => {
        show(box, 'running', el('p', {class: 'ctx-status status-running'}, 'Running…'));
        const {body} = await api.post('/v1/execute', {language: language.name, code: code.value, stdin: stdin.value});
        showRun(box, body);
      },
      () => {
        if (!app.execute) throw new Error('The Execute tab is not available.');
        // An intent for the user to finish: the Execute tab focuses it.
        app.execute.fill({intent: `Using ${language.name}, `, language: language.name,
                          inputs: parseInputs(inputs.value)});
      });
}
