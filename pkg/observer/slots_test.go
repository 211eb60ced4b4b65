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

// A tenant counts once, however many groups it has: a freed slot goes to the tenant
// holding the fewest, though the other tenant's waiting group holds nothing itself and
// queued first.
func TestSlotsManyGroupsOfOneTenantCountAsOne(t *testing.T) {
	ctx := t.Context()
	s := newSlots(2)
	granted(t, acquireAsyncAs(ctx, s, owner{"big", "a"}))
	granted(t, acquireAsyncAs(ctx, s, owner{"big", "b"}))
	bigC := acquireAsyncAs(ctx, s, owner{"big", "c"})
	waitQueued(t, s, "big", 1)
	small := acquireAsyncAs(ctx, s, owner{"small", "x"})
	waitQueued(t, s, "small", 1)

	s.release(owner{"big", "a"})
	granted(t, small)
	notGranted(t, bigC)
	s.release(owner{"big", "b"})
	granted(t, bigC)
}

// Inside a tenant, a freed slot goes to the waiting group holding the fewest, though
// another of the tenant's groups waited longer.
func TestSlotsInsideATenantTheGroupHoldingFewestGoesFirst(t *testing.T) {
	ctx := t.Context()
	s := newSlots(2)
	granted(t, acquireAsyncAs(ctx, s, owner{"ns", "busy"}))
	granted(t, acquireAsyncAs(ctx, s, owner{"other", "x"}))
	busyNext := acquireAsyncAs(ctx, s, owner{"ns", "busy"})
	waitQueued(t, s, "ns", 1)
	idle := acquireAsyncAs(ctx, s, owner{"ns", "idle"})
	waitQueued(t, s, "ns", 2)

	s.release(owner{"other", "x"})
	granted(t, idle)
	notGranted(t, busyNext)
	s.release(owner{"ns", "idle"})
	granted(t, busyNext)
}
