// Package cli runs the built kubectl-ome binary against a real API server: the traffic
// actions' refusals, guarded patch, dry runs and confirmation prompt (through a
// pseudo-terminal), and the placement endpoint view.
package cli
