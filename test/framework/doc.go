// Package framework holds what only the tests need to start from, with a lifecycle:
//
//   - environment.go: Environment, a fleet of envtest API servers (StartEnvironment) and the
//     managers started on it (StartManager, StopManager), all stopped by Stop;
//   - manager.go, managerbinary.go: Manager, a manager in the test's process or its binary
//     as a child process (AsBinary), and the ManagerOptions (WithConfig, WithHosts,
//     WithClusterProfiles, WithControllers, WithManager, PublisherOnly, WithLog, JSONLog,
//     AllowReconcilerErrors);
//   - logcheck.go: LogCheck, which reads a manager's log and makes Manager.Stop fail on a
//     panic or a reconciler error of a defect (DefectErrors);
//   - observer.go: ObserverSettings, the routing.observer settings every manager starts from;
//   - binaries.go: the manager's and the plugin's binaries (ManagerBinary, PluginBinary), kept
//     until Main, which every package that runs them calls from its TestMain, ends;
//   - timeouts.go: the timeouts every suite waits with, and SuiteSetupTimeout;
//   - probe.go (the guide's probe), requests.go (the recorder of a manager's API requests),
//     unvalidated.go (objects stored under an open schema), env.go (integer settings from the
//     environment), services.go (the routed services the routing and publisher suites build)
//     and watch.go (the watch the bench and the soak follow the operator's writes with).
//
// Its subpackage stats computes the bench's and the soak's figures.
//
// What the demo (cmd/demo) starts as well lives in internal/, because no binary may import
// test/, and the tests import it from there directly: internal/envfleet (envtest API
// servers and fleets), internal/modelserver (model servers on loopback), internal/traffic
// (requests through a gateway), internal/haproxyingress (HAProxy Ingress and haproxy),
// internal/promserver (a real Prometheus), internal/proc (every child process),
// internal/egtranslate (Envoy Gateway's offline translator) and internal/poll (the one wait
// outside Ginkgo).
package framework
