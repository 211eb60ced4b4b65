package load

import (
	"fmt"
	"slices"
	"time"

	"github.com/ome-routing/operator/test/framework/stats"
)

// waitStats are the queue waits of the requests sent in a window.
type waitStats struct {
	window time.Duration
	// all are the waits of every answer that carried one, in milliseconds; byCluster the
	// same by the cluster that answered.
	all       []float64
	byCluster map[string][]float64
	// requests counts the requests sent; failed those that got no answer with a wait (the
	// gateway's own answer, an error, or none).
	requests, failed int
}

// waits reads the results of the requests sent from from to to.
func waits(results []result, from, to time.Time) waitStats {
	w := waitStats{window: to.Sub(from), byCluster: map[string][]float64{}}
	for _, r := range results {
		if r.sent.Before(from) || !r.sent.Before(to) {
			continue
		}
		w.requests++
		if r.err != nil || !r.queued || r.status < 200 || r.status >= 300 {
			w.failed++
			continue
		}
		ms := float64(r.wait) / float64(time.Millisecond)
		w.all = append(w.all, ms)
		w.byCluster[r.cluster] = append(w.byCluster[r.cluster], ms)
	}
	return w
}

// p is the q-quantile of every wait, in milliseconds.
func (w waitStats) p(q float64) float64 { return stats.Quantile(w.all, q) }

// print writes the mode's figure line: offered and capacity are the load and what the two
// clusters serve, in requests per second.
func (w waitStats) print(mode string, offered, capacity float64) {
	a, b := w.byCluster["worker-a"], w.byCluster["worker-b"]
	bShare := 0.0
	if len(w.all) > 0 {
		bShare = 100 * float64(len(b)) / float64(len(w.all))
	}
	fmt.Printf("load mode=%s offered_rps=%.0f sent_rps=%.1f capacity_rps=%.0f window_s=%.0f requests=%d p50_ms=%.0f p95_ms=%.0f p99_ms=%.0f max_ms=%.0f a_p95_ms=%.0f b_p95_ms=%.0f b_share_pct=%.1f failed=%d\n",
		mode, offered, float64(w.requests)/w.window.Seconds(), capacity, w.window.Seconds(), w.requests,
		w.p(0.5), w.p(0.95), w.p(0.99), stats.Max(w.all), stats.Quantile(a, 0.95), stats.Quantile(b, 0.95), bShare, w.failed)
}

// ratio writes a / b with two decimals, or none when b is 0 (a wait below a millisecond
// divides nothing).
func ratio(a, b float64) string {
	if b <= 0 {
		return "none"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// printSettle writes how the shares moved after a step (named by step): when they reached
// the band they end the window in, how they got there and how much they move in it, and,
// once there, the queue wait of the requests sent from then to the end of the window
// (offered and capacity as waitStats.print takes them).
func (b *bench) printSettle(step string, w span, results []result, offered, capacity float64) {
	byCluster := map[string]settling{}
	for _, c := range workers {
		byCluster[c] = settle(b.rec.sharePath(c, w.step, w.end), w.end, maxStep)
	}
	sa, sb := byCluster["worker-a"], byCluster["worker-b"]
	settled := sa.settled && sb.settled
	osc := sb.oscillation()
	if rank(sa.oscillation()) > rank(osc) {
		osc = sa.oscillation()
	}
	after := max(sa.after, sb.after)
	settleIntervals, settleS, movesAfter := "none", "none", "none"
	if settled {
		settleIntervals, settleS = intervals(after), fmt.Sprintf("%.1f", after.Seconds())
		movesAfter = fmt.Sprint(sa.movesAfter + sb.movesAfter)
	}
	tail := w.end.Add(-w.end.Sub(w.step) / 3)
	fmt.Printf("load settle_intervals=%s step=%s settle_s=%s interval_s=%.0f min_interval_s=%.0f step_pct=%d oscillation=%s moves_after=%s moves_last_third_b=%d band_b=%d-%d first_run_intervals=%s first_run_b_to=%d path_b=%s path_a=%s route_changes=%d\n",
		settleIntervals, step, settleS, signal.Interval.Seconds(), minInterval.Seconds(), maxStep, osc, movesAfter,
		len(b.rec.sharePath("worker-b", tail, w.end))-1, sb.lo, sb.hi, intervals(sb.firstRun), sb.firstRunEnd, sb.pathString(), sa.pathString(),
		b.rec.routeChanges(w.step, w.end))
	if settled && w.end.Sub(w.step.Add(after)) >= 10*signal.Interval {
		waits(results, w.step.Add(after), w.end).print("following_settled_"+step, offered, capacity)
	}
}

// rank orders the oscillations from none to the widest.
func rank(oscillation string) int {
	return slices.Index([]string{"none", "within_one_step", "wider_than_a_step"}, oscillation)
}

// printGates writes the gate delays of a mode.
func printGates(mode string, ds []time.Duration) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Millisecond)) }
	fmt.Printf("load gate mode=%s flips=%d median_ms=%s max_ms=%s min_ms=%s\n", mode, len(ds),
		ms(stats.Median(ds)), ms(slices.Max(ds)), ms(slices.Min(ds)))
}
