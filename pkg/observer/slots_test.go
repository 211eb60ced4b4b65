package observer

import (
	"context"
	"errors"
	"testing"
	"time"
)

// acquireAsync starts an acquire and returns a channel that receives its error.
func acquireAsync(ctx context.Context, s *slots, tenant string) <-chan error {
	done := make(chan error, 1)
	go func() { done <- s.acquire(ctx, owner{tenant: tenant}) }()
	return done
}

// waitQueued waits until tenant has n waiters, so that tests order arrivals without sleeping.
func waitQueued(t *testing.T, s *slots, tenant string, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		got := len(s.waiting[tenant])
		s.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has %d waiters, want %d", tenant, got, n)
		}
		time.Sleep(time.Millisecond) // polling a condition, not synchronising on time
	}
}

func granted(t *testing.T, ch <-chan error) {
	t.Helper()
	select {
	case err := <-ch:
		if err != nil {
			t.Fatalf("acquire: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("acquire did not return")
	}
}

func notGranted(t *testing.T, ch <-chan error) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("acquire returned (%v), want it still waiting", err)
	default:
	}
}

// A greedy tenant may take every idle slot, but the next slot to free goes to a waiting
// tenant that holds fewer, even though the greedy tenant queued first.
func TestSlotsFreedSlotGoesToTheTenantHoldingFewest(t *testing.T) {
	ctx := t.Context()
	s := newSlots(3)
	for range 3 {
		granted(t, acquireAsync(ctx, s, "greedy"))
	}
	greedyNext := acquireAsync(ctx, s, "greedy")
	waitQueued(t, s, "greedy", 1)
	normal := acquireAsync(ctx, s, "normal")
	waitQueued(t, s, "normal", 1)

	s.release(owner{tenant: "greedy"})
	granted(t, normal)
	notGranted(t, greedyNext)

	// Holding fewer than greedy, normal is served first although greedy waited longer.
	normalNext := acquireAsync(ctx, s, "normal")
	waitQueued(t, s, "normal", 1)
	s.release(owner{tenant: "normal"})
	granted(t, normalNext)
	notGranted(t, greedyNext)

	// With nobody else waiting, greedy gets the next slot.
	s.release(owner{tenant: "greedy"})
	granted(t, greedyNext)
}

// Among tenants holding the same number, the one that waited longest goes first.
func TestSlotsTiesGoToTheLongestWaiting(t *testing.T) {
	ctx := t.Context()
	s := newSlots(1)
	granted(t, acquireAsync(ctx, s, "x"))
	a := acquireAsync(ctx, s, "a")
	waitQueued(t, s, "a", 1)
	b := acquireAsync(ctx, s, "b")
	waitQueued(t, s, "b", 1)
	s.release(owner{tenant: "x"})
	granted(t, a)
	notGranted(t, b)
	s.release(owner{tenant: "a"})
	granted(t, b)
}

// A waiter whose context ends leaves the queue and holds nothing; the slot it would have
// had goes to the next.
func TestSlotsCancelledWaiter(t *testing.T) {
	s := newSlots(1)
	granted(t, acquireAsync(t.Context(), s, "x"))
	ctx, cancel := context.WithCancel(t.Context())
	gone := acquireAsync(ctx, s, "gone")
	waitQueued(t, s, "gone", 1)
	next := acquireAsync(t.Context(), s, "next")
	waitQueued(t, s, "next", 1)
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled acquire: %v", err)
	}
	s.release(owner{tenant: "x"})
	granted(t, next)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.free != 0 || s.held["next"] != 1 || len(s.held) != 1 || len(s.waiting) != 0 {
		t.Fatalf("free %d, held %v, waiting %v", s.free, s.held, s.waiting)
	}
}

// acquireAsyncAs starts an acquire for o, as acquireAsync does for a tenant.
func acquireAsyncAs(ctx context.Context, s *slots, o owner) <-chan error {
	done := make(chan error, 1)
	go func() { done <- s.acquire(ctx, o) }()
	return done
}

// A freed slot goes to the waiting tenant holding the fewest, and inside it to the waiting
// group holding the fewest, whoever queued first: a tenant with many groups counts once.
func TestSlotsTenantFirstThenGroup(t *testing.T) {
	for _, tt := range []struct {
		name string
		// holders take both slots; early queues before late; freed is released first.
		holders     [2]owner
		early, late owner
		freed       owner
	}{
		{
			// big's waiting group holds nothing itself, but big holds both slots.
			name:    "many groups of one tenant count as one",
			holders: [2]owner{{"big", "a"}, {"big", "b"}},
			early:   owner{"big", "c"}, late: owner{"small", "x"},
			freed: owner{"big", "a"},
		},
		{
			name:    "inside a tenant the group holding fewest goes first",
			holders: [2]owner{{"ns", "busy"}, {"other", "x"}},
			early:   owner{"ns", "busy"}, late: owner{"ns", "idle"},
			freed: owner{"other", "x"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			s := newSlots(2)
			for _, o := range tt.holders {
				granted(t, acquireAsyncAs(ctx, s, o))
			}
			early := acquireAsyncAs(ctx, s, tt.early)
			waitQueued(t, s, tt.early.tenant, 1)
			late := acquireAsyncAs(ctx, s, tt.late)
			queued := 1
			if tt.late.tenant == tt.early.tenant {
				queued = 2
			}
			waitQueued(t, s, tt.late.tenant, queued)

			s.release(tt.freed)
			granted(t, late)
			notGranted(t, early)
			s.release(tt.late)
			granted(t, early)
		})
	}
}
