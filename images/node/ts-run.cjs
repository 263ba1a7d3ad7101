// coderunner's TypeScript runner: `node ts-run.cjs main.ts [args...]` runs
// main.ts as `tsx main.ts` does in an empty directory, and a little more.
//  - CommonJS by default, as tsx without a package.json: `require`,
//    `module`, `__dirname`, `node:` built-ins; `import`/`export` syntax is
//    compiled to them, and other .ts files load through `require` too.
//  - A file with top-level `await` (which CommonJS cannot hold) runs as an
//    ES module instead, with `require`, `__filename` and `__dirname` still
//    defined.
// Each file is one esbuild transform (types stripped, no type check, as
// tsx), then plain node: no loader hooks, so a hello starts close to
// JavaScript. Stack traces point into the .ts source (inline source maps).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { pathToFileURL } = require('node:url');
const { execFileSync } = require('node:child_process');

// esbuild's binary itself, one short call per file: its JS API would start
// a worker thread first (about 50 ms, more than the rest of a hello).
const kEsbuild = path.join(__dirname, 'node_modules/@esbuild/linux-x64/bin/esbuild');
const kTarget = 'node' + process.versions.node.split('.')[0];
const kTopLevelAwait = 'Top-level await is currently not supported with the "cjs" output format';

// A transform that failed: esbuild's message for the user, as it printed it.
class TransformError extends Error {}

function transform(source, file, format, defines = []) {
  const loader = file.endsWith('.tsx') ? 'tsx' : 'ts';
  try {
    return execFileSync(
      kEsbuild,
      [`--loader=${loader}`, `--format=${format}`, `--target=${kTarget}`, `--sourcefile=${file}`,
        '--sourcemap=inline', '--log-level=error', '--color=false', ...defines],
      { input: source, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (err) {
    throw new TransformError(String(err.stderr || err.message));
  }
}

// esbuild's CLI message ("✘ [ERROR] text", then "    file:line:col:" and
// the source line) as tsx prints a TransformError:
// "file:line:col: ERROR: text" and the line; node's exit code for a
// program that does not parse.
function failTransform(err) {
  if (!(err instanceof TransformError)) throw err;
  const out = [];
  const re = /\[ERROR\] (.*)\n\n\s+(.+?):(\d+):(\d+):\n\s*\d+ │ (.*)\n/g;
  for (let m; (m = re.exec(err.message)) !== null;) {
    out.push(`${m[2]}:${m[3]}:${m[4]}: ERROR: ${m[1]}\n${m[5]}\n`);
  }
  process.stderr.write(out.length > 0 ? out.join('') : err.message);
  process.exit(1);
}

// Further .ts files required from the program compile the same way.
for (const ext of ['.ts', '.tsx', '.cts', '.mts']) {
  Module._extensions[ext] = (module, filename) => {
    let code;
    try {
      code = transform(fs.readFileSync(filename, 'utf8'), filename, 'cjs');
    } catch (err) {
      failTransform(err);
    }
    module._compile(code, filename);
  };
}

function runAsModule(file, source) {
  const banner =
    'import { createRequire as __coderunnerRequire } from "node:module";\n' +
    'const require = __coderunnerRequire(import.meta.url);\n' +
    `const __filename = ${JSON.stringify(file)};\n` +
    `const __dirname = ${JSON.stringify(path.dirname(file))};\n`;
  let code;
  try {
    // import.meta.url stays the source's, not the compiled copy's.
    const url = JSON.stringify(pathToFileURL(file).href);
    code = transform(source, file, 'esm', [`--define:import.meta.url=${url}`]);
  } catch (err) {
    failTransform(err);
  }
  // Beside the source, so its relative imports resolve as written.
  let target = file + '.coderunner.mjs';
  try {
    fs.writeFileSync(target, banner + code);
  } catch {
    target = path.join(require('node:os').tmpdir(), path.basename(file) + '.coderunner.mjs');
    fs.writeFileSync(target, banner + code);
  }
  import(pathToFileURL(target).href).catch((err) => {
    process.exitCode = 1;
    console.error(err);
  });
}

function main() {
  const file = path.resolve(process.argv[2]);
  // The program sees argv as under `node main.js` (and tsx): [node, file, ...args].
  process.argv.splice(1, 2, file);
  process.setSourceMapsEnabled(true);
  const source = fs.readFileSync(file, 'utf8');
  let code;
  try {
    code = transform(source, file, 'cjs');
  } catch (err) {
    if (err instanceof TransformError && err.message.includes(kTopLevelAwait)) {
      return runAsModule(file, source);
    }
    failTransform(err);
  }
  const main = new Module(file, null);
  main.filename = file;
  main.paths = Module._nodeModulePaths(path.dirname(file));
  main.id = '.';
  process.mainModule = main;
  require.cache[file] = main;
  main._compile(code, file);
  main.loaded = true;
}

main();
