#!/usr/bin/env bash
# The longest functions and files of the product's code (engine/ and app/; tests, benchmarks and
# fuzz harnesses aside), and whether they keep to the limits a newcomer can carry: no function over
# 100 lines, no file over 1,000 lines unless it says at its top, in a comment holding
# "Long on purpose:", why it is one idea (one table of data, one state machine).
# Functions are measured by Universal Ctags (its end: field), lambdas inside counted with them;
# functions of file scope (static ones, those of an anonymous namespace) too (--extras=+F).
#   usage: scripts/code-size.sh [--report | --report-files] [--top N]
#   --report        print the figures and exit 0 even above the limits
#   --report-files  fail above the function limit, print the long files without failing (CI's use:
#                   while files are being split)
set -euo pipefail
cd "$(dirname "$0")/.."
report=0
report_files=0
top=15
while [ $# -gt 0 ]; do
  case "$1" in
    --report) report=1 ;;
    --report-files) report_files=1 ;;
    --top) top="$2"; shift ;;
    *) echo "usage: scripts/code-size.sh [--report | --report-files] [--top N]" >&2; exit 2 ;;
  esac
  shift
done
function_limit=100
file_limit=1000
if ! ctags --version 2>/dev/null | grep -q "Universal Ctags"; then
  echo "code-size: needs Universal Ctags (Debian: universal-ctags)" >&2
  exit 2
fi

functions=$(ctags -R --languages=C++ --kinds-C++=f --fields=+ne --extras=+F -o - engine app 2>/dev/null |
  awk -F'\t' '{ line = ""; end = "";
                for (i = 4; i <= NF; ++i) { if ($i ~ /^line:/) line = substr($i, 6); if ($i ~ /^end:/) end = substr($i, 5) }
                if (line != "" && end != "") print end - line + 1 "\t" $2 ":" line "\t" $1 }' | sort -t$'\t' -k1,1nr)
long_functions=$(printf '%s\n' "$functions" | awk -F'\t' -v limit="$function_limit" '$1 > limit' | grep -c . || true)

files=$(find engine app -name '*.cpp' -o -name '*.h' | xargs wc -l | grep -v ' total$' | sort -rn)
long_files=0
long_file_lines=""
while read -r lines path; do
  [ "$lines" -gt "$file_limit" ] || continue
  reason=$(awk 'NR <= 15 && /Long on purpose:/ { sub(/.*Long on purpose: */, ""); print substr($0, 1, 80); exit }' "$path")
  if [ -n "$reason" ]; then
    long_file_lines+="$lines  $path  (long on purpose: $reason)"$'\n'
  else
    long_file_lines+="$lines  $path"$'\n'
    long_files=$((long_files + 1))
  fi
done <<< "$files"

echo "Longest functions (limit $function_limit lines; $long_functions over it):"
printf '%s\n' "$functions" | awk -F'\t' -v top="$top" 'NR <= top { printf "  %5d  %s  %s\n", $1, $2, $3 }'
echo "Files over $file_limit lines ($long_files without a reason at their top):"
printf '%s' "$long_file_lines" | sed 's/^/  /'
[ -n "$long_file_lines" ] || echo "  none"

[ "$report_files" = 1 ] && long_files=0
if [ "$report" = 0 ] && { [ "$long_functions" -gt 0 ] || [ "$long_files" -gt 0 ]; }; then
  echo "code-size: above the limits" >&2
  exit 1
fi
exit 0
