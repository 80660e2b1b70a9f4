package spool

// reserve makes room for want more bytes of f within the quotas, evicting
// the session's oldest other files as needed, and returns how many bytes f
// may write (less than want when nothing is left to evict) and the files
// evicted, for the caller to delete outside d.mu.
func (d *Dir) reserve(f *File, want int64) (int64, []*File) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.removed || f.evicted {
		return 0, nil
	}
	var victims []*File
	for {
		room, why := d.roomLocked()
		if want <= room {
			break
		}
		v := d.oldestOtherLocked(f)
		if v == nil {
			want = max(0, room)
			break
		}
		d.evictLocked(v, why)
		victims = append(victims, v)
	}
	d.bytes += want
	f.reserved += want
	d.m.qmu.Lock()
	d.m.bytes += want
	d.m.qmu.Unlock()
	return want, victims
}

// roomLocked returns the bytes left under the tighter quota, and what to
// say of the files that quota evicts.
func (d *Dir) roomLocked() (int64, *EvictedError) {
	sq, dq := d.m.sessionQuota(), d.m.daemonQuota()
	d.m.qmu.Lock()
	daemonRoom := dq - d.m.bytes
	d.m.qmu.Unlock()
	if sessionRoom := sq - d.bytes; sessionRoom <= daemonRoom {
		return sessionRoom, &EvictedError{Quota: sq}
	}
	return daemonRoom, &EvictedError{Daemon: true, Quota: dq}
}

// release gives back n bytes reserved by f and not written.
func (d *Dir) release(f *File, n int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n <= 0 || f.evicted || d.removed {
		return
	}
	n = min(n, f.reserved)
	f.reserved -= n
	d.bytes -= n
	d.m.unreserve(n)
}

func (d *Dir) oldestOtherLocked(f *File) *File {
	for _, v := range d.order {
		if v != f {
			return v
		}
	}
	return nil
}

// evictLocked forgets v, keeping why for Open to say.
func (d *Dir) evictLocked(v *File, why *EvictedError) {
	delete(d.files, v.id)
	for i, o := range d.order {
		if o == v {
			d.order = append(d.order[:i], d.order[i+1:]...)
			break
		}
	}
	d.evicted[v.id] = why
	v.evicted = true
	d.bytes -= v.reserved
	d.m.unreserve(v.reserved)
	v.reserved = 0
}

func (m *Manager) unreserve(n int64) {
	m.qmu.Lock()
	m.bytes -= n
	m.qmu.Unlock()
}
