package controllers

import "time"

// The prober's part of sharing the observer fairly between services (the observer hands
// each freed slot to the waiting service holding the fewest; see observer.Request.Tenant).
//
// Each map may have at most its fair share of the dispatch cap in flight: maxInFlight
// divided by the number of maps, rounded up. A service whose homes hang therefore holds
// at most its share of the slots for its timeout, and the others keep the rest. The due
// homes of a map at its share wait here, not as goroutines, and go out map by map as the
// map's own probes finish. When the cap is full anyway (more maps than slots), a due home
// of a map with nothing in flight is dispatched past it, one per map and at most
// maxInFlight in all (see pastCapLimit), and waits in the observer for the next slot to
// free: at most one probe timeout.

// heldHomes are the due homes waiting for their map to drop under its share or for room
// under the cap. ready lists, in turn, the maps with held homes that are under their
// share; a map at its share rejoins when one of its probes finishes (finishedLocked).
type heldHomes struct {
	ready []*mapProbes
}

// shareLocked is one map's fair share of the dispatch cap.
func (p *Prober) shareLocked() int {
	return max(1, (p.maxInFlight+len(p.maps)-1)/max(len(p.maps), 1))
}

// holdLocked parks a due home until its map may send it.
func (p *Prober) holdLocked(h *homeProbe) {
	mp := h.owner
	h.waiting = true
	mp.held = append(mp.held, h)
	p.readyLocked(mp)
}

// readyLocked queues mp for a turn when it has held homes and room under its share.
func (p *Prober) readyLocked(mp *mapProbes) {
	if !mp.inReady && len(mp.held) > 0 && mp.running < p.shareLocked() {
		mp.inReady = true
		p.held.ready = append(p.held.ready, mp)
	}
}

// finishedLocked is called when one of mp's probes has finished.
func (p *Prober) finishedLocked(mp *mapProbes) {
	mp.running--
	p.readyLocked(mp)
}

// popHeldLocked takes the next held home of a map under its share, one map after another,
// skipping homes removed since they were held; nil when there is none.
func (p *Prober) popHeldLocked() *homeProbe {
	for len(p.held.ready) > 0 {
		mp := p.held.ready[0]
		p.held.ready = p.held.ready[1:]
		mp.inReady = false
		var h *homeProbe
		for len(mp.held) > 0 && h == nil {
			if !mp.held[0].removed {
				h = mp.held[0]
			}
			mp.held[0].waiting = false
			mp.held = mp.held[1:]
		}
		if h == nil || mp.running >= p.shareLocked() {
			if h != nil {
				// Its share is taken meanwhile: keep it, and wait for a probe to finish.
				h.waiting = true
				mp.held = append([]*homeProbe{h}, mp.held...)
			}
			continue
		}
		if mp.running+1 < p.shareLocked() {
			p.readyLocked(mp)
		}
		return h
	}
	return nil
}

// nextLocked is the next home to dispatch now, or nil.
func (p *Prober) nextLocked(now time.Time) *homeProbe {
	for {
		if p.running < p.maxInFlight {
			// Held homes first: they were due before anything still in the queue.
			if h := p.popHeldLocked(); h != nil {
				return h
			}
			h := p.queue.popDueOne(now)
			if h == nil || h.owner.running < p.shareLocked() {
				return h
			}
			p.holdLocked(h)
			continue
		}
		h := p.queue.popDueOne(now)
		if h == nil || (h.owner.running == 0 && p.running < p.pastCapLimit()) {
			return h
		}
		p.holdLocked(h)
	}
}

// pastCapLimit bounds the probes in flight, those sent past the cap included: at most
// maxInFlight more than the cap wait in the observer for a slot. Without the bound, a
// fleet with more idle maps than slots (50,000 homes in thousands of maps) would send one
// probe per map at once, each a goroutine waiting in the observer, and the observer would
// spend its time choosing among thousands of waiting services. Past the bound, due homes
// wait here, in their map's turn, as they do at the cap.
func (p *Prober) pastCapLimit() int {
	return 2 * p.maxInFlight
}
