package dataplane

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/common/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/test/dataplane"
)

// Load balancing through the data plane: the stand-in model servers keep real queues, a
// real Prometheus scrapes their vLLM metrics, the manager reads them with the shipped vLLM
// queries, and haproxy sends real requests by the weights that follow.
var _ = Describe("Weights that follow the model servers' load, applied by haproxy", func() {
	all := map[string]int32{"worker-a": 3, "worker-b": 2, "worker-c": 1}
	// One slot busy 50ms a request: three background clients keep it full and two waiting.
	busy := modelserver.Queue{Slots: 1, ServiceTime: 50 * time.Millisecond}
	idle := modelserver.Queue{Slots: 8, ServiceTime: 50 * time.Millisecond}
	var background []*modelserver.Background

	BeforeEach(func(ctx context.Context) {
		if env.Prometheus == nil {
			Skip("no Prometheus on this machine: the load is read through the traffic signal")
		}
		background = nil
		DeferCleanup(func(ctx context.Context) {
			for _, b := range background {
				b.Stop()
			}
			for _, w := range workers {
				Expect(env.Servers.SetQueue(w, modelserver.Queue{})).To(Succeed())
				env.Servers.Endpoints[w].BreakMetrics(0)
			}
			updateService(ctx, func(isvc *omev1beta1.InferenceService) {
				isvc.Spec.Routing.LoadBalancing, isvc.Spec.Routing.Failover = nil, nil
			})
			expectRouting(ctx, all)
		})
		expectRouting(ctx, all)
	})

	// saturate gives every cluster a queue, and keeps the named ones' full.
	saturate := func(clusters ...string) {
		GinkgoHelper()
		for _, w := range workers {
			q := idle
			if slices.Contains(clusters, w) {
				q = busy
			}
			Expect(env.Servers.SetQueue(w, q)).To(Succeed())
		}
		for _, w := range clusters {
			background = append(background, env.Servers.Endpoints[w].StartBackground(3))
		}
	}

	It("records the weights in Shadow and moves nothing, then moves real requests off the saturated cluster in Enforce", func(ctx context.Context) {
		saturate("worker-c")
		setLoad(ctx, omev1beta1.LoadBalancingShadow)

		By("Shadow: worker-c's share falls to the floor in the record, and the route keeps capacity's weights")
		Eventually(func(g Gomega) {
			loads := loadRecords(ctx, g)
			g.Expect(loads["worker-c"].SharePercent).To(Equal(int32(10)), "worker-c: %s", loads["worker-c"].Message)
			g.Expect(shadowWeights(loads)).To(Equal(map[string]int32{"worker-a": 30, "worker-b": 20, "worker-c": 1}))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		tm, err := env.TrafficMap(ctx)
		Expect(err).NotTo(HaveOccurred())
		c := entryOf(tm, "worker-c")
		Expect(c.WeightReason).To(Equal(omev1beta1.WeightRouted))
		Expect(c.WeightMessage).To(HaveSuffix("; Shadow load balancing would give it 10% of that, weight 1, and moves nothing"))
		Expect(c.Load.Message).To(HavePrefix("saturated (cache 100% of 80%: 125%)"))
		expectRouting(ctx, all)

		By("Enforce: the shares carry over, and haproxy sends worker-c a tenth of its capacity's share")
		setLoad(ctx, omev1beta1.LoadBalancingEnforce)
		expectRouting(ctx, map[string]int32{"worker-a": 30, "worker-b": 20, "worker-c": 1})
		tm, err = env.TrafficMap(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(entryOf(tm, "worker-c").WeightReason).To(Equal(omev1beta1.WeightLoadShifted))
	})

	It("moves nothing on a reading it cannot use: the clusters whose metrics fail are no headroom", func(ctx context.Context) {
		saturate("worker-c")
		for _, w := range []string{"worker-a", "worker-b"} {
			env.Servers.Endpoints[w].BreakMetrics(http.StatusInternalServerError)
		}
		// The load queries read a window: until the last good scrape has left it, worker-a
		// and worker-b would still read as idle.
		gone := fmt.Sprintf(`count_over_time(%s{cluster=~"worker-a|worker-b"}[%s])`,
			modelserver.MetricCacheUsage, model.Duration(dataplane.SignalTiming.Window))
		Eventually(func(g Gomega) {
			v, err := env.Prometheus.Query(ctx, gone)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(v).To(BeEmpty(), "samples of worker-a and worker-b's cache use are still in the window")
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		setLoad(ctx, omev1beta1.LoadBalancingEnforce)
		Eventually(func(g Gomega) {
			loads := loadRecords(ctx, g)
			for _, w := range []string{"worker-a", "worker-b"} {
				g.Expect(loads[w].Signal).To(Equal(omev1beta1.TrafficSignalUnknown), "%s: %s", w, loads[w].Message)
				g.Expect(loads[w].Message).To(ContainSubstring("the query gave no sample"))
			}
			g.Expect(loads["worker-c"].Message).To(HaveSuffix("no other cluster is below its target: holds at 100%"))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		// Several minIntervals: a share that could move would have.
		Consistently(routeWeights(ctx)).WithTimeout(3 * loadMinInterval).WithPolling(interval).Should(Equal(all))
		expectRouting(ctx, all)
	})

	It("spills to the next tier while the preferred one is saturated, step by step, and gives the traffic back once it has headroom", func(ctx context.Context) {
		updateService(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing.Failover = &omev1beta1.RoutingFailover{Tiers: []omev1beta1.FailoverTier{
				{Name: "near", Clusters: []string{"worker-a"}},
				{Name: "far", Clusters: []string{"worker-b", "worker-c"}},
			}}
		})
		standby := map[string]int32{"worker-a": 1, "worker-b": 0, "worker-c": 0}
		expectRouting(ctx, standby)

		By("worker-a saturates: near spills to far, a step each minInterval, down to the floor")
		saturate("worker-a")
		setLoad(ctx, omev1beta1.LoadBalancingEnforce)
		var near []int32 // near's load in percent, as it changes
		// The map's weights once near is at the floor: the route follows them a moment
		// later (the publisher writes it after the map), so they, not the route read now,
		// are what haproxy must come to.
		spilled := map[string]int32{}
		Eventually(func(g Gomega) {
			tm, err := env.TrafficMap(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(tm.Spec.Failover).NotTo(BeNil())
			if load := tm.Spec.Failover.Tiers[0].LoadPercent; len(near) == 0 || near[len(near)-1] != load {
				near = append(near, load)
			}
			g.Expect(tm.Spec.Failover.Summary).To(Equal("near 14%, far 86%"))
			for _, e := range tm.Spec.Entries {
				spilled[e.Cluster] = e.Weight
			}
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		AddReportEntry("near's load while it saturates", fmt.Sprint(near))
		Expect(near).To(ContainElement(SatisfyAll(BeNumerically(">", 14), BeNumerically("<", 100))),
			"the spill goes in steps: near's load %v", near)
		for i := 1; i < len(near); i++ {
			Expect(near[i]).To(BeNumerically("<", near[i-1]), "near's load only falls: %v", near)
		}
		Expect(spilled["worker-b"]).To(BeNumerically(">", 0), "the map: %v", spilled)
		expectRouting(ctx, spilled)

		By("the load ends: near takes its traffic back")
		for _, b := range background {
			b.Stop()
		}
		background = nil
		// Without a queue: the batches that check haproxy's split would fill worker-a's
		// slots (eight, for 50ms each) and saturate it again.
		Expect(env.Servers.SetQueue("worker-a", modelserver.Queue{})).To(Succeed())
		// worker-a climbs back in half steps; the route is standby's from about 72% on (its
		// health over the overprovisioning), and haproxy is checked once the share is whole,
		// so that it is not caught between two of the last route changes.
		Eventually(func(g Gomega) {
			a := loadRecords(ctx, g)["worker-a"]
			g.Expect(a.SharePercent).To(Equal(int32(100)), "worker-a: %s", a.Message)
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		expectRouting(ctx, standby)
	})
})

// loadMinInterval is the specs' minInterval: twice the fixture's signal interval.
var loadMinInterval = 2 * dataplane.SignalTiming.Interval

// setLoad sets the service's load balancing: the mode, a KV-cache target of 80%, and a
// minInterval of two signal intervals; the step, band and floor are the defaults (25, 20
// and 10 points).
func setLoad(ctx context.Context, mode omev1beta1.LoadBalancingMode) {
	GinkgoHelper()
	updateService(ctx, func(isvc *omev1beta1.InferenceService) {
		isvc.Spec.Routing.LoadBalancing = &omev1beta1.RoutingLoadBalancing{Mode: mode, CacheUsePercent: ptr.To[int32](80),
			MinInterval: &metav1.Duration{Duration: loadMinInterval}}
	})
}

// loadRecords are the map's load records by cluster; every worker must have one.
func loadRecords(ctx context.Context, g Gomega) map[string]omev1beta1.TrafficMapLoad {
	tm, err := env.TrafficMap(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	out := map[string]omev1beta1.TrafficMapLoad{}
	for _, e := range tm.Spec.Entries {
		g.Expect(e.Load).NotTo(BeNil(), "%s has no load record", e.Cluster)
		out[e.Cluster] = *e.Load
	}
	g.Expect(out).To(HaveLen(len(workers)))
	return out
}

func shadowWeights(loads map[string]omev1beta1.TrafficMapLoad) map[string]int32 {
	out := map[string]int32{}
	for c, l := range loads {
		out[c] = ptr.Deref(l.ShadowWeight, -1)
	}
	return out
}

func entryOf(tm *omev1beta1.TrafficMap, cluster string) omev1beta1.TrafficMapEntry {
	GinkgoHelper()
	for _, e := range tm.Spec.Entries {
		if e.Cluster == cluster {
			return e
		}
	}
	Fail(fmt.Sprintf("no entry for %s in %s", cluster, strings.Join(clustersOf(tm), ", ")))
	return omev1beta1.TrafficMapEntry{}
}

func clustersOf(tm *omev1beta1.TrafficMap) []string {
	var out []string
	for _, e := range tm.Spec.Entries {
		out = append(out, e.Cluster)
	}
	return out
}
