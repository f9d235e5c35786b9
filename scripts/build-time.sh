#!/usr/bin/env bash
# What a first run and CI cost on this machine, in reference compiles: each figure is its wall time
# divided by the mean of ../shared/tools/reftu.sh measured just before and just after it, so figures
# from machines of different speed compare. Measures the committed HEAD in scratch clones:
#   1. the README's run command, fresh clone, empty compiler cache, install included, until the
#      window is up (`steward --screenshot` under QT_QPA_PLATFORM=offscreen, which draws the window
#      once its views have loaded)
#   2. a one-line change in engine/protocol/Engine.cpp, then `scripts/build.sh apps` (ccache off)
#   3. .ci/run, fresh clone, empty cache; the README's test command is the same run until ctest's
#      last line (.ci/run builds the apps first, then the rest: the same work as the test command)
#   4. .ci/run, fresh clone, with the cache the run of 3 left
# Takes about 40 minutes on two cores; run it on a quiet machine.
#   usage: scripts/build-time.sh [--only-run | --only-ci]   (figures 1 and 2, or 3 and 4)
#   STEWARD_REFTU=path/to/reftu.sh overrides where the reference compile is found.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
only_run=0
only_ci=0
[ "${1:-}" = "--only-run" ] && only_run=1
[ "${1:-}" = "--only-ci" ] && only_ci=1
reftu="${STEWARD_REFTU:-$root/../shared/tools/reftu.sh}"
if [ ! -f "$reftu" ]; then
  echo "build-time.sh: no reference compile at $reftu (set STEWARD_REFTU)" >&2
  exit 2
fi
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "build-time.sh: note: uncommitted changes are not measured; the clones are of HEAD" >&2
fi
commit="$(git rev-parse --short HEAD)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/steward-build-time.XXXXXX")"
echo "build-time.sh: HEAD $commit, $(nproc) cores, scratch $scratch (logs stay there)"
# The clones see Ed-Fi's published files beside them, as CI's checkout does (tests that read them
# would otherwise skip and make ctest look shorter than it is).
[ -d "$root/../shared" ] && ln -s "$(cd "$root/../shared" && pwd)" "$scratch/shared"

now() { date +%s.%N; }
reference() { bash "$reftu" | sed -n 's/^reference compile: \([0-9.]*\) s.*/\1/p'; }
fresh_clone() {
  git clone --quiet --no-local "$root" "$1"
  git -C "$1" checkout --quiet "$commit"
}

figures=()
# figure NAME SECONDS REF_BEFORE REF_AFTER TARGET: one line of the table, kept for the end.
figure() {
  local line
  line="$(awk -v n="$1" -v s="$2" -v a="$3" -v b="$4" -v t="$5" 'BEGIN {
      r = s / ((a + b) / 2)
      printf "%-58s %7.1f s  %6.2f / %6.2f s  %6.1f  <= %-3s %s", n, s, a, b, r, t, (r <= t ? "met" : "MISSED") }')"
  figures+=("$line")
  echo "$line"
}

# 1. The run command, cold.
if [ "$only_ci" -eq 0 ]; then
  clone="$scratch/run"
  fresh_clone "$clone"
  export CCACHE_DIR="$scratch/cache-run"
  mkdir -p "$CCACHE_DIR" "$scratch/home"
  before="$(reference)"
  start="$(now)"
  (cd "$clone" && scripts/install-deps.sh && scripts/build.sh apps \
    && HOME="$scratch/home" XDG_DATA_HOME="$scratch/home/data" XDG_CONFIG_HOME="$scratch/home/config" \
       QT_QPA_PLATFORM=offscreen build/app/gui/steward --screenshot "$scratch/window.png") >"$scratch/run.log" 2>&1
  end="$(now)"
  after="$(reference)"
  [ -s "$scratch/window.png" ] || { echo "build-time.sh: the app showed no window (see $scratch/run.log)" >&2; exit 1; }
  figure "run command, empty cache, to the window" "$(echo "$end - $start" | bc)" "$before" "$after" 20

  # 2. One line changed in the engine, the run command's programs rebuilt.
  echo 'namespace { [[maybe_unused]] constexpr int kBuildTimeProbe = 1; }' >>"$clone/engine/protocol/Engine.cpp"
  before="$(reference)"
  start="$(now)"
  (cd "$clone" && CCACHE_DISABLE=1 scripts/build.sh apps) >"$scratch/edit.log" 2>&1
  end="$(now)"
  after="$(reference)"
  figure "one line in engine/protocol/Engine.cpp, apps rebuilt" "$(echo "$end - $start" | bc)" "$before" "$after" 2
  rm -rf "$clone"
fi

if [ "$only_run" -eq 0 ]; then
  # 3. .ci/run, cold; the test command's figure is the same run until ctest's last line.
  clone="$scratch/ci-cold"
  fresh_clone "$clone"
  export CCACHE_DIR="$scratch/cache-ci"
  mkdir -p "$CCACHE_DIR"
  before="$(reference)"
  start="$(now)"
  status=0
  (cd "$clone" && bash .ci/run 2>&1 | while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done) \
    >"$scratch/ci-cold.log" || status=$?
  end="$(now)"
  after="$(reference)"
  ctest_end="$(grep -m1 ' Total Test time (real)' "$scratch/ci-cold.log" | cut -d' ' -f1 || true)"
  if [ "$status" -ne 0 ] || [ -z "$ctest_end" ] || ! grep -q ' 100% tests passed' "$scratch/ci-cold.log"; then
    echo "build-time.sh: .ci/run failed (see $scratch/ci-cold.log)" >&2
    exit 1
  fi
  figure "test command, empty cache, to ctest's last line" "$(echo "$ctest_end - $start" | bc)" "$before" "$after" 40
  figure ".ci/run, empty cache" "$(echo "$end - $start" | bc)" "$before" "$after" 50
  rm -rf "$clone"

  # 4. .ci/run again from a fresh clone, with the cache 3 left.
  clone="$scratch/ci-cached"
  fresh_clone "$clone"
  before="$(reference)"
  start="$(now)"
  (cd "$clone" && bash .ci/run) >"$scratch/ci-cached.log" 2>&1 || {
    echo "build-time.sh: .ci/run failed (see $scratch/ci-cached.log)" >&2
    exit 1
  }
  end="$(now)"
  after="$(reference)"
  figure ".ci/run, the cache of an earlier clone" "$(echo "$end - $start" | bc)" "$before" "$after" 25
  rm -rf "$clone"
fi

echo
printf '%-58s %9s  %-17s  %6s  %s\n' "figure (HEAD $commit)" "wall" "reference bef/aft" "refs" "target"
printf '%s\n' "${figures[@]}"
