// The rich results of a sandbox cell (POST /v1/sandboxes/{id}/execute's
// "results"): a chart as an image, a data frame as a table, anything else
// as its text. A result's HTML is never put on the page: it is read in an
// inert document (DOMParser runs no script and loads nothing) and only the
// text of its first table's cells is copied, into a table built here.
import {el} from './dom.js';

// The most table rows shown (a data frame's HTML holds at most pandas'
// display.max_rows anyway).
const kMaxRows = 200;

// Styles in a result's HTML (pandas writes a <style> block and style
// attributes): the page's CSP would block them, with a report in the
// console, even in an inert document; only text is copied anyway. One that
// escapes these patterns is still blocked, and only reported.
const kStyleBlock = /<style[\s\S]*?<\/style\s*>/gi;
const kStyleAttribute = /\sstyle\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi;

// A <table> of the text in `html`'s first table, or null if it has none.
function tableFrom(html) {
  const unstyled = html.replace(kStyleBlock, '').replace(kStyleAttribute, '');
  const doc = new DOMParser().parseFromString(unstyled, 'text/html');
  const source = doc.querySelector('table');
  if (!source) return null;
  const rows = [...source.querySelectorAll('tr')].slice(0, kMaxRows).map((tr) =>
    el('tr', {}, [...tr.children].map((cell) =>
      el(cell.tagName === 'TH' ? 'th' : 'td', {}, cell.textContent.trim()))));
  return el('table', {class: 'cell-table'}, el('tbody', {}, rows));
}

// The node for one result; `number` names the cell for screen readers.
function resultNode(result, number) {
  if (typeof result.png === 'string') {
    return el('img', {class: 'cell-chart', src: `data:image/png;base64,${result.png}`,
      alt: `Chart from cell ${number}`});
  }
  const table = typeof result.html === 'string' ? tableFrom(result.html) : null;
  if (table) return table;
  return el('pre', {class: 'cell-result output'}, result.text || '');
}

// The nodes for a cell's results, main result last as a notebook shows it.
export function resultNodes(results, number) {
  return (results || []).map((r) =>
    el('div', {class: r.is_main_result ? 'cell-out main' : 'cell-out'}, resultNode(r, number)));
}
