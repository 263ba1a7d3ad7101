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
  # ToolchainDiffTest's host side: the tools the bash image holds.
  gawk bc dc jq diffutils
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
# tsx for ToolchainDiffTest's host side, exactly as the node image pins it
# (images/node/package-lock.json); the host's node must be the image's
# version (20.20.2). The directory must match kHostTsx in
# tests/integration/toolchain_diff_test.cc.
node_lock_dir="$(cd "$(dirname "$0")/../images/node" && pwd)"
host_tsx_dir=/var/cache/coderunner/host-tsx
if ! cmp -s "${node_lock_dir}/package-lock.json" "${host_tsx_dir}/package-lock.json" ||
    [[ ! -x ${host_tsx_dir}/node_modules/.bin/tsx ]]; then
  echo "install-deps: installing tsx (images/node/package-lock.json) in ${host_tsx_dir}"
  mkdir -p "${host_tsx_dir}"
  cp "${node_lock_dir}/package.json" "${node_lock_dir}/package-lock.json" "${host_tsx_dir}/"
  (cd "${host_tsx_dir}" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)
fi
# The real MCP clients for McpClientTest (tests/mcp/): the official SDK and
# the conformance runner, pinned by tests/mcp/package-lock.json. The
# directory must match CODERUNNER_MCP_CLIENTS_DIR in
# tests/integration/CMakeLists.txt.
mcp_lock_dir="$(cd "$(dirname "$0")/../tests/mcp" && pwd)"
mcp_clients_dir=/var/cache/coderunner/mcp-clients
if ! cmp -s "${mcp_lock_dir}/package-lock.json" "${mcp_clients_dir}/package-lock.json" ||
    [[ ! -f ${mcp_clients_dir}/node_modules/@modelcontextprotocol/conformance/dist/index.js ]]; then
  echo "install-deps: installing the MCP clients (tests/mcp/package-lock.json) in ${mcp_clients_dir}"
  mkdir -p "${mcp_clients_dir}"
  cp "${mcp_lock_dir}/package.json" "${mcp_lock_dir}/package-lock.json" "${mcp_clients_dir}/"
  (cd "${mcp_clients_dir}" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)
fi
# The official E2B SDKs for E2bSdkTest (tests/e2b/), pinned by
# tests/e2b/package-lock.json, in CODERUNNER_E2B_CLIENTS_DIR
# (tests/integration/CMakeLists.txt).
e2b_lock_dir="$(cd "$(dirname "$0")/../tests/e2b" && pwd)"
e2b_clients_dir=/var/cache/coderunner/e2b-clients
if ! cmp -s "${e2b_lock_dir}/package-lock.json" "${e2b_clients_dir}/package-lock.json" ||
    [[ ! -f ${e2b_clients_dir}/node_modules/e2b/dist/index.js ]]; then
  echo "install-deps: installing the E2B SDKs (tests/e2b/package-lock.json) in ${e2b_clients_dir}"
  mkdir -p "${e2b_clients_dir}"
  cp "${e2b_lock_dir}/package.json" "${e2b_lock_dir}/package-lock.json" "${e2b_clients_dir}/"
  (cd "${e2b_clients_dir}" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)
fi
