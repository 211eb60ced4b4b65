package priority

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func req(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
}

// With four workers, two refreshes hold both refresh tokens (half); a third refresh waits and
// hands itself back when a gate is queued, and the gate's reconcile takes no token.
func TestLaneKeepsAWorkerForTransitions(t *testing.T) {
	q := priorityqueue.New[reconcile.Request]("lane-test")
	defer q.ShutDown()
	l := NewLane(4)
	ctx := context.Background()
	var releases []func()
	for _, name := range []string{"refresh-1", "refresh-2"} {
		release, yield := l.Enter(ctx, req(name))
		if yield {
			t.Fatalf("%s yielded with a token free", name)
		}
		releases = append(releases, release)
	}

	type entered struct{ yield bool }
	third := make(chan entered, 1)
	go func() {
		_, yield := l.Enter(ctx, req("refresh-3"))
		third <- entered{yield}
	}()
	select {
	case e := <-third:
		t.Fatalf("a third refresh entered (yield %t) with both tokens held", e.yield)
	case <-time.After(50 * time.Millisecond):
	}

	l.Add(q, req("gated"), Transition)
	if e := <-third; !e.yield {
		t.Fatal("the waiting refresh took a token instead of yielding to the gate")
	}
	got, p, _ := q.GetWithPriority()
	if got != req("gated") || p != Transition {
		t.Fatalf("queued %v at %d, want the gate at %d", got, p, Transition)
	}
	release, yield := l.Enter(ctx, req("gated"))
	if yield {
		t.Fatal("the gate waited for a token")
	}
	release()

	// A refresh gets the token a finished one gives back.
	releases[0]()
	release, yield = l.Enter(ctx, req("refresh-3"))
	if yield {
		t.Fatal("a refresh yielded with a token free")
	}
	release()
	releases[1]()
}

// A nil lane and a lane of one worker hold nothing back.
func TestLaneWithoutAWorkerToKeep(t *testing.T) {
	for _, l := range []*Lane{nil, NewLane(1)} {
		for range 3 {
			if _, yield := l.Enter(context.Background(), req("refresh")); yield {
				t.Fatal("a refresh waited")
			}
		}
	}
}

func TestRefreshWorkersIsHalf(t *testing.T) {
	for workers, want := range map[int]int{1: 1, 2: 1, 4: 2, 8: 4, 9: 4, 16: 8} {
		if got := RefreshWorkers(workers); got != want {
			t.Errorf("RefreshWorkers(%d) = %d, want %d", workers, got, want)
		}
	}
}
