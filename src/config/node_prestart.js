// coderunner's Node.js prestart (languages.javascript.prestart and
// typescript's): run as `node -e THIS` by coderunner-init in a pooled
// container before its job exists (src/init/prestart.h). It reads its
// release from descriptor 3: the stdin file's path ("" for /dev/null) and
// the job's argv, NUL-terminated. It then runs the script as
// `node SCRIPT ARGS...` would, through Node's own entry point for a main
// module (Module.runMain): process.argv, require.main, ES modules. README.md
// lists what a program can still tell. An argv it cannot run this way
// (options before the script) is run as it is, as a child.
'use strict';
const fs = require('fs');
const chunks = [];
const buf = Buffer.alloc(65536);
for (;;) {
  let n = 0;
  try {
    n = fs.readSync(3, buf, 0, buf.length, null);
  } catch (e) {
    if (e.code === 'EAGAIN' || e.code === 'EINTR') continue;
    throw e;
  }
  if (n === 0) break;
  chunks.push(Buffer.from(buf.subarray(0, n)));
}
fs.closeSync(3);
const words = Buffer.concat(chunks).toString('utf8').split('\0');
words.pop();
const [stdinPath, ...argv] = words;
if (stdinPath) {
  // The lowest free descriptor: the file becomes descriptor 0.
  fs.closeSync(0);
  fs.openSync(stdinPath, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
}
if (argv.length < 2 || argv[1].startsWith('-')) {
  const r = require('child_process').spawnSync(argv[0], argv.slice(1), { stdio: 'inherit' });
  if (r.signal) process.kill(process.pid, r.signal);
  process.exit(r.status === null ? 1 : r.status);
}
process.argv = [process.execPath, require('path').resolve(argv[1]), ...argv.slice(2)];
process.execArgv = [];
setImmediate(require('module').runMain);
