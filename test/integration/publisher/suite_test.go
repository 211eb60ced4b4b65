package publisher

import (
	"context"
	"maps"
	"net/netip"
	"reflect"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/test/framework"
	"github.com/ome-routing/operator/test/suite"
)

const (
	// timeout is long enough for a gate to close and lift with one-second periods.
	timeout  = framework.GateTimeout
	interval = framework.PollInterval
	period   = time.Second
	// gatewayNamespace and gatewayName are the global Gateway's.
	gatewayNamespace = "gateway-system"
	gatewayName      = "global"
	backendPort      = 80
)

var (
	testEnv *framework.Environment
	fleet   *envfleet.Fleet
	// managerConfig impersonates the manager's ServiceAccount, bound to the chart's roles,
	// so that a rule the publisher needs and the chart lacks fails the suite.
	managerConfig *rest.Config
	// managerLog collects everything the running manager logs.
	managerLog *gbytes.Buffer
	running    *runningManager
	// requests records what the running manager asks of the control plane.
	requests = &framework.Requests{}
)

// hosts gives each worker's model servers a two-label name, as a gateway needs: they all
// listen on loopback, each on its own port.
var hosts = map[string]netip.Addr{
	"worker-a.example.test": netip.MustParseAddr("127.0.0.1"),
	"worker-b.example.test": netip.MustParseAddr("127.0.0.1"),
	// A name no route may carry, though it resolves (see hostile_test.go).
	"worker_b.example.test": netip.MustParseAddr("127.0.0.1"),
	// Names a hostile member may report, for services without a probe: the map gives
	// them weight, and only the publisher's guard keeps them out of the route (see
	// guard_test.go). Nothing is ever sent to these addresses.
	"metadata.example.test": netip.MustParseAddr("169.254.169.254"),
	"private.example.test":  netip.MustParseAddr("10.0.0.7"),
}

func TestPublisher(t *testing.T) {
	suite.Run(t, "Publisher suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	ctrl.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	var err error
	testEnv, err = framework.StartEnvironment(ctx, "worker-a", "worker-b")
	Expect(err).NotTo(HaveOccurred())
	// Stops the running managers, checking their logs, then the API servers.
	DeferCleanup(testEnv.Stop)
	fleet = testEnv.Fleet
	Expect(fleet.ControlPlane.InstallGatewayCRDs()).To(Succeed())
	managerConfig, err = fleet.ControlPlane.InstallChartRBAC(ctx, envfleet.SecretNamespace)
	Expect(err).NotTo(HaveOccurred())
	Expect(fleet.ControlPlane.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: gatewayNamespace}})).To(Succeed())
}, NodeTimeout(framework.SuiteSetupTimeout))

// guideEndpoint is the publishing guide's endpoint settings, for the suite's Gateway.
func guideEndpoint() config.Endpoint {
	return config.Endpoint{
		GlobalGateway:      gatewayNamespace + "/" + gatewayName,
		BackendPort:        backendPort,
		GlobalHostTemplate: "{{ .Name }}.{{ .Namespace }}.global.example.com",
	}
}

// managerSettings are what a spec can ask of the running manager.
type managerSettings struct {
	endpoint  config.Endpoint
	publisher config.Publisher
	// recordInterval is routing.observer.recordInterval.
	recordInterval time.Duration
	// unresolvable are names of hosts left out of the manager's names: their lookups go to
	// the machine's resolver, which fails them, as in a resolver outage.
	unresolvable []string
}

type runningManager struct {
	settings managerSettings
	stop     func()
}

// useManager makes sure a manager runs with these publisher settings, restarting it when
// the running one has others. Every manager has the installation probe of the routing
// guide's Step 1 with a one-second period.
func useManager(endpoint config.Endpoint, publisher config.Publisher) {
	useManagerWith(managerSettings{endpoint: endpoint, publisher: publisher})
}

// useManagerWith is useManager with every setting a spec can choose.
func useManagerWith(settings managerSettings) {
	if running != nil && reflect.DeepEqual(running.settings, settings) {
		return
	}
	if running != nil {
		running.stop()
	}
	running = &runningManager{settings: settings, stop: startManager(settings)}
}

// startManager runs a manager with the settings as the chart's ServiceAccount, its
// requests recorded and its log in managerLog, and returns its stop.
func startManager(settings managerSettings) func() {
	managerLog = gbytes.NewBuffer()
	policy, errs := probe.Validate(probe.SpecFromAPI(probeSpec(omev1beta1.AllFailedPreserveTraffic)), probe.InstallationPath)
	Expect(errs).To(BeEmpty())
	observer := framework.ObserverSettings()
	observer.RecordInterval = settings.recordInterval
	m, err := testEnv.StartManager(config.Config{Endpoint: settings.endpoint,
		Routing: config.Routing{Enabled: true, Probe: &policy, Publisher: settings.publisher, Observer: observer}},
		framework.WithConfig(requests.Wrap(managerConfig)),
		framework.WithHosts(resolvable(settings.unresolvable)),
		framework.WithControllers(func(o *controllers.Options) {
			o.MemberTimeout, o.MemberHealthInterval, o.MemberGrace = 2*time.Second, time.Second, 2*time.Second
		}),
		framework.WithLog(GinkgoWriter, managerLog),
	)
	Expect(err).NotTo(HaveOccurred())
	return func() { Expect(m.Stop()).To(Succeed()) }
}

// resolvable is the suite's names without those given.
func resolvable(without []string) map[string]netip.Addr {
	out := maps.Clone(hosts)
	for _, h := range without {
		delete(out, h)
	}
	return out
}

// probeSpec is Step 1's probe with a one-second period and the given policy.
func probeSpec(policy omev1beta1.AllFailedPolicy) *omev1beta1.RoutingProbe {
	return framework.GuideProbe(period, 500*time.Millisecond, policy)
}
