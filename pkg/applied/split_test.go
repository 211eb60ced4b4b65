package applied

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/passivegate"
)

// openSplit is a check of worker-a 3, worker-b 1 whose route was written at t0.
func openSplit() *Split {
	s := NewSplit(map[string]int32{"worker-a": 3, "worker-b": 1, "worker-c": 0}, 7)
	s.Written = t0
	return s
}

func TestNewSplit(t *testing.T) {
	if s := NewSplit(map[string]int32{"worker-a": 3, "worker-b": 0}, 2); s != nil {
		t.Fatalf("one weighted cluster has no split: %+v", s)
	}
	s := NewSplit(map[string]int32{"worker-a": 3, "worker-b": 1, "worker-c": 0}, 2)
	if s == nil || len(s.Weights) != 2 || s.Weights["worker-c"] != 0 || s.RouteGeneration != 2 || s.Settled() {
		t.Fatalf("got %+v", s)
	}
}

// The first windows that start an interval after the route carried the weights, with
// enough requests, settle the check: matched within the tolerance, mismatched beyond it,
// not judged below the volume; earlier windows, a missing or an Unknown reading wait.
func TestJudgeSplit(t *testing.T) {
	after := t0.Add(signal.Interval + window + time.Second) // a window that starts 1s after the interval
	cases := []struct {
		name     string
		readings map[string]passivegate.Reading
		now      time.Time
		status   metav1.ConditionStatus
		reason   omev1beta1.TrafficMapConditionReason
		message  string
		next     time.Time
	}{
		{name: "matched", readings: map[string]passivegate.Reading{"worker-a": reading(after, 370), "worker-b": reading(after, 130)}, now: after,
			status: metav1.ConditionTrue, reason: omev1beta1.TrafficMapReasonSplitMatched,
			message: "The gateway's requests follow the route's weights: the split matches the weights within 10 points over 500 request(s): " +
				"worker-a 74% of requests for 75% of the weight | worker-b 26% of requests for 25% of the weight"},
		{name: "mismatched", readings: map[string]passivegate.Reading{"worker-a": reading(after, 250), "worker-b": reading(after, 250)}, now: after,
			status: metav1.ConditionFalse, reason: omev1beta1.TrafficMapReasonSplitMismatch,
			message: "The gateway's requests do not follow the route's weights, so it may not follow the route (a lost update): " +
				"the split is off the weights by 25 points (tolerance 10) over 500 request(s): " +
				"worker-a 50% of requests for 75% of the weight | worker-b 50% of requests for 25% of the weight"},
		{name: "too few requests", readings: map[string]passivegate.Reading{"worker-a": reading(after, 60), "worker-b": reading(after, 20)}, now: after,
			status: metav1.ConditionUnknown, reason: omev1beta1.TrafficMapReasonNoClusterAtZero,
			message: "The route holds no cluster at weight 0, so there is no withdrawal to see, and the split is not judged: 80 request(s) over the window, fewer than 100 (tried again in 6 intervals)",
			next:    after.Add(SplitRetryIntervals * signal.Interval)},
		{name: "a window within the interval the gateway has to load the route",
			readings: map[string]passivegate.Reading{"worker-a": reading(t0.Add(8*time.Second), 250), "worker-b": reading(t0.Add(8*time.Second), 250)}, now: t0.Add(8 * time.Second),
			status: metav1.ConditionUnknown, reason: omev1beta1.TrafficMapReasonAwaitingEvidence,
			message: "No evidence yet that the gateway follows the route's weights: waiting for a 5s window that starts 5s after the route carried the weights",
			next:    t0.Add(15 * time.Second)},
		{name: "no reading of one cluster", readings: map[string]passivegate.Reading{"worker-a": reading(after, 250)}, now: after,
			status: metav1.ConditionUnknown, reason: omev1beta1.TrafficMapReasonAwaitingEvidence,
			message: "No evidence yet that the gateway follows the route's weights: no reading of worker-b's traffic yet"},
		{name: "an Unknown reading", readings: map[string]passivegate.Reading{"worker-a": reading(after, 250), "worker-b": {Reason: "requests: the query gave no sample", At: after}}, now: after,
			status: metav1.ConditionUnknown, reason: omev1beta1.TrafficMapReasonSignalUnknown,
			message: "The traffic signal of the clusters the route weighs cannot be read: worker-b: requests: the query gave no sample"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openSplit()
			v, _ := Judge(nil, s, c.readings, signal, c.now)
			if v.Status != c.status || v.Reason != c.reason || v.Message != c.message || !v.Next.Equal(c.next) {
				t.Fatalf("got %s %s %q next %v\nwant %s %s %q next %v", v.Status, v.Reason, v.Message, v.Next, c.status, c.reason, c.message, c.next)
			}
			if s.Settled() != (c.reason == omev1beta1.TrafficMapReasonSplitMatched || c.reason == omev1beta1.TrafficMapReasonNoClusterAtZero) {
				t.Fatalf("settled %v after %s", s.Settled(), c.reason)
			}
		})
	}
}

// A settled check keeps its verdict whatever later readings say: it is a check of one
// change of the weights, and its clusters are no longer read.
func TestSettledSplitKeepsItsVerdict(t *testing.T) {
	s := openSplit()
	after := t0.Add(11 * time.Second)
	Judge(nil, s, map[string]passivegate.Reading{"worker-a": reading(after, 375), "worker-b": reading(after, 125)}, signal, after)
	if s.Verdict != SplitMatched {
		t.Fatalf("verdict %v", s.Verdict)
	}
	v, _ := Judge(nil, s, map[string]passivegate.Reading{"worker-a": reading(after.Add(time.Minute), 0), "worker-b": reading(after.Add(time.Minute), 500)},
		signal, after.Add(time.Minute))
	if v.Reason != omev1beta1.TrafficMapReasonSplitMatched {
		t.Fatalf("a settled check changed: %s %q", v.Reason, v.Message)
	}
}

// The withdrawals come first: a cluster at weight 0 still served is False whatever the
// split; moved withdrawals with a matched split say both.
func TestJudgeWithdrawalsAndSplit(t *testing.T) {
	after := t0.Add(11 * time.Second)
	w := Withdrawal{Cluster: "worker-c", Decided: t0.Add(-40 * time.Millisecond), RouteGeneration: 7, Written: t0}
	readings := map[string]passivegate.Reading{"worker-a": reading(after, 375), "worker-b": reading(after, 125), "worker-c": reading(after, 0)}
	v, _ := Judge([]Withdrawal{w}, openSplit(), readings, signal, after)
	if v.Reason != omev1beta1.TrafficMapReasonTrafficMoved || !strings.Contains(v.Message, "worker-c: weight 0 in the route after 40ms") ||
		!strings.HasSuffix(v.Message, "; the split matches the weights within 10 points over 500 request(s): "+
			"worker-a 75% of requests for 75% of the weight | worker-b 25% of requests for 25% of the weight") {
		t.Fatalf("got %s %q", v.Reason, v.Message)
	}
	readings["worker-c"] = reading(after, 40)
	readings["worker-a"] = reading(after, 100)
	v, _ = Judge([]Withdrawal{w}, openSplit(), readings, signal, after)
	if v.Status != metav1.ConditionFalse || v.Reason != omev1beta1.TrafficMapReasonStillServed {
		t.Fatalf("got %s %s %q", v.Status, v.Reason, v.Message)
	}
}

// A check that saw too few requests is not read until its retry, then judged afresh on a
// window that starts at the retry: traffic that comes after the change still gets checked.
func TestSplitRetriesAfterTooFewRequests(t *testing.T) {
	s := openSplit()
	after := t0.Add(11 * time.Second)
	Judge(nil, s, map[string]passivegate.Reading{"worker-a": reading(after, 3), "worker-b": reading(after, 1)}, signal, after)
	if !s.Settled() || s.Verdict != SplitTooFewRequests {
		t.Fatalf("verdict %v", s.Verdict)
	}
	retry := s.RetryAt
	busy := map[string]passivegate.Reading{"worker-a": reading(retry, 300), "worker-b": reading(retry, 100)}
	if v, _ := Judge(nil, s, busy, signal, retry.Add(-time.Second)); !s.Settled() || !v.Next.Equal(retry) {
		t.Fatalf("before the retry: settled %v, next %v", s.Settled(), v.Next)
	}
	v, _ := Judge(nil, s, busy, signal, retry)
	if s.Settled() || v.Reason != omev1beta1.TrafficMapReasonAwaitingEvidence || !strings.Contains(v.Message, "after one with too few requests") ||
		!v.Next.Equal(retry.Add(window+signal.Interval)) {
		t.Fatalf("at the retry, a window that started before it: settled %v, %s %q next %v", s.Settled(), v.Reason, v.Message, v.Next)
	}
	later := retry.Add(window + time.Second)
	busy = map[string]passivegate.Reading{"worker-a": reading(later, 300), "worker-b": reading(later, 100)}
	if v, _ := Judge(nil, s, busy, signal, later); v.Reason != omev1beta1.TrafficMapReasonSplitMatched {
		t.Fatalf("after the retry: %s %q", v.Reason, v.Message)
	}
}

// A mismatch keeps its clusters read and is judged again on each new window: a gateway
// that catches up clears it.
func TestSplitMismatchIsJudgedAgain(t *testing.T) {
	s := openSplit()
	after := t0.Add(11 * time.Second)
	v, _ := Judge(nil, s, map[string]passivegate.Reading{"worker-a": reading(after, 250), "worker-b": reading(after, 250)}, signal, after)
	if v.Reason != omev1beta1.TrafficMapReasonSplitMismatch || s.Settled() {
		t.Fatalf("got %s, settled %v", v.Reason, s.Settled())
	}
	later := after.Add(signal.Interval)
	v, _ = Judge(nil, s, map[string]passivegate.Reading{"worker-a": reading(later, 375), "worker-b": reading(later, 125)}, signal, later)
	if v.Reason != omev1beta1.TrafficMapReasonSplitMatched || !s.Settled() {
		t.Fatalf("after the gateway caught up: %s %q, settled %v", v.Reason, v.Message, s.Settled())
	}
}
