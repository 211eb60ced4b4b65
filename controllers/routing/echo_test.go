package routing

import (
	"context"
	"errors"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func mapAt(name, rv string) *omev1beta1.TrafficMap {
	return &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// The echoes of the reconciler's own writes are skipped, even one that arrives before
// the write's answer; a version somebody else wrote, or one older than the last two
// writes, is delivered, and so is every event held during a write that failed.
func TestOwnWritesSkipsOnlyTheEchoesOfOurWrites(t *testing.T) {
	var o ownWrites
	key := types.NamespacedName{Namespace: "ns", Name: "svc"}
	var delivered []string
	h := o.skipOwn(handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			delivered = append(delivered, "create "+e.Object.GetName()+"@"+e.Object.GetResourceVersion())
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			delivered = append(delivered, e.ObjectNew.GetName()+"@"+e.ObjectNew.GetResourceVersion())
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			delivered = append(delivered, "delete "+e.Object.GetName())
		},
	})
	ctx := context.Background()
	update := func(name, rv string) {
		h.Update(ctx, event.UpdateEvent{ObjectOld: mapAt(name, "1"), ObjectNew: mapAt(name, rv)}, nil)
	}
	expect := func(step string, want ...string) {
		t.Helper()
		if !slices.Equal(delivered, want) {
			t.Errorf("%s: delivered %q, want %q", step, delivered, want)
		}
		delivered = nil
	}

	update("svc", "10")
	expect("a map never written", "svc@10")

	o.writing(key)
	update("svc", "11") // the echo comes before the answer
	expect("an event during our write is held")
	o.wrote(key, "11")
	expect("the held echo of our spec write")

	o.writing(key)
	update("svc", "12") // somebody else's write lands while ours is in flight
	expect("held again")
	o.wrote(key, "13")
	expect("a foreign version held during our write", "svc@12")
	update("svc", "13")
	update("svc", "11")
	expect("the echoes of our last two writes, after their answers")

	update("svc", "14")
	update("other", "13")
	h.Create(ctx, event.CreateEvent{Object: mapAt("svc", "13")}, nil)
	expect("a hand edit, another map, and the echo of our create", "svc@14", "other@13")

	o.writing(key)
	update("svc", "15")
	o.wrote(key, "") // the write failed
	expect("an event held during a failed write", "svc@15")

	o.writing(key)
	o.wrote(key, "16")
	o.writing(key)
	o.wrote(key, "17")
	update("svc", "13")
	expect("a version older than the last two writes", "svc@13")

	// do brackets one write the same way: its echo is held, then dropped; a failed write
	// delivers what it held and returns its error.
	if err := o.do(key, func() (string, error) { update("svc", "18"); return "18", nil }); err != nil {
		t.Fatal(err)
	}
	expect("the echo of a write made with do")
	failed := errors.New("conflict")
	if err := o.do(key, func() (string, error) { update("svc", "19"); return "19", failed }); !errors.Is(err, failed) {
		t.Errorf("do returned %v, want the write's error", err)
	}
	expect("an event held during a failed do", "svc@19")

	o.forget(key)
	update("svc", "17")
	h.Delete(ctx, event.DeleteEvent{Object: mapAt("svc", "17")}, nil)
	expect("a forgotten map, and a deletion", "svc@17", "delete svc")
}
