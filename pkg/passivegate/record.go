package passivegate

import (
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/text"
)

// The bounds of what a decision records, as the TrafficMap CRD gives them
// (test/integration/bounds checks them against the generated schema).
const (
	// MaxGatesInARow is passiveGate.count's maximum: a cluster gated again and again
	// stops counting there, and its ejection time has long reached maxEjectionTime.
	MaxGatesInARow = 1000
	// MaxRecordedCount is the largest requests or failures count a record holds: 2^53,
	// the last whole number a float64 keeps exact. The traffic signal reads a larger
	// answer as Unknown, so only a record stored by hand can hold more.
	MaxRecordedCount = 1 << 53
	// MaxMessageBytes is passiveGate.message's maxLength.
	MaxMessageBytes = 256
)

// FromRecord is the decision's view of a map's record: a Shadow gate is a gate too, so
// that switching the mode keeps it.
func FromRecord(rec *v1beta1.TrafficMapPassiveGate) State {
	if rec == nil {
		return State{}
	}
	st := State{Gated: rec.Gated || rec.WouldGate, Count: min(max(rec.Count, 0), MaxGatesInARow),
		Since: timeOf(rec.Since), Until: timeOf(rec.Until), LastLift: timeOf(rec.LastLiftTime)}
	if st.Gated && rec.Requests != nil && *rec.Requests > 0 {
		st.Requests = float64(*rec.Requests)
		st.FailedPercent = 100 * min(float64(max(ptr.Deref(rec.Failures, 0), 0)), st.Requests) / st.Requests
	}
	return st
}

// Record is what the map records of one decision d, taken on reading r. While a gate
// holds, the counts are those of the reading that closed it; otherwise those of the last
// Known reading, or prev's when r is Unknown. Every value is within the CRD's bounds.
func Record(d Decision, r Reading, enforced bool, prev *v1beta1.TrafficMapPassiveGate) *v1beta1.TrafficMapPassiveGate {
	st := d.State
	rec := &v1beta1.TrafficMapPassiveGate{Signal: v1beta1.TrafficSignalUnknown, Count: min(max(st.Count, 0), MaxGatesInARow),
		Capped: d.Capped, LastLiftTime: metaTime(st.LastLift)}
	if r.Known {
		rec.Signal = v1beta1.TrafficSignalKnown
	}
	switch {
	case st.Gated:
		rec.Gated, rec.WouldGate = enforced, !enforced
		rec.Since, rec.Until = metaTime(st.Since), metaTime(st.Until)
		rec.Requests = ptr.To(Count(st.Requests))
		rec.Failures = ptr.To(Count(st.Requests * st.FailedPercent / 100))
	case r.Known:
		rec.Requests, rec.Failures = ptr.To(Count(r.Requests)), ptr.To(Count(min(r.Failures, r.Requests)))
	case prev != nil:
		rec.Requests, rec.Failures = prev.Requests, prev.Failures
	}
	rec.Message = d.Message
	if rec.Message == "" && !r.Known {
		rec.Message = r.Reason
	}
	rec.Message = text.Cap(rec.Message, MaxMessageBytes)
	return rec
}

// Count is a reading as a whole count (increase() extrapolates to fractions), from 0 to
// MaxRecordedCount: NaN is 0, and a number past the bound saturates there, never wrapping
// to a negative int64.
func Count(v float64) int64 {
	if !(v > 0) {
		return 0
	}
	return int64(math.Round(min(v, MaxRecordedCount)))
}

func timeOf(t *metav1.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.Time
}

// metaTime is t as the map records times (to the second, as lastProbeTime), nil when zero.
func metaTime(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return &metav1.Time{Time: t.Truncate(time.Second)}
}
