package index

import "github.com/toold/toold/internal/watchcost"

// charge charges the descriptors a watch of dir holds to the process's
// budget (watchcost: with kqueue, one per entry; nothing with inotify),
// once per directory of the tree; false when they do not fit, and the
// directory must not be watched.
func (t *Tree) charge(dir string) bool {
	t.mu.Lock()
	_, done := t.charged[dir]
	t.mu.Unlock()
	if done {
		return true
	}
	cost := watchcost.Of(dir) // reads the directory: not under t.mu
	if !watchcost.Take(cost) {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, done := t.charged[dir]; done {
		watchcost.Give(cost)
		return true
	}
	if t.charged == nil {
		t.charged = map[string]int{}
	}
	t.charged[dir] = cost
	return true
}

// uncharge gives back what the tree's watches were charged, its watcher
// closed. Under t.mu.
func (t *Tree) uncharge() {
	n := 0
	for _, c := range t.charged {
		n += c
	}
	watchcost.Give(n)
	t.charged = nil
}
