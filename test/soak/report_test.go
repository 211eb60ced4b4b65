package soak

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ome-routing/operator/controllers/routing"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/test/framework/stats"
)

// report prints the run's figures and fails the test on what must never happen.
type report struct {
	t        *testing.T
	sched    schedule
	watch    *watcher
	sampler  *sampler
	replicas []*replica
	fleet    *envfleet.Fleet
	start    time.Time
	end      time.Time
	print    func(string)
}

func (r *report) run(ctx context.Context) {
	for _, l := range r.sampler.memoryLines() {
		r.print(l)
	}
	w := r.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	r.gates()
	r.lateness()
	r.writers()
	r.takeovers()
	r.routes()
	r.events(ctx)
	r.drain()
	r.errors()
	r.probes()
	r.members()
	for _, f := range w.findings {
		r.print(fmt.Sprintf("soak finding at=%s %s", f.at.Sub(r.start).Round(time.Second), f.what))
	}
}

func (r *report) gates() {
	w := r.watch
	undelivered := 0
	for _, h := range w.homes {
		h.withTruth(func(truth *homeTruth) {
			for _, a := range truth.answers {
				if a.undelivered && a.at.After(r.start) {
					undelivered++
				}
			}
		})
	}
	r.print(fmt.Sprintf("soak gates map_versions=%d probe_records_judged=%d consistent=%d lost=%d made_up=%d lifted_late=%d "+
		"after_a_timeout=%d unanswered=%d gated_with_positive_weight=%d lost_on_return=%d answers_undelivered=%d",
		w.versions, w.judged, w.verdicts[consistent], w.verdicts[lost], w.verdicts[madeUp], w.verdicts[lateLift],
		w.verdicts[disturbed], w.verdicts[unanswered], w.positiveGate, w.lostFresh, undelivered))
	if w.verdicts[lost]+w.verdicts[madeUp]+w.positiveGate+w.lostFresh > 0 {
		r.t.Errorf("gates lost %d, made up %d, gated with a positive weight %d, lost when a home came back %d: want none (see the findings)",
			w.verdicts[lost], w.verdicts[madeUp], w.positiveGate, w.lostFresh)
	}
}

// lateness prints, by the phase the deciding answer came in, how long after it the map
// showed the gate (and its lift), and how many of the gates the answers made reached the
// map at all.
func (r *report) lateness() {
	w := r.watch
	made, landed := map[string]int{}, map[string]int{}
	for key, h := range w.homes {
		if h.behaviour.name != slow.name {
			continue
		}
		h.withTruth(func(truth *homeTruth) {
			for _, i := range truth.onsets() {
				at := truth.answers[i].at
				if at.Before(r.start) || at.After(r.end.Add(-30*time.Second)) {
					continue
				}
				ph := w.phase(at)
				made[ph]++
				if w.matched[key][i] {
					landed[ph]++
				}
			}
		})
	}
	phases := slices.Sorted(maps.Keys(made))
	for _, ph := range phases {
		on, off := w.onsetLate[ph], w.liftLate[ph]
		r.print(fmt.Sprintf("soak lateness phase=%s gates_made=%d gates_published=%d gate_late_median=%s gate_late_p90=%s gate_late_max=%s "+
			"lifts=%d lift_late_median=%s lift_late_max=%s goal_gate_late_max_le_period=%t",
			ph, made[ph], landed[ph], ms(stats.Quantile(on, 0.5)), ms(stats.Quantile(on, 0.9)), ms(stats.Max(on)),
			len(off), ms(stats.Quantile(off, 0.5)), ms(stats.Max(off)), stats.Max(on) <= period))
	}
}

func (r *report) writers() {
	w := r.watch.writers
	r.print(fmt.Sprintf("soak writers kills=%d versions_with_two_writers=%d writes_while_the_other_led=%d other_routing_managers=%v",
		len(w.kills), w.doubles, len(w.violations)-w.doubles, w.others))
	for i, v := range w.violations {
		if i < 10 {
			r.print("soak writer_violation " + v)
		}
	}
	if len(w.violations) > 0 || len(w.others) > 0 {
		r.t.Errorf("two writers at once: %d violations, other managers %v", len(w.violations), w.others)
	}
}

func (r *report) takeovers() {
	goal := leaseDuration + period
	for i, to := range r.watch.takeovers {
		since := func(t time.Time) string {
			if t.IsZero() {
				return "never"
			}
			return ms(t.Sub(to.at))
		}
		fromLease := "never"
		if !to.all.IsZero() && !to.leased.IsZero() {
			fromLease = ms(to.all.Sub(to.leased))
		}
		// The goal is on the gates: every gate the answers had made before the kill, and
		// no map showed yet, is on its map within the Lease duration and one period.
		r.print(fmt.Sprintf("soak takeover n=%d at=%s killed=%s by=%s phase=%s lease_moved_after=%s first_map_write_after=%s "+
			"gates_pending=%d gates_lifted_first=%d every_gate_on_map_after=%s "+
			"every_map_written_after=%s every_map_written_after_lease_moved=%s maps_written=%d goal=%s goal_met=%t",
			i+1, to.at.Sub(r.start).Round(time.Second), to.killed, or(to.by, "none"), r.watch.phase(to.at), since(to.leased), since(to.first),
			to.gates, to.dropped, since(to.gatesOn),
			since(to.all), fromLease, len(to.written), goal, !to.gatesOn.IsZero() && to.gatesOn.Sub(to.at) <= goal))
		// A takeover that the next kill cut short is reported; the last one has until the
		// end of the run.
		if to.all.IsZero() && i == len(r.watch.takeovers)-1 {
			r.t.Errorf("takeover %d: the new leader wrote %d of %d maps", i+1, len(to.written), r.watch.services)
		}
	}
}

// routes prints how long routes diverged from their maps, by the phase it began in.
func (r *report) routes() {
	by := map[string][]time.Duration{}
	open := map[string]int{}
	for _, d := range r.watch.follow.divergences(r.end) {
		if d.since.Before(r.start) {
			continue
		}
		ph := r.watch.phase(d.since)
		by[ph] = append(by[ph], d.took)
		if d.open {
			open[ph]++
		}
	}
	for _, ph := range slices.Sorted(maps.Keys(by)) {
		ds := by[ph]
		over := 0
		for _, d := range ds {
			if d > routeBound {
				over++
			}
		}
		r.print(fmt.Sprintf("soak route phase=%s divergences=%d median=%s p99=%s max=%s longer_than_%s=%d open_at_end=%d",
			ph, len(ds), ms(stats.Quantile(ds, 0.5)), ms(stats.Quantile(ds, 0.99)), ms(stats.Max(ds)), routeBound, over, open[ph]))
	}
}

// routeBound is how long a route may lag its map outside the faults: two periods.
const routeBound = 2 * period

// events counts the gate events by home against the transitions the maps showed. The
// bound: at most one HomeGated per gate and one HomeUngated per lift, and none at all for
// a home the maps never showed gated: flapping faster than the thresholds makes no events.
// (Repeats of an event are counted from its series, which the recorder updates only now
// and then, so the count can fall short of the transitions; it cannot exceed them.)
func (r *report) events(ctx context.Context) {
	list := &eventsv1.EventList{}
	if err := r.fleet.ControlPlane.Client.List(ctx, list, client.InNamespace(namespace)); err != nil {
		r.t.Errorf("list events: %v", err)
		return
	}
	gated, ungated := map[homeKey]int{}, map[homeKey]int{}
	for _, e := range list.Items {
		if e.Related == nil {
			continue
		}
		n := 1
		if e.Series != nil {
			n = int(e.Series.Count)
		}
		key := homeKey{e.Regarding.Name, e.Related.Name}
		switch e.Reason {
		case routing.EventHomeGated:
			gated[key] += n
		case routing.EventHomeUngated:
			ungated[key] += n
		}
	}
	w := r.watch
	var g, u, on, off, quiet, over, fastEvents int
	for key, h := range w.homes {
		g, u = g+gated[key], u+ungated[key]
		shown := w.onsets[key] + w.reentries[key] + w.lifts[key]
		on, off = on+w.onsets[key]+w.reentries[key], off+w.lifts[key]
		if shown == 0 {
			quiet += gated[key] + ungated[key]
		}
		if h.behaviour.name == fast.name {
			fastEvents += gated[key] + ungated[key]
		}
		if gated[key] > w.onsets[key]+w.reentries[key] || ungated[key] > w.lifts[key] {
			over++
		}
	}
	r.print(fmt.Sprintf("soak events home_gated=%d gates_shown=%d home_ungated=%d lifts_shown=%d events_per_transition=%.2f "+
		"events_for_homes_never_shown_gated=%d homes_over_one_event_per_transition=%d events_for_fast_flappers=%d",
		g, on, u, off, float64(g+u)/float64(max(on+off, 1)), quiet, over, fastEvents))
	if quiet > 0 || over > 0 {
		r.t.Errorf("event storm: %d events for homes that were never gated, %d homes with more events than transitions", quiet, over)
	}
}

func (r *report) drain() {
	steadyTo := r.start.Add(r.sched.slow.from)
	took, base := r.sampler.drained(r.start.Add(time.Minute), steadyTo, r.start.Add(r.sched.slower.to))
	r.print(fmt.Sprintf("soak drain after=latency-2s steady_queue_p90=%.0f queue_back_to_steady_after=%s goal_within_1m=%t",
		base, or(ms(took), "never"), took > 0 && took <= time.Minute))
}

func (r *report) errors() {
	total := 0
	var firsts []string
	for _, rep := range r.replicas {
		n, f := rep.reconcilerErrors()
		total += n
		for _, m := range f {
			firsts = append(firsts, rep.name+" "+m)
		}
	}
	r.print(fmt.Sprintf("soak errors reconciler_error_lines=%d probe_transport_errors=%.0f", total, r.sampler.probeErrorsTotal))
	for _, f := range firsts {
		r.print("soak error_sample " + f)
	}
}

// probes checks for two probers at once: a home answering more probes in a stretch of
// ten periods than one prober can send it (one per slot, so at most eleven). It also
// counts answers closer together than half and a quarter of a period: a probe that
// finishes late is followed by the next one on its map's slot, which can come right after
// it, so those happen with one prober too (most under a loaded machine), and are reported.
func (r *report) probes() {
	close, half, doubled := 0, 0, 0
	var where []string
	for key, h := range r.watch.homes {
		h.withTruth(func(truth *homeTruth) {
			a := truth.answers
			if n := truth.mostIn(10*period, r.start, r.end); n > maxPerTenPeriods {
				doubled++
				if len(where) < 8 {
					where = append(where, fmt.Sprintf("%s@%s:%d_answers_in_10_periods", key.service, key.cluster, n))
				}
			}
			for i := 1; i < len(a); i++ {
				gap := a[i].at.Sub(a[i-1].at)
				if !a[i].at.After(r.start) || !a[i].at.Before(r.end) || gap >= period/2 {
					continue
				}
				half++
				if gap < period/4 {
					close++
				}
			}
		})
	}
	r.print(fmt.Sprintf("soak probes homes_probed_faster_than_one_prober_can=%d answers_closer_than_a_quarter_period=%d closer_than_half_a_period=%d %s",
		doubled, close, half, strings.Join(where, " ")))
	if doubled > 0 {
		r.t.Errorf("%d homes answered more than %d probes in ten periods: two probers at once", doubled, maxPerTenPeriods)
	}
}

// maxPerTenPeriods is the most probes one prober sends a home in ten periods: one per
// slot, and the off-grid first probe after a takeover.
const maxPerTenPeriods = 11

// members prints the cut-off member's Ready changes and how many maps carried its homes.
func (r *report) members() {
	for _, c := range r.watch.memberChanges {
		r.print(fmt.Sprintf("soak member at=%s cluster=%s ready=%s reason=%s maps_with_its_homes=%d",
			c.at.Sub(r.start).Round(time.Second), c.cluster, c.status, c.reason, c.maps))
	}
	r.print(fmt.Sprintf("soak member cluster=%s maps_with_its_homes_min=%d at=%s", cutOff, r.watch.cutOffMin.n,
		r.watch.cutOffMin.at.Sub(r.start).Round(time.Second)))
}
