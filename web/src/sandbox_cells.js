// One cell of the Sandboxes tab: the code of one POST
// /v1/sandboxes/{id}/execute and, once it answers, its stdout, stderr,
// results (charts, tables, values: cell_results.js), status and notices (a
// lost state, an emptied /output).
import {resultNodes} from './cell_results.js';
import {el, formatBytes, setChildren} from './dom.js';
import {exitText, metricsText, statusSentence} from './run_result.js';

// Appends a pending cell for `code` to `list` (#sbx-cells) and returns
// {done(answer), fail(text)} to fill it in.
export function addCell(list, code, number) {
  const status = el('span', {class: 'cell-status', dataset: {status: 'running'}}, 'running…');
  const meta = el('span', {class: 'cell-meta'});
  const stdout = el('pre', {class: 'cell-stdout output', 'aria-label': `Cell ${number} stdout`});
  const stderr = el('pre', {class: 'cell-stderr output stderr', 'aria-label': `Cell ${number} stderr`});
  const results = el('div', {class: 'cell-results', 'aria-label': `Cell ${number} results`});
  const notes = el('div', {class: 'cell-notes'});
  const li = el(
    'li',
    {class: 'cell', dataset: {cell: String(number)}},
    el('div', {class: 'cell-head'}, el('span', {class: 'cell-number'}, `[${number}]`), status, meta),
    el('pre', {class: 'cell-code', 'aria-label': `Cell ${number} code`}, code),
    stdout,
    stderr,
    results,
    notes,
  );
  list.append(li);
  li.scrollIntoView({block: 'nearest'});
  const setStatus = (value) => {
    status.dataset.status = value;
    status.className = `cell-status status-${value}`;
    status.textContent = value;
  };
  return {
    // answer: the execute call's JSON.
    done(answer) {
      setStatus(answer.status || 'unknown');
      stdout.textContent = answer.stdout || '';
      stderr.textContent = answer.stderr || '';
      stderr.hidden = !answer.stderr;
      setChildren(results, resultNodes(answer.results, number));
      meta.textContent = [exitText(answer), metricsText(answer.metrics)].filter(Boolean).join(' · ');
      const lines = [];
      // A plain non-zero exit is in the head already ("Exit code 1").
      const plainExit = answer.status === 'failed' && !answer.error && !answer.signal;
      const sentence = plainExit ? '' : statusSentence({...answer, limits: answer.limits || {}});
      if (sentence) lines.push(sentence);
      if (answer.state_lost) lines.push('State lost: earlier variables and imports are gone.');
      if (answer.notice) lines.push(`Notice: ${answer.notice}.`);
      if (answer.stdout_truncated) lines.push('stdout was cut at its cap.');
      if (answer.stderr_truncated) lines.push('stderr was cut at its cap.');
      const files = (answer.files || []).map((f) => `${f.path} (${formatBytes(f.size)})`);
      if (files.length) lines.push(`Files under /output: ${files.join(', ')}`);
      setChildren(notes, lines.map((t) => el('p', {class: answer.state_lost ? 'cell-notice lost' : 'cell-notice'}, t)));
      li.dataset.stateLost = String(!!answer.state_lost);
    },
    // text: why the call did not answer (api.explain's sentence).
    fail(text) {
      setStatus('error');
      stderr.hidden = true;
      setChildren(notes, el('p', {class: 'cell-error', role: 'alert'}, text));
    },
  };
}
