// The code editor: CodeMirror 6 with line numbers and highlighting
// (basicSetup), a language mode per coderunner language, and Ctrl/Cmd+Enter
// bound to a callback ahead of basicSetup's own keys. Its <style> elements
// carry the page's CSP nonce (style-src has no 'unsafe-inline').
import {basicSetup} from 'codemirror';
import {EditorView, keymap} from '@codemirror/view';
import {Compartment, EditorState, Prec} from '@codemirror/state';
import {StreamLanguage} from '@codemirror/language';
import {python} from '@codemirror/lang-python';
import {javascript} from '@codemirror/lang-javascript';
import {c, cpp, java} from '@codemirror/legacy-modes/mode/clike';
import {go} from '@codemirror/legacy-modes/mode/go';
import {rust} from '@codemirror/legacy-modes/mode/rust';
import {shell} from '@codemirror/legacy-modes/mode/shell';
import {cspNonce} from './dom.js';

// A coderunner language name (or alias) -> its CodeMirror mode; a language
// the page does not know gets plain text.
const kModes = {
  python: () => python(),
  py: () => python(),
  javascript: () => javascript(),
  js: () => javascript(),
  node: () => javascript(),
  typescript: () => javascript({typescript: true}),
  ts: () => javascript({typescript: true}),
  bash: () => StreamLanguage.define(shell),
  sh: () => StreamLanguage.define(shell),
  c: () => StreamLanguage.define(c),
  cpp: () => StreamLanguage.define(cpp),
  'c++': () => StreamLanguage.define(cpp),
  go: () => StreamLanguage.define(go),
  golang: () => StreamLanguage.define(go),
  java: () => StreamLanguage.define(java),
  rust: () => StreamLanguage.define(rust),
  rs: () => StreamLanguage.define(rust),
};

function modeFor(language) {
  const make = kModes[String(language || '').toLowerCase()];
  return make ? make() : [];
}

const kTheme = EditorView.theme({
  '&': {fontSize: '0.9rem', border: '1px solid var(--line)', borderRadius: '5px'},
  '&.cm-focused': {outline: '3px solid var(--focus)', outlineOffset: '2px'},
  '.cm-scroller': {fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace', overflow: 'auto'},
  '.cm-content': {caretColor: 'var(--fg)'},
  '.cm-gutters': {background: 'var(--code-bg)', color: 'var(--muted)', borderRight: '1px solid var(--line)'},
  // Neutral greys read in light and dark alike.
  '.cm-activeLine': {backgroundColor: 'rgba(127, 127, 127, 0.12)'},
  '.cm-activeLineGutter': {backgroundColor: 'rgba(127, 127, 127, 0.2)'},
});

// Creates an editor inside `parent`.
//   doc: the initial text; language: a coderunner language name;
//   label: the accessible name of the text area;
//   contentId: an id for the editable element itself (so automation and
//     aria-labelledby reach it), or none;
//   onRun(): called on Ctrl/Cmd+Enter (the key does nothing else);
//   onChange(text): called after each edit made by the user (not by setCode).
// Returns {view, getCode(), setCode(text), setLanguage(name), focus()}.
export function createEditor(parent, {doc = '', language = '', label = 'Code', contentId, onRun, onChange} = {}) {
  const mode = new Compartment();
  let programmatic = false;
  const runKey = Prec.highest(
    keymap.of([
      {
        key: 'Mod-Enter',
        preventDefault: true,
        run: () => {
          if (onRun) onRun();
          return true;
        },
      },
    ]),
  );
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        runKey,
        basicSetup,
        mode.of(modeFor(language)),
        kTheme,
        EditorView.cspNonce.of(cspNonce()),
        EditorView.contentAttributes.of({
          'aria-label': label,
          'aria-multiline': 'true',
          ...(contentId ? {id: contentId} : {}),
        }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !programmatic && onChange) onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    getCode: () => view.state.doc.toString(),
    setCode(text) {
      programmatic = true;
      try {
        view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: String(text)}});
      } finally {
        programmatic = false;
      }
    },
    setLanguage(name) {
      view.dispatch({effects: mode.reconfigure(modeFor(name))});
    },
    focus: () => view.focus(),
  };
}

// Lets automation (the browser tests) set and read an editor's text without
// typing into it: typing auto-indents and closes brackets.
export function exposeForAutomation(editor) {
  window.coderunnerPlayground = {
    setCode: (text) => editor.setCode(text),
    getCode: () => editor.getCode(),
  };
}

// Ctrl/Cmd+Enter anywhere in `panel` calls `fn` (an editor inside handles
// its own first and marks the event handled).
export function onRunKey(panel, fn) {
  panel.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey) || e.defaultPrevented) return;
    e.preventDefault();
    fn();
  });
}
