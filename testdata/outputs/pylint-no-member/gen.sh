#!/usr/bin/env bash
# pylint over a package of 60 modules, each with the convention and
# refactor messages of unfinished code (missing docstrings, a name not
# snake_case, too few public methods); one module reads an attribute its
# class does not have (E1101 no-member): the one error is in the middle.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir shop
touch shop/__init__.py
for i in $(seq -w 1 60); do
  attr=total
  [ "$i" = 41 ] && attr=totl
  cat > "shop/orders_$i.py" <<PY
import os


class Order$i:
    def __init__(self, lines):
        self.lines = lines
        self.total = sum(l[1] for l in lines)

    def Summary(self):
        return "%d lines, %d" % (len(self.lines), self.$attr)


def loadOrders(path):
    result = []
    for line in open(path):
        result.append(Order$i([(line, 1)]))
    return result
PY
done
pylint --persistent=n --score=y shop > "$out" 2>&1 || true
