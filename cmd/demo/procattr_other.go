//go:build !linux

package main

import "syscall"

// childProcAttr leaves the manager in the demo's process group where Setpgid and
// Pdeathsig are not both available: a Ctrl-C then reaches the manager directly, and it
// stops itself.
func childProcAttr() *syscall.SysProcAttr { return nil }
