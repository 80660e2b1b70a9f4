#!/usr/bin/env bash
# bench/index.sh: the search index on the Linux kernel (Debian's linux-source-6.1),
# beside ripgrep in the same run: the first grep (a scan; --index=off's speed), the
# index build's time and bytes, 23 agent-like repeat greps (identifiers, error
# messages, regexps with literal parts, -i) each beside rg, interleaved (medians,
# p50/p90, ratios, match counts), once at the caps (limit 2000, maxBytes 262144)
# and once at the protocol's default limits (what an agent sends), the daemon's
# RssAnon, and a restart. Then the first search of the engine alone (bench/search,
# index off) beside rg and GNU find.
#
#   bench/index.sh                 # KERNEL_DIR=/work/kernel, RUNS=3
#   WRITE=1 bench/index.sh         # also write bench/index-results.md
#
# Needs root for apt-get (once): it installs linux-source-6.1 and ripgrep, unpacks
# the tarball under KERNEL_DIR (never in the repository) and makes it a git work
# tree with the Debian packaging's lines dropped from the top .gitignore (its
# trailing "/*" would hide the whole tree inside a work tree), so that its 306
# .gitignore files apply as in a kernel checkout. Never run by CI's default run:
# tests use generated trees.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs="${RUNS:-3}"
kdir="${KERNEL_DIR:-/work/kernel}"
tree="$kdir/linux-source-6.1"

if [ ! -f /usr/src/linux-source-6.1.tar.xz ] || ! command -v rg >/dev/null; then
  apt-get update -qq && apt-get install -y -qq linux-source-6.1 ripgrep time >/dev/null
fi
if [ ! -d "$tree/.git" ]; then
  mkdir -p "$kdir"
  (cd "$kdir" && nice -n 10 tar xJf /usr/src/linux-source-6.1.tar.xz)
  # Drop the Debian block ("# Debian packaging ...", "/*", "!/debian/") at its end.
  sed -i '/^# Debian packaging/,$d' "$tree/.gitignore"
  git -C "$tree" init -q .
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/toold-index-bench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/toold" ./cmd/toold && go build -o "$tmp/indexbench" ./bench/indexbench && go build -o "$tmp/search" ./bench/search)

# Warm the page cache for everyone.
rg -c zzzqqq "$tree" >/dev/null 2>&1 || true

# first NAME CMD...: interleaved runs of toold's engine and the other side.
cmp_runs() {
  local label="$1" a="$2" b="$3"
  : > "$tmp/a"; : > "$tmp/b"
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$tmp/t" -f "%e %U %S" bash -c "$a" >/dev/null 2>&1 || true
    tail -1 "$tmp/t" | awk '{print $1, $2+$3}' >> "$tmp/a"
    /usr/bin/time -o "$tmp/t" -f "%e %U %S" bash -c "$b" >/dev/null 2>&1 || true
    tail -1 "$tmp/t" | awk '{print $1, $2+$3}' >> "$tmp/b"
  done
  med() { sort -n -k"$2","$2" "$1" | awk -v c="$2" '{a[NR]=$c} END {print a[int((NR+1)/2)]}'; }
  local aw bw ac bc
  aw=$(med "$tmp/a" 1); bw=$(med "$tmp/b" 1); ac=$(med "$tmp/a" 2); bc=$(med "$tmp/b" 2)
  printf '| %s | %s / %s | %s / %s | %s / %s |\n' "$label" "$aw" "$ac" "$bw" "$bc" \
    "$(awk -v a="$aw" -v b="$bw" 'BEGIN{printf "%.2f", a/b}')" "$(awk -v a="$ac" -v b="$bc" 'BEGIN{printf "%.2f", a/b}')"
}

{
echo "## The search index on linux-source-6.1 ($(nproc) cores; $(rg --version | head -1))"
echo
"$tmp/indexbench" -toold "$tmp/toold" -tree "$tree" -cache "$tmp/cache" -runs "$runs"
echo
echo "## First search, index off: the engine (bench/search, one process per search) beside rg and GNU find"
echo
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg). Cells: median wall s / median CPU (user+sys) s over $runs interleaved runs."
echo
echo "| case | toold | rg or find | ratio wall / CPU |"
echo "| --- | --- | --- | --- |"
cmp_runs "grep -F 'EXPORT_SYMBOL_GPL(sched'" "$tmp/search grep -F 'EXPORT_SYMBOL_GPL(sched' $tree" "rg -n -F 'EXPORT_SYMBOL_GPL(sched' $tree"
cmp_runs "grep 'static int \\w+_probe\\('" "$tmp/search grep 'static int \\w+_probe\\(' $tree" "rg -n 'static int \\w+_probe\\(' $tree"
cmp_runs "grep -i 'out of memory'" "$tmp/search grep -i -F 'out of memory' $tree" "rg -n -i -F 'out of memory' $tree"
cmp_runs "find '**/*_test.c'" "$tmp/search find -name '**/*_test.c' $tree" "find $tree -name '*_test.c'"
cmp_runs "find -type d" "$tmp/search find -type d $tree" "find $tree -type d"
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$tmp/results.md"
if [ "${WRITE:-0}" = "1" ]; then
  cp "$tmp/results.md" "$here/index-results.md"
fi
