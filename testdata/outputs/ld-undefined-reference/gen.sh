#!/usr/bin/env bash
# make of 300 C files (each compile line echoed, with -Wall -Werror flags),
# then a link where one function is declared and called but defined nowhere:
# ld's "undefined reference" and collect2's error sit before make's last lines.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
for i in $(seq -w 1 300); do
  printf 'int unit%s(int a) { return a + %d; }\n' "$i" "$((10#$i))" > "unit$i.c"
done
printf 'int compute_total(int);\nint unit001(int);\nint main(void) { return compute_total(unit001(1)); }\n' > main.c
printf 'SRCS := main.c $(wildcard unit*.c)\nOBJS := $(SRCS:.c=.o)\napp: $(OBJS)\n\tgcc -o $@ $(OBJS)\n%%.o: %%.c\n\tgcc -Wall -Werror -O2 -c $< -o $@\n' > Makefile
LC_ALL=C make -j1 > "$out" 2>&1 || true
sed -i "s#$tmp#/src/app#g" "$out"
