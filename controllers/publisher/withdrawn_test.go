package publisher

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"

	"github.com/ome-routing/operator/pkg/publish"
)

// A withdrawal is announced once, even when a second reconcile reads the map before the
// first one's Withdrawn condition reached the cache; again after the map was published
// in between, and again for another reason.
func TestAnnounceWithdrawnOncePerWithdrawal(t *testing.T) {
	rec := events.NewFakeRecorder(16)
	r := &Reconciler{Recorder: rec}
	tm := guardedMap()
	ctx := context.Background()
	count := func() int {
		n := 0
		for {
			select {
			case <-rec.Events:
				n++
			default:
				return n
			}
		}
	}
	const noHost = "no global hostname"
	r.announceWithdrawn(ctx, tm, noHost)
	r.announceWithdrawn(ctx, tm, noHost) // the cache has not caught up: the map reads as before
	if n := count(); n != 1 {
		t.Fatalf("two reconciles of one withdrawal sent %d events, want 1", n)
	}
	r.announceWithdrawn(ctx, tm, "no gateway")
	if n := count(); n != 1 {
		t.Fatalf("a withdrawal for another reason sent %d events, want 1", n)
	}
	key := types.NamespacedName{Namespace: tm.Namespace, Name: tm.Name}
	if _, _, ok := r.memory.claim(key, key, []string{"route " + key.String()}); !ok {
		t.Fatal("claim refused")
	}
	r.announceWithdrawn(ctx, tm, "no gateway")
	if n := count(); n != 1 {
		t.Fatalf("a withdrawal after a publication sent %d events, want 1", n)
	}
}

// A hold's end is announced once, even when a second reconcile reads the map before the
// first one's Published condition reached the cache; again after a new hold.
func TestAnnounceHoldEndedOncePerHold(t *testing.T) {
	rec := events.NewFakeRecorder(16)
	r := &Reconciler{Recorder: rec}
	tm := guardedMap()
	tm.Status.Conditions = publish.HeldConditions("kept", tm.Generation)
	ctx := context.Background()
	count := func() int {
		n := 0
		for {
			select {
			case <-rec.Events:
				n++
			default:
				return n
			}
		}
	}
	r.announceHoldEnded(ctx, tm, publish.Plan{})
	r.announceHoldEnded(ctx, tm, publish.Plan{}) // the cache has not caught up: the map reads as held
	if n := count(); n != 1 {
		t.Fatalf("two reconciles of one hold's end sent %d events, want 1", n)
	}
	r.memory.holding(types.NamespacedName{Namespace: tm.Namespace, Name: tm.Name}, "kept")
	r.announceHoldEnded(ctx, tm, publish.Plan{})
	if n := count(); n != 1 {
		t.Fatalf("the end of a new hold sent %d events, want 1", n)
	}
	tm.Status.Conditions = nil
	r.memory.holding(types.NamespacedName{Namespace: tm.Namespace, Name: tm.Name}, "kept")
	r.announceHoldEnded(ctx, tm, publish.Plan{})
	if n := count(); n != 0 {
		t.Fatalf("a map that shows no hold sent %d events, want 0", n)
	}
}
