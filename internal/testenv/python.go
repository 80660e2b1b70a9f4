package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

var python = sync.OnceValues(func() (string, error) {
	// The first python3 on PATH that is a program, not a script: a
	// shim's start is what this avoids, so it is not run to ask.
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if path := filepath.Join(dir, "python3"); isProgram(path) {
			return path, nil
		}
	}
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return "", fmt.Errorf("python3: %w", err)
	}
	path := strings.TrimSpace(string(out))
	if path == "" {
		return "", errors.New("python3: no sys.executable")
	}
	return path, nil
})

// isProgram says whether path is an executable file that does not start
// with "#!".
func isProgram(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
		return false
	}
	head := make([]byte, 2)
	n, _ := io.ReadFull(f, head)
	return !bytes.Equal(head[:n], []byte("#!"))
}

// Python returns the path of a python3 interpreter itself, found once per
// process: where the first python3 on PATH is a shim (pyenv's is a shell
// script that runs pyenv, 0.8 CPU-s and seconds of wall a start), each
// start of the interpreter through it costs that again.
func Python() (string, error) { return python() }
