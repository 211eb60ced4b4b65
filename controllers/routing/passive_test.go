package routing

import (
	"testing"
	"time"

	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/passivegate"
)

// A gate's record keeps what the next decision needs: a new leader, or the next reconcile,
// reads back the same state (to the second), Shadow gates included, and the counts of the
// reading that closed the gate.
func TestPassiveRecordRoundTrip(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	st := passivegate.State{Gated: true, Since: now, Until: now.Add(30 * time.Second), Count: 2, LastLift: now.Add(-time.Minute),
		Requests: 90.4, FailedPercent: 100.0 / 3}
	for _, enforced := range []bool{true, false} {
		rec := passiveRecord(passivegate.Decision{State: st, Message: "held"}, passivegate.Reading{Known: true, Requests: 3}, enforced, nil)
		if rec.Gated != enforced || rec.WouldGate == enforced || rec.Signal != omev1beta1.TrafficSignalKnown || rec.Message != "held" {
			t.Fatalf("enforced %v: %+v", enforced, rec)
		}
		if *rec.Requests != 90 || *rec.Failures != 30 {
			t.Fatalf("the closing reading's counts: %d of %d", *rec.Failures, *rec.Requests)
		}
		back := passiveState(rec)
		if !back.Gated || !back.Since.Equal(st.Since) || !back.Until.Equal(st.Until) || back.Count != 2 || !back.LastLift.Equal(st.LastLift) ||
			back.Requests != 90 || back.FailedPercent < 33 || back.FailedPercent > 34 {
			t.Fatalf("enforced %v: read back %+v from %+v", enforced, back, rec)
		}
	}
}

// Without a gate the record holds the last Known reading; an Unknown one keeps the counts
// before it and says why.
func TestPassiveRecordReadings(t *testing.T) {
	known := passiveRecord(passivegate.Decision{}, passivegate.Reading{Known: true, Requests: 50.6, Failures: 80}, true, nil)
	if *known.Requests != 51 || *known.Failures != 51 || known.Message != "" {
		t.Fatalf("failures are capped at the requests: %+v", known)
	}
	unknown := passiveRecord(passivegate.Decision{}, passivegate.Reading{Reason: "requests: the query gave no sample"}, true, known)
	if unknown.Signal != omev1beta1.TrafficSignalUnknown || ptr.Deref(unknown.Requests, 0) != 51 || unknown.Message != "requests: the query gave no sample" {
		t.Fatalf("got %+v", unknown)
	}
	if s := passiveState(unknown); s.Gated || s.Requests != 0 {
		t.Fatalf("an ungated record's state: %+v", s)
	}
}
