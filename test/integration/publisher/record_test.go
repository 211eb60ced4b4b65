package publisher

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/test/framework"
)

// recordInterval is the spec's routing.observer.recordInterval: five probe periods.
const recordInterval = 5 * period

var _ = Describe("routing.observer.recordInterval", func() {
	BeforeEach(func() {
		useManagerWith(managerSettings{endpoint: guideEndpoint(), publisher: config.Publisher{}, recordInterval: recordInterval})
	})

	It("writes quiet rounds only once the interval has passed, and a change at once", func(ctx context.Context) {
		// Six failures to the gate, so that a write that a loaded machine delays by a few
		// probe periods still shows the failures before the gate.
		p := probeSpec(omev1beta1.AllFailedPreserveTraffic)
		p.FailureThreshold = ptr.To[int32](6)
		s := newService(ctx, "quiet", &omev1beta1.Routing{Probe: p}, nil)
		s.settled(ctx)
		routingSpecWrite := func(r framework.Request) bool {
			return r.Verb == "PATCH" && r.Resource == "trafficmaps" && r.Namespace == s.key.Namespace
		}
		// Nor does the routing status follow the probe times a quiet round leaves unwritten
		// (status.lastProbeTime is the written spec's).
		routingStatusWrite := func(r framework.Request) bool {
			return r.Verb == "PATCH" && r.Resource == "trafficmaps/status" && r.Namespace == s.key.Namespace &&
				r.FieldManager == "ome-trafficmap-routing"
		}
		// Ten rounds of worker-a's probes, counted where they arrive.
		requests.Reset()
		probes0 := s.endpoints["worker-a"].Requests()
		Eventually(s.endpoints["worker-a"].Requests).WithTimeout(timeout).WithPolling(interval).Should(BeNumerically(">=", probes0+10))
		rounds := s.endpoints["worker-a"].Requests() - probes0
		writes := requests.Count(routingSpecWrite)
		// One write per five rounds, give or take the rounds at either end.
		Expect(writes).To(BeNumerically(">=", 1), "no quiet round was written in %d rounds", rounds)
		Expect(int64(writes)).To(BeNumerically("<=", rounds/5+1), "spec writes in %d quiet rounds", rounds)
		Expect(int64(requests.Count(routingStatusWrite))).To(BeNumerically("<=", rounds/5+1), "routing status writes in %d quiet rounds", rounds)
		Expect(s.trafficMap(Default).Status.ProbeRecordInterval).To(Equal(&metav1.Duration{Duration: recordInterval}),
			"the map says how long its lastProbeTime may lag")

		// A failure is a change, written at once rather than held for the interval: the first
		// version of the map that shows it comes before the gate (a write held for five
		// periods would first show six failures, gated). It may count more than one: a busy
		// machine can fold the next failures into the same write.
		wc, err := client.NewWithWatch(fleet.ControlPlane.Config, client.Options{Scheme: envfleet.Scheme})
		Expect(err).NotTo(HaveOccurred())
		w, err := wc.Watch(ctx, &omev1beta1.TrafficMapList{}, client.InNamespace(s.key.Namespace))
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		s.set("worker-b", modelserver.Unavailable)
		first := make(chan int32, 1)
		go func() {
			defer GinkgoRecover()
			for ev := range w.ResultChan() {
				tm, ok := ev.Object.(*omev1beta1.TrafficMap)
				if !ok || ev.Type == watch.Deleted {
					continue
				}
				for _, e := range tm.Spec.Entries {
					if e.Cluster == "worker-b" && e.Probe != nil && e.Probe.Result == omev1beta1.ProbeFailing {
						first <- e.Probe.ConsecutiveFailures
						return
					}
				}
			}
		}()
		Eventually(first).WithTimeout(timeout).Should(Receive(BeNumerically("<", 6)))
		// And the gate reaches the route.
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).
			Should(Equal([]string{"worker-a 1", "worker-b 0"}))
	})
})
