package routing

import (
	"context"
	"fmt"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
)

// capacitySpec is a per-service capacity poll on the framework's report path, polled
// every second with a quorum of two.
func capacitySpec() *omev1beta1.RoutingCapacitySpec {
	return &omev1beta1.RoutingCapacitySpec{
		Path: modelserver.ReportPath, Method: omev1beta1.ProbeMethodGet, Format: "Report",
		Period:  &metav1.Duration{Duration: period},
		Timeout: &metav1.Duration{Duration: 500 * time.Millisecond},
		Samples: ptr.To[int32](3), Quorum: ptr.To[int32](2),
		MaxAge: &metav1.Duration{Duration: 3 * period},
	}
}

// capacityOf is an entry's weight and capacity block, one line: cluster, weight,
// allocated, ready, source, reported ("-" when absent) and fallbackReason.
func (s *probedService) capacityOf(g Gomega, cluster string) string {
	e := s.entry(g, cluster)
	reported := "-"
	if e.Capacity.Reported != nil {
		reported = fmt.Sprint(*e.Capacity.Reported)
	}
	line := fmt.Sprintf("%s weight=%d allocated=%d ready=%d source=%s reported=%s",
		cluster, e.Weight, e.Capacity.Allocated, e.Capacity.Ready, e.Capacity.Source, reported)
	if e.Capacity.FallbackReason != "" {
		line += " fallback=" + e.Capacity.FallbackReason
	}
	return line
}

// fallback is the map's CapacityFallback condition: status, reason and message.
func (s *probedService) fallback(g Gomega) []string {
	c := meta.FindStatusCondition(s.trafficMap(g).Status.Conditions, omev1beta1.TrafficMapCapacityFallback)
	g.Expect(c).NotTo(BeNil())
	return []string{string(c.Status), c.Reason, c.Message}
}

var _ = Describe("Capacity polls", func() {
	It("cap a cluster at what its endpoint reports, come back after quorum polls, and fall back when the poll breaks", func(ctx context.Context) {
		s := newProbedService(ctx, "capacity", &omev1beta1.Routing{Capacity: capacitySpec()}, both(1))
		s.endpoints["worker-a"].SetServable(1)
		s.endpoints["worker-b"].SetServable(1)
		Eventually(s.fallback).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"False", "EndpointCapacityAvailable", "endpoint capacity is available for all 2 home(s)",
		}))
		Expect(s.capacityOf(Default, "worker-b")).To(Equal("worker-b weight=1 allocated=1 ready=1 source=ControlPlane reported=1"))

		By("worker-b reports servable 0 while its copy says 1 ready replica")
		s.endpoints["worker-b"].SetServable(0)
		Eventually(s.capacityOf).WithArguments("worker-b").WithTimeout(timeout).WithPolling(interval).Should(
			Equal("worker-b weight=0 allocated=0 ready=1 source=Endpoint reported=0"))
		Expect(s.capacityOf(Default, "worker-a")).To(Equal("worker-a weight=1 allocated=1 ready=1 source=ControlPlane reported=1"))
		Expect(s.entry(Default, "worker-b").Healthy).To(BeTrue(), "healthy ignores capacity")
		Expect(s.routable(Default).Reason).To(Equal(string(omev1beta1.TrafficMapReasonRoutable)))

		By("worker-b reports 1 again: one good poll is not enough with quorum 2")
		s.endpoints["worker-b"].SetServable(1)
		seenZeroAfterOne := false
		Eventually(func(g Gomega) {
			line := s.capacityOf(g, "worker-b")
			if line == "worker-b weight=0 allocated=0 ready=1 source=Endpoint reported=0" {
				seenZeroAfterOne = true
			}
			g.Expect(line).To(Equal("worker-b weight=1 allocated=1 ready=1 source=ControlPlane reported=1"))
		}, timeout, interval/2).Should(Succeed())
		Expect(seenZeroAfterOne).To(BeTrue())

		By("worker-b's poll endpoint breaks while it reports 0")
		s.endpoints["worker-b"].SetServable(0)
		Eventually(s.capacityOf).WithArguments("worker-b").WithTimeout(timeout).WithPolling(interval).Should(
			Equal("worker-b weight=0 allocated=0 ready=1 source=Endpoint reported=0"))
		s.endpoints["worker-b"].BreakReport(http.StatusInternalServerError)
		Eventually(s.capacityOf).WithArguments("worker-b").WithTimeout(timeout).WithPolling(interval).Should(
			Equal("worker-b weight=1 allocated=1 ready=1 source=ControlPlane reported=- fallback=capacity endpoint returned HTTP 500"))
		// The condition is in the status, written right after the spec that shows the fallback.
		Eventually(s.fallback).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"True", "EndpointCapacityUnavailable",
			"1 of 2 home(s) are using control-plane capacity; inspect spec.entries[].capacity.fallbackReason",
		}))
	})

	It("start over after a restart: the admitted count until quorum polls agree again", func(ctx context.Context) {
		s := newProbedService(ctx, "capacity-restart", &omev1beta1.Routing{Capacity: capacitySpec()}, both(1))
		s.endpoints["worker-a"].SetServable(1)
		s.endpoints["worker-b"].SetServable(0)
		Eventually(s.capacityOf).WithArguments("worker-b").WithTimeout(timeout).WithPolling(interval).Should(
			Equal("worker-b weight=0 allocated=0 ready=1 source=Endpoint reported=0"))

		// Windows live in memory: the new leader starts with none, says so, and caps again
		// once quorum polls agree.
		restartManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16)
		Eventually(func(g Gomega) string { return s.entry(g, "worker-b").Capacity.FallbackReason }).
			WithTimeout(timeout).WithPolling(interval / 4).Should(Or(
			Equal("no capacity report yet"),
			Equal("capacity report awaiting quorum (1/2 accepted samples)")))
		Eventually(s.capacityOf).WithArguments("worker-b").WithTimeout(timeout).WithPolling(interval).Should(
			Equal("worker-b weight=0 allocated=0 ready=1 source=Endpoint reported=0"))
	})

	It("say so when polling is disabled, and poll nothing", func(ctx context.Context) {
		s := newProbedService(ctx, "capacity-off", &omev1beta1.Routing{Capacity: &omev1beta1.RoutingCapacitySpec{Disabled: true}}, both(1))
		s.endpoints["worker-b"].SetServable(0)
		Eventually(s.fallback).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"False", "CapacityPollingDisabled", "endpoint capacity polling is disabled",
		}))
		Consistently(func(g Gomega) {
			g.Expect(s.capacityOf(g, "worker-b")).To(Equal("worker-b weight=1 allocated=1 ready=1 source=ControlPlane reported=-"))
		}, 3*period, interval).Should(Succeed())
	})

	It("freeze the map when a setting is refused at reconcile time", func(ctx context.Context) {
		s := newProbedService(ctx, "capacity-freeze", nil, both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			c := capacitySpec()
			c.Quorum, c.MaxAge = ptr.To[int32](3), &metav1.Duration{Duration: 2 * period}
			isvc.Spec.Routing = &omev1beta1.Routing{Capacity: c}
		})
		const msg = "validate routing policy: spec.routing.capacity.maxAge (2s) must span at least quorum (3) period intervals"
		Eventually(managerLog, timeout, interval).Should(gbytesSay(msg))
		Eventually(func(g Gomega) []string { return s.events(g, "RoutingPolicyRefused") }, timeout, interval).Should(ContainElement(msg))
		frozen := s.trafficMap(Default)
		s.set("worker-b", modelserver.Unavailable)
		Consistently(func(g Gomega) {
			g.Expect(s.trafficMap(g).ResourceVersion).To(Equal(frozen.ResourceVersion), "the map must not change")
		}, 3*period, interval).Should(Succeed())
	})
})
