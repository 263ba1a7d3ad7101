// The Glass Lab's outcome: the agent chosen (#exec-agent), the answer
// (#exec-answer), the raw output of the final run (#exec-output), the
// model usage and a failed intent's error (code, stage, message and the
// last error). All text.
import {el, formatMs} from './dom.js';
import {errorSummary} from './attempts.js';

function agentText(agent) {
  if (!agent || typeof agent !== 'object') return '';
  const how = agent.created ? 'written by the model for this intent' : agent.builtin ? 'built-in' : 'stored';
  const lang = agent.language ? ` (${agent.language})` : '';
  const about = agent.description ? ` — ${agent.description}` : '';
  return `${agent.name}${lang}, ${how}${about}`;
}

function usageText(usage) {
  if (!usage || typeof usage !== 'object') return '';
  const calls = usage.llm_calls || 0;
  return `${calls} model call${calls === 1 ? '' : 's'}, ` +
      `${usage.prompt_tokens || 0} prompt + ${usage.completion_tokens || 0} completion tokens, ` +
      `${formatMs(usage.exec_ms || 0)} of execution`;
}

function errorText(error) {
  if (!error || typeof error !== 'object') return '';
  const where = error.stage ? ` (stage ${error.stage})` : '';
  const lines = [`${error.code || 'error'}${where}: ${error.message || ''}`];
  const last = errorSummary(error.last_error);
  if (last) lines.push(`Last error: ${last}`);
  return lines.join('\n');
}

// Returns {node, show(record), reset()}.
export function createResultView() {
  const agent = el('p', {id: 'exec-agent', class: 'exec-agent'});
  const answer = el('pre', {id: 'exec-answer', class: 'output exec-answer'});
  const output = el('pre', {id: 'exec-output', class: 'output'});
  const usage = el('p', {id: 'exec-usage', class: 'hint'});
  const error = el('pre', {id: 'exec-error', class: 'output exec-error', role: 'alert'});
  const errorBox = el('div', {class: 'exec-error-box'}, el('h3', {}, 'Error'), error);
  const node = el('div', {class: 'exec-result'},
      el('h3', {}, 'Agent'), agent,
      errorBox,
      el('h3', {}, 'Answer'), answer,
      el('h3', {}, 'Raw output (stdout of the final run)'), output,
      usage);

  function reset() {
    agent.textContent = '—';
    answer.textContent = '';
    output.textContent = '';
    usage.textContent = '';
    error.textContent = '';
    errorBox.hidden = true;
  }
  reset();

  return {
    node,
    reset,
    // Any record of an intent, running or final.
    show(record) {
      agent.textContent = agentText(record.agent) || '—';
      answer.textContent = typeof record.answer === 'string' ? record.answer : '';
      const r = record.result;
      output.textContent = r && typeof r.stdout === 'string' ? r.stdout : '';
      usage.textContent = usageText(record.usage);
      error.textContent = errorText(record.error);
      errorBox.hidden = !error.textContent;
    },
    // An error that is not the intent's own (the request failed).
    fail(text) {
      error.textContent = text;
      errorBox.hidden = false;
    },
  };
}
