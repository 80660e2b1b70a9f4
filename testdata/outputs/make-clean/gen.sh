#!/usr/bin/env bash
# make over 300 C files that compile without a warning, with an error_log.c
# and failure_mode.c among them: make echoes each command; nothing to
# highlight.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
for i in $(seq -w 1 300); do
  printf 'int f%s(int a) { return a + %d; }\n' "$i" "$((10#$i))" > "f$i.c"
done
printf 'int error_log(int code) { return code != 0; }\n' > error_log.c
printf 'int failure_mode(int n) { return n > 3; }\n' > failure_mode.c
printf 'SRCS := $(wildcard *.c)\nall: lib.a\nlib.a: $(SRCS:.c=.o)\n\tar rcs $@ $^\n\t@echo "built lib.a (no errors, no warnings)"\n%%.o: %%.c\n\tgcc -Wall -Wextra -Werror -c $< -o $@\n' > Makefile
LC_ALL=C make -j1 2>&1 | sed 's/^ar rcs lib.a .*/ar rcs lib.a (302 objects)/' > "$out"
