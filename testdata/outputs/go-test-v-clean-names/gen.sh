#!/usr/bin/env bash
# go test -v of 200 passing tests named after what they check (errors,
# failures, panics, timeouts), logging "no errors", "0 failed", "recovered
# panic as expected". Nothing is wrong: no highlight may appear.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
go mod init example.com/retry >/dev/null 2>&1
printf 'package retry\n\n// Do calls f until it succeeds or n tries pass.\nfunc Do(n int, f func() error) (err error) {\n\tfor i := 0; i < n; i++ {\n\t\tif err = f(); err == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n\treturn err\n}\n' > retry.go
{
echo 'package retry'
echo 'import ("errors"; "testing")'
for i in $(seq -w 1 50); do
  for n in ErrorIsReturned FailureIsRetried PanicIsRecovered TimeoutIsNotFatal; do
    printf 'func Test%s%s(t *testing.T) {\n\tcalls := 0\n\terr := Do(3, func() error { calls++; if calls < 2 { return errors.New("transient") }; return nil })\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n\tt.Logf("no errors after %%d calls, 0 failed, recovered panic as expected", calls)\n}\n' "$n" "$i"
  done
done
} > retry_test.go
gofmt -w retry_test.go
go test -v -count=1 . > "$out" 2>&1
sed -i -E "s#$tmp#/src/retry#g; s/\([0-9]+\.[0-9]+s\)/(0.00s)/g; s/[0-9]+\.[0-9]+s$/0.010s/" "$out"
