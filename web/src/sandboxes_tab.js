// The Sandboxes tab: create a sandbox (POST /v1/sandboxes), see its id,
// state and a live countdown to its expiry, run cells in it (POST
// /v1/sandboxes/{id}/execute, one at a time, appended to #sbx-cells in the
// order they were sent), pick a running one again from the caller's list
// (GET /v1/sandboxes?state=running), and delete it. Without sandboxes
// (the native runtime) the tab says so.
import './sandboxes_tab.css';
import * as api from './api.js';
import {el, field, setChildren} from './dom.js';
import {createEditor, onRunKey} from './editor.js';
import {addCell} from './sandbox_cells.js';
import {defaultLanguage, languageOptions} from './samples.js';

const kDefaultTtlS = 600;

// "9 min 58 s" for a number of seconds.
function formatLeft(seconds) {
  if (seconds <= 0) return 'expired';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  if (h) return `${h} h ${m} min`;
  if (m) return `${m} min ${s} s`;
  return `${s} s`;
}

const sandboxPath = (id, rest = '') => `/v1/sandboxes/${encodeURIComponent(id)}${rest}`;

function buildForm(app) {
  const language = defaultLanguage(app.languages);
  const f = {
    language: el('select', {id: 'sbx-language'}, languageOptions(app.languages, el, language)),
    ttl: el('input', {id: 'sbx-ttl', type: 'number', min: '1', step: '1', value: String(kDefaultTtlS)}),
    create: el('button', {id: 'sbx-create', type: 'button', class: 'primary'}, 'Create sandbox'),
    error: el('p', {id: 'sbx-error', class: 'run-error', role: 'alert', hidden: true}),
    list: el('ul', {id: 'sbx-list', class: 'sbx-list', 'aria-label': 'Your running sandboxes'}),
    refresh: el('button', {id: 'sbx-refresh', type: 'button'}, 'Refresh list'),
    id: el('code', {id: 'sbx-id'}, 'none'),
    state: el('span', {id: 'sbx-state', dataset: {state: 'none'}}, 'none'),
    expires: el('span', {id: 'sbx-expires'}),
    del: el('button', {id: 'sbx-delete', type: 'button', disabled: true}, 'Delete sandbox'),
    codeBox: el('div', {class: 'sbx-editor'}),
    run: el('button', {id: 'sbx-run', type: 'button', class: 'primary', disabled: true}, 'Run cell'),
    cells: el('ol', {id: 'sbx-cells', class: 'sbx-cells', 'aria-live': 'polite', 'aria-label': 'Cells'}),
  };
  return f;
}

function layout(panel, f) {
  panel.append(
    el(
      'section',
      {class: 'sbx-create', 'aria-labelledby': 'sbx-create-title'},
      el('h2', {id: 'sbx-create-title', class: 'sbx-title'}, 'New sandbox'),
      el(
        'div',
        {class: 'sbx-row'},
        field('Language', f.language),
        field('TTL (s)', f.ttl, 'It expires this long after its last use.'),
        el('div', {class: 'sbx-actions'}, f.create),
      ),
      f.error,
      el('div', {class: 'sbx-row'}, el('h3', {class: 'sbx-subtitle'}, 'Your running sandboxes'), f.refresh),
      f.list,
    ),
    el(
      'section',
      {class: 'sbx-current', 'aria-labelledby': 'sbx-current-title'},
      el('h2', {id: 'sbx-current-title', class: 'sbx-title'}, 'Sandbox'),
      el(
        'dl',
        {class: 'sbx-facts'},
        el('div', {}, el('dt', {}, 'Id'), el('dd', {}, f.id)),
        el('div', {}, el('dt', {}, 'State'), el('dd', {}, f.state)),
        el('div', {}, el('dt', {}, 'Expires'), el('dd', {}, f.expires)),
      ),
      el('div', {class: 'sbx-row'}, f.del),
      el('span', {class: 'field-title', id: 'sbx-code-label'}, 'Cell code'),
      f.codeBox,
      el('div', {class: 'sbx-actions'}, f.run, el('span', {class: 'hint'}, 'Ctrl/Cmd+Enter runs the cell')),
      el('h3', {class: 'sbx-subtitle'}, 'Cells'),
      f.cells,
    ),
  );
}

const kNoSandboxes =
  'This coderunner has no stateful sandboxes: it runs jobs as host processes ' +
  '(code_runner.runtime: native). Use the Run tab.';

class SandboxesTab {
  constructor(panel, app) {
    this.panel = panel;
    this.f = buildForm(app);
    layout(panel, this.f);
    this.current = null; // the sandbox record shown
    this.expiresAt = 0; // ms since the epoch
    this.cellCount = 0;
    this.queue = Promise.resolve(); // calls, one after the other
    this.editor = createEditor(this.f.codeBox, {
      doc: '',
      language: this.f.language.value,
      label: 'Cell code',
      contentId: 'sbx-code',
      onRun: () => this.runCell(),
    });
    this.editor.view.contentDOM.setAttribute('aria-labelledby', 'sbx-code-label');
    window.coderunnerPlayground = Object.assign(window.coderunnerPlayground || {}, {
      setSandboxCode: (text) => this.editor.setCode(text),
      getSandboxCode: () => this.editor.getCode(),
    });
    this.wire();
    this.show(null);
    setInterval(() => this.tick(), 1000);
  }

  wire() {
    const f = this.f;
    f.create.addEventListener('click', () => this.create());
    f.refresh.addEventListener('click', () => this.refreshList());
    f.run.addEventListener('click', () => this.runCell());
    f.del.addEventListener('click', () => this.remove());
    f.language.addEventListener('change', () => {
      if (!this.live()) this.editor.setLanguage(f.language.value);
    });
    onRunKey(this.panel, () => this.runCell());
    // Another key is another tenant: forget what the last one showed.
    window.addEventListener('coderunner:key', () => {
      this.open(null);
      this.refreshList();
    });
    // The list is read when the tab is shown, not at page load (a page
    // without its key yet would meet a 401).
    new MutationObserver(() => {
      if (!this.panel.hidden) this.refreshList();
    }).observe(this.panel, {attributes: true, attributeFilter: ['hidden']});
    if (!this.panel.hidden) this.refreshList();
  }

  live() {
    return !!this.current && this.current.state === 'running';
  }

  showError(text) {
    this.f.error.textContent = text || '';
    this.f.error.hidden = !text;
  }

  // The countdown to expires_at, once a second.
  tick() {
    if (!this.live()) {
      this.f.expires.textContent = '';
      return;
    }
    const left = Math.round((this.expiresAt - Date.now()) / 1000);
    const at = new Date(this.expiresAt).toLocaleTimeString();
    this.f.expires.textContent = left > 0 ? `in ${formatLeft(left)} (at ${at})` : `expired (at ${at})`;
  }

  // Shows `record` (a sandbox's JSON, or null for none) as the current one.
  show(record) {
    const f = this.f;
    this.current = record;
    const state = record ? record.state : 'none';
    f.id.textContent = record ? record.id : 'none';
    f.state.textContent = state;
    f.state.dataset.state = state;
    f.state.className = `sbx-state state-${state}`;
    if (record && record.expires_at) this.expiresAt = Date.parse(record.expires_at);
    f.run.disabled = !this.live();
    f.del.disabled = !record || state === 'deleted';
    this.tick();
  }

  // Makes `record` the current sandbox; another one than shown starts with
  // no cells.
  open(record) {
    if (!record || !this.current || this.current.id !== record.id) {
      setChildren(this.f.cells);
      this.cellCount = 0;
    }
    this.show(record);
    if (record) this.editor.setLanguage(record.language);
  }

  entry(s) {
    const shown = this.current && this.current.id === s.id;
    return el(
      'li',
      {class: 'sbx-entry', dataset: {id: s.id}},
      el('code', {class: 'sbx-entry-id'}, s.id),
      el('span', {class: 'sbx-entry-lang'}, s.language),
      el(
        'button',
        {type: 'button', class: 'sbx-open', 'aria-label': `Open ${s.id}`, onclick: () => this.open(s)},
        shown ? 'Shown' : 'Open',
      ),
    );
  }

  async refreshList() {
    const list = this.f.list;
    try {
      const {body} = await api.get('/v1/sandboxes?state=running');
      const items = (body && body.sandboxes) || [];
      if (items.length) setChildren(list, items.map((s) => this.entry(s)));
      else setChildren(list, el('li', {class: 'sbx-empty'}, 'None running.'));
    } catch (e) {
      setChildren(list, el('li', {class: 'sbx-empty'}, `Could not list them: ${api.explain(e)}`));
    }
  }

  async create() {
    const f = this.f;
    this.showError('');
    const body = {language: f.language.value};
    const ttlText = f.ttl.value.trim();
    if (ttlText) {
      const ttl = Number(ttlText);
      if (!Number.isInteger(ttl) || ttl <= 0) {
        this.showError('TTL must be a whole number of seconds above 0.');
        return;
      }
      body.ttl_s = ttl;
    }
    f.create.disabled = true;
    try {
      const {body: record} = await api.post('/v1/sandboxes', body);
      this.open(record);
      this.editor.focus();
      this.refreshList();
    } catch (e) {
      this.showError(api.explain(e));
    } finally {
      f.create.disabled = false;
    }
  }

  // Sends one call; its cell was appended already, so cells keep the order
  // they were sent in.
  async execute(id, code, cell) {
    try {
      const {body} = await api.post(sandboxPath(id, '/execute'), {code});
      cell.done(body);
      if (this.current && this.current.id === id && body.expires_at) {
        this.expiresAt = Date.parse(body.expires_at);
        this.tick();
      }
    } catch (e) {
      cell.fail(api.explain(e));
      if (e instanceof api.ApiError && (e.status === 404 || e.code === 'sandbox_not_running')) this.reload(id);
    }
  }

  runCell() {
    if (!this.live()) return;
    const code = this.editor.getCode();
    if (!code.trim()) return;
    const cell = addCell(this.f.cells, code, ++this.cellCount);
    this.editor.setCode('');
    const id = this.current.id;
    this.queue = this.queue.then(() => this.execute(id, code, cell));
  }

  // Reads the sandbox's record again (after a call found it gone).
  async reload(id) {
    try {
      const {body} = await api.get(sandboxPath(id));
      if (this.current && this.current.id === id) this.show(body);
    } catch (e) {
      if (this.current && this.current.id === id) this.show({...this.current, state: 'gone'});
    }
  }

  async remove() {
    if (!this.current) return;
    const id = this.current.id;
    this.f.del.disabled = true;
    this.showError('');
    try {
      await api.del(sandboxPath(id));
      if (this.current && this.current.id === id) this.show({...this.current, state: 'deleted'});
    } catch (e) {
      this.showError(api.explain(e));
      this.f.del.disabled = false;
    }
    this.refreshList();
  }
}

// Mounts the tab into `panel`, or a sentence when the service has no
// sandboxes (app.info.features.sandboxes false).
export function mountSandboxesTab(panel, app) {
  if (app.info && app.info.features && app.info.features.sandboxes === false) {
    panel.append(el('p', {id: 'sbx-unavailable', class: 'sbx-unavailable'}, kNoSandboxes));
    return;
  }
  new SandboxesTab(panel, app);
}
