// Package util holds what the kubectl-ome commands share: the client getter built on
// cli-runtime's ConfigFlags, output formats and the bounded FIELD/VALUE table, dry-run
// modes, and exit codes.
package util
