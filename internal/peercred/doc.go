// Package peercred reads who is at the other end of a unix socket, as the
// kernel vouches for it when the peer connected: its uid (the shared
// daemon refuses other users) and its pid (toold stop and status find the
// daemon so; the daemon tells a sandboxed peer by it). Linux says both
// (SO_PEERCRED); macOS says the uid (LOCAL_PEERCRED) and the pid
// (LOCAL_PEERPID); FreeBSD says both in one xucred (LOCAL_PEERCRED, its
// cr_pid since FreeBSD 13).
package peercred
