// Package framework is what the integration suites, the bench and the soak start their
// tests from. The pieces they share with the demo (envtest fleets, model servers, the
// traffic generator, HAProxy Ingress, Envoy Gateway's translator) live in internal/ and are
// named here by the names the suites use (shared.go); the rest is the suites' own: the
// in-process manager, the guide's probe, the recorder of a manager's API requests, objects
// stored under an open schema, integer settings from the environment, and the manager and
// plugin binaries a test process runs (binaries.go).
package framework
