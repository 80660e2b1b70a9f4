package watchcost

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// PerEntry is true where a watch holds a descriptor per entry (kqueue).
const PerEntry = perEntry

// Of returns the descriptors a watch of the directory dir holds: 0 with
// inotify; with kqueue 1 and one per entry, as many as it has now (an
// upper bound: a subdirectory also watched holds one, not two).
func Of(dir string) int {
	if !PerEntry {
		return 0
	}
	f, err := os.Open(dir)
	if err != nil {
		return 1
	}
	defer f.Close()
	n := 1
	for {
		names, err := f.Readdirnames(1024)
		n += len(names)
		if err != nil || len(names) == 0 {
			return n
		}
	}
}

var (
	mu     sync.Mutex
	budget = -1 // -1 until first asked (defaultBudget)
	used   int
)

// Take charges n descriptors to the budget; false, and nothing charged,
// when they do not fit. n of 0 always fits.
func Take(n int) bool {
	if n <= 0 {
		return true
	}
	mu.Lock()
	defer mu.Unlock()
	if budget < 0 {
		budget = defaultBudget()
	}
	if used+n > budget {
		return false
	}
	used += n
	return true
}

// Give returns n descriptors that Take charged.
func Give(n int) {
	if n <= 0 {
		return
	}
	mu.Lock()
	used = max(used-n, 0)
	mu.Unlock()
}

// Used is how many descriptors the watches hold, as charged.
func Used() int {
	mu.Lock()
	defer mu.Unlock()
	return used
}

// SetBudget sets the budget (for tests) and returns what restores it.
func SetBudget(n int) (restore func()) {
	mu.Lock()
	old := budget
	budget = n
	mu.Unlock()
	return func() {
		mu.Lock()
		budget = old
		mu.Unlock()
	}
}

// defaultBudget is a quarter of the descriptors this process may open.
func defaultBudget() int {
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) != nil {
		return 256
	}
	return int(min(uint64(lim.Cur), 1<<20) / 4) // Cur is int64 on FreeBSD; "unlimited" is huge
}
