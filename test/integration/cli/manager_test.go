package cli

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/test/framework"
)

const (
	// liveWorker is the suite's workload cluster with an API server of its own.
	liveWorker = "worker-live"
	// probePeriod is the installation probe's period of the running manager.
	probePeriod = time.Second
	// staleAfter is when `placement endpoint` says a map whose probes stopped is Stale:
	// three periods and five seconds for the clocks (placement's staleProbePeriods and
	// clockAllowance).
	staleAfter = 3*probePeriod + 5*time.Second
)

// requests records what the running manager asks of the control plane, and can hold some
// of it back.
var requests = &framework.Requests{}

// startManager runs the operator's controllers against the suite's control plane, as
// cmd/manager does, with the routing guide's Step 1 probe for every service and a
// publisher, and returns a function that stops it. It runs with the control plane's admin
// credentials: the chart's RBAC is the routing and publisher suites' concern.
func startManager() func() {
	policy, errs := probe.Validate(probe.SpecFromAPI(framework.GuideProbe(probePeriod, 500*time.Millisecond, omev1beta1.AllFailedPreserveTraffic)),
		probe.InstallationPath)
	Expect(errs).To(BeEmpty())
	m, err := testEnv.StartManager(config.Config{
		Endpoint: config.Endpoint{GlobalGateway: "gateway-system/global", BackendPort: 80,
			GlobalHostTemplate: "{{ .Name }}.{{ .Namespace }}.global.example.com"},
		Routing: config.Routing{Enabled: true, Probe: &policy, Observer: framework.ObserverSettings()}},
		framework.WithConfig(requests.Wrap(cp.Config)),
		// The copies' URLs name the worker; the model servers listen on loopback.
		framework.WithHosts(map[string]netip.Addr{liveWorker + ".example.test": netip.MustParseAddr("127.0.0.1")}),
		framework.WithControllers(func(o *controllers.Options) {
			o.MemberTimeout, o.MemberHealthInterval, o.MemberGrace = 2*time.Second, time.Second, 2*time.Second
		}),
		framework.WithLog(GinkgoWriter),
	)
	Expect(err).NotTo(HaveOccurred())
	return func() { Expect(m.Stop()).To(Succeed()) }
}

// liveService creates a namespace and a service placed on liveWorker, with a ready copy
// there whose model server answers the probe.
func liveService(ctx context.Context, name string, routing *omev1beta1.Routing) client.ObjectKey {
	ns := newNamespace(ctx)
	key := client.ObjectKey{Namespace: ns, Name: name}
	ep, err := modelserver.StartEndpoint(nil)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(ep.Close)
	u, err := url.Parse(ep.URL())
	Expect(err).NotTo(HaveOccurred())
	Expect(envfleet.PlaceCopy(ctx, fleet.Workers[liveWorker].Client, key, fmt.Sprintf("http://%s.example.test:%s", liveWorker, u.Port()), 1, 1)).To(Succeed())
	Expect(k8s.Create(ctx, envfleet.SourceService(key, []string{liveWorker}, routing))).To(Succeed())
	return key
}

func trafficMap(g Gomega, key client.ObjectKey) *omev1beta1.TrafficMap {
	tm := &omev1beta1.TrafficMap{}
	g.Expect(k8s.Get(context.Background(), key, tm)).To(Succeed())
	return tm
}

// published waits until the map's home passes its probe and the publisher has published it.
func published(key client.ObjectKey) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		tm := trafficMap(g, key)
		g.Expect(tm.Spec.Entries).To(HaveLen(1))
		g.Expect(tm.Spec.Entries[0].Probe).NotTo(BeNil())
		g.Expect(tm.Spec.Entries[0].Probe.Result).To(Equal(omev1beta1.ProbePassing))
		c := meta.FindStatusCondition(tm.Status.Conditions, omev1beta1.TrafficMapPublished)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Reason).To(Equal(string(omev1beta1.TrafficMapReasonPublished)))
	}, timeout, interval).Should(Succeed())
}

var _ = Describe("kubectl ome placement endpoint with a running manager", Ordered, func() {
	var stop func()
	var key client.ObjectKey

	BeforeAll(func(ctx context.Context) {
		Expect(client.IgnoreAlreadyExists(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gateway-system"}}))).To(Succeed())
		stop = startManager()
		DeferCleanup(func() { stop() })
		key = liveService(ctx, "chat", nil)
		published(key)
	})

	It("never reads Stale at steady state, right after each probe round", func(ctx context.Context) {
		seen := trafficMap(Default, key).Generation
		for call := range 20 {
			// Each round moves the map's generation, and the routing status and the
			// publisher follow it a moment later: the plugin runs in that moment.
			Eventually(func(g Gomega) int64 { return trafficMap(g, key).Generation }, timeout, interval/10).Should(BeNumerically(">", seen))
			seen = trafficMap(Default, key).Generation
			r := run(ctx, "placement", "endpoint", key.Name, "-n", key.Namespace)
			Expect(r.code).To(BeZero(), r.stderr)
			Expect(r.stdout).NotTo(ContainSubstring("Stale"), "call %d of 20 at generation %d", call+1, seen)
			Expect(r.stdout).To(ContainSubstring("Routing freshness    Current\n"))
			Expect(r.stdout).To(ContainSubstring("Published            True: Published (Current)\n"))
			Expect(r.stdout).To(ContainSubstring("Settings accepted    True: Accepted (Current)\n"))
		}

		By("the publisher rounds behind, as at fleet size, where it takes generation-only updates last")
		held := requests.Hold(func(r framework.Request) bool {
			return r.Verb == "PATCH" && r.Resource == "trafficmaps/status" && r.Namespace == key.Namespace &&
				r.FieldManager == "ome-trafficmap-publisher"
		})
		defer held.Release()
		Eventually(held.Waiting).WithTimeout(timeout).WithPolling(interval).Should(BeNumerically(">=", 1))
		Eventually(func(g Gomega) {
			tm := trafficMap(g, key)
			c := meta.FindStatusCondition(tm.Status.Conditions, omev1beta1.TrafficMapPublished)
			g.Expect(c).NotTo(BeNil())
			g.Expect(tm.Generation).To(BeNumerically(">=", c.ObservedGeneration+2))
		}, timeout, interval).Should(Succeed())
		r := run(ctx, "placement", "endpoint", key.Name, "-n", key.Namespace)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).NotTo(ContainSubstring("Stale"), "the route carries the map's weights: only probe records moved")
		Expect(r.stdout).To(ContainSubstring("Published            True: Published (Current)\n"))
		held.Release()
	})

	It("shows the would-be gates, the ramps, the warnings and the last probe's age in kubectl get -o wide", func(ctx context.Context) {
		kubectl := os.Getenv("KUBECTL")
		if kubectl == "" {
			Skip("KUBECTL is not set")
		}
		cmd := exec.CommandContext(ctx, kubectl, "get", "trafficmap", key.Name, "-n", key.Namespace, "-o", "wide")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		// TARGETS, SERVING (the one home serves), the counts, PROBED, VERDICT (the serving
		// states' age), STATES (empty: every home serves).
		Expect(string(out)).To(MatchRegexp(`TARGETS\s+SERVING\s+GATED\s+REFUSED\s+WOULD-GATE\s+RAMPING\s+WARNINGS\s+PROBED\s+VERDICT\s+STATES\s+MESSAGE\s+FROZEN\s+TIERS\s+NO-TRAFFIC\n` +
			`chat\s.*\s1\s+1\s+0\s+0\s+0\s+0\s+1\s+\d+s\s+\d+s\s+1 of 1 home\(s\) take traffic\s*\n`))
		// WARNINGS counts worker-live's home: its model server listens on a loopback port of
		// its own, while the route sends to backendPort 80, so its probe proves nothing
		// about the port the gateway uses, and the entry says so.
		Expect(trafficMap(Default, key).Spec.Entries[0].Warning).To(ContainSubstring("(endpoint.backendPort)"))
	})

	It("lists the published map as Current in kubectl ome get, probe round after probe round", func(ctx context.Context) {
		seen := trafficMap(Default, key).Generation
		for call := range 10 {
			// Each probe round moves the generation and nothing else of the route: the
			// publisher's acknowledgement and the conditions still describe the map.
			Eventually(func(g Gomega) int64 { return trafficMap(g, key).Generation }, timeout, interval/10).Should(BeNumerically(">", seen))
			seen = trafficMap(Default, key).Generation
			r := run(ctx, "get", "tm", key.Name, "-n", key.Namespace, "-o", "wide")
			Expect(r.code).To(BeZero(), r.stderr)
			Expect(r.stdout).To(MatchRegexp(`^NAME +MODE +TARGETS +ROUTABLE +PUBLISHED +AGE +SERVICE +ACTIVE +HEALTHY +OVERRIDE +OVERRIDE-REASON +REASON +GATEWAY +PUBLISHER-FRESHNESS +SERVING .*\n`+
				`chat +All +1 +True +True +\S+ +chat +1 +1 +False +NoOverrides +Routable +gateway\.networking\.k8s\.io/HTTPRoute:\S+ +Current +1 .*\n$`),
				"call %d of 10 at generation %d", call+1, seen)
		}
	})

	It("shows a frozen map's refusal", func(ctx context.Context) {
		frozen := liveService(ctx, "frozen", &omev1beta1.Routing{Probe: framework.GuideProbe(probePeriod, 500*time.Millisecond, omev1beta1.AllFailedPreserveTraffic)})
		published(frozen)
		Eventually(func(g Gomega) {
			isvc := &omev1beta1.InferenceService{}
			g.Expect(k8s.Get(ctx, frozen, isvc)).To(Succeed())
			// The API server accepts it; the manager's minPeriod (1s) refuses it.
			isvc.Spec.Routing.Probe.Period.Duration, isvc.Spec.Routing.Probe.Timeout.Duration = 500*time.Millisecond, 200*time.Millisecond
			g.Expect(k8s.Update(ctx, isvc)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(trafficMap(g, frozen).Status.Conditions, omev1beta1.TrafficMapSettingsAccepted)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(string(omev1beta1.TrafficMapReasonRoutingPolicyRefused)))
		}, timeout, interval).Should(Succeed())

		r := run(ctx, "placement", "endpoint", frozen.Name, "-n", frozen.Namespace, "-o", "wide")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring("Routing freshness    Stale: frozen: the manager refuses a routing setting and keeps the map as last written (see Frozen)\n"))
		Expect(r.stdout).To(ContainSubstring("Routable freshness   Stale: Frozen\n"))
		Expect(r.stdout).To(ContainSubstring("Settings accepted    False: RoutingPolicyRefused (Current)\n"))
		Expect(r.stdout).To(ContainSubstring("Frozen               RoutingPolicyRefused: resolve probe policy: " +
			"spec.routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)\n"))
	})

	It("reads Stale within three periods and the clock allowance once the manager stops", Label(framework.TimingDependent), func(ctx context.Context) {
		stop()
		stopped := time.Now()
		endpoint := func() string {
			r := run(ctx, "placement", "endpoint", key.Name, "-n", key.Namespace)
			Expect(r.code).To(BeZero(), r.stderr)
			return r.stdout
		}
		Expect(endpoint()).To(ContainSubstring("Routing freshness    Current\n"), "a moment after the last probe")
		Eventually(endpoint).WithTimeout(staleAfter + 10*time.Second).WithPolling(interval).Should(And(
			ContainSubstring("Routing freshness    Stale: last probe recorded "),
			ContainSubstring("Routable freshness   Stale: NoRecentProbe\n"),
			ContainSubstring("Published            True: Published (Stale)\n"),
		))
		// The newest probe was recorded before the stop, so the map reads Stale no later
		// than staleAfter after it, give or take a second of lastProbeTime's precision and
		// the polling.
		Expect(time.Since(stopped)).To(BeNumerically("<", staleAfter+3*time.Second))
	})
})
