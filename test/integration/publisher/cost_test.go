package publisher

import (
	"context"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/routing"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/test/framework"
)

// publishedKinds are the resources the publisher writes for a map.
var publishedKinds = []string{"httproutes", "services", "backends", "backendtlspolicies", "backendtrafficpolicies"}

// toPublished says whether a recorded request went to one of the objects the publisher
// writes in namespace, with any verb but a watch.
func toPublished(namespace string) func(framework.Request) bool {
	return func(r framework.Request) bool {
		return r.Namespace == namespace && slices.Contains(publishedKinds, r.Resource)
	}
}

// publisherStatusWrite says whether a recorded request is the publisher's status write of
// a map in namespace.
func publisherStatusWrite(namespace string) func(framework.Request) bool {
	return func(r framework.Request) bool {
		return r.Verb == "PATCH" && r.Resource == "trafficmaps/status" && r.Namespace == namespace &&
			r.FieldManager == "ome-trafficmap-publisher"
	}
}

// settled waits until the service's map is published at its current generation, with
// both weights 1, and returns that generation.
func (s *service) settled(ctx context.Context) int64 {
	var generation int64
	Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
	Eventually(func(g Gomega) {
		tm := s.trafficMap(g)
		g.Expect(tm.Status.Published).To(BeTrue())
		g.Expect(tm.Status.ObservedTrafficMapGeneration).To(Equal(tm.Generation))
		generation = tm.Generation
	}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
	return generation
}

// publishedAfter waits until the publisher has followed the map to a generation past
// generation: the routing reconciler wrote it, the publisher recorded it.
func (s *service) publishedAfter(generation int64) {
	Eventually(func(g Gomega) {
		tm := s.trafficMap(g)
		g.Expect(tm.Generation).To(BeNumerically(">", generation))
		g.Expect(tm.Status.ObservedTrafficMapGeneration).To(Equal(tm.Generation))
		g.Expect(tm.Status.Published).To(BeTrue())
	}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
}

var _ = Describe("Publishing at steady state", func() {
	BeforeEach(func() { useManager(guideEndpoint(), config.Publisher{}) })

	It("writes only the map's status while nothing changes, and reads nothing around the cache", func(ctx context.Context) {
		s := newService(ctx, "steady", nil, nil)
		g0 := s.settled(ctx)
		requests.Reset()
		// Each probe round moves the map's generation; three rounds.
		s.publishedAfter(g0 + 2)
		Expect(requests.Count(toPublished(s.key.Namespace))).To(BeZero(),
			"requests for the route and its backends while nothing changed: %v", requests.Log())
		// The publisher did follow the map, one status write per generation at most. Two
		// generations that land in one reconcile share a write (the work queue folds them),
		// so fewer writes than generations is as expected.
		moved := s.trafficMap(Default).Generation - g0
		writes := requests.Count(publisherStatusWrite(s.key.Namespace))
		Expect(writes).To(BeNumerically(">=", 1))
		Expect(int64(writes)).To(BeNumerically("<=", moved), "status writes for %d generations: %v", moved, requests.Log())
		Expect(s.weights(Default)).To(Equal([]string{"worker-a 1", "worker-b 1"}))
	})

	It("re-applies nothing unchanged after the manager restarts", func(ctx context.Context) {
		s := newService(ctx, "restarted", nil, nil)
		g0 := s.settled(ctx)
		route := s.route(Default, "")
		running.stop()
		running = nil
		requests.Reset()
		useManager(guideEndpoint(), config.Publisher{})
		s.publishedAfter(g0)
		Expect(requests.Count(func(r framework.Request) bool {
			return toPublished(s.key.Namespace)(r) && r.Verb != "GET" && r.Verb != "LIST"
		})).To(BeZero(), "writes of the route and its backends after the restart: %v", requests.Log())
		Expect(s.route(Default, "").ResourceVersion).To(Equal(route.ResourceVersion))
	})

	It("raises no Warning and keeps Published True while the map catches up with an edit of its service", func(ctx context.Context) {
		s := newService(ctx, "edited", nil, nil)
		s.settled(ctx)
		wc, err := client.NewWithWatch(fleet.ControlPlane.Config, client.Options{Scheme: envfleet.Scheme})
		Expect(err).NotTo(HaveOccurred())
		w, err := wc.Watch(ctx, &omev1beta1.TrafficMapList{}, client.InNamespace(s.key.Namespace))
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		notPublished := make(chan string, 100)
		go func() {
			defer GinkgoRecover()
			for ev := range w.ResultChan() {
				tm, ok := ev.Object.(*omev1beta1.TrafficMap)
				if !ok || ev.Type == watch.Deleted {
					continue
				}
				if c := meta.FindStatusCondition(tm.Status.Conditions, omev1beta1.TrafficMapPublished); c != nil && c.Status != metav1.ConditionTrue {
					notPublished <- c.Reason + ": " + c.Message
				}
			}
		}()
		for replicas := int32(2); replicas <= 4; replicas++ {
			s.update(ctx, func(isvc *omev1beta1.InferenceService) {
				isvc.Spec.Engine = &omev1beta1.ComponentSpec{MaxReplicas: ptr.To(replicas)}
			})
			Eventually(func(g Gomega) {
				isvc := &omev1beta1.InferenceService{}
				g.Expect(fleet.ControlPlane.Client.Get(ctx, s.key, isvc)).To(Succeed())
				tm := s.trafficMap(g)
				g.Expect(tm.Spec.ObservedISVCGeneration).To(Equal(isvc.Generation))
				g.Expect(tm.Status.ObservedTrafficMapGeneration).To(Equal(tm.Generation))
			}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		}
		Consistently(notPublished).ShouldNot(Receive())
		events := &eventsv1.EventList{}
		Expect(fleet.ControlPlane.Client.List(ctx, events, client.InNamespace(s.key.Namespace))).To(Succeed())
		for _, e := range events.Items {
			if e.Reason == routing.EventProbePortMismatch {
				// True of every probed home in this suite, edit or not: the model servers
				// listen on ports of their own, the routes send to backendPort 80.
				continue
			}
			Expect(e.Type).NotTo(Equal("Warning"), "event %s %s: %s", e.Reason, e.Regarding.Name, e.Note)
		}
		Expect(string(managerLog.Contents())).NotTo(ContainSubstring("was built from generation"))
	})
})
