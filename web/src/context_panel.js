// The Context Panel (aside#context; main.js owns its toggle): two tabs,
// Workflows (the agents of GET /v1/agents, reloaded when the key changes)
// and Tools (app.languages). Each entry is a button that opens its inline
// form (context_forms.js): Execute there, or Send to Chat.
import './context_panel.css';
import * as api from './api.js';
import {el, onTabArrows} from './dom.js';
import {toolForm, workflowForm} from './context_forms.js';

const kTabs = ['workflows', 'tools'];
const kNoAgents = 'No agents. Execute mode and its agents need a model: set llm.base_url, ' +
    'llm.model and, if it needs a key, llm.api_key_env in the config.';

// li.ctx-entry: the .ctx-open button (aria-expanded) and its form.
function entry(kind, name, lines, form) {
  const open = el('button', {type: 'button', class: 'ctx-open', 'aria-expanded': 'false',
                             'aria-controls': form.id},
      el('span', {class: 'ctx-name'}, name),
      ...lines.filter(Boolean).map((t) => el('span', {class: 'ctx-line'}, t)));
  open.addEventListener('click', () => {
    const expand = form.hidden;
    form.hidden = !expand;
    open.setAttribute('aria-expanded', String(expand));
    if (expand) {
      const first = form.querySelector('textarea, input');
      if (first) first.focus();
    }
  });
  return el('li', {class: 'ctx-entry', dataset: {kind, name}}, open, form);
}

function agentEntry(agent, app) {
  const origin = agent.builtin ? 'built-in' : 'written by the model';
  return entry('workflow', agent.name,
      [`${agent.language} · ${origin}`, agent.description], workflowForm(agent, app));
}

function packagesText(packages) {
  if (!packages || typeof packages !== 'object') return '';
  const list = Array.isArray(packages) ? packages : Object.entries(packages).map(([k, v]) => `${k} ${v}`);
  return list.length ? `Packages: ${list.join(', ')}` : '';
}

function toolEntry(language, app) {
  const aliases = Array.isArray(language.aliases) && language.aliases.length ?
      ` (${language.aliases.join(', ')})` : '';
  return entry('tool', language.name,
      [`${language.name}${aliases} ${language.version || ''}${language.default ? ' · default' : ''}`,
       language.image ? `Image: ${language.image}` : '', packagesText(language.packages)],
      toolForm(language, app));
}

function tabsNav(select) {
  const nav = el('div', {class: 'ctx-tabs', role: 'tablist', 'aria-label': 'Context'});
  kTabs.forEach((t, i) => {
    const tab = el('button', {type: 'button', role: 'tab', id: `ctx-tab-${t}`,
                              'aria-controls': `ctx-panel-${t}`},
        t === 'workflows' ? 'Workflows' : 'Tools');
    tab.addEventListener('click', () => select(t));
    onTabArrows(tab, kTabs, i, select, (name) => `ctx-tab-${name}`);
    nav.append(tab);
  });
  return nav;
}

export function mountContextPanel(panel, app) {
  const workflows = el('ul', {id: 'ctx-workflows', class: 'ctx-list'});
  const tools = el('ul', {id: 'ctx-tools', class: 'ctx-list'});
  const note = el('p', {class: 'hint ctx-note', role: 'status'});
  const panels = {
    workflows: el('div', {id: 'ctx-panel-workflows', role: 'tabpanel', 'aria-labelledby': 'ctx-tab-workflows'},
        el('p', {class: 'hint'}, 'Code-writing agents for Execute mode: run one here, or send it to the Execute tab.'),
        note, workflows),
    tools: el('div', {id: 'ctx-panel-tools', role: 'tabpanel', 'aria-labelledby': 'ctx-tab-tools'},
        el('p', {class: 'hint'}, 'Languages and their runtimes: run code here, or send one to the Execute tab.'),
        tools),
  };

  function select(name) {
    for (const t of kTabs) {
      const tab = document.getElementById(`ctx-tab-${t}`);
      tab.setAttribute('aria-selected', String(t === name));
      tab.tabIndex = t === name ? 0 : -1;
      panels[t].hidden = t !== name;
    }
  }

  panel.append(el('h2', {class: 'ctx-title'}, 'Context'), tabsNav(select), panels.workflows, panels.tools);
  select('workflows');

  tools.replaceChildren(...app.languages.map((l) => toolEntry(l, app)));
  if (!app.languages.length) tools.append(el('li', {class: 'hint'}, 'No languages listed (GET /v1/languages failed).'));

  let loading = 0;
  async function loadAgents() {
    const mine = ++loading;
    note.textContent = 'Loading the agents…';
    try {
      const {body} = await api.get('/v1/agents');
      if (mine !== loading) return;
      const agents = (body && body.agents) || [];
      workflows.replaceChildren(...agents.map((a) => agentEntry(a, app)));
      note.textContent = agents.length ? '' : kNoAgents;
    } catch (e) {
      if (mine !== loading) return;
      workflows.replaceChildren();
      note.textContent = `Could not list the agents: ${api.explain(e)}`;
    }
    note.hidden = !note.textContent;
  }
  window.addEventListener('coderunner:key', loadAgents);
  loadAgents();
}
