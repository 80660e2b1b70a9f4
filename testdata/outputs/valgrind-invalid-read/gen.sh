#!/usr/bin/env bash
# valgrind memcheck of a C program that logs 1,500 lines, reads a freed
# block, and logs 1,500 more: the "Invalid read" report and its stacks are
# in the middle, the ERROR SUMMARY at the end.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > cache.c <<'C'
#include <stdio.h>
#include <stdlib.h>

struct entry { int key; int value; };

static int lookup(struct entry *e) { return e->value; }

int main(void) {
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < 1500; i++)
		printf("cache: put key=%d value=%d\n", i, i * 7);
	struct entry *e = malloc(sizeof *e);
	e->key = 1; e->value = 42;
	free(e);
	printf("cache: evicted key=%d\n", 1);
	int v = lookup(e);
	for (int i = 1500; i < 3000; i++)
		printf("cache: put key=%d value=%d\n", i, i * 7);
	printf("cache: last value %d\n", v);
	return 0;
}
C
gcc -g -O0 cache.c -o cache
valgrind --error-exitcode=1 ./cache > "$out" 2>&1 || true
sed -i -E "s#$tmp#/tmp/cache#g; s/==[0-9]+==/==4242==/g" "$out"
