// The Run tab's Tests panel (docs/judging.md): test cases, each a stdin and
// the output expected, and how outputs compare. Judge submits the Run
// tab's program with them ("cases"), and the verdicts come back one row
// per case (#run-verdicts > tr[data-verdict]) with the submission's
// verdict (#run-judge-verdict[data-verdict]).
import {el, field, setChildren} from './dom.js';

// docs/judging.md's comparison modes, the service's default first.
const kModes = [
  ['trailing_whitespace', 'ignore trailing whitespace'],
  ['exact', 'exact'],
  ['tokens', 'tokens'],
  ['numbers', 'numbers (within 1e-6)'],
];

// A verdict in plain words.
const kVerdictWords = {
  accepted: 'accepted',
  wrong_answer: 'wrong answer',
  time_limit: 'time limit',
  memory_limit: 'memory limit',
  output_limit: 'output limit',
  runtime_error: 'runtime error',
  compile_error: 'compile error',
  internal_error: 'internal error',
  skipped: 'skipped',
};

function verdictCell(verdict) {
  return el('span', {class: `verdict verdict-${verdict}`}, kVerdictWords[verdict] || verdict);
}

// Builds the panel. Returns {node, judgeButton, request(), show(judge),
// clear()}: request() is the judging part of a job body ({cases, compare})
// or throws when no case is given; show() draws a result's "judge".
export function createTestsPanel() {
  const list = el('ol', {id: 'run-cases', class: 'case-list'});
  const mode = el('select', {id: 'run-compare'});
  setChildren(mode, kModes.map(([value, label]) => el('option', {value}, label)));
  const add = el('button', {id: 'run-add-case', type: 'button'}, 'Add case');
  const judgeButton = el('button', {id: 'run-judge', type: 'button'}, 'Judge');
  const verdict = el('p', {id: 'run-judge-verdict', class: 'judge-verdict', role: 'status'});
  const rows = el('tbody');
  const table = el(
    'table',
    {id: 'run-verdicts', class: 'verdicts', hidden: true},
    el('thead', {}, el('tr', {}, ...['Case', 'Verdict', 'Time (ms)', 'Memory (MiB)'].map((h) => el('th', {}, h)))),
    rows,
  );
  const cases = [];

  const renumber = () => cases.forEach((c, i) => {
    c.title.textContent = `Case ${i + 1}`;
    c.stdin.setAttribute('aria-label', `Case ${i + 1} stdin`);
    c.expected.setAttribute('aria-label', `Case ${i + 1} expected output`);
    c.remove.setAttribute('aria-label', `Remove case ${i + 1}`);
  });
  const addCase = () => {
    const c = {
      title: el('span', {class: 'case-title'}),
      stdin: el('textarea', {class: 'case-stdin', rows: '2', spellcheck: 'false'}),
      expected: el('textarea', {class: 'case-expected', rows: '2', spellcheck: 'false'}),
      remove: el('button', {type: 'button', class: 'case-remove'}, 'Remove'),
    };
    c.node = el('li', {class: 'case'}, c.title, c.stdin, c.expected, c.remove);
    c.remove.addEventListener('click', () => {
      cases.splice(cases.indexOf(c), 1);
      c.node.remove();
      renumber();
    });
    cases.push(c);
    list.append(c.node);
    renumber();
    return c;
  };
  add.addEventListener('click', () => addCase().stdin.focus());

  const node = el(
    'details',
    {id: 'run-tests', class: 'run-tests'},
    el('summary', {}, 'Tests'),
    el('p', {class: 'hint'}, 'Each case: stdin, then the output expected. Judge runs every case in a fresh container.'),
    list,
    el('div', {class: 'run-actions'}, add, field('Compare', mode), judgeButton),
    verdict,
    table,
  );

  return {
    node,
    judgeButton,
    addCase,
    request() {
      if (!cases.length) throw new Error('Add a test case first (Tests, Add case).');
      return {
        cases: cases.map((c) => ({stdin: c.stdin.value, expected_output: c.expected.value})),
        compare: {mode: mode.value},
      };
    },
    clear() {
      verdict.textContent = '';
      delete verdict.dataset.verdict;
      setChildren(rows);
      table.hidden = true;
    },
    show(judge) {
      if (!judge) return;
      verdict.dataset.verdict = judge.verdict;
      verdict.textContent = `${kVerdictWords[judge.verdict] || judge.verdict}: ` +
          `${judge.passed} of ${judge.total} cases accepted`;
      setChildren(rows, (judge.cases || []).map((c, i) => {
        const m = c.metrics || {};
        return el(
          'tr',
          {dataset: {verdict: c.verdict}},
          el('td', {}, String(i + 1)),
          el('td', {}, verdictCell(c.verdict)),
          el('td', {}, c.metrics ? String(m.run_ms) : ''),
          el('td', {}, c.metrics ? (m.memory_peak_bytes / 1048576).toFixed(1) : ''),
        );
      }));
      table.hidden = false;
    },
  };
}
