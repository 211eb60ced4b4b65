package passivegate

import (
	"fmt"
	"time"
)

// The messages below go into a TrafficMap entry's weightReason message and into events.
// Each names the numbers it acted on, so that a person can check them against the
// gateway's own dashboards.

func gatedMessage(p Policy, r Reading, s State) string {
	return fmt.Sprintf("passive gate: %s failed over %s (threshold %d%% of at least %d requests); "+
		"held out for %s (gate %d in a row), then lifts once its probe passes",
		ratio(r.Failures, r.Requests, s.FailedPercent), r.Window, p.FailurePercent, p.MinRequests,
		s.Until.Sub(s.Since), s.Count)
}

func heldMessage(s State, now time.Time, probePassing bool) string {
	closed := fmt.Sprintf("passive gate since %s (%.0f%% of %.0f requests failed)",
		s.Since.UTC().Format(time.RFC3339), s.FailedPercent, s.Requests)
	if now.Before(s.Until) {
		return fmt.Sprintf("%s; lifts at %s at the earliest, once its probe passes", closed, s.Until.UTC().Format(time.RFC3339))
	}
	if !probePassing {
		return closed + "; its ejection time is over, and it lifts once its probe passes"
	}
	return closed
}

func liftedMessage(s State) string {
	return fmt.Sprintf("passive gate lifted after %s: its ejection time is over and its probe passes",
		s.LastLift.Sub(s.Since).Round(time.Second))
}

func cappedMessage(p Policy, r Reading, held, total int64) string {
	return fmt.Sprintf("passive gate: %s failed over %s (threshold %d%%), but passive gates already hold out "+
		"%d%% of the service's capacity and maxEjectionPercent is %d: left in traffic",
		ratio(r.Failures, r.Requests, r.failedPercent()), r.Window, p.FailurePercent, held*100/max(total, 1), p.MaxEjectionPercent)
}

func ratio(failures, requests, percent float64) string {
	return fmt.Sprintf("%.0f of %.0f requests (%.1f%%)", failures, requests, percent)
}
