// A short hello-world per language, loaded into an editor when its
// language is picked (unless the user has edited the code).
const kSamples = {
  python: 'import sys\n\nname = sys.stdin.read().strip() or "world"\nprint(f"Hello, {name}!")\n',
  javascript:
    'const input = require("fs").readFileSync(0, "utf8").trim();\nconsole.log(`Hello, ${input || "world"}!`);\n',
  typescript:
    'import {readFileSync} from "fs";\n\n' +
    'const name: string = readFileSync(0, "utf8").trim() || "world";\nconsole.log(`Hello, ${name}!`);\n',
  bash: 'read -r name || true\necho "Hello, ${name:-world}!"\n',
};

// The sample for a language name; a language without one gets a comment.
export function sampleFor(language) {
  return kSamples[language] || `# ${language}: write your program here\n`;
}

// The language marked default in /v1/languages' list, else the first one.
export function defaultLanguage(languages) {
  const d = languages.find((l) => l.default) || languages[0];
  return d ? d.name : 'python';
}

// <option>s for a language <select>: "python (3.11)".
export function languageOptions(languages, el, selected) {
  return languages.map((l) =>
    el('option', {value: l.name, selected: l.name === selected}, l.version ? `${l.name} (${l.version})` : l.name),
  );
}
