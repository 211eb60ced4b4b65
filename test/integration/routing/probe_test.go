package routing

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/test/framework"
)

var _ = Describe("The routing probe", func() {
	It("reports both clusters passing", func(ctx context.Context) {
		s := newProbedService(ctx, "both-pass", nil, both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 1 true Passing HTTP 200",
		}))
		Expect(s.routable(Default).Reason).To(Equal(string(omev1beta1.TrafficMapReasonRoutable)))
		// The probe goes to the copy's status.url joined with the probe path, with the
		// probe's method; the endpoints answer 404 anywhere else.
		for _, w := range []string{"worker-a", "worker-b"} {
			Expect(s.endpoints[w].Seen()).To(And(Not(BeEmpty()), HaveEach("GET "+modelserver.ProbePath)), w)
		}
	})

	It("gates a cluster after exactly failureThreshold failures and lifts it after successThreshold passes", func(ctx context.Context) {
		s := newProbedService(ctx, "gate", nil, both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		Eventually(func(g Gomega) { g.Expect(s.entry(g, "worker-b").Probe).NotTo(BeNil()) }, timeout, interval).Should(Succeed())
		// Every version of the map is read through a watch, so a busy machine cannot make
		// the spec miss a step that lasts one period.
		versions := watchMap(ctx, s.key)
		s.set("worker-b", modelserver.Unavailable)

		// Watch the failures climb until the gate closes. Which counts get a version of
		// their own is the operator's to coalesce (two failures, or the gating failure and
		// the next, may be written in one version), so the spec waits for a gated version,
		// not for a count, and on the watch rather than the cache, so that the versions
		// read below include it.
		Eventually(func() bool {
			return slices.ContainsFunc(versions(), func(v mapVersion) bool { p := workerBProbe(v); return p != nil && p.Gated })
		}, timeout, interval/2).Should(BeTrue(), "no version of the map showed worker-b gated")
		// What the versions prove whatever the operator coalesces: no version shows a
		// gate below failureThreshold, none an open gate at or past it, and the count
		// never goes back while worker-b fails.
		last := int32(0)
		for _, v := range versions() {
			p := workerBProbe(v)
			if p == nil || p.Result != omev1beta1.ProbeFailing {
				continue
			}
			Expect(p.Gated).To(Equal(p.ConsecutiveFailures >= 3), "gated exactly from failureThreshold on, at %d failure(s)", p.ConsecutiveFailures)
			Expect(p.ConsecutiveFailures).To(BeNumerically(">=", last), "the failure count went back")
			last = p.ConsecutiveFailures
		}
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 0 false Failing HTTP 503",
		}))
		Eventually(func(g Gomega) []string { return s.events(g, "HomeGated") }, timeout, interval).Should(
			ContainElement(ContainSubstring("Cluster worker-b gated")))
		Eventually(s.counts).WithTimeout(timeout).WithPolling(interval).Should(Equal([2]int32{2, 1}),
			"status.homes and status.gatedHomes, for kubectl get trafficmap -o wide")

		// One pass leaves the gate closed; the second in a row lifts it. The map may write
		// the first pass together with the second, so the proof is the endpoint's own
		// record: the first version that shows the gate lifted was seen after worker-b had
		// answered two probes with 200 (a lift on the first pass would show a period early).
		var mu sync.Mutex
		var passes []time.Time
		s.endpoints["worker-b"].OnAnswer(func(a modelserver.Answer) {
			if a.Request.URL.Path == modelserver.ProbePath && a.Status == http.StatusOK {
				mu.Lock()
				passes = append(passes, a.At)
				mu.Unlock()
			}
		})
		DeferCleanup(func() { s.endpoints["worker-b"].OnAnswer(nil) })
		s.set("worker-b", modelserver.Serve)
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 1 true Passing HTTP 200",
		}))
		gatedOnce := false
		for _, v := range versions() {
			p := workerBProbe(v)
			if p == nil {
				continue
			}
			if p.Gated {
				gatedOnce = true
				continue
			}
			if gatedOnce && p.Result == omev1beta1.ProbePassing {
				mu.Lock()
				Expect(len(passes)).To(BeNumerically(">=", 2), "the gate lifted before two passes were answered")
				Expect(v.seen).To(BeTemporally(">", passes[1]), "one pass must not lift the gate")
				mu.Unlock()
				break
			}
		}
		Expect(gatedOnce).To(BeTrue())
		Expect(s.entry(Default, "worker-b").Probe.ConsecutiveFailures).To(BeZero())
		Eventually(func(g Gomega) []string { return s.events(g, "HomeUngated") }, timeout, interval).ShouldNot(BeEmpty())
		Eventually(s.counts).WithTimeout(timeout).WithPolling(interval).Should(Equal([2]int32{2, 0}))
	})

	It("keeps a redirect Unknown and never gates on it", func(ctx context.Context) {
		s := newProbedService(ctx, "redirect", nil, both(1))
		s.set("worker-b", modelserver.Redirect)
		Eventually(func(g Gomega) {
			p := s.entry(g, "worker-b").Probe
			g.Expect(p).NotTo(BeNil())
			g.Expect(p.Result).To(Equal(omev1beta1.ProbeUnknown))
			g.Expect(p.Message).To(Equal("HTTP 301 (not in accept or gate list)"))
		}, timeout, interval).Should(Succeed())
		Consistently(func(g Gomega) {
			e := s.entry(g, "worker-b")
			g.Expect(e.Probe.Gated).To(BeFalse())
			g.Expect(e.Probe.ConsecutiveFailures).To(BeZero())
			g.Expect(e.Weight).To(Equal(int32(1)))
		}, 4*period, interval).Should(Succeed())
	})

	It("preserves traffic when every cluster is gated under PreserveTraffic", func(ctx context.Context) {
		s := newProbedService(ctx, "preserve", nil, map[string]int32{"worker-a": 4, "worker-b": 2})
		s.set("worker-a", modelserver.Unavailable)
		s.set("worker-b", modelserver.Refuse)
		Eventually(func(g Gomega) {
			c := s.routable(g)
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(c.Reason).To(Equal(string(omev1beta1.TrafficMapReasonAllHomesProbeFailed)))
			g.Expect(c.Message).To(Equal("2 home(s) have conclusive probe failures; preserving traffic among homes with ready capacity"))
		}, timeout, interval).Should(Succeed())
		tm := s.trafficMap(Default)
		Expect(tm.Spec.Entries).To(HaveLen(2))
		for _, e := range tm.Spec.Entries {
			Expect(e.Healthy).To(BeFalse())
			Expect(e.Probe.Gated).To(BeTrue())
		}
		Expect(tm.Spec.Entries[0].Weight).To(Equal(int32(2)), "weights as without a probe")
		Expect(tm.Spec.Entries[1].Weight).To(Equal(int32(1)))
		Expect(tm.Spec.Entries[1].Probe.Message).To(HavePrefix("transport error: "))
		Eventually(func(g Gomega) []string { return s.events(g, "AllHomesProbeFailed") }, timeout, interval).Should(
			ContainElement(ContainSubstring("PreserveTraffic")))
	})

	It("drains when every cluster is gated under Drain", func(ctx context.Context) {
		s := newProbedService(ctx, "drain", withProbe(framework.GuideProbe(period, 500*time.Millisecond, omev1beta1.AllFailedDrain)), both(1))
		s.set("worker-a", modelserver.Unavailable)
		s.set("worker-b", modelserver.Hang)
		Eventually(func(g Gomega) {
			c := s.routable(g)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(string(omev1beta1.TrafficMapReasonAllHomesProbeFailed)))
			g.Expect(c.Message).To(Equal("2 home(s) have conclusive probe failures; all route weights are zero"))
		}, timeout, interval).Should(Succeed())
		Expect(s.table(Default)).To(ConsistOf(
			"worker-a 0 false Failing HTTP 503",
			HavePrefix("worker-b 0 false Failing transport error: "),
		))
		Expect(s.events(Default, "AllHomesProbeFailed")).To(ContainElement(ContainSubstring("Drain")))
	})
})

// workerBProbe is worker-b's probe record in a version of the map, nil when it has none.
func workerBProbe(v mapVersion) *omev1beta1.TrafficMapProbe {
	for _, e := range v.tm.Spec.Entries {
		if e.Cluster == "worker-b" {
			return e.Probe
		}
	}
	return nil
}
