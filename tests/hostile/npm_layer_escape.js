// Attack: a job given npm packages tries to reach past its layer. It
// rewrites a package's file (code the next job of that set would run),
// plants a package of its own next to them, lists the directory of every
// layer (to learn which sets others use), and replaces its node_modules
// link with a directory of its own.
// Contained when every write fails: EACCES for a file (root's, 0644),
// EROFS where the read-only mount answers first; the listing with EACCES,
// the link cannot be replaced (the workspace is read-only), and the job's
// own packages still load.
const fs = require("fs");
const path = require("path");

const link = "/workspace/node_modules";
const layer = path.dirname(fs.readlinkSync(link));

function attempt(name, fn) {
  try {
    fn();
    console.log(name, "done");
  } catch (e) {
    console.log(name, e.code);
  }
}

attempt("WRITE", () => fs.appendFileSync(path.join(link, "crleft", "index.js"), "\nmodule.exports = 0;\n"));
attempt("PLANT", () => fs.writeFileSync(path.join(link, "evil.js"), "owned"));
attempt("CHMOD", () => fs.chmodSync(path.join(link, "crleft", "index.js"), 0o666));
attempt("LIST", () => fs.readdirSync(path.dirname(layer)));
attempt("RELINK", () => {
  fs.unlinkSync(link);
  fs.mkdirSync(link);
});
console.log("LOADS", require("crdep")("x"));
