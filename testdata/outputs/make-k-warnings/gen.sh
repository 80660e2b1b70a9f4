#!/usr/bin/env bash
# make -k over 400 C files compiled with -Wall -Wextra: two warnings each,
# and one file (f175.c) with an undeclared identifier: the error sits in the
# middle of ~3,200 lines of warnings, and make -k goes on past it.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
for i in $(seq -w 1 400); do
  if [ "$i" = 175 ]; then
    printf 'int f%s(int a) {\n  int unused;\n  return a + undeclared_total;\n}\n' "$i" > "f$i.c"
  else
    printf 'int f%s(int a, int b) {\n  int unused;\n  return a;\n}\n' "$i" > "f$i.c"
  fi
done
printf 'SRCS := $(wildcard f*.c)\nall: $(SRCS:.c=.o)\n%%.o: %%.c\n\tgcc -Wall -Wextra -c $< -o $@\n' > Makefile
LC_ALL=C make -k -j1 > "$out" 2>&1 || true
