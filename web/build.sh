#!/usr/bin/env bash
# Bundles the web playground (GET /) into OUT_DIR: index.html, app.js,
# app.css. CMake runs it at build time and compiles OUT_DIR's files into the
# binary (src/ui/), so nothing is fetched when the service runs.
#
#   web/build.sh OUT_DIR [WORK_DIR]
#
# Dependencies are pinned by web/package-lock.json and installed with
# `npm ci --ignore-scripts` into WORK_DIR (default OUT_DIR/../web-node),
# again only when the lock changed. esbuild bundles web/src/main.js and the
# CSS it imports; the source tree is never written to.
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: web/build.sh OUT_DIR [WORK_DIR]}
work=${2:-$out/../web-node}
mkdir -p "$out" "$work"
if ! cmp -s "$src/package-lock.json" "$work/package-lock.json" || [[ ! -d $work/node_modules ]]; then
  cp "$src/package.json" "$src/package-lock.json" "$work/"
  (cd "$work" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
# NODE_PATH: esbuild resolves the bare imports in web/src from WORK_DIR.
# --charset=ascii: every non-ASCII character is escaped (\uXXXX), so the
# bundle compiles as a C++ raw string under -Werror (CodeMirror's source holds
# bidi control characters, which GCC's -Wbidi-chars refuses).
NODE_PATH="$work/node_modules" "$work/node_modules/.bin/esbuild" "$src/src/main.js" \
  --bundle --format=esm --target=es2020 --minify --charset=ascii --legal-comments=eof \
  --outfile="$out/app.js" --log-level=warning
cp "$src/src/index.html" "$src/src/favicon.svg" "$out/"
