#!/usr/bin/env bash
# bench/portable.sh: the search engine's portable path (-tags toold_portable: what
# macOS and FreeBSD run) beside Linux's, on the Linux kernel's tree, as a markdown
# table of medians (wall and CPU seconds) and their ratios. The two builds of
# bench/search run alternately, after a warm-up that puts the tree in the page
# cache, so that load from elsewhere falls on both alike:
#   - grep: the walk and a literal grep of every file (no match);
#   - find: the walk alone, every file named;
#   - listed: the index's path (search.GrepListing), every file of the listing
#     opened by its path beneath the tree (Linux: one openat2; portable: an
#     openat per component), grep's time alone; and every 20th file, as an
#     index's pick is a few.
#
#   bench/portable.sh                 # KERNEL_DIR=/work/kernel, RUNS=5
#
# The tree is bench/index.sh's (linux-source-6.1 unpacked under KERNEL_DIR, its
# .gitignore files applying); run that once first. Needs GNU time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs="${RUNS:-5}"
tree="${KERNEL_DIR:-/work/kernel}/linux-source-6.1"
[ -d "$tree/.git" ] || { echo "bench: no kernel tree at $tree (run bench/index.sh once)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: GNU time is missing (apt-get install -y time)" >&2; exit 1; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/toold-portable-bench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/linux" ./bench/search && go build -tags toold_portable -o "$tmp/portable" ./bench/search)

pattern=zzqqxx_no_such_text
# timed NAME CMD...: one run, appending "wall_s cpu_s" to $tmp/NAME.
timed() {
  local name="$1"; shift
  /usr/bin/time -o "$tmp/t" -f "%e %U %S" "$@" >/dev/null 2>"$tmp/err"
  tail -n1 "$tmp/t" | awk '{ printf "%s %.2f\n", $1, $2 + $3 }' >> "$tmp/$name"
}
# listed NAME EVERY BIN: one run of the listed grep, appending its "grep_s" twice
# (wall and CPU columns alike: the grep's own time, measured in process).
listed() {
  "$3" listed -F -every "$2" "$pattern" "$tree" 2>&1 >/dev/null | awk '/^grep_ms/ { s = $2 / 1000; printf "%.3f %.3f\n", s, s }' >> "$tmp/$1"
}
median() { sort -n -k"$2","$2" "$1" | awk -v c="$2" '{a[NR]=$c} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

for b in linux portable; do "$tmp/$b" grep -F "$pattern" "$tree" >/dev/null 2>&1; done # warm-up
for _ in $(seq "$runs"); do
  for b in linux portable; do
    timed "grep.$b" "$tmp/$b" grep -F "$pattern" "$tree"
    timed "find.$b" "$tmp/$b" find "$tree"
    listed "listed.$b" 1 "$tmp/$b"
    listed "listed20.$b" 20 "$tmp/$b"
  done
done

files=$("$tmp/linux" find -type f "$tree" 2>/dev/null | wc -l)
echo "The kernel's tree ($files files after its .gitignore files), $runs runs alternating, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
echo "| case | Linux wall s | portable wall s | ratio | Linux CPU s | portable CPU s | ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for c in grep find listed listed20; do
  lw=$(median "$tmp/$c.linux" 1) pw=$(median "$tmp/$c.portable" 1)
  lc=$(median "$tmp/$c.linux" 2) pc=$(median "$tmp/$c.portable" 2)
  case $c in
    listed) label="listed: every file by its path (grep's time)";;
    listed20) label="listed: every 20th file (grep's time)";;
    grep) label="grep -F (walk + read every file)";;
    find) label="find (walk)";;
  esac
  if [ "${c#listed}" != "$c" ]; then
    echo "| $label | $lw | $pw | $(ratio "$pw" "$lw") | - | - | - |"
  else
    echo "| $label | $lw | $pw | $(ratio "$pw" "$lw") | $lc | $pc | $(ratio "$pc" "$lc") |"
  fi
done
