#!/usr/bin/env bash
# Whole-process start time: toold --version, a stats request through
# toold serve (stdio, a daemon in the process), one through the forwarder
# (toold --remote=auto, to a running shared daemon) and toold call (with a
# daemon in its process, and --remote=auto), beside a hello-world Go binary.
# toold is built as the README installs it (CGO_ENABLED=0, static); one row
# times --version of a default (cgo, dynamically linked) build beside it.
# Medians of RUNS runs (hyperfine when installed, else a loop of
# date +%s%N). Target: within 2x of hello-world.
#
#   bench/start.sh            # RUNS=200 by default
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-200}
work=$(mktemp -d)
trap 'XDG_RUNTIME_DIR=$work/rt "$work/toold" stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/toold" ./cmd/toold
CGO_ENABLED=1 go build -o "$work/toold-cgo" ./cmd/toold
CGO_ENABLED=0 go build -o "$work/floor" ./bench/floor # hello-world with toold's dependencies
mkdir -p "$work/hello" "$work/rt"
cat >"$work/hello/main.go" <<'GO'
package main

import "fmt"

func main() { fmt.Println("hello") }
GO
(cd "$work/hello" && printf 'module hello\n\ngo 1.26\n' >go.mod && go build -o "$work/hello-bin" .)
export XDG_RUNTIME_DIR="$work/rt"
"$work/toold" call --remote=auto stats >/dev/null # the shared daemon, up before timing
stats='{"jsonrpc":"2.0","id":1,"method":"stats"}'
# A pipeline runs as bash -c, and is compared with the same pipeline into
# hello-world: bash's start is in both, and no shell correction is guessed.
names=("hello-world" "hello-world + toold's dependencies (bench/floor)" "toold --version" "toold --version (cgo build)" "toold call stats" "toold call --remote=auto stats"
	"bash -c 'echo … | hello-world'" "bash -c 'echo stats | toold'" "bash -c 'echo stats | toold --remote=auto'")
cmds=("$work/hello-bin" "$work/floor" "$work/toold --version" "$work/toold-cgo --version" "$work/toold call stats" "$work/toold call --remote=auto stats"
	"bash -c \"echo '$stats' | $work/hello-bin\"" "bash -c \"echo '$stats' | $work/toold\"" "bash -c \"echo '$stats' | $work/toold --remote=auto\"")
baseOf=(0 0 0 0 0 0 6 6 6) # the row each is compared with

median_ms() { # command -> median wall time in ms
	if command -v hyperfine >/dev/null; then
		hyperfine -N --style none --warmup 10 --runs "$RUNS" --export-json "$work/h.json" "$1" >/dev/null
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.2f %.2f" % (r["median"]*1000, (r["user"]+r["system"])*1000))' "$work/h.json"
	else
		local ts=()
		for _ in $(seq "$RUNS"); do
			s=$(date +%s%N); bash -c "$1" >/dev/null; e=$(date +%s%N); ts+=($(((e - s) / 1000)))
		done
		printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f -\n", a[int((NR+1)/2)]/1000}'
	fi
}

declare -a wall cpu
printf '| command | median wall ms | × its hello-world | mean CPU ms (user+sys) | × its hello-world |\n| --- | ---: | ---: | ---: | ---: |\n'
for i in "${!cmds[@]}"; do
	read -r wall[i] cpu[i] < <(median_ms "${cmds[$i]}")
	b=${baseOf[$i]}
	cr="-"
	[ "${cpu[i]}" != "-" ] && cr=$(printf '%.2f' "$(echo "${cpu[i]} / ${cpu[b]}" | bc -l)")
	printf '| `%s` | %s | %.2f | %s | %s |\n' "${names[$i]}" "${wall[i]}" "$(echo "${wall[i]} / ${wall[b]}" | bc -l)" "${cpu[i]}" "$cr"
done
