package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The package the binary is built from.
const tooldPkg = "github.com/toold/toold/cmd/toold"

// keep is how long a cached binary no run has used stays.
const keep = 24 * time.Hour

// Toold returns the path of cmd/toold built as the test binary was (with
// -race when it was, with -tags toold_portable when it was), shared by every test package and run that has the
// same sources. It also sets GORACE's atexit_sleep_ms to 0 (unless GORACE
// sets it) for the processes the test starts: a -race binary otherwise
// sleeps a second before it exits, which made `toold help` take a second
// and a suite that runs the binary hundreds of times minutes.
func Toold() (string, error) {
	NoExitSleep()
	return Build(Race, "")
}

// NoExitSleep adds atexit_sleep_ms=0 to GORACE in this process's
// environment, which the processes it starts inherit: a -race binary
// (toold, or a test binary started as a helper) otherwise sleeps a
// second before it exits. Toold calls it; a TestMain whose tests start
// other -race binaries calls it itself.
func NoExitSleep() {
	v := os.Getenv("GORACE")
	if !strings.Contains(v, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(v+" atexit_sleep_ms=0"))
	}
}

// Build returns the path of cmd/toold built with -race if race and with
// the link flags ldflags (without -race it is built as the README installs
// it, CGO_ENABLED=0: static, and no C compiler runs for net and os/user,
// which in a cold build cache saved 7 CPU-seconds), from a cache directory keyed by the sources of
// the main module's packages it is made of, go.mod, go.sum, the Go
// version and the build environment. A missing binary is built under a
// lock, so packages that run at once build it once. TOOLD_TEST_CACHE
// names the directory (default: the user's cache directory, toold-test);
// binaries no run has used for a day are removed.
func Build(race bool, ldflags string) (string, error) {
	// No VCS stamp: a clean checkout (CI's fresh clone) would stamp a
	// pseudo-version and a dirty one "devel", and the cache key, made of
	// the sources, cannot tell them apart; tests see "devel" either way.
	flags := []string{"-buildvcs=false"}
	if Portable {
		flags = append(flags, "-tags", "toold_portable")
	}
	var env []string
	if race {
		flags = append(flags, "-race")
	} else {
		env = append(env, "CGO_ENABLED=0")
	}
	if ldflags != "" {
		flags = append(flags, "-ldflags", ldflags)
	}
	key, err := sourceKey(flags, env)
	if err != nil {
		return "", err
	}
	dir, err := cacheDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "toold-"+key)
	if touch(bin) {
		return bin, nil
	}
	// A lock per key: builds of other sources (another worktree) go on.
	unlock, err := lock(filepath.Join(dir, "lock-"+key))
	if err != nil {
		return "", err
	}
	defer unlock()
	if touch(bin) { // another package built it while this one waited
		return bin, nil
	}
	tmp := fmt.Sprintf("%s.%d", bin, os.Getpid())
	args := append(append([]string{"build", "-o", tmp}, flags...), tooldPkg)
	if out, err := goCmd(env, args...).CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", fmt.Errorf("caching the binary: %w", err)
	}
	prune(dir, bin)
	return bin, nil
}

// sourceKey hashes what the binary is built from: the files of the main
// module's packages in cmd/toold's dependencies (other modules are fixed
// by go.sum), go.mod, go.sum, the flags, the Go version and the
// environment that changes a build.
func sourceKey(flags, env []string) (string, error) {
	root, listing, err := listSources(flags, env)
	if err != nil {
		return "", err
	}
	return keyOf(flags, env, root, listing)
}

// listSources returns the module root and, a line a package, the directory
// and files of the main module's packages that cmd/toold is built from
// with flags in env.
func listSources(flags, env []string) (root, listing string, err error) {
	tmpl := `{{if and .Module .Module.Main}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{range .CgoFiles}} {{.}}{{end}}` +
		`{{range .EmbedFiles}} {{.}}{{end}}{{end}}`
	args := append(append([]string{"list", "-deps", "-f", tmpl}, flags...), tooldPkg)
	out, err := goCmd(env, args...).Output()
	if err != nil {
		return "", "", fmt.Errorf("go list: %w", err)
	}
	mod, err := goCmd(nil, "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", "", fmt.Errorf("go list -m: %w", err)
	}
	return strings.TrimSpace(string(mod)), string(out), nil
}

// keyOf is sourceKey of listSources' root and listing.
func keyOf(flags, env []string, root, listing string) (string, error) {
	h := sha256.New()
	fmt.Fprintln(h, runtime.Version(), runtime.GOOS, runtime.GOARCH, flags, env)
	for _, v := range []string{"CGO_ENABLED", "GOFLAGS", "GOEXPERIMENT", "GOAMD64", "CC"} {
		fmt.Fprintf(h, "%s=%s\n", v, os.Getenv(v))
	}
	if err := hashSources(h, root, listing); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// hashSources adds to h the module root's go.mod and go.sum and the files
// of listing: a line a package, its directory then its file names.
func hashSources(h io.Writer, root, listing string) error {
	files := []string{filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum")}
	for _, line := range strings.Split(strings.TrimSpace(listing), "\n") {
		fields := strings.Fields(line)
		for _, f := range fields[min(1, len(fields)):] {
			files = append(files, filepath.Join(fields[0], f))
		}
	}
	builtFrom.Lock()
	builtFrom.files = files
	builtFrom.Unlock()
	for _, f := range files {
		if err := hashFile(h, root, f); err != nil {
			return err
		}
	}
	return nil
}

// builtFrom is the files the last binary's key was made of.
var builtFrom struct {
	sync.Mutex
	files []string
}

// ConsultSources stats the files the binary Toold or Build gave was built
// from, in a test: go test's cache then knows the test's result depends on
// them. A package whose tests drive the binary but import few of its
// packages (tests/adversarial imports only testenv) was otherwise reported
// "(cached)" after an edit of methods/, its result a binary ago. Build
// runs in TestMain, before go test logs what a test consults.
func ConsultSources(t testing.TB) {
	builtFrom.Lock()
	files := builtFrom.files
	builtFrom.Unlock()
	if len(files) == 0 {
		t.Skip("no binary built by this test binary")
	}
	for _, f := range files {
		os.Stat(f)
	}
}

// hashFile adds f's name (relative to root, so clones share binaries) and
// contents to h.
func hashFile(h io.Writer, root, f string) error {
	rel, err := filepath.Rel(root, f)
	if err != nil {
		rel = f
	}
	fmt.Fprintf(h, "%s\n", rel)
	file, err := os.Open(f)
	if err != nil {
		if os.IsNotExist(err) && strings.HasSuffix(f, "go.sum") {
			return nil
		}
		return fmt.Errorf("hashing the sources: %w", err)
	}
	defer file.Close()
	_, err = io.Copy(h, file)
	return err
}

// userCacheDir is the user's cache directory as the test binary started:
// a TestMain may point XDG_CACHE_HOME at a temporary directory (for the
// search index's files) before or after it asks for a binary.
var userCacheDir, _ = os.UserCacheDir()

// xdgCache is XDG_CACHE_HOME as the test binary started.
var xdgCache, xdgCacheSet = os.LookupEnv("XDG_CACHE_HOME")

// goCmd is the go command with args, in the environment of this process
// and extraEnv (which wins) but for XDG_CACHE_HOME, which is as the test
// binary started. A TestMain
// that points XDG_CACHE_HOME at an empty directory (for the search index's
// files) would otherwise move go's default build cache there: go list
// redid cgo's work (a CPU-second) and go build compiled toold and all it
// imports from nothing (a minute of CPU under -race) on every run.
func goCmd(extraEnv []string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "XDG_CACHE_HOME=") })
	if xdgCacheSet {
		env = append(env, "XDG_CACHE_HOME="+xdgCache)
	}
	cmd.Env = append(env, extraEnv...) // the last of a name wins
	return cmd
}

// cacheDir makes and returns the directory binaries are kept in.
func cacheDir() (string, error) {
	dir := os.Getenv("TOOLD_TEST_CACHE")
	if dir == "" {
		base := userCacheDir
		if base == "" {
			base = os.TempDir()
		}
		dir = filepath.Join(base, "toold-test")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("the test binary cache: %w", err)
	}
	return dir, nil
}

// touch reports whether bin exists, and marks it used: its access time,
// which prune reads. Not its modification time, which toold's socket name
// covers (buildinfo): a daemon that a test started with --remote=auto
// would go unfound by its next call once another package's Toold touched
// the binary (TestVersionNamedSockets failed so, under load).
func touch(bin string) bool {
	fi, err := os.Stat(bin)
	if err != nil {
		return false
	}
	os.Chtimes(bin, time.Now(), fi.ModTime())
	return true
}

// lastUsed is when a file of the cache was last used: the later of its
// access and modification times.
func lastUsed(fi os.FileInfo) time.Time {
	used := fi.ModTime()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if a := time.Unix(atime(st).Unix()); a.After(used) {
			used = a
		}
	}
	return used
}

// lock takes an exclusive flock on path and returns its release.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the test binary cache's lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("the test binary cache's lock: %w", err)
	}
	return func() { f.Close() }, nil
}

// prune removes the binaries in dir other than current that no run has
// used for keep, their locks, and the temporary files of builds that died.
func prune(dir, current string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		info, err := e.Info()
		own := strings.HasPrefix(e.Name(), "toold-") || strings.HasPrefix(e.Name(), "lock-")
		if p == current || err != nil || !own {
			continue
		}
		if time.Since(lastUsed(info)) > keep {
			os.Remove(p)
		}
	}
}
