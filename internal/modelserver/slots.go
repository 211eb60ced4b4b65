package modelserver

import (
	"container/list"
	"context"
	"sync"
)

// slots are a model server's batch: at most limit requests hold a slot at once, and the
// rest wait for one in the order they came (FIFO), as a model server's scheduler takes
// waiting requests into its running batch. A waiter is handed its slot by the request
// that frees it, through a channel of its own, so nobody polls and nobody is skipped.
type slots struct {
	mu sync.Mutex
	// limit is how many requests may hold a slot at once; 0 is no limit.
	limit   int
	running int
	// waiting holds a *slotWaiter per request waiting, first come first.
	waiting list.List
}

// slotWaiter is one request waiting for a slot.
type slotWaiter struct {
	// granted is closed when the request is handed a slot, after it left waiting.
	granted chan struct{}
}

// acquire waits for a slot, behind every request that came before, and takes it. A
// request whose ctx ends first leaves the queue without a slot and gets ctx's error.
func (s *slots) acquire(ctx context.Context) error {
	s.mu.Lock()
	if s.waiting.Len() == 0 && s.freeLocked() {
		s.running++
		s.mu.Unlock()
		return nil
	}
	w := &slotWaiter{granted: make(chan struct{})}
	place := s.waiting.PushBack(w)
	s.mu.Unlock()
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-w.granted:
		// Handed a slot just as its client left: the slot goes on to the next in line,
		// since nobody is left to answer.
		s.running--
		s.grantLocked()
	default:
		s.waiting.Remove(place)
	}
	return ctx.Err()
}

// release frees a slot taken with acquire and hands it to the first request waiting.
func (s *slots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running--
	s.grantLocked()
}

// setLimit changes how many requests may hold a slot at once, at once: raising or lifting
// the limit lets waiting requests in now; lowering it takes no slot from a request that
// holds one, and lets nobody in until enough of them are done.
func (s *slots) setLimit(limit int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limit = max(limit, 0)
	s.grantLocked()
}

// state is how many requests wait for a slot, how many hold one, and the limit, all at
// one instant.
func (s *slots) state() (waiting, running, limit int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting.Len(), s.running, s.limit
}

func (s *slots) freeLocked() bool { return s.limit == 0 || s.running < s.limit }

// grantLocked hands free slots to the requests waiting longest. The caller holds s.mu.
func (s *slots) grantLocked() {
	for s.waiting.Len() > 0 && s.freeLocked() {
		w := s.waiting.Remove(s.waiting.Front()).(*slotWaiter)
		s.running++
		close(w.granted)
	}
}
