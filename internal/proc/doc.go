// Package proc runs the child processes of the tests, the benches and the demo: the
// manager's binary, HAProxy Ingress with its haproxy, and Prometheus. One Process starts a
// prepared command with its output captured, knows when it has exited, and stops it as the
// kubelet stops a container: SIGTERM, a bounded wait, then SIGKILL (to its whole process
// group when it has one of its own). Every child of the project's tests is started here, so
// that none is left running by a stop written differently in one place.
package proc
