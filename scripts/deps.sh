#!/usr/bin/env bash
# Installs the Debian packages laysim needs to build, test and run. Idempotent: quiet
# when everything is present.
#   scripts/deps.sh         build, test and run (what `make study` needs)
#   scripts/deps.sh test    also what only tests need: headless Chromium
#                           (tests/cli/report_browser.sh skips without it; `make test`)
#   scripts/deps.sh fuzz    also clang and its libFuzzer runtime (tests/fuzz/run.sh)
#   scripts/deps.sh slurm   also a single-node Slurm cluster's daemons and clients
#                           (scripts/slurm-local.sh; tests/cli/slurm.sh skips without them)
# Groups combine: scripts/deps.sh test slurm.
set -euo pipefail
pkgs=(
  build-essential cmake pkg-config
  zlib1g-dev libcmocka-dev libjansson-dev libgsl-dev libsqlite3-dev
  python3 python3-venv python3-setuptools python3-wheel jq libz3-dev z3 toulbar2 coinor-cbc coinor-libcbc-dev verilator
  protobuf-c-compiler libprotobuf-c-dev libonnx-dev libonnx-testdata libdeflate-dev
)
for group in "$@"; do
  case "$group" in
    test) pkgs+=(chromium) ;;
    fuzz) pkgs+=(clang libclang-rt-14-dev) ;;
    slurm) pkgs+=(slurmctld slurmd slurm-client munge) ;;
    *) echo "usage: scripts/deps.sh [test] [fuzz] [slurm]" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "scripts/deps.sh: apt-get not found; install these packages by hand: ${missing[*]}" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "scripts/deps.sh: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "scripts/deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
