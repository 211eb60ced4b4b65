//go:build !linux

package proc

import "syscall"

// Pdeathsig is Linux's: elsewhere a child outlives a test killed without its clean-up.
func sysProcAttr(o Options) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: o.Group}
}
