#!/usr/bin/env bash
# go test -race -v of a package with 120 passing tests that log, and one
# whose goroutines race on a counter: the DATA RACE report is in the middle.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
go mod init example.com/counter >/dev/null 2>&1
cat > counter.go <<'GO'
package counter

// Counter counts hits.
type Counter struct{ n int }

// Hit adds one.
func (c *Counter) Hit() { c.n++ }

// N is the count.
func (c *Counter) N() int { return c.n }
GO
{
echo 'package counter'
echo 'import ("sync"; "testing")'
for i in $(seq -w 1 120); do
  printf 'func TestHit%s(t *testing.T) {\n\tvar c Counter\n\tfor i := 0; i < 5; i++ {\n\t\tc.Hit()\n\t\tt.Logf("hit %%d of 5", i+1)\n\t}\n}\n' "$i"
  if [ "$i" = 060 ]; then
    printf 'func TestConcurrentHits(t *testing.T) {\n\tvar c Counter\n\tvar wg sync.WaitGroup\n\tfor i := 0; i < 2; i++ {\n\t\twg.Add(1)\n\t\tgo func() { defer wg.Done(); c.Hit() }()\n\t}\n\twg.Wait()\n\tt.Logf("count %%d", c.N())\n}\n'
  fi
done
} > counter_test.go
gofmt -w counter_test.go
go test -race -v -count=1 . > "$out" 2>&1 || true
sed -i -E "s#$tmp#/src/counter#g; s#$(go env GOROOT)#/usr/local/go#g; s/\(0x[0-9a-f]+\)//g; s/[0-9]+\.[0-9]+s\)/0.00s)/g" "$out"
