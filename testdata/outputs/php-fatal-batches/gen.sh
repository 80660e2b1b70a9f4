#!/usr/bin/env bash
# An import run as 60 PHP batches of 50 rows, each row logged; batch 23
# reads a row without a "price" (PHP Warning, goes on); batch 41 calls a
# method on null (PHP Fatal error: Uncaught Error, with its stack trace)
# and dies; the loop goes on with the next batches.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > import.php <<'PHP'
<?php
class Catalog {
    private array $items = [];
    public function find(string $sku): ?array { return $this->items[$sku] ?? null; }
}
function importRow(Catalog $c, array $row, int $batch): void {
    $price = $row['price'];
    if ($batch === 41 && $row['n'] === 17) {
        $item = null;
        $item->setPrice($price);
    }
    printf("batch %02d row %02d: sku %s imported at %.2f\n", $batch, $row['n'], $row['sku'], (float)$price);
}
$batch = (int)$argv[1];
$c = new Catalog();
for ($n = 1; $n <= 50; $n++) {
    $row = ['n' => $n, 'sku' => sprintf('SKU-%04d', $batch * 100 + $n)];
    if (!($batch === 23 && $n === 8)) { $row['price'] = 3 + ($n * 7 % 13) / 4; }
    importRow($c, $row, $batch);
}
echo "batch $batch done\n";
PHP
for b in $(seq 1 60); do php -d display_errors=0 -d log_errors=1 -d html_errors=0 import.php "$b" || echo "import: batch $b exited with status $?"; done > "$out" 2>&1
sed -i "s#$tmp#/srv/import#g" "$out"
