package observer

import (
	"context"
	"slices"
	"sync"

	"golang.org/x/sync/semaphore"
)

// slots is the observer's request cap, shared fairly between tenants (for the prober, the
// routed services). A request takes a free slot at once when nobody waits. Otherwise it
// queues, and each slot that frees goes to the waiting tenant that holds the fewest slots,
// the longest-waiting first among equals. A tenant may so take every idle slot, but once
// another tenant waits, that tenant gets the next slot to free: one tenant's hanging
// requests delay another's by at most the time until one of them ends, one request
// timeout, never by all of them in turn.
//
// The cap itself is a weighted semaphore of one unit per slot: a request runs only while
// it holds a unit. The semaphore serves its own waiters first come, first served, which
// cannot say "the tenant holding the fewest", so the tenants' waiters queue here and only
// one of them at a time, the puller, waits on the semaphore. Whatever unit the puller gets
// is handed out here at that moment, to the puller or to another waiter, by the rule
// above; the puller keeps waiting until it is served itself, then passes the role on.
type slots struct {
	cap *semaphore.Weighted

	mu sync.Mutex
	// free counts units the puller has taken from cap and not yet handed to a waiter. It
	// is 0 whenever mu is not held: a unit is handed out as soon as it is taken.
	free int64
	// held counts the slots each tenant holds; a tenant holding none has no entry.
	held map[string]int64
	// waiting holds each tenant's waiters in arrival order; no entry when none wait.
	waiting map[string][]*waiter
	seq     uint64
	// puller is the waiter that waits on cap for the queue: set exactly when someone waits.
	puller *waiter
}

type waiter struct {
	tenant string
	seq    uint64
	// wake rings when the waiter has been granted a slot or has become the puller; which
	// of the two is read from granted and slots.puller, under the lock.
	wake    chan struct{}
	granted bool
}

func newSlots(n int64) *slots {
	return &slots{cap: semaphore.NewWeighted(n), held: map[string]int64{}, waiting: map[string][]*waiter{}}
}

// acquire takes a slot for tenant, waiting for one if needed. It returns ctx's error, and
// holds no slot, when ctx ends first.
func (s *slots) acquire(ctx context.Context, tenant string) error {
	s.mu.Lock()
	// With a waiter queued, a unit that frees belongs to the queue, even while no puller
	// is on the semaphore yet (the role is being passed on): a newcomer must not take it.
	if len(s.waiting) == 0 && s.cap.TryAcquire(1) {
		s.held[tenant]++
		s.mu.Unlock()
		return nil
	}
	if err := ctx.Err(); err != nil {
		s.mu.Unlock()
		return err
	}
	w := &waiter{tenant: tenant, seq: s.seq, wake: make(chan struct{}, 1)}
	s.seq++
	s.waiting[tenant] = append(s.waiting[tenant], w)
	pulling := s.puller == nil
	if pulling {
		s.puller = w
	}
	s.mu.Unlock()

	if !pulling {
		select {
		case <-w.wake:
		case <-ctx.Done():
			return s.leave(ctx, w)
		}
		s.mu.Lock()
		granted := w.granted
		s.mu.Unlock()
		if granted {
			return nil
		}
		// Not granted, so woken to become the puller.
	}
	return s.pull(ctx, w)
}

// pull waits on the semaphore as the queue's puller, handing out each unit it gets, until
// w is served itself.
func (s *slots) pull(ctx context.Context, w *waiter) error {
	for {
		if err := s.cap.Acquire(ctx, 1); err != nil {
			// The semaphore keeps no unit for a waiter whose context ended.
			return s.leave(ctx, w)
		}
		s.mu.Lock()
		s.free++
		s.grantLocked()
		if w.granted {
			s.passPullLocked()
			s.mu.Unlock()
			return nil
		}
		s.mu.Unlock()
	}
}

// leave takes w, whose context ended, out of the queue.
func (s *slots) leave(ctx context.Context, w *waiter) error {
	s.mu.Lock()
	if w.granted {
		// The slot came as ctx ended: give it back, so that it goes on to the next.
		s.dropLocked(w.tenant)
		s.mu.Unlock()
		s.cap.Release(1)
		return ctx.Err()
	}
	q := s.waiting[w.tenant]
	if i := slices.Index(q, w); i >= 0 {
		q = slices.Delete(q, i, i+1)
	}
	if len(q) == 0 {
		delete(s.waiting, w.tenant)
	} else {
		s.waiting[w.tenant] = q
	}
	if s.puller == w {
		s.passPullLocked()
	}
	s.mu.Unlock()
	return ctx.Err()
}

// release gives back a slot that tenant holds. The semaphore hands the unit to the puller,
// if anyone waits.
func (s *slots) release(tenant string) {
	s.mu.Lock()
	s.dropLocked(tenant)
	s.mu.Unlock()
	s.cap.Release(1)
}

func (s *slots) dropLocked(tenant string) {
	if s.held[tenant]--; s.held[tenant] <= 0 {
		delete(s.held, tenant)
	}
}

// grantLocked hands the units the puller took to waiters: each to the waiting tenant
// holding the fewest, the one whose first waiter came earliest among equals.
func (s *slots) grantLocked() {
	for s.free > 0 && len(s.waiting) > 0 {
		best, w := s.nextLocked()
		if q := s.waiting[best]; len(q) == 1 {
			delete(s.waiting, best)
		} else {
			s.waiting[best] = q[1:]
		}
		w.granted = true
		s.free--
		s.held[best]++
		ring(w)
	}
}

// nextLocked is the waiter the next unit goes to, and its tenant. Someone must be waiting.
func (s *slots) nextLocked() (string, *waiter) {
	var best string
	var bestQ []*waiter
	for tenant, q := range s.waiting {
		if bestQ == nil || s.held[tenant] < s.held[best] ||
			(s.held[tenant] == s.held[best] && q[0].seq < bestQ[0].seq) {
			best, bestQ = tenant, q
		}
	}
	return best, bestQ[0]
}

// passPullLocked makes the waiter next in line the puller (none when nobody waits): when
// the next unit comes, the puller is then most often the one it goes to, and one wake-up
// serves it, as a direct hand-over would.
func (s *slots) passPullLocked() {
	s.puller = nil
	if len(s.waiting) == 0 {
		return
	}
	_, s.puller = s.nextLocked()
	ring(s.puller)
}

// ring wakes w without blocking: its state is read under the lock, so one pending ring
// is as good as two.
func ring(w *waiter) {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}
