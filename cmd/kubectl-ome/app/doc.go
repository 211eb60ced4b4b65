// Package app is the kubectl-ome command tree. It follows kueuectl's layout: one package
// per verb (traffic, placement, get), each command with its printer beside it, and util for
// what they share: the kubeconfig flags and client, output formats, dry-run modes and
// exit codes.
package app
