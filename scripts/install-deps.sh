#!/usr/bin/env bash
# Installs everything coderunner needs to build, test and run on Debian 12:
# toolchain, libraries, both engines (Podman + runc, Docker Engine), gVisor
# (runsc, registered in config/engines/) and the tools used to build the
# runtime images offline. Idempotent; safe to re-run.
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build pkg-config git ca-certificates curl
  libcurl4-openssl-dev nlohmann-json3-dev libcpp-httplib-dev libyaml-cpp-dev
  libtomlplusplus-dev
  libspdlog-dev libfmt-dev libgtest-dev libgmock-dev libsqlite3-dev
  # The fleet store (PgJobStore, libpq) and its tests (a real PostgreSQL 15).
  postgresql libpq-dev
  # bench/run.sh's fleet section: the balancer in front of two nodes (the
  # host binary, run as a child of the bench; no image).
  haproxy
  podman runc runsc docker.io debootstrap python3 uidmap
  # The service's package installs (packages.pip_command: docs/packages.md).
  python3-pip
  # ToolchainDiffTest's host side: the tools the bash image holds, and the
  # compilers of the compiled images (their versions: Go 1.19, rustc 1.63).
  gawk bc dc jq diffutils openjdk-17-jdk-headless libjavatuples-java golang-go rustc
  clang libclang-rt-14-dev clang-format
  # compose/ deployment, tested by scripts/compose-test.sh
  docker-compose podman-compose
  # The playground's browser tests: Debian's headless Chromium, its
  # WebDriver and the Selenium bindings that drive it.
  chromium chromium-driver python3-selenium
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# npm fetches the official Node 20 binary for the node runtime image, and
# web/build.sh bundles the playground with it at build time. Debian's npm
# (which brings Debian's nodejs) conflicts with the nodesource nodejs some
# machines ship (that one includes npm), so only install Debian's when no npm
# is present at all.
if ! command -v npm >/dev/null 2>&1; then
  apt-get install -y -qq --no-install-recommends npm
fi
command -v node >/dev/null 2>&1 || { echo "install-deps: npm is there but node is not" >&2; exit 1; }
# The npm piston-client, pinned, for PistonClientTest (tests/piston/): the
# unchanged client run against our Piston-compatible API. The directory must
# match CODERUNNER_PISTON_CLIENT_DIR in tests/integration/CMakeLists.txt.
piston_client_dir=/var/cache/coderunner/piston-client
piston_client_version=1.0.2
if ! grep -qs "\"version\": \"${piston_client_version}\"" \
    "${piston_client_dir}/node_modules/piston-client/package.json"; then
  echo "install-deps: installing piston-client@${piston_client_version} in ${piston_client_dir}"
  npm install --no-audit --no-fund --prefix "${piston_client_dir}" \
    "piston-client@${piston_client_version}"
fi
# npm_ci_locked WHAT LOCK_DIR DEST MARKER: installs LOCK_DIR's package.json
# and package-lock.json into DEST with `npm ci`, unless DEST already has
# that same lock file and MARKER (a path under DEST) exists.
npm_ci_locked() {
  local what=$1 lock_dir=$2 dest=$3 marker=$4
  if cmp -s "${lock_dir}/package-lock.json" "${dest}/package-lock.json" &&
      [[ -e ${dest}/${marker} ]]; then
    return 0
  fi
  echo "install-deps: installing ${what} (${lock_dir#"${repo_dir}/"}/package-lock.json) in ${dest}"
  mkdir -p "${dest}"
  cp "${lock_dir}/package.json" "${lock_dir}/package-lock.json" "${dest}/"
  (cd "${dest}" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)
}
repo_dir="$(cd "$(dirname "$0")/.." && pwd)"
# tsx for ToolchainDiffTest's host side, exactly as the node image pins it
# (images/node/package-lock.json); the host's node must be the image's
# version (20.20.2). The directory must match kHostTsx in
# tests/integration/toolchain_diff_test.cc.
npm_ci_locked tsx "${repo_dir}/images/node" /var/cache/coderunner/host-tsx node_modules/.bin/tsx
# The real MCP clients for McpClientTest (tests/mcp/): the official SDK and
# the conformance runner. The directory must match
# CODERUNNER_MCP_CLIENTS_DIR in tests/integration/CMakeLists.txt.
npm_ci_locked "the MCP clients" "${repo_dir}/tests/mcp" /var/cache/coderunner/mcp-clients \
  node_modules/@modelcontextprotocol/conformance/dist/index.js
# The official E2B SDKs for E2bSdkTest (tests/e2b/), in
# CODERUNNER_E2B_CLIENTS_DIR (tests/integration/CMakeLists.txt).
npm_ci_locked "the E2B SDKs" "${repo_dir}/tests/e2b" /var/cache/coderunner/e2b-clients \
  node_modules/e2b/dist/index.js
# verdaccio, the local npm registry that NpmPackagesTest starts through
# tests/testdata/packages/npm_mirror.py (tests/npm-mirror/).
npm_ci_locked "the npm mirror (verdaccio)" "${repo_dir}/tests/npm-mirror" /var/cache/coderunner/npm-mirror \
  node_modules/verdaccio/bin/verdaccio
