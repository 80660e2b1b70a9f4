# bench/common.sh: sourced by run.sh and grow.sh. Sets here, root, size_mb and
# tmp (removed on exit), builds toold and the driver into $tmp, and sets file to
# the generated text file of BENCH_SIZE_MB MiB (made once, kept in
# BENCH_DATA_DIR, default bench/data, gitignored; $TMPDIR when that cannot be
# written).
here="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
size_mb="${BENCH_SIZE_MB:-1024}"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/toold-bench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "bench: building toold and the driver" >&2
(cd "$root" && go build -o "$tmp/toold" ./cmd/toold)
(cd "$root" && go build -o "$tmp/driver" ./bench/driver)

data_dir="${BENCH_DATA_DIR:-$here/data}"
if ! mkdir -p "$data_dir" 2>/dev/null || [ ! -w "$data_dir" ]; then
  data_dir="${TMPDIR:-/tmp}/toold-bench-data"
  mkdir -p "$data_dir"
fi
file="$data_dir/lines-${size_mb}MB.txt"
if [ ! -s "$file" ]; then
  echo "bench: generating $file (${size_mb} MiB)" >&2
  "$tmp/driver" gen -size-mb "$size_mb" -out "$file"
fi
