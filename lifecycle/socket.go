package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/spool"
)

// DefaultSocket is the shared daemon's socket: in the user's private toold
// directory, beside the spool directories.
func DefaultSocket() string {
	return filepath.Join(spool.DefaultRoot(), "toold.sock")
}

// ErrInUse is returned by Listen when a daemon already answers on the socket.
var ErrInUse = errors.New("a daemon is already listening")

// Listen serves every connection to the unix socket at path as a client
// with its own session, until ctx is done or, when idle is positive, no
// client has been connected for that long. The socket is the user's alone:
// 0600 in a 0700 directory, and connections from another uid are refused.
// A socket file left by a dead daemon is replaced.
func (d *Daemon) Listen(ctx context.Context, path string, idle time.Duration) error {
	if err := spool.PrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	if c, err := net.Dial("unix", path); err == nil {
		c.Close()
		return fmt.Errorf("%s: %w", path, ErrInUse)
	}
	os.Remove(path) // stale: nothing answers
	l, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	ul := l.(*net.UnixListener)
	ul.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return err
	}
	d.log.Info("listening", "socket", path, "idleTimeout", idle)

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait() // last: the connections, cancelled just before
	defer cancel()
	defer l.Close()
	defer context.AfterFunc(ctx, func() { l.Close() })()

	// The idle timer runs while no client is connected.
	var mu sync.Mutex
	clients := 0
	var timer *time.Timer
	if idle > 0 {
		timer = time.AfterFunc(idle, func() {
			d.log.Info("no clients: exiting", "idleTimeout", idle)
			cancel()
		})
	}
	for {
		conn, err := ul.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		if err := sameUser(conn); err != nil {
			d.log.Warn("refused a connection", "err", err)
			conn.Close()
			continue
		}
		mu.Lock()
		clients++
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		wg.Go(func() {
			d.ServeConn(ctx, conn)
			mu.Lock()
			clients--
			if clients == 0 && timer != nil {
				timer.Reset(idle)
			}
			mu.Unlock()
		})
	}
}

// sameUser refuses a peer whose uid is not ours.
func sameUser(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("reading the peer's credentials: %w", cerr)
	}
	if int(cred.Uid) != os.Geteuid() {
		return fmt.Errorf("peer uid %d is not %d", cred.Uid, os.Geteuid())
	}
	return nil
}
