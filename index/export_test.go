package index

// simulateOverflow tells dir's tree that its watcher lost events, as a
// full inotify queue does.
func (m *Manager) simulateOverflow(dir string) {
	m.mu.Lock()
	t := m.trees[dir]
	m.mu.Unlock()
	t.overflow()
}
