// Package setup proves the integration set-up: envtest starts real API servers from the
// binaries the Makefile builds, one per cluster, and they can be reached both with the
// admin configuration and with the inline-credential kubeconfigs that WorkloadCluster
// Secrets carry.
package setup
