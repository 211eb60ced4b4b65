package observer

import (
	"context"
	"slices"
	"sync"

	"golang.org/x/sync/semaphore"
)

// slots is the observer's request cap, shared fairly between tenants (for the prober, the
// namespaces) and between the groups inside each tenant (the routed services). A request
// takes a free slot at once when nobody waits. Otherwise it queues, and each slot that
// frees goes to the waiting tenant that holds the fewest slots, and inside it to the
// waiting group that holds the fewest, the longest-waiting first among equals. A tenant
// may so take every idle slot, but once another tenant waits, that tenant gets the next
// slot to free: one tenant's hanging requests delay another's by at most the time until
// one of them ends, one request timeout, never by all of them in turn; and a tenant with
// many groups counts once against a tenant with one.
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
	// held counts the slots each tenant holds, and groupHeld those each group holds; one
	// holding none has no entry.
	held      map[string]int64
	groupHeld map[owner]int64
	// waiting holds each tenant's waiters in arrival order; no entry when none wait.
	waiting map[string][]*waiter
	seq     uint64
	// puller is the waiter that waits on cap for the queue: set exactly when someone waits.
	puller *waiter
}

// owner is whose request holds or waits for a slot: a group inside a tenant.
type owner struct{ tenant, group string }

type waiter struct {
	owner
	seq uint64
	// wake rings when the waiter has been granted a slot or has become the puller; which
	// of the two is read from granted and slots.puller, under the lock.
	wake    chan struct{}
	granted bool
}

func newSlots(n int64) *slots {
	return &slots{cap: semaphore.NewWeighted(n), held: map[string]int64{}, groupHeld: map[owner]int64{}, waiting: map[string][]*waiter{}}
}

// acquire takes a slot for o, waiting for one if needed. It returns ctx's error, and
// holds no slot, when ctx ends first.
func (s *slots) acquire(ctx context.Context, o owner) error {
	s.mu.Lock()
	// With a waiter queued, a unit that frees belongs to the queue, even while no puller
	// is on the semaphore yet (the role is being passed on): a newcomer must not take it.
	if len(s.waiting) == 0 && s.cap.TryAcquire(1) {
		s.holdLocked(o)
		s.mu.Unlock()
		return nil
	}
	if err := ctx.Err(); err != nil {
		s.mu.Unlock()
		return err
	}
	w := &waiter{owner: o, seq: s.seq, wake: make(chan struct{}, 1)}
	s.seq++
	s.waiting[o.tenant] = append(s.waiting[o.tenant], w)
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
		s.dropLocked(w.owner)
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

// release gives back a slot that o holds. The semaphore hands the unit to the puller,
// if anyone waits.
func (s *slots) release(o owner) {
	s.mu.Lock()
	s.dropLocked(o)
	s.mu.Unlock()
	s.cap.Release(1)
}

func (s *slots) holdLocked(o owner) {
	s.held[o.tenant]++
	s.groupHeld[o]++
}

func (s *slots) dropLocked(o owner) {
	if s.held[o.tenant]--; s.held[o.tenant] <= 0 {
		delete(s.held, o.tenant)
	}
	if s.groupHeld[o]--; s.groupHeld[o] <= 0 {
		delete(s.groupHeld, o)
	}
}

// grantLocked hands the units the puller took to waiters, by the rule of nextLocked.
func (s *slots) grantLocked() {
	for s.free > 0 && len(s.waiting) > 0 {
		w, i := s.nextLocked()
		if q := s.waiting[w.tenant]; len(q) == 1 {
			delete(s.waiting, w.tenant)
		} else {
			s.waiting[w.tenant] = slices.Delete(q, i, i+1)
		}
		w.granted = true
		s.free--
		s.holdLocked(w.owner)
		ring(w)
	}
}

// nextLocked is the waiter the next unit goes to, and its place in its tenant's queue:
// from the waiting tenant holding the fewest (the one whose first waiter came earliest
// among equals), the waiter whose group holds the fewest (the earliest among equals).
// Someone must be waiting. Choosing the tenant first is what keeps a tenant with many
// groups, each holding little, from counting as many tenants.
func (s *slots) nextLocked() (*waiter, int) {
	var best string
	var bestQ []*waiter
	for tenant, q := range s.waiting {
		if bestQ == nil || s.held[tenant] < s.held[best] ||
			(s.held[tenant] == s.held[best] && q[0].seq < bestQ[0].seq) {
			best, bestQ = tenant, q
		}
	}
	at := 0
	for i, w := range bestQ[1:] {
		if s.groupHeld[w.owner] < s.groupHeld[bestQ[at].owner] {
			at = i + 1
		}
	}
	return bestQ[at], at
}

// passPullLocked makes the waiter next in line the puller (none when nobody waits): when
// the next unit comes, the puller is then most often the one it goes to, and one wake-up
// serves it, as a direct hand-over would.
func (s *slots) passPullLocked() {
	s.puller = nil
	if len(s.waiting) == 0 {
		return
	}
	s.puller, _ = s.nextLocked()
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

// waiters counts the requests waiting for a slot.
func (s *slots) waiters() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, q := range s.waiting {
		n += len(q)
	}
	return n
}
