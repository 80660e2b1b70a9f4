#!/usr/bin/env bash
# A C program built with gcc -fsanitize=undefined sums 3,000 ledger rows,
# logging each; one row overflows a signed int (UBSan's "runtime error"
# line goes to stderr) and the program goes on: the report is in the middle.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > ledger.c <<'C'
#include <stdio.h>
#include <limits.h>

int main(void) {
	setvbuf(stdout, NULL, _IOLBF, 0);
	int total = 0;
	for (int i = 0; i < 3000; i++) {
		int amount = (i == 1711) ? INT_MAX : i % 7;
		total += amount;
		printf("ledger: row %04d amount %d total %d\n", i, amount, total);
	}
	return 0;
}
C
gcc -g -O0 -fsanitize=undefined ledger.c -o ledger
./ledger > "$out" 2>&1 || true
sed -i "s#$tmp#/tmp/ledger#g" "$out"
