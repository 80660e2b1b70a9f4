#!/usr/bin/env bash
# bench/sandbox.sh: the sandboxed `exec true` (exec's Runner.Run of bash -c
# true, workspace-write, network off) beside the unsandboxed one, at each
# row of the sandbox: every Landlock ABI from 1 to the kernel's with user
# namespaces (TOOLD_SANDBOX_ABI=N), and the kernel's without
# (TOOLD_SANDBOX_USERNS=0). Each row is BenchmarkExecTrueSandboxed (plain,
# sandboxed and a session's first exec interleaved in one loop, the median
# of BENCHTIME each), COUNT times; the table gives the medians of those.
#
#   bench/sandbox.sh              # 200 execs a side, 3 runs a row
#   COUNT=5 BENCHTIME=300x bench/sandbox.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/toold-bench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go test -c -o "$tmp/exec.test" ./exec)
(cd "$root" && go build -o "$tmp/abi" ./bench/sandboxabi)
kernel="$("$tmp/abi")"
rows=()
for abi in $(seq 1 "$kernel"); do rows+=("TOOLD_SANDBOX_ABI=$abi"); done
rows+=("TOOLD_SANDBOX_ABI=$kernel TOOLD_SANDBOX_USERNS=0")

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "| row | plain ms | sandboxed ms | × plain | a session's first exec ms | × plain |"
echo "| --- | --- | --- | --- | --- | --- |"
for row in "${rows[@]}"; do
  out="$(cd "$tmp" && env $row ./exec.test -test.run '^$' -test.bench BenchmarkExecTrueSandboxed \
    -test.benchtime "${BENCHTIME:-200x}" -test.count "${COUNT:-3}" 2>&1)"
  metric() { grep -o "[0-9.]* $1\b" <<<"$out" | awk '{print $1}' | median; }
  echo "| $row | $(metric ms-plain) | $(metric ms-sandboxed) | $(metric ratio) | $(metric ms-cold) | $(metric ratio-cold) |"
done
