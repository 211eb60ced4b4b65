package dataplane

import (
	"context"
	"maps"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
)

// rampBatch is how many requests measure one step of a ramp: enough that the steps' shares
// of worker-a (17%, 29%, 38%, 44%) are several tolerances apart.
const rampBatch = 180

// Real requests follow a ramp: with rampUp, a cluster whose gate lifts gets its share of
// the requests back step by step, each step as the route's weights say.
var _ = Describe("Requests through haproxy during a ramp", func() {
	It("reach a recovered cluster in rising steps, as the route's weights rise", func(ctx context.Context) {
		// Three-second rounds and a twelve-second ramp: worker-a (3 replicas) at 20, 40, 60
		// and 80% of its weight, against worker-b's 2 and worker-c's 1 at 100%, reduced.
		p := probeSpec(omev1beta1.AllFailedPreserveTraffic)
		p.Period = &metav1.Duration{Duration: 3 * time.Second}
		p.FailureThreshold, p.SuccessThreshold = ptr.To[int32](2), ptr.To[int32](1)
		p.RampUp = &metav1.Duration{Duration: 12 * time.Second}
		steps := []map[string]int32{
			{"worker-a": 3, "worker-b": 10, "worker-c": 5},  // 60:200:100
			{"worker-a": 6, "worker-b": 10, "worker-c": 5},  // 120:200:100
			{"worker-a": 9, "worker-b": 10, "worker-c": 5},  // 180:200:100
			{"worker-a": 12, "worker-b": 10, "worker-c": 5}, // 240:200:100
		}
		all := map[string]int32{"worker-a": 3, "worker-b": 2, "worker-c": 1}
		setProbe(ctx, p)
		DeferCleanup(func(ctx context.Context) {
			set(modelserver.Serve, workers...)
			setProbe(ctx, probeSpec(omev1beta1.AllFailedPreserveTraffic))
			expectRouting(ctx, all)
		})
		expectRouting(ctx, all)

		By("worker-a is gated, then recovers")
		set(modelserver.Unavailable, "worker-a")
		awaitRouting(ctx, map[string]int32{"worker-a": 0, "worker-b": 2, "worker-c": 1})
		set(modelserver.Serve, "worker-a")

		// While the route shows a step, batches go out until haproxy splits one by it (it
		// follows a changed route about a second later); a step the route leaves first is
		// not measured. Each measured step records worker-a's share of its batch.
		measured := map[int]float64{}
		Eventually(func(g Gomega) {
			w := routeWeights(ctx)(g)
			if i := stepIndex(steps, w); i >= 0 {
				if _, done := measured[i]; !done {
					t, got := send(ctx, rampBatch)
					if maps.Equal(routeWeights(ctx)(g), w) && splitMatches(got, w, rampBatch) && t.Failed() == 0 {
						measured[i] = float64(got["worker-a"]) / rampBatch
					}
				}
			}
			g.Expect(w).To(Equal(all), "the ramp is not over")
		}).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(Succeed())
		AddReportEntry("ramp", measured)
		Expect(len(measured)).To(BeNumerically(">=", 2), "haproxy split by at least two of the ramp's steps: %v", measured)
		last := -1.0
		for i := range steps {
			if share, ok := measured[i]; ok {
				Expect(share).To(BeNumerically(">", last), "worker-a's share of real requests rises: %v", measured)
				last = share
			}
		}
		expectRouting(ctx, all)
	})
})

// stepIndex is the index of the step whose weights w are, -1 for none.
func stepIndex(steps []map[string]int32, w map[string]int32) int {
	for i, s := range steps {
		if maps.Equal(s, w) {
			return i
		}
	}
	return -1
}

// setProbe replaces the service's probe.
func setProbe(ctx context.Context, p *omev1beta1.RoutingProbe) {
	GinkgoHelper()
	updateService(ctx, func(isvc *omev1beta1.InferenceService) { isvc.Spec.Routing.Probe = p })
}
