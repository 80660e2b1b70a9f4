package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/peercred"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/sandbox"
	"github.com/toold/toold/spool"
)

// DefaultSocket is the shared daemon's socket: in the user's private toold
// directory, beside the spool directories.
func DefaultSocket() string {
	return filepath.Join(spool.DefaultRoot(), "toold.sock")
}

// ErrInUse is returned by Listen when a daemon already answers on the socket.
var ErrInUse = errors.New("a daemon is already listening")

// DefaultMaxConnsPerUID is Options.MaxConnsPerUID when it is 0 (and the
// descriptor limit allows it). Each connection holds a read buffer and a few
// goroutines, some 100 KB: the cap keeps a flood of connections well under
// the daemon's memory budget.
const DefaultMaxConnsPerUID = 1024

// Listen serves every connection to the unix socket at path as a client
// with its own session, until ctx is done or, when idle is positive, no
// client has been connected for that long. The socket is the user's alone:
// 0600 in a 0700 directory, and connections from another uid are refused.
// A socket file left by a dead daemon is replaced. The check for a live
// daemon, the removal and the listen (and, at the end, the unlink) happen
// under an flock on path+".flock", so that of two daemons started together
// exactly one listens and the other never removes its socket.
//
// A failing accept (no descriptors left, EMFILE) is retried after a pause
// that grows from 5 ms to 1 s, as net/http does, rather than ending the
// daemon; past the per-uid cap a connection is answered -32006 and closed.
func (d *Daemon) Listen(ctx context.Context, path string, idle time.Duration) error {
	d.box.sockDir = filepath.Dir(path) // hidden from sandboxed commands (sandbox.go)
	if err := spool.PrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	ul, mine, err := listenLocked(path)
	if err != nil {
		return err
	}
	defer closeLocked(ul, mine, path)
	d.idle.Store(int64(max(idle, 0)))
	d.log.Info("listening", "socket", path, "idleTimeout", idle)

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait() // last: the connections, cancelled just before
	defer cancel()
	defer context.AfterFunc(ctx, func() { ul.Close() })()

	conns := newConnCounter(d.maxConnsPerUID(), idle, func() {
		d.log.Info("no clients: exiting", "idleTimeout", idle)
		cancel()
	})
	var delay time.Duration // the pause after a failed accept
	for {
		conn, err := ul.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if !temporary(err) {
				return err
			}
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			d.log.Warn("accept failed; retrying", "err", err, "in", delay)
			select {
			case <-time.After(delay):
			case <-ctx.Done():
			}
			continue
		}
		delay = 0
		cred, err := peercred.Of(conn)
		if err == nil && cred.Uid != uint32(os.Geteuid()) {
			err = fmt.Errorf("peer uid %d is not %d", cred.Uid, os.Geteuid())
		}
		if err != nil {
			d.log.Warn("refused a connection", "err", err)
			conn.Close()
			continue
		}
		uid := cred.Uid
		if sandbox.Sandboxed(int(cred.Pid)) {
			// A sandboxed command (or its child) must not get an
			// unconfined session of the daemon that confines it.
			d.log.Warn("refused a connection from a sandboxed command", "pid", cred.Pid)
			wg.Go(func() { refuse(ctx, conn, errSandboxedPeer(cred.Pid)) })
			continue
		}
		if !conns.add(uid) {
			d.log.Warn("refused a connection: too many", "uid", uid, "max", conns.max)
			wg.Go(func() { refuse(ctx, conn, errTooMany(conns.max)) })
			continue
		}
		wg.Go(func() {
			defer conns.done(uid)
			d.ServeConn(ctx, conn)
		})
	}
}

// listenLocked listens on path unless a daemon answers there, under the
// socket's lock, and returns the listener and the socket file it made.
func listenLocked(path string) (*net.UnixListener, os.FileInfo, error) {
	unlock, err := lockSocket(path)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	if c, err := net.Dial("unix", path); err == nil {
		c.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, ErrInUse)
	}
	os.Remove(path) // stale: nothing answers, and no one else is here
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, nil, err
	}
	ul := l.(*net.UnixListener)
	ul.SetUnlinkOnClose(false) // closeLocked unlinks, under the lock
	fi, err := os.Lstat(path)
	if err == nil {
		err = os.Chmod(path, 0o600)
	}
	if err != nil {
		ul.Close()
		os.Remove(path)
		return nil, nil, err
	}
	return ul, fi, nil
}

// closeLocked closes ul and, under the socket's lock, removes path if it
// still names mine, ul's socket: a daemon that started after this one
// stopped answering may already listen there.
func closeLocked(ul *net.UnixListener, mine os.FileInfo, path string) {
	unlock, err := lockSocket(path)
	if err == nil {
		defer unlock()
	}
	if fi, err := os.Lstat(path); err == nil && os.SameFile(fi, mine) {
		os.Remove(path)
	}
	ul.Close()
}

// lockSocket takes an exclusive flock on path+".flock" and returns its
// release. The lock file stays: removing it would let two daemons lock two
// different files. Its name does not end in ".lock", which in the spool
// root (the default socket's directory) names a daemon's pid lock.
func lockSocket(path string) (func(), error) {
	f, err := os.OpenFile(path+".flock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("socket lock: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("socket lock %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil
}

// temporary reports whether a failed accept may succeed later: the process
// or the system is out of descriptors or memory, or a peer gave up.
func temporary(err error) bool {
	for _, e := range []syscall.Errno{unix.EMFILE, unix.ENFILE, unix.ENOBUFS, unix.ENOMEM, unix.ECONNABORTED, unix.EINTR, unix.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// maxConnsPerUID is the cap of connections per uid: the option, or the
// default lowered to half the descriptors the process may open.
func (d *Daemon) maxConnsPerUID() int {
	if d.opts.MaxConnsPerUID > 0 {
		return d.opts.MaxConnsPerUID
	}
	n := DefaultMaxConnsPerUID
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && uint64(lim.Cur)/2 < uint64(n) { // int64 on FreeBSD
		n = max(int(uint64(lim.Cur)/2), 1)
	}
	return n
}

// connCounter counts the connections served per uid and runs the idle
// timer while there are none.
type connCounter struct {
	max int

	mu    sync.Mutex
	byUID map[uint32]int
	total int
	idle  time.Duration
	timer *time.Timer // nil when idle is 0
}

func newConnCounter(max int, idle time.Duration, onIdle func()) *connCounter {
	c := &connCounter{max: max, byUID: make(map[uint32]int), idle: idle}
	if idle > 0 {
		c.timer = time.AfterFunc(idle, onIdle)
	}
	return c
}

// add counts a connection of uid, unless uid is at the cap.
func (c *connCounter) add(uid uint32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byUID[uid] >= c.max {
		return false
	}
	c.byUID[uid]++
	c.total++
	if c.timer != nil {
		c.timer.Stop()
	}
	return true
}

// done uncounts a connection of uid that has ended.
func (c *connCounter) done(uid uint32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byUID[uid]--; c.byUID[uid] == 0 {
		delete(c.byUID, uid)
	}
	if c.total--; c.total == 0 && c.timer != nil {
		c.timer.Reset(c.idle)
	}
}

// refuseTimeout bounds how long a refused connection is kept for its
// first message, which is answered with the error in its framing.
const refuseTimeout = 2 * time.Second

// errTooMany is the error of a connection past the per-uid cap.
func errTooMany(limit int) error {
	return rpc.Errorf(protocol.CodeTooManyConnections, map[string]int{"max": limit},
		"too many connections: this uid has %d open to the daemon; close some or retry later", limit)
}

// errSandboxedPeer is the error of a connection from a sandboxed command.
func errSandboxedPeer(pid int32) error {
	return rpc.Errorf(protocol.CodeAccessDenied, map[string]int32{"pid": pid},
		"access denied: pid %d runs in a sandbox (another user namespace): sandboxed commands cannot use the shared daemon", pid)
}

// refuse answers a connection the daemon does not serve: its first request
// gets err, then the connection is closed.
func refuse(ctx context.Context, conn *net.UnixConn, err error) {
	conn.SetDeadline(time.Now().Add(refuseTimeout))
	srv := &rpc.Server{
		Inline: func(string) bool { return true },
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			if req.Notif {
				return nil, nil // a forwarder's $/toold/client: the request follows
			}
			conn.CloseRead() // one answer: the read loop then sees the end
			return nil, err
		},
		DrainTimeout: refuseTimeout,
	}
	srv.ServeConn(ctx, conn)
}
