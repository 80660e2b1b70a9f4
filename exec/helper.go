package exec

import osexec "os/exec"

// Start starts cmd, a helper process of the daemon's own (ctags for an
// outline), as a child the orphan reaper leaves to os/exec: a daemon that
// adopts orphans reaps every other child that exits, and cmd.Wait would then
// fail. Call the returned wait instead of cmd.Wait.
func (r *Runner) Start(cmd *osexec.Cmd) (wait func() error, err error) {
	if err := r.startChild(cmd); err != nil {
		return nil, err
	}
	return func() error {
		err := cmd.Wait()
		r.orphans.Waited(cmd.Process.Pid)
		return err
	}, nil
}

// startChild starts cmd as a child the orphan reaper leaves to os/exec (a
// helper, a sandbox's launcher): the reaper must not take its wait.
func (r *Runner) startChild(cmd *osexec.Cmd) error {
	started := r.orphans.Forking()
	if err := cmd.Start(); err != nil {
		started(0)
		return err
	}
	started(cmd.Process.Pid)
	return nil
}
