#!/usr/bin/env bash
# A clean make of 300 C files, each compile line echoed with -Wall -Werror
# -Wno-error=unused flags; among the sources error.c, errors_test.c,
# fail_over.c and abort_handler.c; the link and a summary "0 errors, 0
# warnings" follow. Nothing is wrong: no highlight may appear.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
for i in $(seq -w 1 296); do printf 'int unit%s(int a) { return a + 1; }\n' "$i" > "unit$i.c"; done
for f in error errors_test fail_over abort_handler; do printf 'int %s_fn(int a) { return a; }\n' "$f" > "$f.c"; done
printf 'int main(void) { return 0; }\n' > main.c
printf 'SRCS := main.c error.c errors_test.c fail_over.c abort_handler.c $(wildcard unit*.c)\nOBJS := $(SRCS:.c=.o)\napp: $(OBJS)\n\tgcc -o $@ $(OBJS)\n\t@echo "build finished: 0 errors, 0 warnings, no failures"\n%%.o: %%.c\n\tgcc -Wall -Werror -Wno-error=unused-variable -fno-exceptions -O2 -c $< -o $@\n' > Makefile
LC_ALL=C make -j1 > "$out" 2>&1
sed -i "s#$tmp#/src/app#g" "$out"
