// Attack: install a package at run time through child_process (npm, npx,
// yarn or pnpm: the command is this program's argv, default npm install
// left-pad). A job has no network, so the node image's shims must fail at
// once with exit code 1 and say why ("without network access"); the job
// exits with the package manager's code and shows its stderr.
const { spawnSync } = require('child_process');
const args = process.argv.slice(2);
const cmd = args.length ? args : ['npm', 'install', 'left-pad'];
const r = spawnSync(cmd[0], cmd.slice(1), { stdio: 'inherit' });
if (r.error) { console.error('spawn failed: ' + r.error.message); process.exit(127); }
process.exit(r.status === null ? 128 : r.status);
