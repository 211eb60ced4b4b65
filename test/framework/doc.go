// Package framework holds what only the tests need to start from: the in-process manager
// (manager.go), the manager's and the plugin's binaries a test process runs (binaries.go),
// the guide's probe (probe.go), the recorder of a manager's API requests (requests.go),
// objects stored under an open schema (unvalidated.go), integer settings from the
// environment (env.go), the routed services the routing and publisher suites build
// (services.go), the watch the bench and the soak follow the operator's writes with
// (watch.go), and the timeouts every suite waits with (timeouts.go). Its subpackage stats
// computes the bench's and the soak's figures.
//
// What the demo (cmd/demo) starts as well lives in internal/, because no binary may import
// test/, and the tests import it from there directly: internal/envfleet (envtest API
// servers and fleets), internal/modelserver (model servers on loopback), internal/traffic
// (requests through a gateway), internal/haproxyingress (HAProxy Ingress and haproxy),
// internal/promserver (a real Prometheus), internal/egtranslate (Envoy Gateway's offline
// translator) and internal/poll (the one wait outside Ginkgo).
package framework
