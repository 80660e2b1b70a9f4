package lifecycle

import (
	"errors"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestTemporaryAcceptErrors: running out of descriptors or memory is worth
// a retry; a closed listener is not.
func TestTemporaryAcceptErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", unix.EMFILE)}, true},
		{&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", unix.ENFILE)}, true},
		{&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", unix.ECONNABORTED)}, true},
		{fmt.Errorf("wrapped: %w", unix.ENOBUFS), true},
		{net.ErrClosed, false},
		{errors.New("other"), false},
	} {
		if got := temporary(tc.err); got != tc.want {
			t.Errorf("temporary(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestConnCounter: the cap is per uid, and the idle timer runs only while
// no connection is counted.
func TestConnCounter(t *testing.T) {
	t.Parallel()
	idle := make(chan struct{}, 1)
	c := newConnCounter(2, 50*time.Millisecond, func() { idle <- struct{}{} })
	if !c.add(1) || !c.add(1) || c.add(1) {
		t.Fatal("uid 1: want 2 connections, then a refusal")
	}
	if !c.add(2) {
		t.Fatal("uid 2 refused because of uid 1")
	}
	select {
	case <-idle:
		t.Fatal("idle with connections")
	case <-time.After(150 * time.Millisecond):
	}
	c.done(1)
	if !c.add(1) {
		t.Fatal("a freed slot refused")
	}
	for _, uid := range []uint32{1, 1, 2} {
		c.done(uid)
	}
	select {
	case <-idle:
	case <-time.After(5 * time.Second):
		t.Fatal("no idle timeout once every connection ended")
	}
}
