package proc

import "syscall"

func sysProcAttr(o Options) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: o.Group}
	if o.DieWithParent {
		a.Pdeathsig = syscall.SIGTERM
	}
	return a
}
