// Attack: a fork bomb in Node: spawn children (each a whole node process
// with threads of its own) as fast as the event loop allows, forever.
// Contained by limits.pids: a spawn fails with EAGAIN and the container
// never holds more than limits.pids tasks (processes + threads).
// Reports: "spawned N", "errno CODE" (the first failed spawn's code) and
// "peak_tasks N" (the most tasks counted in /proc, PID 1 included, after
// each spawn and at the failure).
const { spawn } = require('child_process');
const fs = require('fs');

function tasks() {
  let n = 0;
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try { n += fs.readdirSync(`/proc/${p}/task`).length; } catch (e) {}
  }
  return n;
}

let spawned = 0;
let peak = 0;
let done = false;
function report(code) {
  if (done) return;
  done = true;
  peak = Math.max(peak, tasks());
  console.log('spawned', spawned);
  console.log('errno', code);
  console.log('peak_tasks', peak);
  process.exit(0);
}
function bomb() {
  if (done) return;
  let c;
  try {
    c = spawn(process.execPath, ['-e', 'setTimeout(()=>{}, 60000)']);
  } catch (e) {
    return report(e.code);
  }
  c.on('error', (e) => report(e.code));
  if (c.pid === undefined) return;  // The 'error' event follows.
  spawned++;
  peak = Math.max(peak, tasks());
  setImmediate(bomb);
}
bomb();
