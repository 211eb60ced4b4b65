package recorder

import (
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/eventseries"
)

// One namespace's flood, hundreds of services each recording its burst, fills only that
// namespace's share of the queues: an event of another namespace recorded after it is
// queued, and what was dropped is counted by cause.
func TestOneNamespacesFloodLeavesRoomForAnother(t *testing.T) {
	r := New(nil, testScheme(t), "share-test", eventseries.DefaultLimits, logr.Discard())
	before := testutil.ToFloat64(eventsDropped.WithLabelValues("share-test", DropNamespaceShare))
	const services, burst = 400, 25
	for i := range services {
		isvc := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: "flood", Name: fmt.Sprintf("svc-%d", i), UID: "u"}}
		for j := range burst {
			r.Eventf(isvc, nil, corev1.EventTypeWarning, "HomeGated", "Probe", "cause %d", j)
		}
	}
	other := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: "quiet", Name: "chat", UID: "q"}}
	r.Eventf(other, nil, corev1.EventTypeWarning, "HomeGated", "Probe", "the one event")

	queued := map[string]int{}
	for _, q := range r.queues {
		for len(q) > 0 {
			queued[(<-q).Namespace]++
		}
	}
	if queued["quiet"] != 1 {
		t.Fatalf("the other namespace's event was not queued: %v", queued)
	}
	if queued["flood"] != namespaceShare {
		t.Fatalf("the flooding namespace has %d occurrences queued, want its share %d", queued["flood"], namespaceShare)
	}
	if got := testutil.ToFloat64(eventsDropped.WithLabelValues("share-test", DropNamespaceShare)) - before; got != services*burst-namespaceShare {
		t.Fatalf("ome_events_dropped_total{cause=namespace_share} rose by %v, want %d", got, services*burst-namespaceShare)
	}
}
