// Runs the npm piston-client, unchanged, against a coderunner server and
// checks what it gets back.
//
// Usage: NODE_PATH=<dir holding node_modules/piston-client> \
//        node tests/piston/piston_client_check.js http://127.0.0.1:PORT
// Exits 0 when every check passes; otherwise prints each failure and exits 1.
// piston-client is an ES module, which NODE_PATH does not resolve for
// `import`, so it is loaded from the first NODE_PATH entry holding it.
'use strict';

const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');

function findClient() {
  for (const dir of (process.env.NODE_PATH || '').split(path.delimiter)) {
    const entry = path.join(dir, 'piston-client', 'index.js');
    if (dir && fs.existsSync(entry)) return entry;
  }
  return null;
}

async function main() {
  const server = process.argv[2];
  const entry = findClient();
  if (!server || !entry) {
    console.error('usage: NODE_PATH=<.../node_modules> node piston_client_check.js <server URL>' +
                  ' (piston-client not found on NODE_PATH)');
    process.exit(2);
  }
  const { piston } = await import(pathToFileURL(entry).href);
  const client = piston({ server });
  const failures = [];
  const check = (name, ok, got) => {
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}`);
    if (!ok) failures.push(`${name}: got ${JSON.stringify(got)}`);
  };

  const runtimes = await client.runtimes();
  check('runtimes is an array naming python, javascript, typescript and bash',
        Array.isArray(runtimes) &&
            ['python', 'javascript', 'typescript', 'bash']
                .every((l) => runtimes.some((r) => r.language === l)),
        runtimes);

  // The client's own defaults: args ["1","2","3"], no Content-Type, the
  // version it found in runtimes.
  const cases = [
    ['python', 'import sys\nprint("py", sys.argv[1:])', 'py [\'1\', \'2\', \'3\']\n'],
    ['javascript', 'console.log("js", process.argv.slice(2).join(","))', 'js 1,2,3\n'],
    ['bash', 'echo "sh $*"', 'sh 1 2 3\n'],
    ['typescript', 'const args: string[] = process.argv.slice(2);\nconsole.log("ts", args.join(","))',
     'ts 1,2,3\n'],
  ];
  for (const [language, code, expected] of cases) {
    const result = await client.execute(language, code);
    check(`${language} runs with the client's default args`,
          result && result.run && result.run.stdout === expected && result.run.code === 0 &&
              result.run.signal === null && result.run.output === expected &&
              result.language === language,
          result);
  }

  // The config form: an alias (no runtime of that name, so no version is
  // sent), a named file, stdin and explicit args.
  const configured = await client.execute({
    language: 'py',
    files: [{ name: 'prog.py', content: 'import sys\nprint(sys.stdin.read().upper(), sys.argv[1:])' }],
    stdin: 'hello',
    args: ['x'],
    runTimeout: 5000,
  });
  check('alias, named file, stdin and args', configured && configured.run &&
            configured.run.stdout === 'HELLO [\'x\']\n' && configured.language === 'python',
        configured);

  const failed = await client.execute('python', 'import sys\nprint("bad", file=sys.stderr)\nsys.exit(3)');
  check('non-zero exit keeps code and stderr', failed && failed.run && failed.run.code === 3 &&
            failed.run.stderr === 'bad\n', failed);

  const unknown = await client.execute({ language: 'cobol', version: '*', files: [{ content: 'x' }] });
  check('unknown language answers a message', unknown && typeof unknown.message === 'string' &&
            unknown.message.includes('runtime is unknown'), unknown);

  if (failures.length > 0) {
    console.error(failures.join('\n'));
    process.exit(1);
  }
  console.log('all piston-client checks passed');
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
