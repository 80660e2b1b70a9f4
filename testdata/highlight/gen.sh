#!/usr/bin/env bash
# Regenerates the real samples of the highlight rule table (one file per
# sample, stdout and stderr merged) with the tools installed on this
# machine. Samples of tools that are not (MSVC, Gradle, yarn, pnpm, klog)
# are kept as written in their documentation: see README.md.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
tools="${JEST_DIR:-/tmp/i7tools}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
run() { name=$1; shift; (cd "$tmp" && "$@") > "$here/$name.txt" 2>&1; sed -i "s#$tmp#/tmp/s#g" "$here/$name.txt"; }

printf '#include <stdio.h>\nint main(void) {\n  printf("%%d\\n", count);\n  return 0;\n}\n' > bad.c
run gcc-error gcc -c bad.c
printf 'int f(int a) {\n  int unused;\n  return a;\n}\n' > warn.c
run gcc-warning gcc -Wall -c warn.c
printf 'int foo(void);\nint main(void) { return foo(); }\n' > link.c
run ld-error gcc link.c -o link
mkdir mk && printf 'all: missing.o\n' > mk/Makefile
run make-no-rule make -C mk
printf 'package main\n\nfunc main() {\n\tx := 1\n\tfmt.Println(y)\n}\n' > main.go
run go-build go build main.go
mkdir gt && cd gt && go mod init example.com/gt >/dev/null 2>&1
printf 'package gt\n\nimport "testing"\n\nfunc TestSum(t *testing.T) {\n\tif 1+1 != 3 {\n\t\tt.Errorf("1+1 = %%d, want 3", 1+1)\n\t}\n}\n\nfunc TestOK(t *testing.T) {}\n' > gt_test.go
cd ..
run go-test-fail sh -c 'cd gt && go test -count=1 .'
printf 'package main\n\nfunc main() {\n\tvar s []int\n\t_ = s[3]\n}\n' > panic.go
run go-panic go run panic.go
printf 'package main\n\nfunc main() {\n\tc := make(chan int)\n\t<-c\n}\n' > dead.go
run go-fatal go run dead.go
printf 'package main\n\nimport "time"\n\nfunc main() {\n\tx := 0\n\tgo func() { x++ }()\n\tx++\n\ttime.Sleep(100 * time.Millisecond)\n}\n' > race.go
run go-race go run -race race.go
cargo new --bin --name rs rs >/dev/null 2>&1
printf 'fn main() {\n    let x: i32 = "a";\n    let v: Vec<i32> = Vec::new();\n    println!("{}", v[x as usize]);\n}\n' > rs/src/main.rs
run rust-error sh -c 'cd rs && cargo build --offline --color never 2>&1 | grep -v "Blocking waiting"'
printf 'fn main() {\n    let v: Vec<i32> = Vec::new();\n    println!("{}", v[3]);\n}\n' > rs/src/main.rs
run rust-panic sh -c 'cd rs && RUST_BACKTRACE=0 cargo run --offline --color never -q'
printf 'fn main() {}\n#[cfg(test)]\nmod tests {\n    #[test] fn adds() { assert_eq!(1 + 1, 3); }\n    #[test] fn ok() {}\n}\n' > rs/src/main.rs
run rust-test sh -c 'cd rs && RUST_BACKTRACE=0 cargo test --offline --color never -q 2>&1 | grep -v "Blocking waiting"'
printf 'public class Bad {\n    public static void main(String[] a) {\n        int n = "x";\n        System.out.println(m);\n    }\n}\n' > Bad.java
run javac-error javac Bad.java
printf 'public class Boom {\n    public static void main(String[] a) {\n        Object o = null;\n        o.toString();\n    }\n}\n' > Boom.java
javac Boom.java
run java-exception java Boom
printf 'import json\n\ndef load(s):\n    return json.loads(s)\n\nload("{")\n' > tb.py
run py-traceback python3 tb.py
printf 'def f(:\n    pass\n' > syn.py
run py-syntax python3 syn.py
printf 'import unittest\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        pass\n    def test_bad(self):\n        self.assertEqual(1, 2)\n    def test_err(self):\n        {}["k"]\n\nunittest.main()\n' > ut.py
run unittest python3 ut.py
printf 'def test_ok():\n    pass\n\ndef test_bad():\n    x = [1, 2]\n    assert x == [1, 3]\n' > test_p.py
run pytest /usr/bin/python3 -m pytest -p no:cacheprovider --color=no -q test_p.py
printf 'import logging\nlogging.basicConfig(level=logging.INFO)\nlogging.info("starting")\nlogging.warning("disk at 91%%")\nlogging.error("cannot open /var/db/x: permission denied")\nlogging.critical("giving up")\n' > lg.py
run py-logging python3 lg.py
printf 'import assert from "node:assert/strict";\nimport { test } from "node:test";\ntest("adds", () => assert.equal(1 + 1, 3));\ntest("ok", () => {});\n' > n.test.mjs
run node-test-spec node --test --test-reporter=spec n.test.mjs
run node-test-tap node --test --test-reporter=tap n.test.mjs
printf 'const o = null;\nconsole.log(o.name);\n' > crash.js
run node-exception node crash.js
ln -s "$tools/node_modules" node_modules
printf '{"name":"s","private":true}\n' > package.json
run npm-error npm run build
printf 'test("sum", () => { expect(1 + 1).toBe(3); });\ntest("ok", () => {});\n' > s.test.js
run jest sh -c 'CI=true node_modules/.bin/jest --colors=false s.test.js'
printf 'import { test, expect } from "vitest";\ntest("sum", () => { expect(1 + 1).toBe(3); });\ntest("ok", () => {});\n' > v.test.mjs
run vitest sh -c 'CI=true node_modules/.bin/vitest run --color=false v.test.mjs'
printf 'const n: number = "x";\n' > t.ts
run tsc node_modules/.bin/tsc --noEmit --strict t.ts
printf '{"root":true,"parserOptions":{"ecmaVersion":2022},"rules":{"no-undef":"error","no-unused-vars":"warn"}}\n' > .eslintrc.json
printf 'const a = 1;\nfoo();\n' > e.js
run eslint node_modules/.bin/eslint --no-color e.js
printf 'int main(void) { int *p = 0; return *p; }\n' > segv.c && gcc -o segv segv.c
run segfault bash -c './segv; true'
printf '#include <stdlib.h>\nint main(void) { abort(); }\n' > ab.c && gcc -o ab ab.c
run aborted bash -c './ab; true'
run killed bash -c 'sleep 5 & bash -c "kill -9 \$\$"; kill %1; true'
run git-fatal git -C / log
mkdir sl && cd sl && go mod init example.com/sl >/dev/null 2>&1
cat > main.go <<'GO'
package main

import (
	"log/slog"
	"os"
)

func main() {
	drop := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	for _, h := range []slog.Handler{
		slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: drop}),
		slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: drop}),
	} {
		log := slog.New(h)
		log.Info("listening", "addr", ":8080")
		log.Warn("slow query", "ms", 1800)
		log.Error("query failed", "err", "connection reset by peer")
	}
}
GO
cd ..
run slog sh -c 'cd sl && go run .'
printf 'fn main() {\n    let unused = 1;\n}\n' > rs/src/main.rs
run rust-warning sh -c 'cd rs && cargo build --offline --color never 2>&1 | grep -v "Blocking waiting"'
printf 'import java.util.*;\npublic class Raw {\n    public static void main(String[] a) {\n        List l = new ArrayList();\n        System.out.println(l);\n    }\n}\n' > Raw.java
run javac-warning javac -Xlint:rawtypes Raw.java
printf 'public class Cause {\n    static void open() throws Exception {\n        try {\n            throw new java.io.IOException("disk full");\n        } catch (java.io.IOException e) {\n            throw new Exception("save failed", e);\n        }\n    }\n    public static void main(String[] a) {\n        try {\n            open();\n        } catch (Exception e) {\n            e.printStackTrace();\n        }\n    }\n}\n' > Cause.java
javac Cause.java
run java-caused-by java Cause
