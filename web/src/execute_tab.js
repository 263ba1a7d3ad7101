// The Execute tab, the Glass Lab: an intent, its language and typed inputs
// go to POST /v1/intents; the job's events (GET /v1/jobs/{id}/events) draw
// the four stages live, and the record (GET /v1/jobs/{id}, fetched after a
// stage change) gives the attempts, the agent, the answer and the output.
// Offers app.execute = {fill({intent, language, inputs})} for Send to Chat.
import './execute_tab.css';
import * as api from './api.js';
import {el, field} from './dom.js';
import {createInputsEditor} from './inputs_editor.js';
import {createStageView} from './stages.js';
import {createAttemptsView} from './attempts.js';
import {createResultView} from './exec_result.js';

const kTerminal = new Set(['succeeded', 'failed', 'timeout', 'oom', 'cancelled', 'error']);
const kLlmNotConfigured = 'llm_not_configured';
const kLlmMissingText =
    'Execute mode needs a model, and this coderunner has none configured. Set llm.base_url ' +
    '(any OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1), llm.model and, if the ' +
    'endpoint needs a key, llm.api_key_env (the NAME of the environment variable holding it) ' +
    'in the config, then restart the service. The Run and Sandboxes tabs work without one.';

function languageSelect(app) {
  const select = el('select', {id: 'exec-language'},
      el('option', {value: ''}, 'auto'));
  for (const l of app.languages) {
    const version = l.version ? ` ${l.version}` : '';
    select.append(el('option', {value: l.name}, `${l.name}${version}${l.default ? ' (default)' : ''}`));
  }
  return select;
}

// The form's controls; returns them by name.
function buildForm(app) {
  const ui = {};
  ui.intent = el('textarea', {id: 'exec-intent', rows: 3, spellcheck: 'true',
                              placeholder: 'add 2 numbers together'});
  ui.language = languageSelect(app);
  ui.verify = el('select', {id: 'exec-verify'},
      el('option', {value: ''}, 'default'), el('option', {value: 'off'}, 'off'),
      el('option', {value: 'checks'}, 'checks'), el('option', {value: 'full'}, 'full'));
  ui.inputs = createInputsEditor('exec');
  ui.button = el('button', {id: 'exec-button', type: 'submit', class: 'primary'}, 'Execute');
  ui.cancel = el('button', {id: 'exec-cancel', type: 'button', disabled: true}, 'Cancel');
  ui.llmMissing = el('p', {id: 'exec-llm-missing', class: 'exec-llm-missing', role: 'note'}, kLlmMissingText);
  ui.llmMissing.hidden = true;
  ui.status = el('p', {id: 'exec-status', class: 'exec-status', role: 'status', dataset: {status: 'idle'}},
      'Describe a computation, give it inputs, and Execute.');
  ui.form = el('form', {class: 'exec-form', 'aria-label': 'Intent'},
      ui.llmMissing,
      field('Intent', ui.intent, 'What to compute, in plain English. Ctrl/Cmd+Enter executes.'),
      field('Language', ui.language, 'auto: the language the intent names, else the default.'),
      field('Verify', ui.verify,
          'checks: the model writes checks that run with its program; full: and judges the answer.'),
      ui.inputs.node,
      el('div', {class: 'exec-actions'}, ui.button, ui.cancel),
      ui.status);
  return ui;
}

export function mountExecuteTab(panel, app) {
  const ui = buildForm(app);
  const stages = createStageView();
  const attempts = createAttemptsView();
  const result = createResultView();
  panel.append(
      el('h2', {class: 'visually-hidden'}, 'Execute'),
      el('div', {class: 'exec-layout'},
          ui.form,
          el('section', {class: 'glass-lab', 'aria-label': 'Glass Lab'},
              el('h3', {}, 'Glass Lab'), stages.node,
              result.node,
              el('h3', {}, 'Attempts'), attempts.node)));

  let run = null;  // {id, controller, finished} of the intent shown.

  function setStatus(status, text) {
    ui.status.dataset.status = status;
    ui.status.className = `exec-status status-${status}`;
    ui.status.textContent = text;
  }

  function llmMissing() {
    ui.llmMissing.hidden = false;
    ui.button.disabled = true;
    ui.button.setAttribute('aria-describedby', 'exec-llm-missing');
  }
  if (app.info && app.info.llm && app.info.llm.configured === false) llmMissing();

  // withStages false: a record fetched mid-run, maybe older than the stage
  // events already drawn (they are the stages' truth while it runs).
  function showRecord(record, withStages = true) {
    if (!record || typeof record !== 'object') return;
    if (withStages && Array.isArray(record.stages)) record.stages.forEach((s) => stages.update(s, false));
    const list = Array.isArray(record.attempts) ? record.attempts : [];
    attempts.show(list);
    stages.setAttempts(list.length);
    result.show(record);
    if (withStages && record.status) describe(record.status, record);
  }

  function describe(status, record) {
    const terminal = kTerminal.has(status);
    const what = {
      queued: 'Queued…',
      running: 'Running…',
      succeeded: 'Succeeded.',
      failed: 'Failed.',
      timeout: 'Ran out of time.',
      oom: 'Ran out of memory.',
      cancelled: 'Cancelled.',
      error: 'Ended with an error.',
    }[status] || status;
    const err = terminal && record && record.error && record.error.code ? ` ${record.error.code}` : '';
    setStatus(status, `${what}${err} (${run ? run.id : ''})`);
  }

  function finish() {
    stages.stop();
    ui.cancel.disabled = true;
    ui.button.disabled = !ui.llmMissing.hidden;
  }

  // After a stage change: the record, for its attempts (throttled to one
  // request in flight).
  async function refresh(current) {
    if (current.fetching || current.finished) return;
    current.fetching = true;
    try {
      const {body} = await api.get(`/v1/jobs/${current.id}`, {signal: current.controller.signal});
      if (!current.finished && run === current) showRecord(body, false);
    } catch (_) {
      // The events still come; the final record has everything.
    } finally {
      current.fetching = false;
    }
  }

  function end(current, record) {
    if (current.finished) return;
    current.finished = true;
    showRecord(record);
    if (record && kTerminal.has(record.status)) stages.settle(record);
    finish();
  }

  async function follow(current) {
    const {signal} = current.controller;
    try {
      for await (const ev of api.events(`/v1/jobs/${current.id}/events`, {signal})) {
        if (ev.event === 'state') showRecord(ev.data);
        else if (ev.event === 'stage') {
          stages.update(ev.data, true);
          refresh(current);
        } else if (ev.event === 'status' && ev.data && ev.data.status) {
          describe(ev.data.status);
        } else if (ev.event === 'result') {
          end(current, ev.data);
          return;
        }
      }
    } catch (e) {
      if (e.name === 'AbortError') return;
    }
    // The stream ended early (a proxy, a restart): wait for the record.
    await waitForEnd(current);
  }

  async function waitForEnd(current) {
    const {signal} = current.controller;
    while (!current.finished && !signal.aborted) {
      try {
        const {status, body} = await api.get(`/v1/jobs/${current.id}/wait?timeout_s=60`, {signal});
        if (status === 200 || kTerminal.has(body.status)) end(current, body);
        else showRecord(body);
      } catch (e) {
        if (e.name !== 'AbortError') {
          setStatus('error', `Lost track of ${current.id}: ${api.explain(e)}`);
          finish();
        }
        return;
      }
    }
  }

  async function execute() {
    const intent = ui.intent.value.trim();
    if (!intent) {
      setStatus('idle', 'Write an intent first: what should the program compute?');
      ui.intent.focus();
      return;
    }
    const inputs = ui.inputs.read();
    if (!inputs.ok) {
      setStatus('idle', 'Fix the inputs first (see the message next to them).');
      return;
    }
    if (run) run.controller.abort();
    stages.reset();
    attempts.reset();
    result.reset();
    const body = {intent, inputs: inputs.value};
    if (ui.language.value) body.language = ui.language.value;
    if (ui.verify.value) body.verify = ui.verify.value;
    ui.button.disabled = true;
    setStatus('submitting', 'Submitting…');
    const current = {id: '', controller: new AbortController(), finished: false, fetching: false};
    run = current;
    try {
      const {body: accepted} = await api.post('/v1/intents', body, {signal: current.controller.signal});
      current.id = accepted.id;
    } catch (e) {
      if (e.name === 'AbortError') return;
      if (e.code === kLlmNotConfigured) llmMissing();
      setStatus('error', api.explain(e));
      result.fail(api.explain(e));
      finish();
      return;
    }
    ui.cancel.disabled = false;
    describe('queued');
    await follow(current);
  }

  async function cancel() {
    if (!run || !run.id || run.finished) return;
    ui.cancel.disabled = true;
    try {
      await api.del(`/v1/jobs/${run.id}`);
    } catch (e) {
      setStatus(ui.status.dataset.status, `Could not cancel: ${api.explain(e)}`);
      ui.cancel.disabled = false;
    }
  }

  ui.form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!ui.button.disabled) execute();
  });
  ui.intent.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      if (!ui.button.disabled) execute();
    }
  });
  ui.cancel.addEventListener('click', cancel);

  app.execute = {
    // Fills the form (Send to Chat) and shows the tab, the intent box
    // focused with the cursor at its end. language: a name or alias
    // (anything else: auto); inputs: an object.
    fill({intent = '', language = '', inputs = {}} = {}) {
      ui.intent.value = intent;
      const known = app.languages.find((l) => l.name === language ||
          (Array.isArray(l.aliases) && l.aliases.includes(language)));
      ui.language.value = known ? known.name : '';
      ui.inputs.set(inputs && typeof inputs === 'object' ? inputs : {});
      app.showTab('execute');
      ui.intent.focus();
      ui.intent.setSelectionRange(intent.length, intent.length);
    },
  };
}
