package applied

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/passivegate"
	"github.com/ome-routing/operator/pkg/text"
)

// Withdrawal is one cluster the map holds at weight 0.
type Withdrawal struct {
	Cluster string
	// Decided is when the map first held the cluster at weight 0: the routing reconciler's
	// write, or when it first saw the map so (after a restart).
	Decided time.Time
	// RouteGeneration is the map's routeGeneration then: the route carries the weight 0
	// once the publisher has observed that generation.
	RouteGeneration int64
	// Written is when the routing reconciler first saw the route carry it; zero until then.
	Written time.Time
	// Moved is the start of the first empty window after Written; zero until one is read.
	Moved time.Time
}

// Verdict is the condition and what changed with it.
type Verdict struct {
	Status  metav1.ConditionStatus
	Reason  omev1beta1.TrafficMapConditionReason
	Message string
	// Served are the clusters at weight 0 that still get requests an interval after the
	// route carried their weight 0.
	Served []string
	// Confirmed are the clusters at weight 0 whose last reading shows no request in a whole
	// window after the route carried their weight 0.
	Confirmed []string
	// Moved are the withdrawals whose first empty window this judgement found.
	Moved []Withdrawal
	// Next is when a reading that can settle a withdrawal still awaiting evidence is due;
	// zero when none waits on time alone.
	Next time.Time
}

// Signal is what Judge knows of the traffic signal.
type Signal struct {
	// Configured is false when the installation sets no signal source.
	Configured bool
	// Interval is how often each cluster's signal is read.
	Interval time.Duration
}

// maxNamed is how many clusters a message names before it counts the rest.
const maxNamed = 8

// MaxMessageBytes bounds the condition's message.
const MaxMessageBytes = 2048

// Judge decides the condition for the withdrawals and the split check (nil when the route
// weighs fewer than two clusters) with each cluster's last reading. It returns the
// withdrawals with the traffic moves it found recorded, and settles split in place when
// the readings allow.
func Judge(ws []Withdrawal, split *Split, readings map[string]passivegate.Reading, sig Signal, now time.Time) (Verdict, []Withdrawal) {
	if !sig.Configured {
		return Verdict{Status: metav1.ConditionUnknown, Reason: omev1beta1.TrafficMapReasonNotObserved,
			Message: "routing.trafficSignal is not set: nothing shows whether the gateway follows the route"}, ws
	}
	var v Verdict
	splitWaiting, splitUnknown, splitNext := judgeSplit(split, readings, sig.Interval, now)
	v.Next = splitNext
	out := make([]Withdrawal, len(ws))
	var served, unknown, awaiting, moved []string
	for i, w := range ws {
		st, note, next := judgeOne(&w, readings[w.Cluster], sig.Interval, now)
		if !w.Moved.IsZero() && ws[i].Moved.IsZero() {
			v.Moved = append(v.Moved, w)
		}
		out[i] = w
		if !next.IsZero() && (v.Next.IsZero() || next.Before(v.Next)) {
			v.Next = next
		}
		line := w.Cluster + ": " + note
		switch st {
		case served1:
			served, v.Served = append(served, line), append(v.Served, w.Cluster)
		case unknown1:
			unknown = append(unknown, line)
		case awaiting1:
			awaiting = append(awaiting, line)
		default:
			moved, v.Confirmed = append(moved, line), append(v.Confirmed, w.Cluster)
		}
	}
	splitNote := splitLine(split, splitWaiting)
	switch {
	case len(served) > 0:
		v.Status, v.Reason = metav1.ConditionFalse, omev1beta1.TrafficMapReasonStillServed
		v.Message = join(fmt.Sprintf("The gateway still sends requests to %d cluster(s) the route holds at weight 0, "+
			"so it may not follow the route (a lost update): %s", len(served), named(served)), splitNote)
	case split != nil && split.Verdict == SplitMismatched:
		v.Status, v.Reason = metav1.ConditionFalse, omev1beta1.TrafficMapReasonSplitMismatch
		v.Message = "The gateway's requests do not follow the route's weights, so it may not follow the route (a lost update): " + split.Note
	case len(unknown) > 0:
		v.Status, v.Reason = metav1.ConditionUnknown, omev1beta1.TrafficMapReasonSignalUnknown
		v.Message = join(fmt.Sprintf("The traffic signal of %d cluster(s) at weight 0 cannot be read: %s", len(unknown), named(unknown)), splitNote)
	case splitUnknown != "":
		v.Status, v.Reason = metav1.ConditionUnknown, omev1beta1.TrafficMapReasonSignalUnknown
		v.Message = "The traffic signal of the clusters the route weighs cannot be read: " + splitUnknown
	case len(awaiting) > 0:
		v.Status, v.Reason = metav1.ConditionUnknown, omev1beta1.TrafficMapReasonAwaitingEvidence
		v.Message = join(fmt.Sprintf("No evidence yet that the gateway stopped sending to %d cluster(s) at weight 0: %s",
			len(awaiting), named(awaiting)), splitNote)
	case len(moved) > 0:
		v.Status, v.Reason = metav1.ConditionTrue, omev1beta1.TrafficMapReasonTrafficMoved
		v.Message = join(fmt.Sprintf("The gateway sends no request to the %d cluster(s) the route holds at weight 0: %s",
			len(moved), named(moved)), splitNote)
	case split != nil && split.Verdict == SplitMatched:
		v.Status, v.Reason = metav1.ConditionTrue, omev1beta1.TrafficMapReasonSplitMatched
		v.Message = "The gateway's requests follow the route's weights: " + split.Note
	case split != nil && !split.Settled():
		v.Status, v.Reason = metav1.ConditionUnknown, omev1beta1.TrafficMapReasonAwaitingEvidence
		v.Message = "No evidence yet that the gateway follows the route's weights: " + splitWaiting
	case split != nil:
		v.Status, v.Reason = metav1.ConditionUnknown, omev1beta1.TrafficMapReasonNoClusterAtZero
		v.Message = "The route holds no cluster at weight 0, so there is no withdrawal to see, and " + split.Note
	default:
		v.Status, v.Reason = metav1.ConditionUnknown, omev1beta1.TrafficMapReasonNoClusterAtZero
		v.Message = "The route holds no cluster at weight 0 and weighs fewer than two clusters: there is no withdrawal or split to see"
	}
	v.Message = text.Cap(v.Message, MaxMessageBytes)
	return v, out
}

type state int

const (
	moved1 state = iota
	awaiting1
	unknown1
	served1
)

// judgeOne reads one withdrawal's last reading. It records Moved on w at the first empty
// window after the route carried the weight 0, and returns the state, its note and when a
// reading that can settle it is due.
func judgeOne(w *Withdrawal, r passivegate.Reading, interval time.Duration, now time.Time) (state, string, time.Time) {
	if w.Written.IsZero() {
		return awaiting1, "the route does not carry its weight 0 yet", time.Time{}
	}
	since := now.Sub(w.Written).Round(100 * time.Millisecond)
	if r.At.IsZero() {
		return awaiting1, fmt.Sprintf("weight 0 in the route for %s; no reading of its traffic yet", since), time.Time{}
	}
	if !r.Known {
		return unknown1, r.Reason, time.Time{}
	}
	start := r.At.Add(-r.Window)
	// The first reading whose window starts after the write is asked within one interval
	// after the window has passed.
	firstAfter := func(t time.Time) time.Time { return t.Add(r.Window + interval) }
	if start.Before(w.Written) {
		return awaiting1, fmt.Sprintf("weight 0 in the route for %s; waiting for a %s window that starts after it",
			since, r.Window), firstAfter(w.Written)
	}
	if requests := passivegate.Count(r.Requests); requests > 0 {
		if start.Before(w.Written.Add(interval)) {
			return awaiting1, fmt.Sprintf("weight 0 in the route for %s; %d request(s) in the window that started %s after it, "+
					"within the interval the gateway has to load the route", since, requests, start.Sub(w.Written).Round(100*time.Millisecond)),
				firstAfter(w.Written.Add(interval))
		}
		return served1, fmt.Sprintf("%d request(s) in the %s window from %s, %s after the route carried its weight 0",
			requests, r.Window, start.UTC().Format(time.RFC3339), start.Sub(w.Written).Round(100*time.Millisecond)), time.Time{}
	}
	if w.Moved.IsZero() {
		w.Moved = start
	}
	return moved1, fmt.Sprintf("weight 0 in the route after %s, no requests after %s",
		w.Written.Sub(w.Decided).Round(time.Millisecond), w.Moved.Sub(w.Decided).Round(100*time.Millisecond)), time.Time{}
}

// named joins the first maxNamed notes and counts the rest.
func named(lines []string) string {
	if len(lines) <= maxNamed {
		return strings.Join(lines, " | ")
	}
	return strings.Join(lines[:maxNamed], " | ") + fmt.Sprintf(" | and %d more", len(lines)-maxNamed)
}
