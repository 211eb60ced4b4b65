// Package version says which build of the operator is running: the version and revision
// the Makefile stamps in with -ldflags, or, for a plain go build or go install, what the Go
// toolchain recorded in the binary's build information.
package version
