#!/usr/bin/env bash
# A Java batch job logs 2,000 lines, catches an exception with a three-deep
# cause chain, prints its stack trace (as a logger does) and goes on for
# 2,000 lines more: the chain is in the middle.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p com/acme/batch
cat > com/acme/batch/Job.java <<'JAVA'
package com.acme.batch;

import java.io.IOException;
import java.io.UncheckedIOException;

public class Job {
    static int parseQuantity(String s) {
        return Integer.parseInt(s);
    }

    static void loadRow(int row, String qty) throws IOException {
        try {
            parseQuantity(qty);
        } catch (NumberFormatException e) {
            throw new IOException("row " + row + ": bad quantity", e);
        }
    }

    static void importFile(String name) {
        try {
            loadRow(2001, "7 units");
        } catch (IOException e) {
            throw new IllegalStateException("import of " + name + " failed", e);
        }
    }

    public static void main(String[] args) {
        for (int i = 0; i < 2000; i++) {
            System.out.println("INFO  batch: imported row " + i + " of orders-2026-11.csv");
        }
        try {
            importFile("orders-2026-11.csv");
        } catch (IllegalStateException e) {
            System.out.println("WARN  batch: file skipped, continuing");
            e.printStackTrace(System.out);
        }
        for (int i = 0; i < 2000; i++) {
            System.out.println("INFO  batch: imported row " + i + " of returns-2026-11.csv");
        }
    }
}
JAVA
javac com/acme/batch/Job.java
java -cp . com.acme.batch.Job > "$out" 2>&1 || true
