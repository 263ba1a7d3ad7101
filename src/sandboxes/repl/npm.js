#!/usr/bin/env node
// npm inside a coderunner sandbox (written into its workspace as
// .coderunner-bin/npm, first on PATH). `npm install NAME...` (or `i`,
// `add`) asks the service, through the sandbox's gateway socket, to
// install the packages from the operator's registry under the tenant's
// policy, outside the sandbox and with no install script run; they stay
// loadable for the sandbox's life (docs/packages.md). Every other npm
// command runs the image's own npm, if it has one, which has no network.
"use strict";
const net = require("net");
const path = require("path");
const { spawnSync } = require("child_process");

const GATEWAY = "/workspace/.coderunner-gateway";
const INSTALL = new Set(["install", "i", "add"]);
// Flags that change nothing here: taken and dropped.
const HARMLESS = new Set(["--save", "-S", "--no-save", "--save-dev", "-D", "--no-audit",
  "--no-fund", "--silent", "-s", "--quiet", "-q", "--no-progress", "--ignore-scripts"]);
const MAX_ANSWER = 1 << 20;

function fail(message, code = 1) {
  process.stderr.write(`npm error ${message}\n`);
  process.exit(code);
}

function runImageNpm() {
  const here = path.dirname(path.resolve(process.argv[1]));
  const PATH = (process.env.PATH || "").split(":").filter((p) => p && path.resolve(p) !== here);
  const r = spawnSync("npm", process.argv.slice(2), {
    stdio: "inherit", env: { ...process.env, PATH: PATH.join(":") } });
  if (r.error) fail("this sandbox's image has no npm of its own; only `npm install NAME...` is served here");
  process.exit(r.status === null ? 1 : r.status);
}

function ask(request) {
  return new Promise((resolve) => {
    const chunks = [];
    let size = 0;
    const s = net.createConnection(GATEWAY, () => s.end(JSON.stringify(request) + "\n"));
    s.on("data", (d) => {
      size += d.length;
      if (size > MAX_ANSWER) s.destroy();
      else chunks.push(d);
    });
    s.on("error", (e) => fail(`the service's package gateway is not there (${e.code}): this sandbox takes no packages`));
    s.on("close", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString()));
      } catch {
        fail("the service's package gateway gave no answer");
      }
    });
  });
}

async function main() {
  const args = process.argv.slice(2);
  if (!INSTALL.has(args[0])) return runImageNpm();
  const names = [];
  for (const arg of args.slice(1)) {
    if (HARMLESS.has(arg)) continue;
    if (arg.startsWith("-")) fail(`npm install ${arg}: not in a coderunner sandbox, which installs only named packages from the operator's registry`, 2);
    names.push(arg);
  }
  if (names.length === 0) fail("name the packages to install (a package.json is not read here)", 2);
  const answer = await ask({ ecosystem: "npm", packages: names });
  if (!answer.ok) fail(`${answer.code || "package_install_failed"}: ${answer.message || ""}`);
  const n = (answer.packages || []).length;
  console.log(`\nadded ${n} package${n === 1 ? "" : "s"} (${(answer.packages || []).map((p) => `${p.name}@${p.version}`).join(", ")})`);
}

main();
