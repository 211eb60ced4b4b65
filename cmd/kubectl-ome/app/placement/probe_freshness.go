package placement

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// How old the newest recorded probe of a map may be before the routing reads Stale.
const (
	// staleProbePeriods is how many probe periods may pass without a recorded probe. A
	// running manager records every home once a period (an attempt starts when due and
	// is written when it ends, within its timeout, which is shorter than the period), so
	// the newest record is under one period old, and under two when a round waits for a
	// request slot or the reconcile queue. Three leaves room for that without letting a
	// stopped manager read Current for long: with the guide's 10s period, 35s.
	staleProbePeriods = 3
	// clockAllowance covers the difference between the clock of the machine kubectl runs
	// on, which dates the report, and the manager's, which dated lastProbeTime: a few
	// seconds apart would otherwise make a map probed every second read Stale.
	clockAllowance = 5 * time.Second
	// assumedProbePeriod stands in for the probe period when the map does not record one
	// (status.probePeriod; a manager before it wrote none). The installation's probe is in
	// the manager's configuration, which kubectl's reader role cannot see, and the
	// service's own period alone is not enough either, as a quiet round may go unwritten
	// for routing.observer.recordInterval. This is the chart's default
	// routing.observer.maxPeriod, the longest period an installation on default limits
	// accepts, so an unknown period never reads Stale early; it reads Stale late, after
	// 15 minutes.
	assumedProbePeriod = 5 * time.Minute
)

// staleProbes says how old the newest probe the map records is, when that is older than a
// running manager lets it get, or "" when it is not (or nothing records a probe). Once a
// probe has run, lastProbeTime moves on every home each period while the manager runs; when
// the manager stops, so does lastProbeTime, and nothing else on the map changes. A record
// more than clockAllowance in the future is set aside, so that one bad clock cannot hide the
// others' age.
func staleProbes(tm *omev1beta1.TrafficMap, now time.Time) string {
	var newest time.Time
	for _, e := range tm.Spec.Entries {
		if p := e.Probe; p != nil && p.LastProbeTime != nil && p.LastProbeTime.After(newest) && !p.LastProbeTime.After(now.Add(clockAllowance)) {
			newest = p.LastProbeTime.Time
		}
	}
	if newest.IsZero() {
		return ""
	}
	period, assumed := assumedProbePeriod, true
	if p := tm.Status.ProbePeriod; p != nil && p.Duration > 0 {
		period, assumed = p.Duration, false
	}
	var lag time.Duration
	if r := tm.Status.ProbeRecordInterval; r != nil && r.Duration > 0 {
		lag = r.Duration
	}
	limit := staleProbePeriods*period + lag + clockAllowance
	age := now.Sub(newest)
	if age <= limit {
		return ""
	}
	periods := fmt.Sprintf("%d probe periods of %s", int64(age/period), period)
	if assumed {
		periods += " (assumed: the map records no probe period)"
	}
	return fmt.Sprintf("last probe recorded %s ago (%s), %s; a running manager records one within %s, so it may be stopped or behind",
		duration.HumanDuration(age), newest.UTC().Format(time.RFC3339), periods, duration.HumanDuration(limit))
}
