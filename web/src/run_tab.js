// The Run tab: an editor, a language picker, stdin, args, input files and
// limits; Run (or Ctrl/Cmd+Enter anywhere in the panel) submits a job
// (POST /v1/jobs, cache off) and follows its events: stdout and stderr are
// appended as their chunks arrive, `status` events update the status, and
// the `result` event (the final record) shows the end: status in plain
// words, exit code, metrics, artifacts. Judge (the Tests panel,
// run_tests.js) submits the same job with the panel's cases and shows a
// verdict per case. A stream that breaks before its
// result falls back to GET /v1/jobs/{id}/wait. Cancel is DELETE /v1/jobs/{id}.
import './run_tab.css';
import * as api from './api.js';
import {el, field, setChildren} from './dom.js';
import {createEditor, exposeForAutomation, onRunKey} from './editor.js';
import {createFileInputs} from './run_files.js';
import {createTestsPanel} from './run_tests.js';
import {ArtifactList} from './artifacts.js';
import {exitText, metricsText, statusSentence, truncationNotes} from './run_result.js';
import {defaultLanguage, languageOptions, sampleFor} from './samples.js';

const kMiB = 1024 * 1024;
const kWaitSeconds = 60;

// A plain sentence while the job has not ended.
const kLiveDetail = {
  queued: 'Queued: waiting for a free worker.',
  running: 'Running: output appears below as it is printed.',
};

// A limit field: a number input with a hint naming the service's default and
// maximum when /v1/info gave them. Returns {input, node}.
function limitField(id, label, unit, defaultValue, maxValue) {
  const input = el('input', {id, type: 'number', min: '1', step: '1', inputmode: 'numeric', placeholder: 'default'});
  const parts = ['Empty: the service default'];
  if (defaultValue) parts[0] += ` (${defaultValue} ${unit})`;
  // A tier may set its own maximum: this one is the service's.
  if (maxValue) parts.push(`the service's maximum is ${maxValue} ${unit} (a tier may differ)`);
  return {input, node: field(label, input, parts.join('; ') + '.')};
}

// Reads a limit field: null when empty, a positive integer, or throws.
function readLimit(input, what) {
  const text = input.value.trim();
  if (!text) return null;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${what} must be a whole number above 0.`);
  return n;
}

// The args box: one argument per line; trailing empty lines are dropped.
function readArgs(text) {
  const lines = text.split('\n');
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function buildForm(app) {
  const limits = (app.info && app.info.limits) || {};
  const dflt = limits.default || {};
  const max = limits.max || {};
  const mib = (bytes) => (bytes ? Math.floor(bytes / kMiB) : null);
  const f = {
    language: el('select', {id: 'run-language'}),
    editorBox: el('div', {id: 'run-editor', class: 'run-editor'}),
    stdin: el('textarea', {id: 'run-stdin', rows: '3', spellcheck: 'false'}),
    args: el('textarea', {id: 'run-args', rows: '3', spellcheck: 'false'}),
    files: createFileInputs(),
    tests: createTestsPanel(),
    timeout: limitField('run-timeout-ms', 'Timeout (ms)', 'ms', dflt.timeout_ms, max.timeout_ms),
    memory: limitField('run-memory-mb', 'Memory (MiB)', 'MiB', mib(dflt.memory_bytes), mib(max.memory_bytes)),
    run: el('button', {id: 'run-button', type: 'button', class: 'primary'}, 'Run'),
    cancel: el('button', {id: 'run-cancel', type: 'button', disabled: true}, 'Cancel'),
    error: el('p', {id: 'run-error', class: 'run-error', role: 'alert', hidden: true}),
    status: el('span', {id: 'run-status', class: 'run-status', dataset: {status: 'idle'}}, 'not run yet'),
    detail: el('span', {id: 'run-status-detail', class: 'run-status-detail'}),
    exitCode: el('span', {id: 'run-exit-code', class: 'run-exit-code'}),
    metrics: el('span', {id: 'run-metrics', class: 'run-metrics'}),
    stdout: el('pre', {id: 'run-stdout', class: 'output', tabindex: '0', 'aria-label': 'stdout'}),
    stderr: el('pre', {id: 'run-stderr', class: 'output stderr', tabindex: '0', 'aria-label': 'stderr'}),
    artifacts: el('ul', {id: 'run-artifacts', class: 'artifacts', 'aria-label': 'Artifacts'}),
  };
  f.languageField = field('Language', f.language);
  return f;
}

function layout(panel, f) {
  panel.append(
    el(
      'div',
      {class: 'run-toolbar'},
      f.languageField,
      el('div', {class: 'run-actions'}, f.run, f.cancel, el('span', {class: 'hint'}, 'Ctrl/Cmd+Enter runs')),
    ),
    f.error,
    el('div', {class: 'field'}, el('span', {class: 'field-title', id: 'run-editor-label'}, 'Code'), f.editorBox),
    el(
      'div',
      {class: 'run-inputs'},
      field('stdin', f.stdin),
      field('Args (one per line)', f.args),
      f.files.node,
      el('div', {class: 'run-limits'}, f.timeout.node, f.memory.node),
    ),
    f.tests.node,
    el(
      'section',
      {class: 'run-output', 'aria-label': 'Result', 'aria-live': 'polite'},
      el('div', {class: 'run-summary'}, f.status, f.detail, f.exitCode, f.metrics),
      el('h3', {class: 'output-title'}, 'stdout'),
      f.stdout,
      el('h3', {class: 'output-title'}, 'stderr'),
      f.stderr,
      el('h3', {class: 'output-title'}, 'Artifacts'),
      f.artifacts,
    ),
  );
}

// Appends a chunk of output as text, keeping the view at the bottom if it
// was there.
function appendOutput(pre, text) {
  const atBottom = pre.scrollHeight - pre.scrollTop - pre.clientHeight < 8;
  pre.append(document.createTextNode(text));
  if (atBottom) pre.scrollTop = pre.scrollHeight;
}

class RunTab {
  constructor(panel, app) {
    this.panel = panel;
    this.app = app;
    this.f = buildForm(app);
    layout(panel, this.f);
    this.artifacts = new ArtifactList(this.f.artifacts);
    this.language = defaultLanguage(app.languages);
    this.running = false;
    this.jobId = null;
    this.streamed = {stdout: false, stderr: false};
    setChildren(this.f.language, languageOptions(app.languages, el, this.language));
    this.editor = createEditor(this.f.editorBox, {
      doc: sampleFor(this.language),
      language: this.language,
      label: 'Code to run',
      onRun: () => this.run(),
    });
    exposeForAutomation(this.editor);
    this.f.language.addEventListener('change', () => this.setLanguage(this.f.language.value));
    this.f.run.addEventListener('click', () => this.run());
    this.f.tests.judgeButton.addEventListener('click', () => this.run({judge: true}));
    this.f.cancel.addEventListener('click', () => this.cancel());
    onRunKey(panel, () => this.run());
  }

  showError(text) {
    this.f.error.textContent = text || '';
    this.f.error.hidden = !text;
  }

  // status: the job's status word; detail: a sentence (default: the live
  // one for queued/running).
  showStatus(status, detail) {
    const f = this.f;
    f.status.dataset.status = status;
    f.status.className = `run-status status-${status}`;
    f.status.textContent = status;
    f.detail.textContent = detail === undefined ? kLiveDetail[status] || '' : detail;
  }

  setRunning(on) {
    this.running = on;
    this.f.run.disabled = on;
    this.f.tests.judgeButton.disabled = on;
    this.f.cancel.disabled = !on;
    this.panel.setAttribute('aria-busy', String(on));
  }

  reset() {
    const f = this.f;
    this.showError('');
    setChildren(f.stdout);
    setChildren(f.stderr);
    this.streamed = {stdout: false, stderr: false};
    f.exitCode.textContent = '';
    f.metrics.textContent = '';
    this.artifacts.clear();
    f.tests.clear();
  }

  // Switches the language; an unedited sample becomes the new language's.
  setLanguage(name) {
    const code = this.editor.getCode();
    const unedited = code === sampleFor(this.language) || !code.trim();
    this.language = name;
    this.f.language.value = name;
    this.editor.setLanguage(name);
    if (unedited) this.editor.setCode(sampleFor(name));
  }

  // The POST /v1/jobs body from the form; throws Error on a bad limit.
  body() {
    const f = this.f;
    const b = {language: this.language, code: this.editor.getCode(), cache: false};
    if (f.stdin.value) b.stdin = f.stdin.value;
    const args = readArgs(f.args.value);
    if (args.length) b.args = args;
    const files = f.files.files();
    if (files.length) b.files = files;
    const limits = {};
    const timeout = readLimit(f.timeout.input, 'Timeout');
    const memory = readLimit(f.memory.input, 'Memory');
    if (timeout !== null) limits.timeout_ms = timeout;
    if (memory !== null) limits.memory_bytes = memory * kMiB;
    if (Object.keys(limits).length) b.limits = limits;
    return b;
  }

  onEvent(ev) {
    if (ev.event === 'stdout' || ev.event === 'stderr') {
      const chunk = ev.data && typeof ev.data.data === 'string' ? ev.data.data : '';
      if (!chunk) return;
      this.streamed[ev.event] = true;
      appendOutput(ev.event === 'stdout' ? this.f.stdout : this.f.stderr, chunk);
    } else if ((ev.event === 'status' || ev.event === 'state') && ev.data && ev.data.status) {
      if (kLiveDetail[ev.data.status]) this.showStatus(ev.data.status);
    }
  }

  // Follows the job's events to its `result` (the final record); a stream
  // that ends or breaks without one gives way to /wait.
  async follow(id) {
    const path = `/v1/jobs/${encodeURIComponent(id)}`;
    try {
      for await (const ev of api.events(`${path}/events`)) {
        if (ev.event === 'result') return ev.data;
        this.onEvent(ev);
      }
    } catch (e) {
      if (e instanceof api.ApiError && e.status !== 0 && e.status !== 429) throw e;
    }
    for (;;) {
      const {status, body: rec} = await api.get(`${path}/wait?timeout_s=${kWaitSeconds}`);
      if (status === 200) return rec;
      if (rec && rec.status) this.showStatus(rec.status);
    }
  }

  showResult(record) {
    const f = this.f;
    const r = record.result || {status: record.status, error: record.error};
    const notes = [statusSentence(r), ...truncationNotes(r)];
    if (record.cached) notes.push('(a cached result)');
    this.showStatus(r.status || record.status, notes.filter(Boolean).join(' '));
    // A job that ended before the stream began sent no chunks.
    if (!this.streamed.stdout && r.stdout) appendOutput(f.stdout, r.stdout);
    if (!this.streamed.stderr && r.stderr) appendOutput(f.stderr, r.stderr);
    f.exitCode.textContent = exitText(r);
    f.metrics.textContent = metricsText(r.metrics);
    this.artifacts.show(record.id, r.artifacts, r.artifacts_skipped);
    f.tests.show(r.judge);
  }

  // Runs the program once, or ({judge: true}) judges it against the Tests
  // panel's cases.
  async run({judge = false} = {}) {
    if (this.running) return;
    let request;
    try {
      request = this.body();
      if (judge) Object.assign(request, this.f.tests.request());
    } catch (e) {
      this.showError(e.message);
      return;
    }
    this.setRunning(true);
    this.reset();
    this.showStatus('submitting', 'Submitting the job…');
    try {
      const {body: job} = await api.post('/v1/jobs', request);
      this.jobId = job.id;
      this.showStatus(job.status || 'queued');
      this.showResult(await this.follow(job.id));
    } catch (e) {
      this.showError(api.explain(e));
      if (this.jobId) this.showStatus('unknown', 'Lost track of the job: see the error above.');
      else this.showStatus('idle', '');
    } finally {
      this.setRunning(false);
      this.jobId = null;
    }
  }

  async cancel() {
    if (!this.running || !this.jobId) return;
    this.f.cancel.disabled = true;
    try {
      await api.del(`/v1/jobs/${encodeURIComponent(this.jobId)}`);
    } catch (e) {
      this.showError(api.explain(e));
      this.f.cancel.disabled = !this.running;
    }
  }

  // Send to Run: {language, code}, then shows the tab.
  fill({language, code} = {}) {
    if (language && this.app.languages.some((l) => l.name === language)) this.setLanguage(language);
    if (typeof code === 'string') this.editor.setCode(code);
    this.app.showTab('run');
    this.editor.focus();
  }
}

// Mounts the tab into `panel` and offers app.run.fill({language, code}).
export function mountRunTab(panel, app) {
  const tab = new RunTab(panel, app);
  app.run = {fill: (what) => tab.fill(what)};
}
