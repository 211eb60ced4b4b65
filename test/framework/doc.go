// Package framework starts the real API servers the integration suites run against: one
// envtest control plane or workload cluster at a time, each with this project's CRDs
// installed and a kubeconfig with inline credentials issued by that server.
package framework
