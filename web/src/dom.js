// DOM helpers. Everything a job, a model or a caller produced is put on the
// page as text (textContent), never parsed as HTML: el() has no way to set
// innerHTML, and nothing else in the playground may use it.

// el('div', {class: 'x', id: 'y', onclick: fn, 'aria-label': 'z'}, child...)
// Children are nodes or strings (strings become text nodes). A null or
// false attribute is left out; `true` sets it empty (boolean attributes).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      node.addEventListener(k.slice(2), v);
    } else if (k === 'class') {
      node.className = v;
    } else if (k === 'dataset') {
      Object.assign(node.dataset, v);
    } else if (k === 'value' || k === 'checked' || k === 'selected') {
      node[k] = v;
    } else {
      node.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(node, ...children);
  return node;
}

export function append(node, ...children) {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// Replaces a node's children (text or nodes).
export function setChildren(node, ...children) {
  node.replaceChildren();
  return append(node, ...children);
}

// A labelled form control: <div class="field"><label for=id>text</label>control</div>.
export function field(label, control, hint) {
  const wrap = el('div', {class: 'field'}, el('label', {for: control.id}, label), control);
  if (hint) wrap.append(el('p', {class: 'hint', id: control.id + '-hint'}, hint));
  if (hint) control.setAttribute('aria-describedby', control.id + '-hint');
  return wrap;
}

// WAI-ARIA tabs: ArrowLeft/ArrowRight on `tab`, the tab of names[index],
// selects its neighbour (wrapping round) and focuses that tab, found by
// idOf(name).
export function onTabArrows(tab, names, index, select, idOf) {
  tab.addEventListener('keydown', (e) => {
    const step = {ArrowRight: 1, ArrowLeft: -1}[e.key];
    if (!step) return;
    const next = names[(index + step + names.length) % names.length];
    select(next);
    document.getElementById(idOf(next)).focus();
    e.preventDefault();
  });
}

export function formatBytes(n) {
  if (n === null || n === undefined) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function formatMs(ms) {
  if (ms === null || ms === undefined) return '';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

// The nonce the service put into this response's CSP (style-src), for the
// editor's own <style> element: <meta name="csp-nonce">.
export function cspNonce() {
  const meta = document.querySelector('meta[name="csp-nonce"]');
  return meta ? meta.content : '';
}
