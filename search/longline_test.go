package search

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

// TestLongLineBudget: a scan that meets a line longer than 2*chunkSize
// takes its buffer from the process's budget, waiting for it (and giving
// up with its context), and gives it back when done: 32 greps of a file
// of one 64 MiB line held 566 MiB at once.
func TestLongLineBudget(t *testing.T) {
	m, err := Compile(Query{Pattern: "needle", Literal: true})
	if err != nil {
		t.Fatal(err)
	}
	text := append(bytes.Repeat([]byte("x"), 3*chunkSize), []byte(" needle\nshort needle\n")...)
	grep := func(ctx context.Context) (*GrepResult, error) {
		return GrepReader(ctx, m, bytes.NewReader(text), int64(len(text)), "f", GrepOptions{})
	}
	if err := longLines.Acquire(context.Background(), longLineBudget); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := grep(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("with the budget taken: %v, want the context's deadline", err)
	}
	done := make(chan *GrepResult, 1)
	go func() { r, _ := grep(context.Background()); done <- r }()
	select {
	case <-done:
		t.Fatal("a long line was searched with the budget taken")
	case <-time.After(50 * time.Millisecond):
	}
	longLines.Release(longLineBudget)
	if r := <-done; r == nil || r.TotalMatches != 2 {
		t.Fatalf("after the budget was released: %+v", r)
	}
	// All of it given back.
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := longLines.Acquire(ctx, longLineBudget); err != nil {
		t.Fatalf("the budget was not given back: %v", err)
	}
	longLines.Release(longLineBudget)
	// Short lines take none of it.
	if err := longLines.Acquire(context.Background(), longLineBudget); err != nil {
		t.Fatal(err)
	}
	defer longLines.Release(longLineBudget)
	// Three chunks of short lines, one of them a match at the end: 240,000
	// matches (a line each) spent 0.4 CPU-seconds under -race keeping them.
	short := append(bytes.Repeat([]byte("short line\n"), 3*chunkSize/11), "short needle\n"...)
	if r, err := GrepReader(context.Background(), m, bytes.NewReader(short), int64(len(short)), "f", GrepOptions{}); err != nil || r.TotalMatches != 1 {
		t.Errorf("short lines with the budget taken: %v %v", r, err)
	}
}
