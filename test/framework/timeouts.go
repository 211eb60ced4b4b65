package framework

import "time"

// How long the suites wait for what the operator, the API servers and the data plane do in
// the background. Each is a bound that keeps a broken spec from hanging, far above what the
// step takes on an idle machine, not a claim about how fast it is: the specs never assert a
// time. Every suite defines its own timeout and interval from one of these (suite_test.go),
// or from a named multiple of one where its waits are of a longer kind.
const (
	// PollInterval is how often a wait checks its condition: often enough that a spec does not
	// linger after the change, seldom enough that the checks (a cache read, a GET) cost little.
	PollInterval = 100 * time.Millisecond
	// APIWriteTimeout bounds seeing an API write: an object another client wrote read back, a
	// reconcile's result, a CRD's schema published by the API server.
	APIWriteTimeout = 40 * time.Second
	// GateTimeout bounds a probe-driven change with one-second periods: a gate closing or
	// lifting after a few probes, and the map and the route that follow it. It is twice what
	// a quiet machine needs, so that `make test` passes beside a CPU hog.
	GateTimeout = 60 * time.Second
	// DataPlaneTimeout bounds a change seen through haproxy: a gate, the route written, and
	// HAProxy Ingress applying it (one change every two seconds at most) before requests follow.
	DataPlaneTimeout = 90 * time.Second
	// ManagerStartTimeout bounds a manager binary's start up to its first gate: the process,
	// its caches and its first probes.
	ManagerStartTimeout = 90 * time.Second
)

// TimingDependent is the Ginkgo label of the few specs that bound a wall-clock time because
// the time is the behaviour they check (docs/development/testing.md names them): a machine
// loaded far past a test run can fail them, which
// -ginkgo.label-filter='!timing-dependent' leaves out.
const TimingDependent = "timing-dependent"

// SuiteSetupTimeout bounds a suite's BeforeSuite that starts API servers: each may take up
// to envfleet.StartTimeout on a loaded machine, and they start side by side.
const SuiteSetupTimeout = 5 * time.Minute
