#!/usr/bin/env bash
# Configures and builds Steward into ./build (RelWithDebInfo, Ninja).
#   scripts/build.sh             everything: the programs, the tests and the benchmarks (what ctest needs)
#   scripts/build.sh TARGET...   only those; `apps` is the desktop app and steward-cli (the README's
#                                run command: a first run waits for what runs, not for the tests)
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
if [ $# -eq 0 ]; then
  cmake --build build --parallel "$(nproc)"
else
  cmake --build build --parallel "$(nproc)" --target "$@"
fi
