package routing

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedeventsv1 "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/recorder"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/eventseries"
)

// The operator's recorder against the real API server, with the chart's rights: what it
// writes, and how little, when occurrences repeat.
var _ = Describe("The event recorder", func() {
	// gap is the write gap of most specs: short, so that counts show quickly.
	const gap = time.Second

	It("writes one Event per cause and counts identical occurrences, in few writes", func(ctx context.Context) {
		r := startRecorder(ctx, eventseries.Limits{WriteGap: gap, End: time.Minute, Burst: 10, Refill: time.Hour, MaxTries: 3})
		for _, status := range []string{"503", "404", "502"} {
			r.gate("worker-c", "HTTP "+status)
		}
		Eventually(r.notes).WithTimeout(timeout).WithPolling(interval).Should(ConsistOf("HTTP 503", "HTTP 404", "HTTP 502"))

		// A storm of one cause: the same Event, whose count catches up within a gap or two,
		// in a handful of writes whatever the number of occurrences. The storm stays under
		// a namespace's share of the queues (250 waiting at once), past which occurrences
		// are dropped by design when the writers fall behind a loop this tight.
		before := r.writes.Load()
		const storm = 200
		for range storm {
			r.gate("worker-c", "HTTP 503")
		}
		Eventually(r.counts).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]int32{
			"HTTP 503": storm + 1, "HTTP 404": 1, "HTTP 502": 1,
		}))
		Expect(r.writes.Load()-before).To(BeNumerically("<=", 4), "writes for %d identical occurrences", storm)
		settled := r.writes.Load()
		Consistently(r.writes.Load, 3*gap, interval).Should(Equal(settled), "nothing is written once the count is")
		Expect(r.current()).To(Equal("HTTP 503"), "the cause seen last reads newest")
	})

	It("writes a cause that comes back at once, and its repeats once the gap is over", func(ctx context.Context) {
		r := startRecorder(ctx, eventseries.Limits{WriteGap: time.Hour, End: time.Hour, Burst: 10, Refill: time.Hour, MaxTries: 3})
		r.gate("worker-c", "HTTP 503")
		Eventually(r.notes).WithTimeout(timeout).WithPolling(interval).Should(ConsistOf("HTTP 503"))
		r.gate("worker-c", "HTTP 404")
		Eventually(r.notes).WithTimeout(timeout).WithPolling(interval).Should(ConsistOf("HTTP 503", "HTTP 404"))
		Expect(r.current()).To(Equal("HTTP 404"))

		r.gate("worker-c", "HTTP 503")
		Eventually(r.current).WithTimeout(timeout).WithPolling(interval).Should(Equal("HTTP 503"),
			"503 is the cause again, long before the hour's gap")
		Expect(r.counts()).To(Equal(map[string]int32{"HTTP 503": 2, "HTTP 404": 1}))

		r.gate("worker-c", "HTTP 503")
		Consistently(r.counts, 2*time.Second, interval).Should(Equal(map[string]int32{"HTTP 503": 2, "HTTP 404": 1}),
			"a repeat of the cause in force waits for the gap")
		By("stopping the recorder, which writes the counts it holds")
		r.stop()
		Expect(r.counts()).To(Equal(map[string]int32{"HTTP 503": 3, "HTTP 404": 1}))
	})

	It("bounds the new Events of one home, and leaves other homes theirs", func(ctx context.Context) {
		r := startRecorder(ctx, eventseries.Limits{WriteGap: gap, End: time.Minute, Burst: 3, Refill: time.Hour, MaxTries: 3})
		for _, note := range []string{"a", "b", "c", "d", "e"} {
			r.gate("worker-c", note)
		}
		r.gate("worker-a", "f")
		Eventually(r.notes).WithTimeout(timeout).WithPolling(interval).Should(ConsistOf("a", "b", "c", "f"))
		Eventually(r.log).WithTimeout(timeout).Should(gbytes.Say(`Event not recorded: too many new events for this object and cluster at once.*"note": "d"`))
		Consistently(r.notes, 2*gap, interval).Should(ConsistOf("a", "b", "c", "f"))
	})

	It("creates an Event again when the one it counts into is gone", func(ctx context.Context) {
		r := startRecorder(ctx, eventseries.Limits{WriteGap: gap, End: time.Minute, Burst: 10, Refill: time.Hour, MaxTries: 3})
		r.gate("worker-c", "HTTP 503")
		Eventually(r.notes).WithTimeout(timeout).WithPolling(interval).Should(ConsistOf("HTTP 503"))
		// As the API server does when an Event outlives its TTL.
		Expect(fleet.ControlPlane.Client.DeleteAllOf(ctx, &eventsv1.Event{}, client.InNamespace(r.namespace))).To(Succeed())
		Eventually(r.notes).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
		r.gate("worker-c", "HTTP 503")
		Eventually(r.counts).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]int32{"HTTP 503": 2}))
	})
})

// testRecorder is a recorder running against the control plane as the manager's
// ServiceAccount, with events about one service in a namespace of its own.
type testRecorder struct {
	*recorder.Recorder
	namespace string
	isvc      *omev1beta1.InferenceService
	// writes counts the recorder's writes of Events (creates and patches).
	writes *atomic.Int64
	log    *gbytes.Buffer
	stop   func()
}

func startRecorder(ctx context.Context, limits eventseries.Limits) *testRecorder {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "recorder-"}}
	Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
	t := &testRecorder{namespace: ns.Name, writes: &atomic.Int64{}, log: gbytes.NewBuffer()}
	t.isvc = &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "chat", UID: "chat-uid"}}

	cfg := rest.CopyConfig(managerConfig)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countWrites{rt, t.writes} })
	events, err := typedeventsv1.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	t.Recorder = recorder.New(events, envfleet.Scheme, "ome-recorder-test", limits,
		zap.New(zap.WriteTo(GinkgoWriter), zap.WriteTo(t.log), zap.UseDevMode(true)))
	rctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		Expect(t.Start(rctx)).To(Succeed())
	}()
	stopped := false
	t.stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	DeferCleanup(t.stop)
	return t
}

// gate records a HomeGated occurrence about cluster with note.
func (t *testRecorder) gate(cluster, note string) {
	wc := &omev1beta1.WorkloadCluster{ObjectMeta: metav1.ObjectMeta{Name: cluster}}
	t.Eventf(t.isvc, wc, corev1.EventTypeWarning, "HomeGated", "Probe", "%s", note)
}

// list is what the API server holds in the recorder's namespace.
func (t *testRecorder) list() []eventsv1.Event {
	list := &eventsv1.EventList{}
	Expect(fleet.ControlPlane.Client.List(context.Background(), list, client.InNamespace(t.namespace))).To(Succeed())
	return list.Items
}

func (t *testRecorder) notes() []string {
	var out []string
	for _, e := range t.list() {
		out = append(out, e.Note)
	}
	return out
}

// counts are the occurrences each Event counts, by note.
func (t *testRecorder) counts() map[string]int32 {
	out := map[string]int32{}
	for _, e := range t.list() {
		out[e.Note] = seriesCount(e)
	}
	return out
}

// current is the note of the Event seen last.
func (t *testRecorder) current() string {
	var latest eventsv1.Event
	for _, e := range t.list() {
		if lastSeen(e).After(lastSeen(latest)) {
			latest = e
		}
	}
	return latest.Note
}

// countWrites counts the POST and PATCH requests for events.
type countWrites struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c countWrites) RoundTrip(req *http.Request) (*http.Response, error) {
	if (req.Method == http.MethodPost || req.Method == http.MethodPatch) && strings.Contains(req.URL.Path, "/events") {
		c.n.Add(1)
	}
	return c.next.RoundTrip(req)
}
