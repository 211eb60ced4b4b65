package passivegate

import (
	"math"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ome-routing/operator/api/v1beta1"
)

// A gate's record keeps what the next decision needs: a new leader, or the next reconcile,
// reads back the same state (to the second), Shadow gates included, and the counts of the
// reading that closed the gate.
func TestRecordRoundTrip(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	st := State{Gated: true, Since: now, Until: now.Add(30 * time.Second), Count: 2, LastLift: now.Add(-time.Minute),
		Requests: 90.4, FailedPercent: 100.0 / 3}
	for _, enforced := range []bool{true, false} {
		rec := Record(Decision{State: st, Message: "held"}, Reading{Known: true, Requests: 3}, enforced, nil)
		if rec.Gated != enforced || rec.WouldGate == enforced || rec.Signal != v1beta1.TrafficSignalKnown || rec.Message != "held" {
			t.Fatalf("enforced %v: %+v", enforced, rec)
		}
		if *rec.Requests != 90 || *rec.Failures != 30 {
			t.Fatalf("the closing reading's counts: %d of %d", *rec.Failures, *rec.Requests)
		}
		back := FromRecord(rec)
		if !back.Gated || !back.Since.Equal(st.Since) || !back.Until.Equal(st.Until) || back.Count != 2 || !back.LastLift.Equal(st.LastLift) ||
			back.Requests != 90 || back.FailedPercent < 33 || back.FailedPercent > 34 {
			t.Fatalf("enforced %v: read back %+v from %+v", enforced, back, rec)
		}
	}
}

// Without a gate the record holds the last Known reading; an Unknown one keeps the counts
// before it and says why.
func TestRecordReadings(t *testing.T) {
	known := Record(Decision{}, Reading{Known: true, Requests: 50.6, Failures: 80}, true, nil)
	if *known.Requests != 51 || *known.Failures != 51 || known.Message != "" {
		t.Fatalf("failures are capped at the requests: %+v", known)
	}
	unknown := Record(Decision{}, Reading{Reason: "requests: the query gave no sample"}, true, known)
	if unknown.Signal != v1beta1.TrafficSignalUnknown || ptr.Deref(unknown.Requests, 0) != 51 || unknown.Message != "requests: the query gave no sample" {
		t.Fatalf("got %+v", unknown)
	}
	if s := FromRecord(unknown); s.Gated || s.Requests != 0 {
		t.Fatalf("an ungated record's state: %+v", s)
	}
}

// A count never wraps: 2^63 and more, as a float64 reading, once converted to int64 gave
// math.MinInt64, which passiveGate.requests (minimum 0) refuses with the whole map.
func TestCountSaturates(t *testing.T) {
	cases := map[string]struct {
		in   float64
		want int64
	}{
		"0":           {0, 0},
		"a fraction":  {2.5, 3},
		"negative":    {-4, 0},
		"NaN":         {math.NaN(), 0},
		"2^53":        {MaxRecordedCount, MaxRecordedCount},
		"2^63":        {math.Ldexp(1, 63), MaxRecordedCount},
		"+Inf":        {math.Inf(1), MaxRecordedCount},
		"MaxFloat64":  {math.MaxFloat64, MaxRecordedCount},
		"-Inf":        {math.Inf(-1), 0},
		"just past 0": {0.4, 0},
	}
	for name, c := range cases {
		if got := Count(c.in); got != c.want {
			t.Errorf("%s: Count(%v) = %d, want %d", name, c.in, got, c.want)
		}
	}
}

// A Known reading past 2^63 (the traffic signal reads such an answer Unknown; this is the
// record's own guard) and a gate closed on it record counts of at least 0.
func TestRecordOfAHugeReadingFitsTheSchema(t *testing.T) {
	huge := Reading{Known: true, Requests: math.Ldexp(1, 63), Failures: math.Ldexp(1, 63), Window: time.Minute}
	rec := Record(Decision{}, huge, true, nil)
	if *rec.Requests < 0 || *rec.Failures < 0 || *rec.Requests > MaxRecordedCount {
		t.Fatalf("a reading of 2^63 records %d of %d", *rec.Failures, *rec.Requests)
	}
	d := Decide(policy(), []Home{home("a", huge), home("b", reading(200, 0)), home("c", reading(200, 0))}, t0)[0]
	gated := Record(d, huge, true, nil)
	if !gated.Gated || *gated.Requests != MaxRecordedCount || *gated.Failures != MaxRecordedCount {
		t.Fatalf("a gate closed on 2^63 records %+v", gated)
	}
	// A record stored by hand with the largest int64 the schema allows reads back and
	// records again within it.
	stored := &v1beta1.TrafficMapPassiveGate{Gated: true, Requests: ptr.To(int64(math.MaxInt64)), Failures: ptr.To(int64(math.MaxInt64)), Count: 3}
	again := Record(Decision{State: FromRecord(stored)}, Reading{}, true, stored)
	if *again.Requests != MaxRecordedCount || *again.Failures != MaxRecordedCount {
		t.Fatalf("a stored MaxInt64 records again as %d of %d", *again.Failures, *again.Requests)
	}
}

// passiveGate.count's maximum is 1000: a cluster gated again at 999 records 1000, and at
// 1000 (or a record above it) stays at 1000, never 1001, which the schema refuses.
func TestTheCountOfGatesInARowStopsAtTheSchemaMaximum(t *testing.T) {
	for _, c := range []struct{ before, want int32 }{{998, 999}, {999, 1000}, {1000, 1000}, {1001, 1000}} {
		failing := home("a", reading(200, 200))
		failing.State = FromRecord(&v1beta1.TrafficMapPassiveGate{Count: c.before, LastLiftTime: ptr.To(metav1.NewTime(t0.Add(-time.Second)))})
		homes := []Home{failing, home("b", reading(200, 0)), home("c", reading(200, 0))}
		d := Decide(policy(), homes, t0)[0]
		if d.Transition != Gated || d.State.Count != c.want {
			t.Fatalf("gated again after %d in a row: %+v, want count %d", c.before, d, c.want)
		}
		if rec := Record(d, homes[0].Reading, true, nil); rec.Count != c.want {
			t.Fatalf("recorded count %d after %d in a row, want %d", rec.Count, c.before, c.want)
		}
		if got := d.State.Until.Sub(d.State.Since); got != policy().MaxEjectionTime {
			t.Fatalf("ejection time %s after %d in a row, want maxEjectionTime", got, c.before)
		}
	}
}
