#!/usr/bin/env bash
# A test script runs 400 small checks of a C tool (each a line); one run
# fails an assert(): the C library's assertion message, and bash's
# "Aborted (core dumped)" notice, are in the middle; the script goes on.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > qsum.c <<'C'
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
	int n = atoi(argv[1]);
	assert(n != 271 && "checksum table has no entry");
	printf("qsum %d: %d\n", n, n * (n + 1) / 2);
	return 0;
}
C
gcc -g qsum.c -o qsum
cat > run.sh <<'SH'
ulimit -c unlimited 2>/dev/null || true
for i in $(seq 1 400); do
  echo "check $i: ./qsum $i"
  ./qsum "$i"
done
echo "checks done"
SH
bash run.sh > "$out" 2>&1 || true
sed -i -E "s#$tmp#/work/qsum#g; s/(line [0-9]+: +)[0-9]+ Aborted/\131337 Aborted/" "$out"
