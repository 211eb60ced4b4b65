package observer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The puller waits on the semaphore for the whole queue: a unit it gets goes to the tenant
// holding the fewest, and the puller keeps waiting until one comes its own way.
func TestSlotsPullerHandsUnitsOnUntilServed(t *testing.T) {
	ctx := t.Context()
	s := newSlots(2)
	granted(t, acquireAsync(ctx, s, "greedy"))
	granted(t, acquireAsync(ctx, s, "greedy"))
	puller := acquireAsync(ctx, s, "greedy")
	waitQueued(t, s, "greedy", 1)
	normal := acquireAsync(ctx, s, "normal")
	waitQueued(t, s, "normal", 1)
	other := acquireAsync(ctx, s, "other")
	waitQueued(t, s, "other", 1)

	// Greedy holds 1 after the release, the other two 0: normal came first of those.
	s.release(owner{tenant: "greedy"})
	granted(t, normal)
	notGranted(t, puller)
	// Greedy holds 0 now, as does other; greedy waited longer.
	s.release(owner{tenant: "greedy"})
	granted(t, puller)
	notGranted(t, other)
	s.mu.Lock()
	if s.puller == nil || s.puller.tenant != "other" {
		t.Errorf("puller after greedy was served: %+v, want other's waiter", s.puller)
	}
	s.mu.Unlock()
	s.release(owner{tenant: "normal"})
	granted(t, other)
	assertIdle(t, s, map[string]int64{"greedy": 1, "other": 1})
}

// A newcomer does not take a unit that frees while others wait, even at the moment the
// puller's role passes from one waiter to the next.
func TestSlotsNewcomerQueuesBehindWaiters(t *testing.T) {
	ctx := t.Context()
	s := newSlots(1)
	granted(t, acquireAsync(ctx, s, "x"))
	a := acquireAsync(ctx, s, "a")
	waitQueued(t, s, "a", 1)
	b := acquireAsync(ctx, s, "b")
	waitQueued(t, s, "b", 1)
	s.release(owner{tenant: "x"})
	granted(t, a)
	// b is the puller now; the unit a gives back is b's, not the newcomer's.
	s.release(owner{tenant: "a"})
	c := acquireAsync(ctx, s, "c")
	granted(t, b)
	notGranted(t, c)
	s.release(owner{tenant: "b"})
	granted(t, c)
	assertIdle(t, s, map[string]int64{"c": 1})
}

// A waiter whose deadline passes while it is the puller leaves with the deadline's error
// and holds nothing; the next waiter takes over the pull and gets the slot. The bubble's
// clock moves only once every goroutine in it is blocked, so the deadline passes after
// both have queued.
func TestSlotsPullerDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSlots(1)
		granted(t, acquireAsync(t.Context(), s, "x"))
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		late := acquireAsync(ctx, s, "late")
		synctest.Wait()
		next := acquireAsync(t.Context(), s, "next")
		synctest.Wait()
		s.mu.Lock()
		if s.puller == nil || s.puller.tenant != "late" || len(s.waiting) != 2 {
			t.Fatalf("puller %+v, waiting %v; want late pulling and both queued", s.puller, s.waiting)
		}
		s.mu.Unlock()
		if err := <-late; !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("acquire past its deadline: %v", err)
		}
		notGranted(t, next)
		s.release(owner{tenant: "x"})
		granted(t, next)
		assertIdle(t, s, map[string]int64{"next": 1})
	})
}

// Many tenants acquiring and releasing at once, a third of them giving up at random points
// (cancelled or past a deadline, while queued, pulling or just granted): never more slots
// held than the cap, every acquire returns, and in the end every unit is back in the
// semaphore and nothing is left queued.
func TestSlotsCapUnderCancellation(t *testing.T) {
	const capacity, tenants, perTenant, rounds = 4, 6, 20, 100
	s := newSlots(capacity)
	var inUse, maxInUse, served, gaveUp atomic.Int64
	var wg sync.WaitGroup
	for tn := range tenants {
		tenant := fmt.Sprintf("t%d", tn)
		for i := range perTenant {
			wg.Go(func() {
				for r := range rounds {
					if acquireHoldRelease(t, s, tenant, (i+r)%3, &inUse, &maxInUse) {
						served.Add(1)
					} else {
						gaveUp.Add(1)
					}
				}
			})
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		s.mu.Lock()
		defer s.mu.Unlock()
		t.Fatalf("acquires still blocked: %d tenants waiting, held %v", len(s.waiting), s.held)
	}
	if got := maxInUse.Load(); got > capacity {
		t.Errorf("%d slots held at once, over the cap of %d", got, capacity)
	}
	if all := int64(tenants * perTenant * rounds); served.Load()+gaveUp.Load() != all || served.Load() < all/3 {
		t.Errorf("%d served and %d gave up of %d", served.Load(), gaveUp.Load(), all)
	}
	assertIdle(t, s, map[string]int64{})
	if !s.cap.TryAcquire(capacity) {
		t.Error("not every unit is back in the semaphore")
	}
}

// acquireHoldRelease takes a slot for tenant and gives it back, counting the slots in use
// meanwhile. With mode 1 its context is cancelled, with mode 2 it ends at a deadline, each
// within a fraction of a millisecond: while it waits, pulls or has just been granted. It
// reports whether it was served.
func acquireHoldRelease(t *testing.T, s *slots, tenant string, mode int, inUse, maxInUse *atomic.Int64) bool {
	ctx := t.Context()
	var cancel context.CancelFunc = func() {}
	switch mode {
	case 1:
		ctx, cancel = context.WithCancel(ctx)
		time.AfterFunc(time.Duration(rand.IntN(200))*time.Microsecond, cancel)
	case 2:
		ctx, cancel = context.WithTimeout(ctx, time.Duration(rand.IntN(200))*time.Microsecond)
	}
	defer cancel()
	if err := s.acquire(ctx, owner{tenant: tenant}); err != nil {
		if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
			t.Errorf("acquire returned %v with ctx.Err() = %v", err, ctx.Err())
		}
		return false
	}
	n := inUse.Add(1)
	for m := maxInUse.Load(); n > m && !maxInUse.CompareAndSwap(m, n); m = maxInUse.Load() {
	}
	for range rand.IntN(20) {
		runtime.Gosched()
	}
	inUse.Add(-1)
	s.release(owner{tenant: tenant})
	return true
}

// assertIdle checks that nobody waits or pulls, no unit is in hand, and that the slots held
// are wantHeld.
func assertIdle(t *testing.T, s *slots, wantHeld map[string]int64) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.free != 0 || len(s.waiting) != 0 || s.puller != nil || fmt.Sprint(s.held) != fmt.Sprint(wantHeld) {
		t.Errorf("free %d, waiting %v, puller %v, held %v; want held %v and nothing else", s.free, s.waiting, s.puller, s.held, wantHeld)
	}
	byTenant := map[string]int64{}
	for o, n := range s.groupHeld {
		byTenant[o.tenant] += n
	}
	if fmt.Sprint(byTenant) != fmt.Sprint(wantHeld) {
		t.Errorf("the groups hold %v in all by tenant, want %v", byTenant, wantHeld)
	}
}
