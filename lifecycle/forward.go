package lifecycle

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/spool"
)

// ForwardOptions configure Forward.
type ForwardOptions struct {
	// Socket is the shared daemon's socket.
	Socket string
	// Start starts a daemon listening on Socket; Forward calls it when none
	// answers, then waits for the socket to answer.
	Start func() error
	// StartTimeout bounds that wait; 0 means 10 s.
	StartTimeout time.Duration
}

// Forward joins a client on in and out to the shared daemon, starting the
// daemon when none answers, as gopls's -remote=auto does. The daemon reads
// the framing off the first bytes just as on stdio, so bytes pass through
// as they are; only a ClientMethod notification, in the client's framing,
// goes ahead of them. Forward returns when the daemon ends the connection
// or the client's input ends and the daemon has answered, with the exit code
// LSP gives: 1 when the client sent exit without shutdown, else 0.
func Forward(ctx context.Context, in io.Reader, out io.Writer, opts ForwardOptions) (int, error) {
	conn, err := dialOrStart(ctx, opts)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	defer context.AfterFunc(ctx, func() { conn.Close() })()

	br := bufio.NewReaderSize(in, 64<<10)
	headers, err := peekFraming(br)
	if err != nil {
		return 0, nil // the client sent nothing
	}
	hello, err := clientHello(headers)
	if err != nil {
		return 0, err
	}
	if _, err := conn.Write(hello); err != nil {
		return 0, fmt.Errorf("writing to the daemon: %w", err)
	}
	var lc lifecycleWatch
	go func() {
		lc.copy(conn, br, headers)
		conn.CloseWrite() // the daemon sees the end of input and answers what is running
	}()
	if _, err := io.Copy(out, conn); err != nil && ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
		return 0, fmt.Errorf("reading from the daemon: %w", err)
	}
	return lc.code(), nil
}

// lifecycleWatch copies the client's messages to the daemon as they are and
// notes shutdown and exit among them, so that the forwarder can end with the
// exit code LSP gives, as a stdio daemon would.
type lifecycleWatch struct {
	mu             sync.Mutex
	shutdown, exit bool
}

func (lw *lifecycleWatch) code() int {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.exit && !lw.shutdown {
		return 1
	}
	return 0
}

// copy forwards messages from br to dst. A message that fits in br's
// buffer is looked at before it is sent: the daemon may end the connection
// as soon as it reads an exit, and the code must be known by then. A larger
// message (never a shutdown or an exit) passes in pieces. Anything it cannot
// frame is passed on for the daemon to answer.
func (lw *lifecycleWatch) copy(dst io.Writer, br *bufio.Reader, headers bool) {
	for {
		var err error
		if headers {
			err = lw.headerMessage(dst, br)
		} else {
			var msg []byte
			msg, err = br.ReadSlice('\n')
			if !errors.Is(err, bufio.ErrBufferFull) {
				lw.note(msg)
			}
			for {
				if _, werr := dst.Write(msg); werr != nil {
					return
				}
				if !errors.Is(err, bufio.ErrBufferFull) {
					break
				}
				msg, err = br.ReadSlice('\n')
			}
		}
		if err != nil {
			return
		}
	}
}

// headerMessage forwards one Content-Length framed message, looking at its
// body first when it fits in br's buffer.
func (lw *lifecycleWatch) headerMessage(dst io.Writer, br *bufio.Reader) error {
	n := -1
	for {
		line, err := br.ReadSlice('\n')
		if _, werr := dst.Write(line); werr != nil {
			return werr
		}
		if err != nil {
			return err
		}
		h := bytes.TrimSpace(line)
		if len(h) == 0 {
			break
		}
		if k, v, ok := bytes.Cut(h, []byte(":")); ok && bytes.EqualFold(bytes.TrimSpace(k), []byte("Content-Length")) {
			n, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
		}
	}
	if n < 0 {
		return nil // no length: the daemon says what is wrong
	}
	if n <= br.Size() {
		body, err := br.Peek(n)
		lw.note(body)
		if _, werr := dst.Write(body); werr != nil {
			return werr
		}
		br.Discard(len(body))
		return err
	}
	_, err := io.CopyN(dst, br, int64(n))
	return err
}

// note records a shutdown request or an exit notification.
func (lw *lifecycleWatch) note(msg []byte) {
	if !bytes.Contains(msg, []byte("shutdown")) && !bytes.Contains(msg, []byte("exit")) {
		return
	}
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	switch m.Method {
	case "shutdown":
		lw.shutdown = true
	case "exit":
		lw.exit = true
	}
}

// dialOrStart connects to the daemon, starting it if nothing answers.
func dialOrStart(ctx context.Context, opts ForwardOptions) (*net.UnixConn, error) {
	dial := func() (*net.UnixConn, error) {
		c, err := net.Dial("unix", opts.Socket)
		if err != nil {
			return nil, err
		}
		return c.(*net.UnixConn), nil
	}
	if c, err := dial(); err == nil {
		return c, nil
	}
	if opts.Start == nil {
		return nil, fmt.Errorf("no daemon answers on %s", opts.Socket)
	}
	if err := opts.Start(); err != nil {
		return nil, fmt.Errorf("starting the daemon: %w", err)
	}
	wait := opts.StartTimeout
	if wait == 0 {
		wait = 10 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		c, err := dial()
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the daemon started but does not answer on %s: %w", opts.Socket, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// peekFraming looks at the client's first bytes, without consuming them,
// and says whether it frames with Content-Length headers.
func peekFraming(br *bufio.Reader) (headers bool, err error) {
	for i := 1; ; i++ {
		b, err := br.Peek(i)
		if err != nil {
			return false, err
		}
		switch c := b[i-1]; c {
		case ' ', '\t', '\r', '\n':
			continue
		case 'C', 'c':
			return true, nil
		default:
			return false, nil
		}
	}
}

// clientHello is the protocol.MethodClient notification with this process's cwd and
// environment, framed as the client frames.
func clientHello(headers bool) ([]byte, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": protocol.MethodClient,
		"params": protocol.ClientParams{Cwd: cwd, Env: daemonEnv()}})
	if err != nil {
		return nil, err
	}
	if headers {
		return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...), nil
	}
	return append(body, '\n'), nil
}

// StartDaemon starts exe with args as a daemon of its own: a new session,
// no terminal, stdin and stdout on /dev/null and stderr appended to logPath.
// It does not wait for it.
func StartDaemon(exe string, args []string, logPath string) error {
	if err := spool.PrivateDir(filepath.Dir(logPath)); err != nil {
		return err
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := exec.Command(exe, args...)
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	// The daemon outlives us; reap it if it exits first.
	go cmd.Wait()
	return nil
}
