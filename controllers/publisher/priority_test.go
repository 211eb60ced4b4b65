package publisher

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/priority"
)

// publisherTestMap is a published map of two homes, at a resourceVersion and generation.
func publisherTestMap(name string, version int64, weightB int32) *omev1beta1.TrafficMap {
	return &omev1beta1.TrafficMap{
		Status:     omev1beta1.TrafficMapStatus{Published: true},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Generation: version, ResourceVersion: string(rune('0' + version))},
		Spec: omev1beta1.TrafficMapSpec{Service: name, Entries: []omev1beta1.TrafficMapEntry{
			{Cluster: "a", Endpoint: "http://a.example.com", Weight: 1},
			{Cluster: "b", Endpoint: "http://b.example.com", Weight: weightB},
		}},
	}
}

// A map whose route changes is published before the maps queued ahead of it whose only
// news is a generation, and before the default-priority work; a refresh never lowers it.
func TestMapEventsQueueRouteChangesFirst(t *testing.T) {
	q := priorityqueue.New[reconcile.Request]("publisher-priority-test")
	defer q.ShutDown()
	h := mapEventHandler(nil)
	update := func(before, after *omev1beta1.TrafficMap) {
		h.Update(context.Background(), event.TypedUpdateEvent[client.Object]{ObjectOld: before, ObjectNew: after}, q)
	}
	update(publisherTestMap("refreshed-first", 1, 1), publisherTestMap("refreshed-first", 2, 1))
	update(publisherTestMap("refreshed-then-gated", 1, 1), publisherTestMap("refreshed-then-gated", 2, 1))
	// An InferenceService's event comes at the queue's default priority.
	q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "service-edited"}})
	update(publisherTestMap("gated", 1, 1), publisherTestMap("gated", 2, 0))
	update(publisherTestMap("refreshed-then-gated", 2, 1), publisherTestMap("refreshed-then-gated", 3, 0))
	update(publisherTestMap("gated", 2, 0), publisherTestMap("gated", 3, 0))
	// A map found unpublished when the manager starts is not a refresh.
	unpublished := publisherTestMap("unpublished", 1, 1)
	unpublished.Status.Published = false
	h.Create(context.Background(), event.TypedCreateEvent[client.Object]{Object: unpublished, IsInInitialList: true}, q)
	h.Create(context.Background(), event.TypedCreateEvent[client.Object]{Object: publisherTestMap("found-published", 1, 1), IsInInitialList: true}, q)

	want := []string{"gated", "refreshed-then-gated", "service-edited", "unpublished", "refreshed-first", "found-published"}
	for i, name := range want {
		req, _, _ := q.GetWithPriority()
		if req.Name != name {
			t.Fatalf("item %d out of the queue is %s, want %s (order %v)", i, req.Name, name, want)
		}
		q.Done(req)
	}
}

func TestMapUpdatePriority(t *testing.T) {
	base := publisherTestMap("m", 1, 1)
	edit := func(f func(*omev1beta1.TrafficMap)) *omev1beta1.TrafficMap {
		tm := publisherTestMap("m", 2, 1)
		f(tm)
		return tm
	}
	now := metav1.NewTime(time.Now())
	cases := []struct {
		name  string
		after *omev1beta1.TrafficMap
		want  int
	}{
		{"a new generation only", edit(func(*omev1beta1.TrafficMap) {}), priority.Refresh},
		{"a new generation of a map not published yet", edit(func(tm *omev1beta1.TrafficMap) { tm.Status.Published = false }), 0},
		{"a weight", edit(func(tm *omev1beta1.TrafficMap) { tm.Spec.Entries[1].Weight = 0 }), priority.Transition},
		{"an endpoint", edit(func(tm *omev1beta1.TrafficMap) { tm.Spec.Entries[0].Endpoint = "http://x.example.com" }), priority.Transition},
		{"an entry less", edit(func(tm *omev1beta1.TrafficMap) { tm.Spec.Entries = tm.Spec.Entries[:1] }), priority.Transition},
		{"a deletion", edit(func(tm *omev1beta1.TrafficMap) { tm.DeletionTimestamp = &now }), 0},
		{"a finalizer", edit(func(tm *omev1beta1.TrafficMap) { tm.Finalizers = []string{Finalizer} }), 0},
		{"an annotation, same generation", edit(func(tm *omev1beta1.TrafficMap) { tm.Generation = 1; tm.Annotations = map[string]string{"a": "b"} }), 0},
	}
	for _, c := range cases {
		if got := mapUpdatePriority(base, c.after); got != c.want {
			t.Errorf("%s: priority %d, want %d", c.name, got, c.want)
		}
	}
}

func TestPublicationsPruneDue(t *testing.T) {
	var p publications
	key := types.NamespacedName{Namespace: "ns", Name: "m"}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	objs := map[objectRef]bool{{"v1", "Service", "ns", "tmb-a"}: true, {"gateway.networking.k8s.io/v1", "HTTPRoute", "ns", "m-global"}: true}
	if !p.pruneDue(key, objs, t0, time.Minute) {
		t.Fatal("nothing remembered: want a prune")
	}
	p.pruned(key, objs, t0)
	if p.pruneDue(key, objs, t0.Add(59*time.Second), time.Minute) {
		t.Error("same objects within the resync: want no prune")
	}
	if !p.pruneDue(key, objs, t0.Add(time.Minute), time.Minute) {
		t.Error("same objects at the resync: want a prune")
	}
	fewer := map[objectRef]bool{{"gateway.networking.k8s.io/v1", "HTTPRoute", "ns", "m-global"}: true}
	if !p.pruneDue(key, fewer, t0.Add(time.Second), time.Minute) {
		t.Error("a backend fewer: want a prune")
	}
	p.unpublished(key)
	if !p.pruneDue(key, objs, t0.Add(time.Second), time.Minute) {
		t.Error("after a withdrawal: want a prune")
	}
}

func TestPublicationsBehind(t *testing.T) {
	var p publications
	key := types.NamespacedName{Namespace: "ns", Name: "m"}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	if got := p.behind(key, 3, t0); got != 15*time.Second {
		t.Errorf("first seen behind: wait %s, want 15s", got)
	}
	if got := p.behind(key, 3, t0.Add(10*time.Second)); got != 5*time.Second {
		t.Errorf("10s later: wait %s, want 5s", got)
	}
	if got := p.behind(key, 3, t0.Add(16*time.Second)); got != 0 {
		t.Errorf("past the grace: wait %s, want 0", got)
	}
	// Another edit of the service starts the wait again.
	if got := p.behind(key, 4, t0.Add(16*time.Second)); got != 15*time.Second {
		t.Errorf("a newer generation: wait %s, want 15s", got)
	}
	p.caughtUp(key)
	if got := p.behind(key, 4, t0.Add(20*time.Second)); got != 15*time.Second {
		t.Errorf("behind again after catching up: wait %s, want 15s", got)
	}
}

// Two maps never hold one name: the second is refused until the first lets go of it, by
// publishing under another name or by being unpublished.
func TestPublicationsClaims(t *testing.T) {
	var p publications
	a, b := types.NamespacedName{Namespace: "ns", Name: "a"}, types.NamespacedName{Namespace: "ns", Name: "b"}
	routeA, routeB := types.NamespacedName{Namespace: "ns", Name: "a-global"}, types.NamespacedName{Namespace: "ns", Name: "b-global"}
	if _, _, ok := p.claim(a, routeA, []string{"route ns/a-global", "host x"}); !ok {
		t.Fatal("a's first claim refused")
	}
	if _, _, ok := p.claim(a, routeA, []string{"route ns/a-global", "host x"}); !ok {
		t.Fatal("a's claim again refused")
	}
	name, holder, ok := p.claim(b, routeB, []string{"route ns/b-global", "host x"})
	if ok || name != "host x" || holder.owner != a || holder.route != routeA {
		t.Fatalf("b's claim of a's host: %q %+v %v, want refused naming a's route", name, holder, ok)
	}
	// A refused claim takes nothing: b's route name is still free.
	if _, _, ok := p.claim(a, routeA, []string{"route ns/a-global", "host y", "route ns/b-global"}); !ok {
		t.Fatal("a's claim of b's route name refused although b holds nothing")
	}
	if _, _, ok := p.claim(b, routeB, []string{"host x"}); !ok {
		t.Fatal("host x still held after a moved to host y")
	}
	if _, _, ok := p.claim(b, routeB, []string{"host y"}); ok {
		t.Fatal("b took a's new host")
	}
	p.unpublished(a)
	if _, _, ok := p.claim(b, routeB, []string{"host y"}); !ok {
		t.Fatal("host y still held after a was unpublished")
	}
	p.forget(b)
	if len(p.claims) != 0 {
		t.Errorf("claims left after every map let go: %v", p.claims)
	}
}
