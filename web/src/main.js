// The playground's entry point: loads what the service says about itself
// (/v1/info, /v1/languages), sets up the API key form, the tabs and the
// Context Panel, then mounts each tab's module into its panel.
//
// Module contract: each tab module exports mount(panel, app), where `app` is
// the object built below. A module may set app.run / app.execute to the
// object it offers the others (e.g. app.execute.fill({...}) for Send to
// Chat).
import './app.css';
import * as api from './api.js';
import {onTabArrows} from './dom.js';
import {mountRunTab} from './run_tab.js';
import {mountExecuteTab} from './execute_tab.js';
import {mountSandboxesTab} from './sandboxes_tab.js';
import {mountConnectTab} from './connect_tab.js';
import {mountContextPanel} from './context_panel.js';

const kTabs = ['run', 'execute', 'sandboxes', 'connect'];

function banner(text) {
  const b = document.getElementById('banner');
  b.textContent = text || '';
  b.hidden = !text;
}

function showTab(name) {
  for (const t of kTabs) {
    const tab = document.getElementById(`tab-${t}`);
    const selected = t === name;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
    document.getElementById(`panel-${t}`).hidden = !selected;
  }
}

function setUpTabs() {
  kTabs.forEach((t, i) => {
    const tab = document.getElementById(`tab-${t}`);
    tab.addEventListener('click', () => showTab(t));
    onTabArrows(tab, kTabs, i, showTab, (name) => `tab-${name}`);
  });
}

function setUpAuth(info) {
  const form = document.getElementById('auth-form');
  const input = document.getElementById('auth-key');
  const status = document.getElementById('auth-status');
  const needsKey = !info || !info.auth || info.auth.mode !== 'none';
  form.hidden = !needsKey;
  const describe = () => {
    if (!needsKey) status.textContent = 'No API key needed (auth.mode: none).';
    else status.textContent = api.apiKey() ? 'Using the key kept in this tab (sessionStorage).' : 'Enter an API key to run code.';
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    api.setApiKey(input.value.trim());
    input.value = '';
    banner('');
    describe();
    // Modules that list what a key may see (agents, sandboxes) reload.
    window.dispatchEvent(new Event('coderunner:key'));
  });
  document.getElementById('auth-forget').addEventListener('click', () => {
    api.setApiKey('');
    describe();
    window.dispatchEvent(new Event('coderunner:key'));
  });
  api.onAuthProblem((err) => banner(api.explain(err)));
  describe();
}

function setUpContextToggle() {
  const toggle = document.getElementById('context-toggle');
  const aside = document.getElementById('context');
  const narrow = window.matchMedia('(max-width: 800px)').matches;
  const set = (open) => {
    toggle.setAttribute('aria-expanded', String(open));
    aside.hidden = !open;
  };
  set(!narrow);
  toggle.addEventListener('click', () => set(aside.hidden));
}

async function load(path) {
  try {
    return (await api.get(path)).body;
  } catch (e) {
    return null;
  }
}

async function start() {
  const [info, langs] = await Promise.all([load('/v1/info'), load('/v1/languages')]);
  const app = {
    info,
    languages: (langs && langs.languages) || [],
    showTab,
    banner,
    run: null,
    execute: null,
  };
  if (!langs) banner('Could not list the languages (GET /v1/languages): is the engine up? See /readyz.');
  setUpAuth(info);
  setUpTabs();
  setUpContextToggle();
  mountRunTab(document.getElementById('panel-run'), app);
  mountExecuteTab(document.getElementById('panel-execute'), app);
  mountSandboxesTab(document.getElementById('panel-sandboxes'), app);
  mountConnectTab(document.getElementById('panel-connect'), app);
  mountContextPanel(document.getElementById('context'), app);
  document.body.dataset.ready = 'true';
}

start();
