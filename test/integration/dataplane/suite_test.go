package dataplane

import (
	"context"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/internal/promserver"
	"github.com/ome-routing/operator/test/dataplane"
	"github.com/ome-routing/operator/test/framework"
	"github.com/ome-routing/operator/test/suite"
)

const (
	// timeout bounds every wait: a gate closes in about three probe periods of a second,
	// and haproxy follows a changed route within about a second.
	timeout = framework.DataPlaneTimeout
	// interval is twice the shared one: a check here often sends a batch of requests
	// through haproxy, not a cache read.
	interval = 2 * framework.PollInterval
)

var (
	env *dataplane.Env
	// workers are the workload clusters, and ready their ready replicas: the service's
	// weights are 3, 2 and 1.
	workers = []string{"worker-a", "worker-b", "worker-c"}
	ready   = map[string]int32{"worker-a": 3, "worker-b": 2, "worker-c": 1}
	service = client.ObjectKey{Namespace: "dataplane", Name: "chat"}
)

func TestDataPlane(t *testing.T) {
	if err := haproxyingress.DataPlaneMissing(); err != nil {
		if os.Getenv(haproxyingress.RequireDataPlaneEnv) != "" {
			t.Fatalf("the data plane must run here (%s is set, as .ci/run sets it), but it cannot: %v", haproxyingress.RequireDataPlaneEnv, err)
		}
		t.Skipf("no data plane on this machine, so no request is sent through a gateway: %v", err)
	}
	suite.Run(t, "Data plane suite")
}

// TestMain removes the binaries the suite built (framework.Main): the fixture runs the
// manager's and the plugin's.
func TestMain(m *testing.M) { framework.Main(m) }

var _ = BeforeSuite(func(ctx context.Context) {
	ctrl.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	var err error
	// The traffic signal needs Prometheus; without it the passive gate's specs skip (and
	// fail under .ci/run).
	env, err = dataplane.Start(ctx, dataplane.Options{
		Workers: workers, Ready: ready, Service: service, Probe: probeSpec(omev1beta1.AllFailedPreserveTraffic),
		Timing: dataplane.DefaultTiming, Dir: GinkgoT().TempDir(), TrafficSignal: promserver.Missing() == nil,
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(env.Stop)
}, NodeTimeout(framework.SuiteSetupTimeout))

// After a failed spec, the ends of the manager's and the gateway's logs say what they did.
var _ = ReportAfterEach(func(r SpecReport) {
	if r.Failed() && env != nil {
		AddReportEntry("logs", env.Logs())
	}
})

// probeSpec is the routing guide's Step 1 probe with the fixture's timing and the given
// all-failed policy, as the service's own probe.
func probeSpec(policy omev1beta1.AllFailedPolicy) *omev1beta1.RoutingProbe {
	t := dataplane.DefaultTiming
	p := framework.GuideProbe(t.Period, t.Timeout, policy)
	p.FailureThreshold, p.SuccessThreshold = ptr.To(int32(t.FailureThreshold)), ptr.To(int32(t.SuccessThreshold))
	return p
}
