// Attack: tamper with the job's own inputs in /workspace (read-only mount).
const fs = require('fs');
for (const p of ['/workspace/main.js', '/workspace/evil.txt']) {
  try { fs.writeFileSync(p, 'pwned'); console.log('WROTE ' + p); }
  catch (e) { console.log('denied ' + p + ' ' + e.code); }
}
