// The Glass Lab's attempts: for each program the model wrote
// (li.attempt[data-attempt]), its outcome (.attempt-status), its code
// (pre.attempt-code), its checks when the verify step ran them
// (ul.checks, pre.attempt-checks-code) and, when it failed, the error
// summary that went back to the model with the tail of its stderr
// (pre.attempt-error). All text.
import {el, formatMs} from './dom.js';

// "KeyError: 'missing' (line 2 of the program)".
export function errorSummary(error) {
  if (!error || typeof error !== 'object') return '';
  const head = [error.type, error.message].filter(Boolean).join(': ');
  const line = error.line ? ` (line ${error.line} of the program)` : '';
  return head + line;
}

// What went wrong and how it ended, in a few words.
function outcome(a) {
  const r = a.result;
  if (!r) return a.error ? 'no program in the reply' : 'not run';
  const parts = [r.status || '?'];
  if (r.exit_code !== null && r.exit_code !== undefined) parts.push(`exit ${r.exit_code}`);
  if (r.signal) parts.push(r.signal);
  if (r.metrics && r.metrics.run_ms !== undefined) parts.push(formatMs(r.metrics.run_ms));
  if (a.error && r.status === 'succeeded' && !r.stdout) parts.push('no output');
  if (a.error && a.error.type === 'CheckFailed') parts.push('checks failed');
  return parts.join(', ');
}

// The checks of one run: ul.checks > li.check[data-kind][data-passed].
export function checkList(checks) {
  const list = Array.isArray(checks) ? checks : [];
  return el('ul', {class: 'checks', 'aria-label': 'Checks'}, ...list.map((c) =>
      el('li', {class: `check check-${c.passed ? 'passed' : 'failed'}`,
                dataset: {kind: c.kind, passed: String(Boolean(c.passed))}},
          `${c.passed ? '✓' : '✗'} ${c.kind} ${c.name}${c.detail ? ': ' + c.detail : ''}`)));
}

function attemptItem(a, last) {
  const failed = Boolean(a.error);
  const status = failed ? 'failed' : (a.result && a.result.status) || 'unknown';
  const li = el('li', {class: 'attempt', dataset: {attempt: String(a.attempt), status}},
      el('h4', {class: 'attempt-title'}, `Attempt ${a.attempt}`,
          el('span', {class: `attempt-status status-${status}`}, outcome(a))));
  li.append(el('details', {class: 'attempt-code-box', open: last || failed},
      el('summary', {}, 'Generated code'),
      el('pre', {class: 'output attempt-code'}, a.code || '(none)')));
  if (Array.isArray(a.checks)) {
    li.append(el('p', {class: 'attempt-checks-label'},
        `Checks${a.checks_cached ? ' (from the cache: the program and checks were unchanged)' : ''}`),
    checkList(a.checks),
    el('details', {class: 'attempt-checks-box'}, el('summary', {}, 'Checks code'),
        el('pre', {class: 'output attempt-checks-code'}, a.checks_code || '(none)')));
  }
  if (failed) {
    const stderr = a.result && a.result.stderr ? a.result.stderr.trimEnd() : '';
    const summary = errorSummary(a.error);
    const text = [summary && `Sent back to the model: ${summary}`, stderr].filter(Boolean).join('\n\n');
    li.append(el('p', {class: 'attempt-error-label'}, 'Failure (error summary and stderr the model got back)'),
        el('pre', {class: 'output attempt-error'}, text || 'failed'));
  }
  return li;
}

// Returns {node (ol#exec-attempts), show(attempts), reset()}.
export function createAttemptsView() {
  const node = el('ol', {id: 'exec-attempts', class: 'attempts', 'aria-label': 'Attempts'});
  let shown = '';
  return {
    node,
    show(attempts) {
      const list = Array.isArray(attempts) ? attempts : [];
      // Redraw only when something changed, so an open <details> stays open.
      const key = JSON.stringify(list.map((a) => [a.attempt, Boolean(a.error), a.result && a.result.status,
        Array.isArray(a.checks) ? a.checks.length : -1]));
      if (key === shown) return;
      shown = key;
      node.replaceChildren(...list.map((a, i) => attemptItem(a, i === list.length - 1)));
    },
    reset() {
      shown = '';
      node.replaceChildren();
    },
  };
}
