package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"

	"golang.org/x/sys/unix"
)

// The control socket between the daemon and a session's launcher carries
// messages: a 4-byte big-endian length, then that much JSON. Descriptors
// (SCM_RIGHTS) ride on the length, so a reader that takes the length alone
// gets them with it and never those of the next message.

// maxMsg bounds a message: a policy of MaxDirs dirs or a command with an
// environment of ARG_MAX fit.
const maxMsg = 16 << 20

// maxFDs is the most descriptors a message carries.
const maxFDs = 4

// sendMsg writes v, with fds, to c.
func sendMsg(c *net.UnixConn, v any, fds []int) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(body) > maxMsg {
		return fmt.Errorf("sandbox: a message of %d bytes is over %d", len(body), maxMsg)
	}
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(len(body)))
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	if _, _, err := c.WriteMsgUnix(hdr[:], oob, nil); err != nil {
		return err
	}
	_, err = c.Write(body)
	return err
}

// recvMsg reads a message from c into v and returns its descriptors
// (close-on-exec).
func recvMsg(c *net.UnixConn, v any) ([]int, error) {
	var hdr [4]byte
	oob := make([]byte, unix.CmsgSpace(maxFDs*4))
	n, oobn, _, _, err := c.ReadMsgUnix(hdr[:], oob)
	fds := parseRights(oob[:oobn])
	if err == nil && n < len(hdr) {
		_, err = io.ReadFull(c, hdr[n:])
	}
	if err == nil {
		size := binary.BigEndian.Uint32(hdr[:])
		if size > maxMsg {
			err = fmt.Errorf("sandbox: a message of %d bytes is over %d", size, maxMsg)
		} else {
			body := make([]byte, size)
			if _, err = io.ReadFull(c, body); err == nil {
				err = json.Unmarshal(body, v)
			}
		}
	}
	if err != nil {
		for _, fd := range fds {
			unix.Close(fd)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = io.EOF
		}
		return nil, err
	}
	return fds, nil
}

// parseRights are the descriptors of SCM_RIGHTS messages in oob, made
// close-on-exec.
func parseRights(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		rights, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range rights {
			unix.CloseOnExec(fd)
			fds = append(fds, fd)
		}
	}
	return fds
}
