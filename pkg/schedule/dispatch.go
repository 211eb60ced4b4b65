package schedule

import (
	"slices"
	"time"
)

// Sharing the dispatch cap fairly between tenants and between groups (the observer then
// hands each freed slot to the waiting tenant holding the fewest, and inside it to the
// group holding the fewest; see observer.Request.Tenant). For the prober a tenant is a
// namespace and a group a map.
//
// Shares. A group's share is MaxInFlight divided by the number of groups, a tenant's
// MaxInFlight divided by the number of tenants, each rounded up. A group never has more
// than its share in flight, so a group whose homes hang holds at most its share of the
// slots for its timeout.
//
// Room. Under the cap, a home of a group under its share goes at once, with one
// exception: a tenant that already holds its share or more leaves the last free slot to
// the others (while there are others). A tenant with many hanging groups so never holds
// every slot, and a tenant under its share finds a free slot at its due time rather than
// waiting for a hanging request to end. When every slot is taken anyway, a due home of a
// group with nothing in flight, in a tenant under its share (or alone), may be dispatched
// past the cap, at most PastCap in all (see pastCapLimit), and waits in the observer for
// the next slot to free: at most one timeout.
//
// Order. Due homes that may not go yet are held here, not as goroutines. Held homes go
// before any home that comes due later: first those of the tenant holding the fewest in
// flight (the one served longest ago among equals), its groups in turn. So a group with
// nothing in flight is never queued behind other groups' fresh work, and a tenant with
// many groups is one tenant in the order, not one per group.

// tenant is the groups of one tenant, and what they have in flight and held.
type tenant[G, H any] struct {
	name    string
	groups  int
	running int
	// ready lists, in turn, the tenant's groups with held homes under their share.
	ready   []*Group[G, H]
	inReady bool
	// served orders tenants holding the same number: it is set when the tenant joins
	// the ready tenants and each time one of its homes goes, so equals take turns.
	served uint64
	// skipped marks a tenant already tried, during one popHeldLocked.
	skipped bool
}

// tenantLocked is the tenant named name, made on first use.
func (e *Engine[G, H, R, N]) tenantLocked(name string) *tenant[G, H] {
	t := e.tenants[name]
	if t == nil {
		t = &tenant[G, H]{name: name}
		e.tenants[name] = t
	}
	return t
}

// forgetTenantLocked drops t once it has neither groups nor work in flight.
func (e *Engine[G, H, R, N]) forgetTenantLocked(t *tenant[G, H]) {
	if t.groups == 0 && t.running == 0 && e.tenants[t.name] == t {
		delete(e.tenants, t.name)
	}
}

// shareLocked is one group's fair share of the dispatch cap.
func (e *Engine[G, H, R, N]) shareLocked() int {
	return max(1, (e.maxInFlight+e.groups-1)/max(e.groups, 1))
}

// overShareLocked reports whether t holds its share of the dispatch cap or more while it
// shares the cap with other tenants.
func (e *Engine[G, H, R, N]) overShareLocked(t *tenant[G, H]) bool {
	n := len(e.tenants)
	return n > 1 && t.running >= max(1, (e.maxInFlight+n-1)/n)
}

// tenantMayGoLocked reports whether t may have one more home dispatched now, as far as
// its tenant's share and the room decide; see the rules above.
func (e *Engine[G, H, R, N]) tenantMayGoLocked(t *tenant[G, H]) bool {
	if e.running < e.maxInFlight {
		return !e.overShareLocked(t) || e.running+1 < e.maxInFlight
	}
	return !e.overShareLocked(t) && e.running < e.pastCapLimit()
}

// groupMayGoLocked reports whether g may have one more home dispatched now, as far as its
// group's share and the room decide.
func (e *Engine[G, H, R, N]) groupMayGoLocked(g *Group[G, H]) bool {
	if e.running < e.maxInFlight {
		return g.running < e.shareLocked()
	}
	return g.running == 0
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
	if g.inReady || len(g.held) == 0 || g.running >= e.shareLocked() {
		return
	}
	g.inReady = true
	t := g.tenant
	t.ready = append(t.ready, g)
	if !t.inReady {
		t.inReady = true
		e.served++
		t.served = e.served
		e.ready = append(e.ready, t)
	}
}

// finishedLocked is called when work of one of g's homes has finished.
func (e *Engine[G, H, R, N]) finishedLocked(g *Group[G, H]) {
	g.running--
	g.tenant.running--
	e.readyLocked(g)
	e.forgetTenantLocked(g.tenant)
}

// unholdGroupLocked lets go of every home g holds, for a group that is dropped.
func (e *Engine[G, H, R, N]) unholdGroupLocked(g *Group[G, H]) {
	for _, h := range g.held {
		h.waiting = false
	}
	e.held -= len(g.held)
	g.held = nil
	if g.inReady {
		g.inReady = false
		t := g.tenant
		t.ready = slices.DeleteFunc(t.ready, func(r *Group[G, H]) bool { return r == g })
	}
}

// popHeldLocked takes the next held home that may go now: from the ready tenant holding
// the fewest in flight, the first of its ready groups that may go, skipping homes removed
// since they were held; nil when there is none.
func (e *Engine[G, H, R, N]) popHeldLocked() *Home[G, H] {
	defer func() {
		for _, t := range e.ready {
			t.skipped = false
		}
	}()
	for {
		t := e.fewestReadyLocked()
		if t == nil || !e.tenantMayGoLocked(t) {
			// Tenants differ only in what they hold, and t holds the fewest.
			return nil
		}
		if h := e.popGroupLocked(t); h != nil {
			e.served++
			t.served = e.served
			return h
		}
		t.skipped = true
	}
}

// fewestReadyLocked is the ready tenant, not yet skipped, holding the fewest in flight
// (the one served longest ago among equals), dropping tenants left with no ready group.
func (e *Engine[G, H, R, N]) fewestReadyLocked() *tenant[G, H] {
	var best *tenant[G, H]
	kept := e.ready[:0]
	for _, t := range e.ready {
		if len(t.ready) == 0 {
			t.inReady, t.skipped = false, false
			continue
		}
		kept = append(kept, t)
		if !t.skipped && (best == nil || t.running < best.running || (t.running == best.running && t.served < best.served)) {
			best = t
		}
	}
	clear(e.ready[len(kept):])
	e.ready = kept
	return best
}

// popGroupLocked takes the first held home of t's first ready group that may go, and
// puts the group back at the end of t's turn if it may send more. Groups with nothing
// left to send, or at their share, leave the turn (finishedLocked brings them back).
// Past the cap, groups with work in flight are passed over; they are at most the groups
// of a share over 1, so fewer than MaxInFlight.
func (e *Engine[G, H, R, N]) popGroupLocked(t *tenant[G, H]) *Home[G, H] {
	share := e.shareLocked()
	for i := 0; i < len(t.ready); {
		g := t.ready[i]
		for len(g.held) > 0 && g.held[0].removed {
			g.held[0].waiting = false
			g.held = g.held[1:]
			e.held--
		}
		if len(g.held) == 0 || g.running >= share {
			g.inReady = false
			t.ready = slices.Delete(t.ready, i, i+1)
			continue
		}
		if !e.groupMayGoLocked(g) {
			i++
			continue
		}
		h := g.held[0]
		h.waiting = false
		g.held = g.held[1:]
		e.held--
		t.ready = slices.Delete(t.ready, i, i+1)
		g.inReady = false
		if g.running+1 < share {
			e.readyLocked(g)
		}
		return h
	}
	return nil
}

// nextLocked is the next home to dispatch now, or nil.
func (e *Engine[G, H, R, N]) nextLocked(now time.Time) *Home[G, H] {
	for {
		// Held homes first: they were due before anything still in the queue.
		if h := e.popHeldLocked(); h != nil {
			return h
		}
		h := e.queue.popDueOne(now)
		if h == nil || (e.groupMayGoLocked(h.group) && e.tenantMayGoLocked(h.group.tenant)) {
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
