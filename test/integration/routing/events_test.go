package routing

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/routing"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/eventseries"
	"github.com/ome-routing/operator/test/framework"
)

var _ = Describe("Events", func() {
	It("are cut to the API's 1024-byte note limit instead of being lost", func(ctx context.Context) {
		// A long probe path makes the transport error, and so the probe message, as long
		// as a message may be; the HomeGated event adds its own words in front.
		p := framework.GuideProbe(period, 500*time.Millisecond, omev1beta1.AllFailedPreserveTraffic)
		p.Path = "/" + strings.Repeat("long-path/", 150)
		s := newProbedService(ctx, "verbose-event", withProbe(p), both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		s.set("worker-b", modelserver.Refuse)

		Eventually(func(g Gomega) []string { return s.events(g, routing.EventHomeGated) }, timeout, interval).Should(
			ContainElement(HavePrefix("Cluster worker-b gated after 3 probe failures in a row: transport error: Get ")))
		for _, note := range s.events(Default, routing.EventHomeGated) {
			Expect(len(note)).To(BeNumerically("<=", 1024))
			Expect(utf8.ValidString(note)).To(BeTrue())
		}
		Expect(len(s.entry(Default, "worker-b").Probe.Message)).To(BeNumerically(">", 1000), "the probe message itself is long")
	})
})

// The events API as `kubectl get events` reads it: each gate, lift and refusal is shown
// with the cause of that occurrence, not the first one of its kind (client-go's recorder
// keyed a series without the note, so a home gated with 503, 404 and 502 read "HomeGated
// (x2) ... HTTP 503").
var _ = Describe("Events of one home", func() {
	It("carry each gate's own cause, on the service and on its map", func(ctx context.Context) {
		p := framework.GuideProbe(period, 500*time.Millisecond, omev1beta1.AllFailedPreserveTraffic)
		// worker-b, not worker-c: the suite stops worker-c's API server for good (fleet_test.go).
		s := newProbedService(ctx, "three-causes", withProbe(p), both(1))
		healthy := []string{"worker-a 1 true Passing HTTP 200", "worker-b 1 true Passing HTTP 200"}
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal(healthy))

		causes := []modelserver.Mode{modelserver.Unavailable, modelserver.NotFound, modelserver.BadGateway}
		var want []any
		for _, mode := range causes {
			By("gating worker-b with HTTP " + string(mode) + ", then letting it recover")
			s.set("worker-b", mode)
			Eventually(func(g Gomega) {
				e := s.entry(g, "worker-b")
				g.Expect(e.Probe).NotTo(BeNil())
				g.Expect(e.Probe.Gated).To(BeTrue())
			}, timeout, interval).Should(Succeed())
			s.set("worker-b", modelserver.Serve)
			Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal(healthy))
			want = append(want, MatchRegexp(`^Cluster worker-b gated after \d+ probe failures in a row: HTTP %s$`, mode))
		}

		for _, kind := range []string{"InferenceService", "TrafficMap"} {
			Eventually(func(g Gomega) []string { return s.eventsOn(g, kind, routing.EventHomeGated) }, timeout, interval).Should(
				ConsistOf(want...), "the %s's HomeGated events", kind)
			Expect(s.kubectlEvents(kind, routing.EventHomeGated)).To(ConsistOf(want...), "kubectl get events on the %s", kind)
			// The newest gate reads newest, in `kubectl events` too.
			Expect(s.currentNote(Default, kind, routing.EventHomeGated)).To(HaveSuffix(": HTTP 502"))
			Expect(s.kubectlLastNote(kind, routing.EventHomeGated)).To(HaveSuffix(": HTTP 502"))
			// Three identical lifts are one Event counted three times: its count is
			// written within the recorder's write gap, not when the series ends.
			Eventually(func(g Gomega) []int32 { return s.eventCounts(g, kind, routing.EventHomeUngated) }).
				WithTimeout(timeout+eventseries.DefaultLimits.WriteGap).WithPolling(interval).Should(Equal([]int32{3}),
				"the %s's HomeUngated events", kind)
		}
	})

	It("name the refusal in force, not one fixed before it", func(ctx context.Context) {
		s := newProbedService(ctx, "refusal-causes", nil, both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))

		By("refusing a probe period under the installation's minimum, then fixing it")
		const periodRefusal = "resolve probe policy: spec.routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)"
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing = withProbe(framework.GuideProbe(500*time.Millisecond, 100*time.Millisecond, omev1beta1.AllFailedPreserveTraffic))
		})
		for _, kind := range []string{"InferenceService", "TrafficMap"} {
			Eventually(func(g Gomega) string { return s.currentNote(g, kind, routing.EventRoutingPolicyRefused) }, timeout, interval).
				Should(Equal(periodRefusal), "the %s's refusal", kind)
		}
		s.update(ctx, func(isvc *omev1beta1.InferenceService) { isvc.Spec.Routing = nil })
		Eventually(func(g Gomega) metav1.ConditionStatus {
			return s.condition(g, omev1beta1.TrafficMapSettingsAccepted).Status
		}, timeout, interval).
			Should(Equal(metav1.ConditionTrue))

		By("refusing a malformed drain annotation")
		const drainRefusal = `parse ome.io/traffic-drain: override "maintenance-a" reason must be non-empty`
		s.annotate(ctx, ptrTo(`{"maintenance-a":{"cluster":"worker-a"}}`))
		for _, kind := range []string{"InferenceService", "TrafficMap"} {
			Eventually(func(g Gomega) string { return s.currentNote(g, kind, routing.EventRoutingPolicyRefused) }, timeout, interval).
				Should(Equal(drainRefusal), "the %s's refusal in force", kind)
			Expect(s.kubectlEvents(kind, routing.EventRoutingPolicyRefused)).To(ConsistOf(periodRefusal, drainRefusal),
				"kubectl get events on the %s", kind)
			Expect(s.kubectlLastNote(kind, routing.EventRoutingPolicyRefused)).To(Equal(drainRefusal),
				"the last refusal kubectl events lists on the %s", kind)
		}
	})
})

// kubectlEvents are the messages `kubectl get events` prints for the events with the
// given reason on the object of the given kind that has the service's name.
func (s *probedService) kubectlEvents(kind, reason string) []string {
	out := kubectl("get", "events", "-n", s.key.Namespace, "--no-headers", "-o", "custom-columns=MESSAGE:.message",
		"--field-selector", "involvedObject.kind="+kind+",involvedObject.name="+s.key.Name+",reason="+reason)
	return strings.Split(strings.TrimRight(out, "\n"), "\n")
}

// kubectlLastNote is the message of the last event with the given reason that `kubectl
// events --for` lists for the object of the given kind with the service's name: it lists
// them oldest first, by their latest occurrence. (It aligns tabs into spaces: the reason
// and the message are split at " | ", which no reason holds.)
func (s *probedService) kubectlLastNote(kind, reason string) string {
	out := kubectl("events", "-n", s.key.Namespace, "--for", strings.ToLower(kind)+"/"+s.key.Name,
		"-o", `jsonpath={range .items[*]}{.reason}{" | "}{.message}{"\n"}{end}`)
	last := ""
	for _, line := range strings.Split(out, "\n") {
		if r, message, ok := strings.Cut(line, " | "); ok && r == reason {
			last = message
		}
	}
	return last
}

// eventsV1 are the events.k8s.io Events with the given reason on the object of the given
// kind that has the service's name.
func (s *probedService) eventsV1(g Gomega, kind, reason string) []eventsv1.Event {
	list := &eventsv1.EventList{}
	g.Expect(fleet.ControlPlane.Client.List(context.Background(), list, client.InNamespace(s.key.Namespace))).To(Succeed())
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.Kind == kind && e.Regarding.Name == s.key.Name && e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// eventCounts are the occurrences each of those Events counts.
func (s *probedService) eventCounts(g Gomega, kind, reason string) []int32 {
	var out []int32
	for _, e := range s.eventsV1(g, kind, reason) {
		out = append(out, seriesCount(e))
	}
	return out
}

// currentNote is the note of the one of those Events seen last: what `kubectl describe`
// and `kubectl get events --sort-by` put at the bottom.
func (s *probedService) currentNote(g Gomega, kind, reason string) string {
	list := s.eventsV1(g, kind, reason)
	g.Expect(list).NotTo(BeEmpty(), "no %s event on the %s", reason, kind)
	latest := list[0]
	for _, e := range list[1:] {
		if lastSeen(e).After(lastSeen(latest)) {
			latest = e
		}
	}
	return latest.Note
}

// lastSeen is an Event's latest occurrence.
func lastSeen(e eventsv1.Event) time.Time {
	if e.Series != nil {
		return e.Series.LastObservedTime.Time
	}
	return e.EventTime.Time
}

// seriesCount is how many occurrences an Event counts.
func seriesCount(e eventsv1.Event) int32 {
	if e.Series != nil {
		return e.Series.Count
	}
	return 1
}
