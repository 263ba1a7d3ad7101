// The Run tab's input files: a file picker and a drop zone (#run-dropzone)
// that read each file into a job's `files` entry: UTF-8 text as `utf8`,
// anything else (invalid UTF-8, a NUL byte) as `base64`. Listed in
// #run-file-list with their size and a remove button; a second file of the
// same name replaces the first.
import {el, formatBytes, setChildren} from './dom.js';

// Reads a File into {path, content, encoding, size}.
async function readFile(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let text = null;
  if (!bytes.includes(0)) {
    try {
      text = new TextDecoder('utf-8', {fatal: true}).decode(bytes);
    } catch (_) {
      text = null;
    }
  }
  if (text !== null) return {path: file.name, content: text, encoding: 'utf8', size: bytes.length};
  return {path: file.name, content: toBase64(bytes), encoding: 'base64', size: bytes.length};
}

function toBase64(bytes) {
  let binary = '';
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + step));
  }
  return btoa(binary);
}

// Builds the picker, the drop zone and the list. Returns {node, files(),
// onError(fn)}: files() is the job's `files` array ([] when none).
export function createFileInputs() {
  const entries = new Map(); // path -> {path, content, encoding, size}
  const list = el('ul', {id: 'run-file-list', class: 'file-list', 'aria-live': 'polite'});
  const picker = el('input', {id: 'run-files', type: 'file', multiple: true, class: 'file-picker'});
  const problem = el('p', {class: 'field-error', role: 'alert', hidden: true});

  const render = () => {
    setChildren(
      list,
      [...entries.values()].map((f) =>
        el(
          'li',
          {class: 'file-entry', dataset: {path: f.path}},
          el('span', {class: 'file-name'}, f.path),
          el('span', {class: 'file-size'}, `${formatBytes(f.size)}, ${f.encoding}`),
          el(
            'button',
            {
              type: 'button',
              class: 'file-remove',
              'aria-label': `Remove ${f.path}`,
              onclick: () => {
                entries.delete(f.path);
                render();
              },
            },
            'Remove',
          ),
        ),
      ),
    );
  };

  const add = async (fileList) => {
    problem.hidden = true;
    for (const file of [...fileList]) {
      try {
        const entry = await readFile(file);
        entries.set(entry.path, entry);
      } catch (e) {
        problem.textContent = `Could not read ${file.name}: ${e.message}`;
        problem.hidden = false;
      }
    }
    render();
  };

  picker.addEventListener('change', async () => {
    await add(picker.files);
    picker.value = '';
  });

  const zone = el(
    'div',
    {id: 'run-dropzone', class: 'dropzone'},
    el('label', {for: 'run-files', class: 'dropzone-label'}, 'Input files: drop them here, or choose '),
    picker,
    el('p', {class: 'hint'}, 'Written read-only under /workspace. Text goes as UTF-8, anything else as base64.'),
  );
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('dragging');
    if (e.dataTransfer && e.dataTransfer.files) add(e.dataTransfer.files);
  });

  return {
    node: el('div', {class: 'files'}, zone, problem, list),
    files: () => [...entries.values()].map(({path, content, encoding}) => ({path, content, encoding})),
  };
}
