package spool

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func newQuotaManager(t *testing.T, session, daemon int64) *Manager {
	t.Helper()
	m, err := NewManager(filepath.Join(t.TempDir(), "spool"))
	if err != nil {
		t.Fatal(err)
	}
	m.SessionQuota, m.DaemonQuota = session, daemon
	t.Cleanup(func() { m.Close() })
	return m
}

func openDir(t *testing.T, m *Manager, session string) *Dir {
	t.Helper()
	d, err := m.Open(session)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func spoolOf(t *testing.T, d *Dir, n int) *File {
	t.Helper()
	f, err := d.Create("stdout")
	if err != nil {
		t.Fatal(err)
	}
	f.Write(bytes.Repeat([]byte("x"), n))
	f.Close()
	return f
}

// TestSessionQuotaEvictsOldest: past the session quota the oldest files go
// first, their bytes are given back, and Open and Find say why.
func TestSessionQuotaEvictsOldest(t *testing.T) {
	m := newQuotaManager(t, 1000, 1<<20)
	d := openDir(t, m, "s1")
	a, b, c := spoolOf(t, d, 400), spoolOf(t, d, 400), spoolOf(t, d, 400)
	var ee *EvictedError
	if _, err := d.Open(a.ID()); !errors.Is(err, ErrEvicted) || !errors.As(err, &ee) || ee.Daemon || ee.Quota != 1000 {
		t.Errorf("oldest: %v, want ErrEvicted naming the quota", err)
	}
	if _, err := os.Stat(a.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("evicted file still on disk: %v", err)
	}
	for _, f := range []*File{b, c} {
		r, err := d.Open(f.ID())
		if err != nil {
			t.Fatalf("newer spool: %v", err)
		}
		r.Close()
		if f.Capped() || f.Bytes() != 400 {
			t.Errorf("newer spool cut: %d bytes, capped %v", f.Bytes(), f.Capped())
		}
	}
	if got := m.Bytes(); got != 800 {
		t.Errorf("Bytes = %d, want 800", got)
	}
	// One file alone past the quota is cut at it, after evicting the rest.
	big := spoolOf(t, d, 5000)
	if !big.Capped() || big.Bytes() != 1000 || m.Bytes() != 1000 {
		t.Errorf("a file past the quota: %d bytes, capped %v, manager %d", big.Bytes(), big.Capped(), m.Bytes())
	}
	if _, err := d.Find(c.ID()); !errors.Is(err, ErrEvicted) {
		t.Errorf("c: %v, want ErrEvicted", err)
	}
	if _, err := d.Find("nope"); !errors.Is(err, ErrNoSpool) {
		t.Errorf("unknown id: %v, want ErrNoSpool", err)
	}
	d.Remove()
	if m.Bytes() != 0 {
		t.Errorf("after Remove, Bytes = %d", m.Bytes())
	}
}

// TestDaemonQuotaSparesOtherSessions: the daemon quota evicts the writing
// session's own oldest files, never another session's; with none left the
// file written is cut.
func TestDaemonQuotaSparesOtherSessions(t *testing.T) {
	m := newQuotaManager(t, 1<<20, 1000)
	a, b := openDir(t, m, "a"), openDir(t, m, "b")
	a1 := spoolOf(t, a, 700)
	b1 := spoolOf(t, b, 700)
	if !b1.Capped() || b1.Bytes() != 300 {
		t.Errorf("b's file: %d bytes, capped %v, want cut at 300", b1.Bytes(), b1.Capped())
	}
	if _, err := a.Find(a1.ID()); err != nil {
		t.Errorf("a's file was evicted by b: %v", err)
	}
	a2 := spoolOf(t, a, 600)
	var ee *EvictedError
	if _, err := a.Find(a1.ID()); !errors.As(err, &ee) || !ee.Daemon || ee.Quota != 1000 {
		t.Errorf("a's oldest: %v, want evicted by the daemon quota", err)
	}
	if a2.Bytes() != 600 || m.Bytes() != 900 {
		t.Errorf("a2 %d bytes, manager %d", a2.Bytes(), m.Bytes())
	}
}

// TestQuotaConcurrentWriters writes many files of two sessions at once (run
// with -race): the totals stay within the quotas and add up.
func TestQuotaConcurrentWriters(t *testing.T) {
	m := newQuotaManager(t, 5000, 8000)
	dirs := []*Dir{openDir(t, m, "a"), openDir(t, m, "b")}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := dirs[i%2]
			f, err := d.Create("stdout")
			if err != nil {
				t.Error(err)
				return
			}
			for range 50 {
				f.Write(bytes.Repeat([]byte("y"), 37))
			}
			f.Close()
		}()
	}
	wg.Wait()
	var total int64
	for _, d := range dirs {
		d.mu.Lock()
		var sum int64
		for _, f := range d.order {
			sum += f.reserved
			if f.Bytes() != f.reserved {
				t.Errorf("file %s: %d bytes written, %d reserved", f.ID(), f.Bytes(), f.reserved)
			}
		}
		if sum != d.bytes || d.bytes > 5000 {
			t.Errorf("dir %s: files %d, dir %d", d.Path(), sum, d.bytes)
		}
		total += d.bytes
		d.mu.Unlock()
	}
	if total != m.Bytes() || total > 8000 {
		t.Errorf("dirs hold %d, manager says %d", total, m.Bytes())
	}
}

// TestOpenChecksIdentity: a command that swaps a spool file must not make
// the daemon read what it points to. Open refuses a symlink or another file
// in the spool's place.
func TestOpenChecksIdentity(t *testing.T) {
	m := newQuotaManager(t, 0, 0)
	d := openDir(t, m, "s")
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("SECRET"), 0o600)
	plant := map[string]func(path string) error{
		"symlink": func(p string) error {
			os.Remove(p)
			return os.Symlink(outside, p)
		},
		"other file": func(p string) error { return os.WriteFile(p+".new", nil, 0o600) },
		"renamed over": func(p string) error {
			os.WriteFile(p+".new", []byte("fake"), 0o600)
			return os.Rename(p+".new", p)
		},
		"hard link": func(p string) error {
			os.Remove(p)
			return os.Link(outside, p)
		},
	}
	for name, f := range plant {
		sf := spoolOf(t, d, 10)
		if err := f(sf.Path()); err != nil {
			t.Fatal(err)
		}
		r, err := d.Open(sf.ID())
		if name == "other file" {
			if err != nil {
				t.Errorf("%s: the spool itself untouched, got %v", name, err)
			} else {
				r.Close()
			}
			continue
		}
		if !errors.Is(err, ErrReplaced) {
			t.Errorf("%s: %v, want ErrReplaced", name, err)
		}
	}
}

// TestStartWithoutRoot: the daemon must start even where its spool root
// cannot be made yet (no permission, no inodes). Such a root gives
// a Manager all the same, whose Dirs cannot create files, and which sets the
// root up once it can.
func TestStartWithoutRoot(t *testing.T) {
	base := t.TempDir()
	blocker := filepath.Join(base, "blocker")
	os.WriteFile(blocker, nil, 0o600)
	m, err := Start(filepath.Join(blocker, "spool"))
	if err == nil || m == nil {
		t.Fatalf("Start = %v, %v; want a Manager and the reason", m, err)
	}
	defer m.Close()
	d := openDir(t, m, "s")
	if d.Err() == nil {
		t.Fatal("a Dir without a directory has no Err")
	}
	if _, err := d.Create("stdout"); err == nil {
		t.Fatal("Create without a directory succeeded")
	}
	d.Remove()
	// The way is cleared: the next Open sets the root up.
	os.Remove(blocker)
	os.Mkdir(blocker, 0o700)
	d = openDir(t, m, "s2")
	if d.Err() != nil {
		t.Fatalf("Open after the root became possible: %v", d.Err())
	}
	f, err := d.Create("stdout")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("ok"))
	if _, err := Start("relative"); err == nil {
		t.Error("a relative root was accepted")
	}
}
