package observer

import (
	"context"
	"slices"
	"sync"
)

// slots is the observer's request cap, shared fairly between tenants (for the prober, the
// routed services). A request takes a free slot at once when nobody waits. Otherwise it
// queues, and each slot that frees goes to the waiting tenant that holds the fewest slots,
// the longest-waiting first among equals. A tenant may so take every idle slot, but once
// another tenant waits, that tenant gets the next slot to free: one tenant's hanging
// requests delay another's by at most the time until one of them ends, one request
// timeout, never by all of them in turn.
type slots struct {
	mu   sync.Mutex
	free int64
	// held counts the slots each tenant holds; a tenant holding none has no entry.
	held map[string]int64
	// waiting holds each tenant's waiters in arrival order; no entry when none wait.
	waiting map[string][]*waiter
	seq     uint64
}

type waiter struct {
	tenant  string
	seq     uint64
	ready   chan struct{}
	granted bool
}

func newSlots(n int64) *slots {
	return &slots{free: n, held: map[string]int64{}, waiting: map[string][]*waiter{}}
}

// acquire takes a slot for tenant, waiting for one if needed. It returns ctx's error, and
// holds no slot, when ctx ends first.
func (s *slots) acquire(ctx context.Context, tenant string) error {
	s.mu.Lock()
	if s.free > 0 && len(s.waiting) == 0 {
		s.free--
		s.held[tenant]++
		s.mu.Unlock()
		return nil
	}
	if err := ctx.Err(); err != nil {
		s.mu.Unlock()
		return err
	}
	w := &waiter{tenant: tenant, seq: s.seq, ready: make(chan struct{})}
	s.seq++
	s.waiting[tenant] = append(s.waiting[tenant], w)
	s.grantLocked()
	s.mu.Unlock()

	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		if w.granted {
			// The slot came as ctx ended: pass it on, so it is not lost.
			s.releaseLocked(tenant)
			s.mu.Unlock()
			return ctx.Err()
		}
		q := s.waiting[tenant]
		if i := slices.Index(q, w); i >= 0 {
			q = slices.Delete(q, i, i+1)
		}
		if len(q) == 0 {
			delete(s.waiting, tenant)
		} else {
			s.waiting[tenant] = q
		}
		s.mu.Unlock()
		return ctx.Err()
	}
}

// release gives back a slot that tenant holds.
func (s *slots) release(tenant string) {
	s.mu.Lock()
	s.releaseLocked(tenant)
	s.mu.Unlock()
}

func (s *slots) releaseLocked(tenant string) {
	if s.held[tenant]--; s.held[tenant] <= 0 {
		delete(s.held, tenant)
	}
	s.free++
	s.grantLocked()
}

// grantLocked hands free slots to waiters: each to the waiting tenant holding the fewest,
// the one whose first waiter came earliest among equals.
func (s *slots) grantLocked() {
	for s.free > 0 && len(s.waiting) > 0 {
		var best string
		var bestQ []*waiter
		for tenant, q := range s.waiting {
			if bestQ == nil || s.held[tenant] < s.held[best] ||
				(s.held[tenant] == s.held[best] && q[0].seq < bestQ[0].seq) {
				best, bestQ = tenant, q
			}
		}
		w := bestQ[0]
		if len(bestQ) == 1 {
			delete(s.waiting, best)
		} else {
			s.waiting[best] = bestQ[1:]
		}
		w.granted = true
		s.free--
		s.held[best]++
		close(w.ready)
	}
}
