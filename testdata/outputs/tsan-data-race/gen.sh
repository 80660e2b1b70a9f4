#!/usr/bin/env bash
# A C program built with gcc -fsanitize=thread: two threads bump a shared
# counter without a lock while the main thread logs 2,000 lines before and
# 2,000 after joining them: ThreadSanitizer's data race report is in the
# middle.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > hits.c <<'C'
#include <pthread.h>
#include <stdio.h>

static int hits;

static void *worker(void *arg) {
	(void)arg;
	for (int i = 0; i < 1000; i++)
		hits++;
	return NULL;
}

int main(void) {
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < 2000; i++)
		printf("server: accepted connection %d from 10.0.0.%d\n", i, i % 250);
	pthread_t a, b;
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	for (int i = 2000; i < 4000; i++)
		printf("server: accepted connection %d from 10.0.0.%d\n", i, i % 250);
	printf("server: %d hits\n", hits);
	return 0;
}
C
gcc -g -O0 -fsanitize=thread hits.c -o hits -lpthread
TSAN_OPTIONS=halt_on_error=0 setarch "$(uname -m)" -R ./hits > "$out" 2>&1 || true
sed -i -E "s#$tmp#/tmp/hits#g; s/==[0-9]+==/==4242==/g; s/\(pid=[0-9]+\)/(pid=4242)/g; s/tid=[0-9]+/tid=1000/g" "$out"
