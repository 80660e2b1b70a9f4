package index

// simulateOverflow tells dir's tree that its watcher lost events, as a
// full inotify queue does.
func (m *Manager) simulateOverflow(dir string) {
	m.mu.Lock()
	t := m.trees[dir]
	m.mu.Unlock()
	t.overflow()
}

// generation is how many indexes dir's tree has loaded.
func (m *Manager) generation(dir string) int {
	m.mu.Lock()
	t := m.trees[dir]
	m.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gen
}
