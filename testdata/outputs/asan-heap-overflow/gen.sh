#!/usr/bin/env bash
# A C program built with gcc -fsanitize=address logs 2,000 progress lines,
# writes past a heap buffer (AddressSanitizer's report goes to stderr), and
# since ASAN_OPTIONS=halt_on_error=0 with -fsanitize-recover=address it goes
# on logging 2,000 more: the report sits in the middle.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > resize.c <<'C'
#include <stdio.h>
#include <stdlib.h>

static void fill(int *buf, int n) {
	for (int i = 0; i <= n; i++) /* one too many */
		buf[i] = i * 3;
}

int main(void) {
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < 2000; i++)
		printf("resize: tile %04d scaled to 256x256 in %d us\n", i, 100 + i % 97);
	int *buf = malloc(64 * sizeof(int));
	fill(buf, 64);
	for (int i = 2000; i < 4000; i++)
		printf("resize: tile %04d scaled to 256x256 in %d us\n", i, 100 + i % 97);
	printf("resize: done, checksum %d\n", buf[10]);
	free(buf);
	return 0;
}
C
gcc -g -O0 -fsanitize=address -fsanitize-recover=address -fno-omit-frame-pointer resize.c -o resize
ASAN_OPTIONS=halt_on_error=0:detect_leaks=0 ./resize > "$out" 2>&1 || true
sed -i -E "s#$tmp#/tmp/resize#g; s/==[0-9]+==/==4242==/g" "$out"
