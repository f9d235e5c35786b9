#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan + UBSan) into ./build-fuzz and runs each one for
# SECONDS (default 60) on a copy of its seed corpus, after replaying its kept crashing inputs.
# Prints the executions per harness; exits non-zero on any finding, with the crash file's path.
#   scripts/fuzz.sh [SECONDS]        STEWARD_BUILD_JOBS=N limits the build's parallelism,
#                                    STEWARD_FUZZ_JOBS=N the harnesses run at once (default: the cores)
#   scripts/fuzz.sh --build-only     only build the harnesses
#   scripts/fuzz.sh --ci SECONDS     CI's short run: every harness at once for SECONDS (each gets a
#                                    share of the cores, the executions are printed), built at -O0
#                                    without debug information into build-fuzz-ci (a finding's kept
#                                    input reproduces it in the long run's build, with lines)
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=0
ci=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build-only) build_only=1; shift ;;
    --ci) ci=1; shift ;;
    *) break ;;
  esac
done
seconds="${1:-60}"
root="$PWD"
build="$root/build-fuzz"
harnesses=(fuzz_request_line fuzz_validator fuzz_apischema fuzz_import_ndjson fuzz_import_json fuzz_descriptor_xml
           fuzz_interchange_xml fuzz_http_front)

cxx="${CXX_FUZZ:-$(command -v clang++-14 || command -v clang++ || true)}"
if [ -z "$cxx" ]; then
  echo "fuzz.sh: clang++ not found (scripts/install-deps.sh installs clang-14)" >&2
  exit 2
fi

# -O1 without NDEBUG: the library assertions (nlohmann_json's, libstdc++'s) stay on. CI's short run
# compiles at -O0 without line tables: the build from nothing on two cores took 136 s at -O1 -g1,
# 114 s at -O1 -g0, 84 s at -O0 -g0 (a harness then runs 2-12 times fewer inputs a second; the long
# runs are where the executions are).
flags="-O1 -g1"
if [ "$ci" -eq 1 ]; then
  flags="-O0 -g0"
  build="$root/build-fuzz-ci"
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" -DSTEWARD_FUZZ=ON -DBUILD_TESTING=OFF -DSTEWARD_BUILD_BENCH=OFF >/dev/null
# Only what the harnesses need: the engine and the harnesses, not the apps.
cmake --build "$build" --parallel "${STEWARD_BUILD_JOBS:-$(nproc)}" --target "${harnesses[@]}"
[ "$build_only" -eq 1 ] && exit 0

symbolizer="$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)"
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer"
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export QT_QPA_PLATFORM=offscreen

run="$build/fuzz-run"
rm -rf "$run"
mkdir -p "$run"
# The harnesses write their inputs to files (the import readers take paths): in memory when
# possible, and removed afterwards even when a crashed harness could not clean up.
scratch="$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/steward-fuzz.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
export TMPDIR="$scratch"
# One harness: replay its kept inputs, then fuzz it; leaves "$out/summary" (and "$out/failed").
fuzz_one() {
  local h="$1" bin out dict status execs artifacts
  bin="$build/fuzz/$h"
  out="$run/$h"
  mkdir -p "$out/corpus"
  cp -R "fuzz/corpus/$h/." "$out/corpus/"
  dict="fuzz/dicts/json.dict"
  [ "$h" = fuzz_descriptor_xml ] || [ "$h" = fuzz_interchange_xml ] && dict="fuzz/dicts/xml.dict"
  [ "$h" = fuzz_http_front ] && dict="fuzz/dicts/http.dict"

  # Kept crashing inputs first: each must still pass under the sanitizers. Given as files, libFuzzer
  # runs each once and writes nothing back into the repository.
  regressions=()
  [ -d "fuzz/regressions/$h" ] && mapfile -t regressions < <(find "fuzz/regressions/$h" -type f ! -name '.*' ! -name 'README*' | sort)
  if [ ${#regressions[@]} -ne 0 ]; then
    if ! "$bin" "${regressions[@]}" >"$out/regressions.log" 2>&1; then
      tail -n 40 "$out/regressions.log"
      echo "fuzz.sh: $h: a kept regression input fails again (log: $out/regressions.log)"
      touch "$out/failed"
      echo "$h: regression replay FAILED" >"$out/summary"
      return 1
    fi
  fi

  echo "fuzz.sh: $h for ${seconds}s"
  status=0
  "$bin" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="$dict" -artifact_prefix="$out/" "$out/corpus" >"$out/fuzz.log" 2>&1 || status=$?
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz.log" | tail -n 1)"
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$out/fuzz.log"
    artifacts="$(find "$out" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | tr '\n' ' ')"
    echo "fuzz.sh: $h FOUND A PROBLEM (exit $status); input: ${artifacts:-see $out/fuzz.log}"
    touch "$out/failed"
    echo "$h: ${execs:-?} executions, FINDING ${artifacts}" >"$out/summary"
  else
    echo "$h: ${execs:-?} executions, no findings" >"$out/summary"
  fi
}

# As many harnesses at once as there are cores; CI runs all of them at once, so its time per harness
# costs that time once, not once per pair of harnesses.
at_once="${STEWARD_FUZZ_JOBS:-$(nproc)}"
[ "$ci" -eq 1 ] && at_once="${#harnesses[@]}"
running=()
for h in "${harnesses[@]}"; do
  fuzz_one "$h" >"$run/$h.out" 2>&1 &
  running+=("$!")
  if [ ${#running[@]} -ge "$at_once" ]; then
    wait "${running[0]}" || true
    running=("${running[@]:1}")
  fi
done
wait || true
failed=()
summary=()
for h in "${harnesses[@]}"; do
  cat "$run/$h.out"
  summary+=("$(cat "$run/$h/summary" 2>/dev/null || echo "$h: no result")")
  [ -e "$run/$h/failed" ] || [ ! -e "$run/$h/summary" ] && failed+=("$h")
done

echo "fuzz.sh: ${seconds}s per harness"
printf '  %s\n' "${summary[@]}"
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz.sh: findings in: ${failed[*]}; keep each crashing input in fuzz/regressions/<harness>/ once fixed" >&2
  exit 1
fi
