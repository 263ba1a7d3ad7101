// The typed-inputs editor of the Execute tab: rows of key, type (string,
// number, boolean, json) and value, or a "Raw JSON" textarea holding the same
// object. read() gives the object or an error to show (an input with an
// error is never sent); set(obj) fills it (Send to Chat).
import {el} from './dom.js';

export const kInputTypes = ['string', 'number', 'boolean', 'json'];

// The type a value gets in the rows.
function typeOf(value) {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return 'json';
}

function text(value, type) {
  if (type === 'string') return value;
  if (type === 'json') return JSON.stringify(value);
  return String(value);
}

// One row's value as the type says, or throws an Error naming the row.
function parseValue(key, type, raw) {
  switch (type) {
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw new Error(`"${key}": "${raw}" is not a number`);
      return n;
    }
    case 'boolean':
      return raw === 'true';
    case 'json':
      try {
        return JSON.parse(raw);
      } catch (e) {
        throw new Error(`"${key}": not JSON (${e.message})`);
      }
    default:
      return raw;
  }
}

// The object a raw JSON text holds, or throws.
function parseRaw(raw) {
  if (raw.trim() === '') return {};
  let value;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw new Error(`Raw JSON: ${e.message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error('Raw JSON: the inputs must be one object, e.g. {"a": 1, "b": 2}');
  }
  return value;
}

// prefix: the id prefix ("exec" gives #exec-inputs, #exec-add-input,
// #exec-raw-toggle, #exec-inputs-raw). Returns {node, read, set, clearError}.
export function createInputsEditor(prefix) {
  let rowCount = 0;
  let raw = false;
  const rows = el('div', {id: `${prefix}-inputs`, class: 'inputs-rows'});
  const rawArea = el('textarea', {
    id: `${prefix}-inputs-raw`,
    class: 'inputs-raw',
    rows: 6,
    spellcheck: 'false',
    'aria-describedby': `${prefix}-inputs-error`,
  });
  const rawWrap = el('div', {class: 'field inputs-raw-field'},
      el('label', {for: rawArea.id}, 'Inputs as JSON (one object)'), rawArea);
  rawWrap.hidden = true;
  const error = el('p', {id: `${prefix}-inputs-error`, class: 'inputs-error', role: 'alert'});
  error.hidden = true;
  const toggle = el('button', {type: 'button', id: `${prefix}-raw-toggle`, 'aria-pressed': 'false'}, 'Raw JSON');
  const add = el('button', {type: 'button', id: `${prefix}-add-input`}, 'Add input');

  function showError(message) {
    error.textContent = message || '';
    error.hidden = !message;
  }

  function valueControl(id, type, value) {
    if (type === 'boolean') {
      return el('select', {id, class: 'input-value'},
          el('option', {value: 'true', selected: value === 'true'}, 'true'),
          el('option', {value: 'false', selected: value !== 'true'}, 'false'));
    }
    return el('input', {id, class: 'input-value', type: 'text', spellcheck: 'false', value,
                        placeholder: type === 'json' ? '[1, 2, 3]' : ''});
  }

  function addRow(key = '', type = 'string', value = '') {
    const n = ++rowCount;
    const ids = {key: `${prefix}-input-key-${n}`, type: `${prefix}-input-type-${n}`, value: `${prefix}-input-value-${n}`};
    const keyInput = el('input', {id: ids.key, class: 'input-key', type: 'text', spellcheck: 'false',
                                  autocomplete: 'off', value: key, placeholder: 'name'});
    const typeSelect = el('select', {id: ids.type, class: 'input-type'},
        kInputTypes.map((t) => el('option', {value: t, selected: t === type}, t)));
    let valueInput = valueControl(ids.value, type, value);
    const valueLabel = el('label', {for: ids.value, class: 'visually-hidden'}, `Value of input ${n}`);
    const row = el('div', {class: 'input-row', role: 'group', 'aria-label': `Input ${n}`},
        el('label', {for: ids.key, class: 'visually-hidden'}, `Name of input ${n}`), keyInput,
        el('label', {for: ids.type, class: 'visually-hidden'}, `Type of input ${n}`), typeSelect,
        valueLabel, valueInput,
        el('button', {type: 'button', class: 'input-remove', 'aria-label': `Remove input ${n}`,
                      onclick: () => {
                        row.remove();
                        showError('');
                      }}, 'Remove'));
    typeSelect.addEventListener('change', () => {
      // boolean uses a select; the others a text box: swap, keeping the text.
      const next = valueControl(ids.value, typeSelect.value, valueInput.value);
      valueInput.replaceWith(next);
      valueInput = next;
    });
    rows.append(row);
    return keyInput;
  }

  function readRows() {
    const out = {};
    for (const row of rows.querySelectorAll('.input-row')) {
      const key = row.querySelector('.input-key').value.trim();
      const type = row.querySelector('.input-type').value;
      const value = row.querySelector('.input-value').value;
      if (!key && (value === '' || type === 'boolean')) continue;
      if (!key) throw new Error(`An input with the value "${value}" has no name`);
      if (Object.prototype.hasOwnProperty.call(out, key)) throw new Error(`"${key}" is named twice`);
      out[key] = parseValue(key, type, value);
    }
    return out;
  }

  function fillRows(obj) {
    rows.replaceChildren();
    for (const [k, v] of Object.entries(obj || {})) addRow(k, typeOf(v), text(v, typeOf(v)));
    if (!rows.children.length) addRow();
  }

  function setRaw(on) {
    raw = on;
    toggle.setAttribute('aria-pressed', String(on));
    toggle.textContent = on ? 'Rows' : 'Raw JSON';
    rawWrap.hidden = !on;
    rows.hidden = on;
    add.hidden = on;
  }

  toggle.addEventListener('click', () => {
    try {
      // Convert what is there now; on an error, stay and say why.
      if (raw) fillRows(parseRaw(rawArea.value));
      else rawArea.value = JSON.stringify(readRows(), null, 2);
      showError('');
      setRaw(!raw);
      (raw ? rawArea : rows.querySelector('.input-key')).focus();
    } catch (e) {
      showError(e.message);
    }
  });
  add.addEventListener('click', () => addRow().focus());
  addRow();

  const node = el('fieldset', {class: 'inputs-editor'},
      el('legend', {}, 'Inputs'),
      el('p', {class: 'hint'}, 'Typed values the program gets as variables (names only go to the model, never the values).'),
      rows, rawWrap, error,
      el('div', {class: 'inputs-actions'}, add, toggle));

  return {
    node,
    // {ok: true, value} or {ok: false, error} (also shown next to the inputs).
    read() {
      try {
        const value = raw ? parseRaw(rawArea.value) : readRows();
        showError('');
        return {ok: true, value};
      } catch (e) {
        showError(e.message);
        return {ok: false, error: e.message};
      }
    },
    set(obj) {
      showError('');
      fillRows(obj);
      rawArea.value = JSON.stringify(obj || {}, null, 2);
    },
    clearError: () => showError(''),
  };
}
