package notice

import "fmt"

// SpoolEvicted is the message of page for a spool evicted to keep the spools
// under a quota of quota bytes: the daemon's when daemon, else the session's.
func SpoolEvicted(id string, daemon bool, quota int64) string {
	whose := "the session's spools passed their quota"
	if daemon {
		whose = "the daemon's spools passed its quota"
	}
	return fmt.Sprintf("spool %s was evicted: %s of %s, and the oldest are deleted first. Run the command again to see its output",
		id, whose, Size(quota))
}

// ChangedWhileRead is the message for a file that changed under two reads of
// its window in a row.
func ChangedWhileRead(path string) string {
	return fmt.Sprintf("changed while read: %s changed twice while its window was read; read it again", path)
}
