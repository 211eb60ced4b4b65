package schedule

import "time"

// Sharing the dispatch cap fairly between groups (the observer then hands each freed slot
// to the waiting tenant holding the fewest; see observer.Request.Tenant).
//
// Each group may have at most its fair share of the cap in flight: MaxInFlight divided by
// the number of groups, rounded up. A group whose homes hang therefore holds at most its
// share of the slots for its timeout, and the others keep the rest. The due homes of a
// group at its share wait here, not as goroutines, and go out group by group as the
// group's own work finishes. When the cap is full anyway (more groups than slots), a due
// home of a group with nothing in flight may be dispatched past it, one per group and at
// most PastCap in all (see pastCapLimit), and waits in the observer for the next slot to
// free: at most one timeout.

// shareLocked is one group's fair share of the dispatch cap.
func (e *Engine[G, H, R, N]) shareLocked() int {
	return max(1, (e.maxInFlight+e.groups-1)/max(e.groups, 1))
}

// holdLocked parks a due home until its group may send it.
func (e *Engine[G, H, R, N]) holdLocked(h *Home[G, H]) {
	g := h.group
	h.waiting = true
	g.held = append(g.held, h)
	e.held++
	e.readyLocked(g)
}

// readyLocked queues g for a turn when it has held homes and room under its share.
func (e *Engine[G, H, R, N]) readyLocked(g *Group[G, H]) {
	if !g.inReady && len(g.held) > 0 && g.running < e.shareLocked() {
		g.inReady = true
		e.ready = append(e.ready, g)
	}
}

// finishedLocked is called when work of one of g's homes has finished.
func (e *Engine[G, H, R, N]) finishedLocked(g *Group[G, H]) {
	g.running--
	e.readyLocked(g)
}

// popHeldLocked takes the next held home of a group under its share, one group after
// another, skipping homes removed since they were held; nil when there is none.
func (e *Engine[G, H, R, N]) popHeldLocked() *Home[G, H] {
	for len(e.ready) > 0 {
		g := e.ready[0]
		e.ready = e.ready[1:]
		g.inReady = false
		var h *Home[G, H]
		for len(g.held) > 0 && h == nil {
			if !g.held[0].removed {
				h = g.held[0]
			}
			g.held[0].waiting = false
			g.held = g.held[1:]
			e.held--
		}
		if h == nil || g.running >= e.shareLocked() {
			if h != nil {
				// Its share is taken meanwhile: keep it, and wait for work to finish.
				h.waiting = true
				g.held = append([]*Home[G, H]{h}, g.held...)
				e.held++
			}
			continue
		}
		if g.running+1 < e.shareLocked() {
			e.readyLocked(g)
		}
		return h
	}
	return nil
}

// nextLocked is the next home to dispatch now, or nil.
func (e *Engine[G, H, R, N]) nextLocked(now time.Time) *Home[G, H] {
	for {
		if e.running < e.maxInFlight {
			// Held homes first: they were due before anything still in the queue.
			if h := e.popHeldLocked(); h != nil {
				return h
			}
			h := e.queue.popDueOne(now)
			if h == nil || h.group.running < e.shareLocked() {
				return h
			}
			e.holdLocked(h)
			continue
		}
		h := e.queue.popDueOne(now)
		if h == nil || (h.group.running == 0 && e.running < e.pastCapLimit()) {
			return h
		}
		e.holdLocked(h)
	}
}

// pastCapLimit bounds the work in flight, that sent past the cap included: at most
// PastCap more than the cap wait in the observer for a slot. Without the bound, a fleet
// with more idle groups than slots (50,000 homes in thousands of maps) would send one
// attempt per group at once, each a goroutine waiting in the observer, and the observer
// would spend its time choosing among thousands of waiting tenants. Past the bound, due
// homes wait here, in their group's turn, as they do at the cap.
func (e *Engine[G, H, R, N]) pastCapLimit() int {
	return e.maxInFlight + e.pastCap
}
