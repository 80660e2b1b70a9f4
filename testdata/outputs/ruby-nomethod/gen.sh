#!/usr/bin/env bash
# A Ruby report job over 40 CSV exports of 80 rows, each row summed and
# printed; one export has a row with no "region" column: the job dies on
# nil with ruby's NoMethodError and backtrace in the middle, and the loop
# that runs the jobs goes on.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir exports
for e in $(seq -w 1 40); do
  { echo 'id,region,amount'
    for r in $(seq 1 80); do
      if [ "$e" = 23 ] && [ "$r" = 51 ]; then echo "$r,,$((r * 3))"; else echo "$r,eu-$((r % 4)),$((r * 3))"; fi
    done; } > "exports/export_$e.csv"
done
cat > report.rb <<'RUBY'
path = ARGV[0]
totals = Hash.new(0)
File.readlines(path).drop(1).each do |line|
  id, region, amount = line.chomp.split(",", -1)
  region = nil if region.empty?
  key = region.strip.upcase
  totals[key] += amount.to_i
  puts format("%s row %3d: %-6s %6d", File.basename(path), id.to_i, key, amount.to_i)
end
puts "#{File.basename(path)}: #{totals.size} regions, total #{totals.values.sum}"
RUBY
for f in exports/export_*.csv; do ruby report.rb "$f" || echo "report failed for $f"; done > "$out" 2>&1
sed -i "s#$tmp#/srv/reports#g" "$out"
