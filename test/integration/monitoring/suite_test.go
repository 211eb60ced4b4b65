package monitoring

import (
	"context"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/test/framework"
	"github.com/ome-routing/operator/test/suite"
)

const (
	// timeout is long enough for the manager to start and gate a cluster with a one-second period.
	timeout = framework.ManagerStartTimeout
	// interval is twice the shared one: a check here often scrapes the manager's whole /metrics.
	interval = 2 * framework.PollInterval
)

var (
	testEnv  *framework.Environment
	fleet    *envfleet.Fleet
	endpoint *modelserver.Endpoint
	// metricsURL is the running manager's /metrics.
	metricsURL string
	// managerLog is what the manager printed.
	managerLog = gbytes.NewBuffer()
)

func TestMonitoring(t *testing.T) {
	for _, env := range []string{"KUBEBUILDER_ASSETS", "HELM", "PROMQL"} {
		if os.Getenv(env) == "" {
			t.Skipf("%s is not set: make test sets it to the binary it builds into bin/", env)
		}
	}
	suite.Run(t, "Monitoring suite")
}

// TestMain removes the manager's binary when the suite built one (framework.Main).
func TestMain(m *testing.M) { framework.Main(m) }

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	testEnv, err = framework.StartEnvironment(ctx, "worker-a")
	Expect(err).NotTo(HaveOccurred())
	// Stops the manager with SIGTERM, checking its log, then the API servers.
	DeferCleanup(testEnv.Stop)
	fleet = testEnv.Fleet
	// With the Gateway API served, the publisher runs and writes its share of each map's
	// status, and with it its gauge (withdrawn here: no global gateway is set).
	Expect(fleet.ControlPlane.InstallGatewayCRDs()).To(Succeed())
	endpoint, err = modelserver.StartEndpoint(nil)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(endpoint.Close)

	// The manager starts with a service it must refuse already stored, as a restarted
	// manager or a new leader finds one (undecodable_test.go).
	storeHostile(ctx)
	// The manager's binary, as it runs in a pod, with plain HTTP metrics: this suite reads
	// which metrics exist; cmd/manager's tests cover the authenticated HTTPS endpoint the
	// chart serves by default.
	m, err := testEnv.StartManager(managerSettings(), framework.AsBinary(""), framework.WithLog(managerLog))
	Expect(err).NotTo(HaveOccurred())
	metricsURL = m.MetricsURL
}, NodeTimeout(framework.SuiteSetupTimeout))

// managerSettings is the guide's Step 1 probe with a one-second period, and an observer that
// may dial the loopback endpoint.
func managerSettings() config.Config {
	GinkgoHelper()
	probePolicy, errs := probe.Validate(probe.SpecFromAPI(framework.GuideProbe(time.Second, 500*time.Millisecond,
		omev1beta1.AllFailedPreserveTraffic)), probe.InstallationPath)
	Expect(errs).To(BeEmpty())
	return config.Config{Routing: config.Routing{Enabled: true, Probe: &probePolicy, Observer: framework.ObserverSettings()}}
}

// controlPlane is the control plane's admin client.
func controlPlane() client.Client { return fleet.ControlPlane.Client }
