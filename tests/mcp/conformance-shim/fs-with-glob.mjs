// node:fs, plus the globSync the conformance runner needs on Node 20: only
// the `**/<name>` patterns it uses (every file named <name> below `cwd`,
// as paths relative to it), by a recursive readdir.
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd();
  const match = /^\*\*\/([^*?[\]{}/]+)$/.exec(String(pattern));
  if (!match) {
    throw new Error(`globSync shim: only "**/<name>" patterns are supported, not ${pattern}`);
  }
  const name = match[1];
  return fs
    .readdirSync(cwd, { recursive: true })
    .map(String)
    .filter((p) => path.basename(p) === name)
    .sort();
}
