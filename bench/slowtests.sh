#!/usr/bin/env bash
# bench/slowtests.sh: the slowest tests of a run, from go test -json.
#
#   bench/slowtests.sh                       # go test -race ./... ; the 20 slowest
#   bench/slowtests.sh ./cmd/toold           # one package (the machine may be shared)
#   N=40 bench/slowtests.sh -count=1 ./exec  # more rows; any go test flags
#   JSON=run.json bench/slowtests.sh ...     # keep the raw -json output too
#   bench/slowtests.sh -f run.json           # read a kept -json output, run nothing
#
# Prints each package's wall time, then the N slowest tests and subtests with
# their elapsed seconds (a parent's time includes its subtests', and parallel
# subtests overlap, so the column does not add up to the wall time). Failures
# are listed last, and the exit status is go test's. With no package argument
# it runs ./...; -race is added unless RACE=0.
set -uo pipefail
n="${N:-20}"
if [ "${1:-}" = "-f" ]; then
  file="$(realpath "$2")"
fi
cd "$(dirname "$0")/.."

report() {
  local json="$1"
  echo "== packages (wall s)"
  jq -r 'select(.Test == null and (.Action == "pass" or .Action == "fail" or .Action == "skip") and .Elapsed != null)
         | "\(.Elapsed)\t\(.Action)\t\(.Package)"' "$json" | sort -rn | awk -F'\t' '{printf "%8.2f  %-4s %s\n", $1, $2, $3}'
  echo "== the $n slowest tests (elapsed s)"
  jq -r 'select(.Test != null and (.Action == "pass" or .Action == "fail") and .Elapsed != null)
         | "\(.Elapsed)\t\(.Package | sub("^github.com/toold/toold/"; ""))\t\(.Test)"' "$json" |
    sort -rn | head -n "$n" | awk -F'\t' '{printf "%8.2f  %-18s %s\n", $1, $2, $3}'
  local failed
  failed="$(jq -r 'select(.Test != null and .Action == "fail") | "\(.Package) \(.Test)"' "$json")"
  if [ -n "$failed" ]; then
    echo "== failed"
    echo "$failed"
  fi
}

if [ -n "${file:-}" ]; then
  report "$file"
  exit 0
fi

json="${JSON:-$(mktemp "${TMPDIR:-/tmp}/slowtests.XXXXXX.json")}"
[ -z "${JSON:-}" ] && trap 'rm -f "$json"' EXIT
args=("$@")
has_pkg=0
for a in "${args[@]}"; do
  case "$a" in ./* | github.com/*) has_pkg=1 ;; esac
done
[ "$has_pkg" = 0 ] && args+=(./...)
race=(-race)
[ "${RACE:-1}" = 0 ] && race=()
start=$(date +%s.%N)
go test -json "${race[@]}" "${args[@]}" >"$json"
status=$?
end=$(date +%s.%N)
report "$json"
printf '== wall %.1f s (load %s)\n' "$(awk -v a="$start" -v b="$end" 'BEGIN{print b-a}')" "$(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
