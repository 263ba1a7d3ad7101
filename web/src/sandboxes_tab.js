// The Sandboxes tab: create a sandbox (POST /v1/sandboxes), see its id,
// state and a live countdown to its expiry, run cells in it (POST
// /v1/sandboxes/{id}/execute, one at a time, appended to #sbx-cells in the
// order they were sent), pick a running one again from the caller's list
// (GET /v1/sandboxes?state=running), and delete it. Without sandboxes
// (the native runtime) the tab says so.
import './sandboxes_tab.css';
import * as api from './api.js';
import {el, field, setChildren} from './dom.js';
import {createEditor} from './editor.js';
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

export function mountSandboxesTab(panel, app) {
  if (app.info && app.info.features && app.info.features.sandboxes === false) {
    panel.append(
      el(
        'p',
        {id: 'sbx-unavailable', class: 'sbx-unavailable'},
        'This coderunner has no stateful sandboxes: it runs jobs as host processes ' +
          '(code_runner.runtime: native). Use the Run tab.',
      ),
    );
    return;
  }
  const f = buildForm(app);
  layout(panel, f);
  let current = null; // the sandbox record shown
  let expiresAt = 0; // ms since the epoch
  let cellCount = 0;
  let queue = Promise.resolve(); // calls, one after the other

  const editor = createEditor(f.codeBox, {
    doc: '',
    language: f.language.value,
    label: 'Cell code',
    contentId: 'sbx-code',
    onRun: () => runCell(),
  });
  editor.view.contentDOM.setAttribute('aria-labelledby', 'sbx-code-label');
  window.coderunnerPlayground = Object.assign(window.coderunnerPlayground || {}, {
    setSandboxCode: (text) => editor.setCode(text),
    getSandboxCode: () => editor.getCode(),
  });

  const showError = (text) => {
    f.error.textContent = text || '';
    f.error.hidden = !text;
  };
  const tick = () => {
    if (!current) {
      f.expires.textContent = '';
      return;
    }
    if (current.state !== 'running') {
      f.expires.textContent = '';
      return;
    }
    const left = Math.round((expiresAt - Date.now()) / 1000);
    const at = new Date(expiresAt).toLocaleTimeString();
    f.expires.textContent = left > 0 ? `in ${formatLeft(left)} (at ${at})` : `expired (at ${at})`;
  };
  setInterval(tick, 1000);

  const show = (record) => {
    current = record;
    const state = record ? record.state : 'none';
    f.id.textContent = record ? record.id : 'none';
    f.state.textContent = state;
    f.state.dataset.state = state;
    f.state.className = `sbx-state state-${state}`;
    if (record && record.expires_at) expiresAt = Date.parse(record.expires_at);
    const live = !!record && state === 'running';
    f.run.disabled = !live;
    f.del.disabled = !record || state === 'deleted';
    tick();
  };

  const open = (record) => {
    if (!current || current.id !== record.id) {
      setChildren(f.cells);
      cellCount = 0;
    }
    show(record);
    editor.setLanguage(record.language);
  };

  const refreshList = async () => {
    try {
      const {body} = await api.get('/v1/sandboxes?state=running');
      const items = (body && body.sandboxes) || [];
      if (!items.length) {
        setChildren(f.list, el('li', {class: 'sbx-empty'}, 'None running.'));
        return;
      }
      setChildren(
        f.list,
        items.map((s) =>
          el(
            'li',
            {class: 'sbx-entry', dataset: {id: s.id}},
            el('code', {class: 'sbx-entry-id'}, s.id),
            el('span', {class: 'sbx-entry-lang'}, s.language),
            el(
              'button',
              {type: 'button', class: 'sbx-open', 'aria-label': `Open ${s.id}`, onclick: () => open(s)},
              current && current.id === s.id ? 'Shown' : 'Open',
            ),
          ),
        ),
      );
    } catch (e) {
      setChildren(f.list, el('li', {class: 'sbx-empty'}, `Could not list them: ${api.explain(e)}`));
    }
  };

  const create = async () => {
    showError('');
    const ttl = Number(f.ttl.value.trim());
    const body = {language: f.language.value};
    if (f.ttl.value.trim()) {
      if (!Number.isInteger(ttl) || ttl <= 0) {
        showError('TTL must be a whole number of seconds above 0.');
        return;
      }
      body.ttl_s = ttl;
    }
    f.create.disabled = true;
    try {
      const {body: record} = await api.post('/v1/sandboxes', body);
      open(record);
      editor.focus();
      refreshList();
    } catch (e) {
      showError(api.explain(e));
    } finally {
      f.create.disabled = false;
    }
  };

  // Sends one call; the cell was appended already, so cells keep the order
  // they were sent in.
  const execute = async (id, code, cell) => {
    try {
      const {body} = await api.post(sandboxPath(id, '/execute'), {code});
      cell.done(body);
      if (current && current.id === id && body.expires_at) {
        expiresAt = Date.parse(body.expires_at);
        tick();
      }
    } catch (e) {
      cell.fail(api.explain(e));
      if (e instanceof api.ApiError && (e.status === 404 || e.code === 'sandbox_not_running')) reload(id);
    }
  };

  const runCell = () => {
    if (!current || current.state !== 'running') return;
    const code = editor.getCode();
    if (!code.trim()) return;
    const cell = addCell(f.cells, code, ++cellCount);
    editor.setCode('');
    const id = current.id;
    queue = queue.then(() => execute(id, code, cell));
  };

  // Reads the sandbox's record again (after a call found it gone).
  const reload = async (id) => {
    try {
      const {body} = await api.get(sandboxPath(id));
      if (current && current.id === id) show(body);
    } catch (e) {
      if (current && current.id === id) show({...current, state: 'gone'});
    }
  };

  const remove = async () => {
    if (!current) return;
    const id = current.id;
    f.del.disabled = true;
    showError('');
    try {
      await api.del(sandboxPath(id));
      if (current && current.id === id) show({...current, state: 'deleted'});
    } catch (e) {
      showError(api.explain(e));
      f.del.disabled = false;
    }
    refreshList();
  };

  f.create.addEventListener('click', create);
  f.refresh.addEventListener('click', refreshList);
  f.run.addEventListener('click', runCell);
  f.del.addEventListener('click', remove);
  f.language.addEventListener('change', () => {
    if (!current || current.state !== 'running') editor.setLanguage(f.language.value);
  });
  panel.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey) || e.defaultPrevented) return;
    e.preventDefault();
    runCell();
  });
  window.addEventListener('coderunner:key', () => {
    show(null);
    setChildren(f.cells);
    cellCount = 0;
    refreshList();
  });
  show(null);
  // The list is read when the tab is shown, not at page load (a page
  // without its key yet would meet a 401).
  new MutationObserver(() => {
    if (!panel.hidden) refreshList();
  }).observe(panel, {attributes: true, attributeFilter: ['hidden']});
  if (!panel.hidden) refreshList();
}
