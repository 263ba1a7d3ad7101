// The Glass Lab's stage view: the four stages of an intent in order
// (ol#exec-stages > li.stage[data-stage][data-state]), each with its state,
// its duration (live while it runs) and its attempt count. The verify
// step shows within Execute (div.stage-verify[data-verified]): its summary
// and every check of the last run (li.check[data-kind][data-passed]).
import {checkList} from './attempts.js';
import {el, formatMs} from './dom.js';

export const kStages = [
  {name: 'discover_agent', label: 'Discover / Generate Agent'},
  {name: 'generate_code', label: 'Generate Code'},
  {name: 'execute', label: 'Execute'},
  {name: 'format_result', label: 'Format Result'},
];

// Stages whose attempt count is the number of programs written / run.
const kCounted = new Set(['generate_code', 'execute']);

const kStateText = {
  pending: 'pending',
  running: 'running…',
  succeeded: 'succeeded',
  failed: 'failed',
  skipped: 'skipped',
  stopped: 'stopped',
};

// The verify step ({mode, verified, summary, checks}) inside a stage.
function drawVerify(node, v) {
  node.hidden = !v;
  if (!v) return node.replaceChildren();
  const state = v.verified === true ? 'verified' : v.verified === false ? 'unverified' : 'pending';
  node.dataset.verified = state;
  const head = v.verified === null ? `checks (${v.mode}): not run yet` :
      `${state} (${v.mode}): ${v.summary || ''}`;
  const revised = (v.revisions || []).map((r) =>
      el('li', {class: 'check-revision'}, `checks corrected at attempt ${r.attempt}: ${r.reason}`));
  node.replaceChildren(el('p', {class: 'stage-verify-summary'}, head), checkList(v.checks),
      ...(revised.length ? [el('ul', {class: 'check-revisions'}, ...revised)] : []));
}

function time(s) {
  const t = s ? Date.parse(s) : NaN;
  return Number.isFinite(t) ? t : null;
}

// Returns {node, reset(), update(stage, live), settle(record), setAttempts(n),
// stop()}.
export function createStageView() {
  const items = new Map();
  const node = el('ol', {id: 'exec-stages', class: 'stages', 'aria-label': 'Stages'});
  for (const s of kStages) {
    const item = {
      li: el('li', {class: 'stage', dataset: {stage: s.name, state: 'pending'}}),
      state: el('span', {class: 'stage-state'}, 'pending'),
      duration: el('span', {class: 'stage-duration'}),
      attempts: el('span', {class: 'stage-attempts'}),
      detail: el('p', {class: 'stage-detail'}),
      verify: el('div', {class: 'stage-verify'}),
      stage: null,
    };
    item.verify.hidden = true;
    item.li.append(
        el('span', {class: 'stage-marker', 'aria-hidden': 'true'}),
        el('span', {class: 'stage-name'}, s.label), item.state, item.duration, item.attempts,
        item.detail, item.verify);
    items.set(s.name, item);
    node.append(item.li);
  }
  let attempts = 0;
  // Browser clock minus service clock, estimated from each stage change's
  // own timestamp as it arrives (so a skewed clock does not make a live
  // duration negative or huge).
  let skew = 0;
  let timer = null;

  function duration(stage) {
    const start = time(stage.started_at);
    if (start === null) return '';
    const end = time(stage.finished_at);
    if (end !== null) return formatMs(Math.max(0, end - start));
    if (stage.status !== 'running') return '';
    return formatMs(Math.max(0, Date.now() - skew - start));
  }

  function draw(name) {
    const item = items.get(name);
    const s = item.stage;
    const status = s ? s.status : 'pending';
    item.li.dataset.state = status;
    item.state.textContent = kStateText[status] || status;
    item.state.className = `stage-state state-${status}`;
    item.duration.textContent = s ? duration(s) : '';
    item.detail.textContent = s && s.detail ? s.detail : '';
    item.detail.hidden = !item.detail.textContent;
    drawVerify(item.verify, s && s.verify);
    // A running stage works on the next attempt: attempts hold finished ones.
    const n = kCounted.has(name) ? attempts + (status === 'running' ? 1 : 0) : 0;
    item.attempts.textContent = n ? `${n} attempt${n === 1 ? '' : 's'}` : '';
    item.li.setAttribute('aria-label', `${kStages.find((k) => k.name === name).label}: ${status}`);
  }

  function tick() {
    let running = false;
    for (const [name, item] of items) {
      if (item.stage && item.stage.status === 'running') {
        running = true;
        draw(name);
      }
    }
    if (!running) stop();
  }

  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
  }

  return {
    node,
    reset() {
      stop();
      attempts = 0;
      for (const [name, item] of items) {
        item.stage = null;
        draw(name);
      }
    },
    // A stage object {name, status, started_at, finished_at, detail}.
    // live: it arrived just now (an SSE event), so its latest timestamp
    // tells the clock skew.
    update(stage, live = false) {
      const item = stage && items.get(stage.name);
      if (!item) return;
      const latest = time(stage.finished_at) ?? (stage.status === 'running' ? null : time(stage.started_at));
      if (live && latest !== null) skew = Date.now() - latest;
      else if (live && stage.status === 'running' && !(item.stage && item.stage.started_at)) {
        const start = time(stage.started_at);
        if (start !== null) skew = Date.now() - start;
      }
      item.stage = stage;
      draw(stage.name);
      if (stage.status === 'running' && !timer) timer = setInterval(tick, 250);
    },
    // A terminal record: a stage it left running (a cancelled intent's)
    // shows as stopped, its duration up to the job's end.
    settle(record) {
      for (const [name, item] of items) {
        const st = item.stage;
        if (!st || st.status !== 'running') continue;
        item.stage = {...st, status: 'stopped', finished_at: record.finished_at || null,
                      detail: `${st.detail ? st.detail + '; ' : ''}stopped: the intent ${record.status}`};
        draw(name);
      }
      stop();
    },
    // The number of attempts so far (programs written and run).
    setAttempts(n) {
      attempts = n;
      for (const name of kCounted) draw(name);
    },
    stop,
  };
}
