package main

import "syscall"

// childProcAttr puts the manager in its own process group, so that a Ctrl-C in the
// terminal reaches only the demo, which then stops the manager before the API servers it
// watches. Pdeathsig stops the manager if the demo dies without cleaning up (kill -9), so
// that no orphan keeps probing.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
