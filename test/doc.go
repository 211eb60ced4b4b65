// Package test holds the project's integration tests: Ginkgo suites under integration/
// that run against real kube-apiserver and etcd processes started by envtest (one per
// cluster), and the helpers in framework/ that start them (the ones the demo shares are
// in internal/; framework/ names them for the suites).
package test
