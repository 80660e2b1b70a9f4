#!/usr/bin/env bash
# A Java program prints 4,000 progress lines, then dies of an uncaught
# exception with a cause: "Exception in thread" and "Caused by:" at the end.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > Importer.java <<'JAVA'
import java.util.*;
public class Importer {
    static int parse(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("row has a bad quantity: " + s, e);
        }
    }
    public static void main(String[] args) {
        for (int i = 0; i < 4000; i++) {
            System.out.println("imported row " + i + " sku=SKU-" + (1000 + i) + " qty=" + (i % 50));
        }
        System.out.flush();
        parse("12x");
    }
}
JAVA
javac Importer.java
java Importer > "$out" 2>&1 || true
