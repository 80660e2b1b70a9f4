#!/usr/bin/env bash
# bench/search.sh: the search engine beside ripgrep, grep -rn and GNU find, as a
# markdown table of median wall times, ratios and peak RSS.
#
#   bench/search.sh               # 5 runs per case (median shown)
#   RUNS=3 bench/search.sh        # quicker
#   WRITE=1 bench/search.sh       # also write the table to bench/search-results.md
#
# Trees: $(go env GOROOT)/src (the Go toolchain's source) and a generated tree of
# 100,000 small files (kept in BENCH_DATA_DIR/testdata, default $TMPDIR/toold-bench-data:
# out of the repository, where gofmt and the go command would see its .go files).
# Every tool runs as a process with its output sent to /dev/null, after a warm-up
# run that puts the tree in the page cache; runs of the tools are interleaved so
# that load from elsewhere falls on all of them alike. toold's side is
# bench/search (the engine run once per process, printing every match as rg does).
# toold's walk uses every core; when other work holds the cores (load well
# above the core count) each process gets about one core's share, and toold's
# wall time follows its CPU time: quote the load with the figures.
# Needs rg (apt-get install -y ripgrep) and GNU time (/usr/bin/time).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs="${RUNS:-5}"
files="${GEN_FILES:-100000}"

for tool in rg /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing (apt-get install -y ripgrep time)" >&2; exit 1; }
done

tmp="$(mktemp -d "${TMPDIR:-/tmp}/toold-search-bench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/search" ./bench/search && go build -o "$tmp/toold-bin" ./cmd/toold)

data_dir="${BENCH_DATA_DIR:-${TMPDIR:-/tmp}/toold-bench-data}"
mkdir -p "$data_dir"
# Under a testdata directory, so that the go command never sees its .go files.
gen="$data_dir/testdata/tree-$files"
if [ ! -f "$gen/.done" ]; then
  echo "bench: generating $gen ($files files)" >&2
  rm -rf "$gen"
  "$tmp/search" gen "$gen" "$files"
  touch "$gen/.done"
fi
goroot="$(go env GOROOT)/src"

# run NAME CMD...: one timed run, appending "wall_s rss_kib cpu_s" to $tmp/NAME
# (cpu is user + system: the machine is shared, and CPU time suffers less from
# other load than wall time does).
run() {
  local name="$1"; shift
  /usr/bin/time -o "$tmp/t" -f "%e %M %U %S" "$@" >/dev/null 2>&1 || true
  # the last line: after a "Command exited with non-zero status" line
  tail -n1 "$tmp/t" | awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' >> "$tmp/$name"
}

# median FILE COLUMN
median() { sort -n -k"$2","$2" "$1" | awk -v c="$2" '{a[NR]=$c} END {print a[int((NR+1)/2)]}'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

# case LABEL TOOLD_CMD -- RG_CMD -- OTHER_CMD
bench_case() {
  local label="$1"; shift
  local t=() r=() o=()
  while [ "$1" != "--" ]; do t+=("$1"); shift; done; shift
  while [ "$1" != "--" ]; do r+=("$1"); shift; done; shift
  o=("$@")
  rm -f "$tmp/toold" "$tmp/rg" "$tmp/other"
  "${t[@]}" >/dev/null 2>&1 || true # warm-up: page cache
  [ ${#r[@]} -gt 0 ] && { "${r[@]}" >/dev/null 2>&1 || true; }
  "${o[@]}" >/dev/null 2>&1 || true
  for _ in $(seq "$runs"); do
    run toold "${t[@]}"
    [ ${#r[@]} -gt 0 ] && run rg "${r[@]}"
    run other "${o[@]}"
  done
  local tt rt ot rss tc rc oc
  tt="$(median "$tmp/toold" 1)"; ot="$(median "$tmp/other" 1)"; rss="$(median "$tmp/toold" 2)"
  tc="$(median "$tmp/toold" 3)"; oc="$(median "$tmp/other" 3)"
  rt="-"; rc="-"
  if [ ${#r[@]} -gt 0 ]; then rt="$(median "$tmp/rg" 1)"; rc="$(median "$tmp/rg" 3)"; fi
  printf '| %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %d |\n' "$label" \
    "$tt" "$tc" "$rt" "$rc" "$ot" "$oc" \
    "$( [ "$rt" = "-" ] && echo - || ratio "$tt" "$rt")" "$( [ "$rc" = "-" ] && echo - || ratio "$tc" "$rc")" \
    "$(ratio "$tt" "$ot")" "$(ratio "$tc" "$oc")" "$((rss / 1024))"
}

s="$tmp/search"
{
echo "runs: $runs per case, median wall seconds; cores: $(nproc); $(rg --version | head -1); $(grep --version | head -1); $(find --version | head -1)"
echo
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg). Cells: median wall s / median CPU (user+sys) s."
echo
echo "| case | toold | rg | grep -rn / find | toold/rg | toold/(grep or find) | toold RSS MiB |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for tree in "$goroot" "$gen"; do
  name="GOROOT/src"; [ "$tree" = "$gen" ] && name="gen $files files"
  bench_case "$name: grep literal" "$s" grep -F 'func main' "$tree" -- rg -n -F 'func main' "$tree" -- grep -rn -F 'func main' "$tree"
  bench_case "$name: grep regexp" "$s" grep 'func \w+Reader\(' "$tree" -- rg -n 'func \w+Reader\(' "$tree" -- grep -rnE 'func \w+Reader\(' "$tree"
  bench_case "$name: grep -i literal" "$s" grep -i -F 'NEEDLE_42' "$tree" -- rg -n -i -F 'NEEDLE_42' "$tree" -- grep -rni -F 'NEEDLE_42' "$tree"
  bench_case "$name: find -name '*.go'" "$s" find -name '*.go' "$tree" -- rg --files -g '*.go' "$tree" -- find "$tree" -name '*.go'
  bench_case "$name: find -type d" "$s" find -type d "$tree" -- -- find "$tree" -type d
done
echo
echo "Through the daemon: \`toold call\` (a process that starts a daemon in itself, JSON result, the"
echo "contract's limits but limit 2000), beside rg and grep -rn. RSS is the whole daemon's peak."
echo
echo "| case | toold call | rg | grep -rn | toold/rg | toold/grep | toold RSS MiB |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for tree in "$goroot" "$gen"; do
  name="GOROOT/src"; [ "$tree" = "$gen" ] && name="gen $files files"
  rm -f "$tmp/toold.t" "$tmp/rg" "$tmp/other"
  for _ in $(seq "$runs"); do
    run toold.t "$tmp/toold-bin" call grep "{\"pattern\":\"func main\",\"literal\":true,\"path\":\"$tree\",\"limit\":2000}"
    run rg rg -n -F 'func main' "$tree"
    run other grep -rn -F 'func main' "$tree"
  done
  tt="$(median "$tmp/toold.t" 1)"; rt="$(median "$tmp/rg" 1)"; ot="$(median "$tmp/other" 1)"; rss="$(median "$tmp/toold.t" 2)"
  printf '| %s: grep literal | %s | %s | %s | %s | %s | %d |\n' "$name" "$tt" "$rt" "$ot" "$(ratio "$tt" "$rt")" "$(ratio "$tt" "$ot")" "$((rss / 1024))"
  rm -f "$tmp/toold.t"
  for _ in $(seq "$runs"); do run toold.t "$tmp/toold-bin" call find "{\"pattern\":\"*.go\",\"path\":\"$tree\"}"; done
  printf '| %s: find *.go | %s | - | - | - | - | %d |\n' "$name" "$(median "$tmp/toold.t" 1)" "$(( $(median "$tmp/toold.t" 2) / 1024 ))"
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$tmp/results.md"
if [ "${WRITE:-0}" = "1" ]; then
  cp "$tmp/results.md" "$here/search-results.md"
fi
