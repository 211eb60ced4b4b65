package dataplane

import (
	"context"
	"fmt"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/test/dataplane"
)

// twoWindows is the bound on a passive gate's detection: two of the signal's
// windows. The wait adds a scrape and a reading's interval on either side.
var twoWindows = 2 * dataplane.SignalTiming.Window

// detectionBound is how long a spec waits for a passive gate to act.
var detectionBound = twoWindows + 2*dataplane.SignalTiming.Scrape + 2*dataplane.SignalTiming.Interval

// requireSignal skips a spec when the suite runs without Prometheus (and fails it where a
// data plane is required).
func requireSignal() {
	GinkgoHelper()
	if env.Prometheus != nil {
		return
	}
	if os.Getenv(haproxyingress.RequireDataPlaneEnv) != "" {
		Fail(haproxyingress.RequireDataPlaneEnv + " is set, but the suite runs without Prometheus")
	}
	Skip("no Prometheus here: the traffic signal has no source")
}

// passiveProbe is the suite's probe with a passive gate.
func passiveProbe(mode omev1beta1.ProbeMode, maxEjectionPercent int32) *omev1beta1.RoutingProbe {
	p := probeSpec(omev1beta1.AllFailedPreserveTraffic)
	p.PassiveGate = &omev1beta1.ProbePassiveGate{
		Mode: mode, FailurePercent: ptr.To[int32](10), MinRequests: ptr.To[int32](20),
		MaxEjectionPercent: ptr.To(maxEjectionPercent),
		// Longer than any spec: a held-out cluster gets no requests, so nothing but its
		// ejection time lifts it.
		BaseEjectionTime: &metav1.Duration{Duration: 2 * time.Minute}, MaxEjectionTime: &metav1.Duration{Duration: 4 * time.Minute},
	}
	return p
}

// passiveRecords are the entries' passive-gate records and weights, by cluster.
func passiveRecords(ctx context.Context, g Gomega) map[string]omev1beta1.TrafficMapEntry {
	tm, err := env.TrafficMap(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	out := map[string]omev1beta1.TrafficMapEntry{}
	for _, e := range tm.Spec.Entries {
		out[e.Cluster] = e
	}
	return out
}

// failShare makes each given cluster's model server fail every n-th real request with a
// 503 (its probe keeps passing), until the spec ends.
func failShare(every int, clusters ...string) {
	for _, c := range clusters {
		env.Servers.Endpoints[c].SetTrafficFailures(every, 503)
	}
}

var _ = Describe("The passive gate, on haproxy's own counters read from a real Prometheus", func() {
	all := map[string]int32{"worker-a": 3, "worker-b": 2, "worker-c": 1}

	BeforeEach(func(ctx context.Context) {
		requireSignal()
		DeferCleanup(func(ctx context.Context) {
			for _, w := range workers {
				env.Servers.Endpoints[w].SetTrafficFailures(0, 0)
			}
			setProbe(ctx, probeSpec(omev1beta1.AllFailedPreserveTraffic))
			expectRouting(ctx, all)
		})
		expectRouting(ctx, all)
	})

	It("records wouldGate in Shadow and gates in Enforce, within two windows, a cluster that fails a third of its real requests while its probe passes, and never one with 0.5% errors", func(ctx context.Context) {
		load := env.Traffic.StartLoad(ctx, loadRate, loadRate*600)
		DeferCleanup(load.Stop)

		By("Shadow: worker-b would be held out, and keeps its weight")
		failShare(3, "worker-b")
		failShare(200, "worker-a")
		setProbe(ctx, passiveProbe(omev1beta1.ProbeModeShadow, 50))
		began := time.Now()
		Eventually(func(g Gomega) {
			e := passiveRecords(ctx, g)
			b := e["worker-b"]
			g.Expect(b.PassiveGate).NotTo(BeNil())
			g.Expect(b.PassiveGate.WouldGate).To(BeTrue(), "worker-b's record: %+v", b.PassiveGate)
			g.Expect(b.PassiveGate.Gated).To(BeFalse())
			g.Expect(b.Weight).To(BeNumerically(">", 0))
			g.Expect(b.WeightReason).To(Equal(omev1beta1.WeightPassiveShadowGated))
		}).WithTimeout(detectionBound).WithPolling(interval).Should(Succeed())
		AddReportEntry("Shadow: wouldGate after", time.Since(began).Round(time.Millisecond).String())
		Expect(routeWeights(ctx)(Default)).To(Equal(all), "a Shadow passive gate moves nothing")

		By("Enforce, from a clean record: worker-b is held out, haproxy stops sending it requests")
		setProbe(ctx, probeSpec(omev1beta1.AllFailedPreserveTraffic))
		Eventually(func(g Gomega) {
			g.Expect(passiveRecords(ctx, g)["worker-b"].PassiveGate).To(BeNil())
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		setProbe(ctx, passiveProbe(omev1beta1.ProbeModeEnforce, 50))
		began = time.Now()
		Eventually(func(g Gomega) {
			b := passiveRecords(ctx, g)["worker-b"]
			g.Expect(b.PassiveGate).NotTo(BeNil())
			g.Expect(b.PassiveGate.Gated).To(BeTrue(), "worker-b's record: %+v", b.PassiveGate)
			g.Expect(b.Weight).To(BeZero())
			g.Expect(b.WeightReason).To(Equal(omev1beta1.WeightPassiveGated))
			g.Expect(b.Healthy).To(BeFalse())
			g.Expect(b.Probe.Result).To(Equal(omev1beta1.ProbePassing), "its probe passes all along")
		}).WithTimeout(detectionBound).WithPolling(interval).Should(Succeed())
		AddReportEntry("Enforce: gated after", time.Since(began).Round(time.Millisecond).String())
		gated := map[string]int32{"worker-a": 3, "worker-b": 0, "worker-c": 1}
		awaitRouting(ctx, gated)
		// haproxy keeps a server for a backendRef of weight 0, so the numbers the queries
		// find each cluster by do not move.
		backendPositions(ctx, publish.RouteName(service.Namespace, service.Name, ""))

		By("worker-a's 0.5% never gates it, over two more windows")
		Consistently(func(g Gomega) {
			a := passiveRecords(ctx, g)["worker-a"]
			g.Expect(a.PassiveGate).NotTo(BeNil())
			g.Expect(a.PassiveGate.Signal).To(Equal(omev1beta1.TrafficSignalKnown), "worker-a's record: %+v", a.PassiveGate)
			g.Expect(a.PassiveGate.Gated || a.PassiveGate.WouldGate || a.PassiveGate.Capped).To(BeFalse(), "worker-a's record: %+v", a.PassiveGate)
			g.Expect(a.Weight).To(BeNumerically(">", 0))
		}).WithTimeout(twoWindows).WithPolling(interval).Should(Succeed())
		a := passiveRecords(ctx, Default)["worker-a"].PassiveGate
		AddReportEntry("worker-a's last reading", fmt.Sprintf("%d failures of %d requests", ptr.Deref(a.Failures, 0), ptr.Deref(a.Requests, 0)))
	})

	It("lifts a passive gate once its ejection time is over, back through the probe's rampUp, and real requests reach the cluster again", func(ctx context.Context) {
		load := env.Traffic.StartLoad(ctx, loadRate, loadRate*600)
		DeferCleanup(load.Stop)
		// An ejection longer than the window, so that the failures that closed the gate are
		// out of it when the gate lifts; a ramp of eight one-second probe rounds.
		p := passiveProbe(omev1beta1.ProbeModeEnforce, 50)
		p.PassiveGate.BaseEjectionTime = &metav1.Duration{Duration: 8 * time.Second}
		p.PassiveGate.MaxEjectionTime = &metav1.Duration{Duration: 8 * time.Second}
		p.RampUp = &metav1.Duration{Duration: 8 * time.Second}
		failShare(3, "worker-b")
		setProbe(ctx, p)
		Eventually(func(g Gomega) {
			b := passiveRecords(ctx, g)["worker-b"]
			g.Expect(b.PassiveGate).NotTo(BeNil())
			g.Expect(b.PassiveGate.Gated).To(BeTrue(), "worker-b's record: %+v", b.PassiveGate)
			g.Expect(b.Weight).To(BeZero())
		}).WithTimeout(detectionBound).WithPolling(interval).Should(Succeed())
		gatedAt := time.Now()
		By("worker-b's model server recovers; held out, it gets no request to show it")
		failShare(0, "worker-b")

		By("after the ejection time worker-b comes back at a share of its weight, rising to the whole of it")
		var shares []int32
		Eventually(func(g Gomega) {
			e := passiveRecords(ctx, g)
			b := e["worker-b"]
			g.Expect(b.PassiveGate).NotTo(BeNil())
			g.Expect(b.PassiveGate.Gated).To(BeFalse(), "worker-b's record: %+v", b.PassiveGate)
			if pct := b.PassiveGate.RampPercent; pct > 0 && (len(shares) == 0 || shares[len(shares)-1] != pct) {
				// While it ramps, it takes less than its full share against worker-a's.
				g.Expect(b.WeightReason).To(Equal(omev1beta1.WeightRampingUp))
				g.Expect(b.WeightMessage).To(HavePrefix(fmt.Sprintf("ramping back up after its passive gate lifted: %d%% of the weight of", pct)))
				g.Expect(b.Weight*3).To(BeNumerically("<", e["worker-a"].Weight*2), "worker-b at %d%%: %d against worker-a's %d", pct, b.Weight, e["worker-a"].Weight)
				shares = append(shares, pct)
			}
			g.Expect(b.PassiveGate.RampPercent).To(BeZero(), "the ramp is not over")
			g.Expect(b.WeightReason).To(Equal(omev1beta1.WeightRouted))
		}).WithTimeout(detectionBound + 20*time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		AddReportEntry("worker-b's ramp after its passive lift", fmt.Sprintf("%v, over in %s", shares, time.Since(gatedAt).Round(time.Second)))
		Expect(shares).NotTo(BeEmpty(), "the lift went through the ramp")
		for i := 1; i < len(shares); i++ {
			Expect(shares[i]).To(BeNumerically(">", shares[i-1]), "the share only rises: %v", shares)
		}
		// The load still runs, so the servers' counts are more than one batch: awaitRouting
		// checks haproxy's split by the weights, worker-b's share included.
		awaitRouting(ctx, all)
		t, got := send(ctx, rampBatch)
		Expect(t.Failed()).To(BeZero(), "requests that failed through the gateway: %s", t)
		Expect(got["worker-b"]).To(BeNumerically(">", 0), "real requests reach worker-b again: %v", got)
	})

	It("never holds out more than maxEjectionPercent of the capacity: the second failing cluster stays in traffic and says so", func(ctx context.Context) {
		load := env.Traffic.StartLoad(ctx, loadRate, loadRate*600)
		DeferCleanup(load.Stop)
		// worker-b (2 of 6 replicas) and worker-c (1 of 6) fail a third of their requests;
		// a 40% cap holds out either one, not both (3 of 6 is 50%).
		failShare(3, "worker-b", "worker-c")
		setProbe(ctx, passiveProbe(omev1beta1.ProbeModeEnforce, 40))
		var gated, capped string
		Eventually(func(g Gomega) {
			e := passiveRecords(ctx, g)
			gated, capped = "", ""
			for _, c := range []string{"worker-b", "worker-c"} {
				pg := e[c].PassiveGate
				g.Expect(pg).NotTo(BeNil(), c)
				switch {
				case pg.Gated:
					gated = c
				case pg.Capped:
					capped = c
				}
			}
			g.Expect(gated).NotTo(BeEmpty(), "one cluster is held out: %+v", e)
			g.Expect(capped).NotTo(BeEmpty(), "the other is left in traffic by the cap: %+v", e)
			g.Expect(e[gated].Weight).To(BeZero())
			g.Expect(e[capped].Weight).To(BeNumerically(">", 0))
			g.Expect(e[capped].WeightReason).To(Equal(omev1beta1.WeightPassiveGateCapped))
			g.Expect(e[capped].WeightMessage).To(ContainSubstring("maxEjectionPercent is 40: left in traffic"))
		}).WithTimeout(detectionBound).WithPolling(interval).Should(Succeed())
		AddReportEntry("held out, left in traffic by the cap", gated+", "+capped)
		Consistently(func(g Gomega) {
			e := passiveRecords(ctx, g)
			g.Expect(e[gated].PassiveGate.Gated && e[capped].PassiveGate.Gated).To(BeFalse(), "both held out: %+v", e)
		}).WithTimeout(dataplane.SignalTiming.Window).WithPolling(interval).Should(Succeed())
	})
})
