package eventseries

import (
	"fmt"
	"math"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

var testLimits = Limits{WriteGap: 30 * time.Second, End: 6 * time.Minute, Burst: 5, Refill: 30 * time.Second, MaxTries: 3}

// gate is a HomeGated occurrence on service svc about cluster at t.
func gate(svc, cluster, note string, at time.Time) *eventsv1.Event {
	return &eventsv1.Event{
		EventTime: metav1.NewMicroTime(at),
		Regarding: corev1.ObjectReference{Kind: "InferenceService", Namespace: "ns", Name: svc, UID: "uid-" + "svc"},
		Related:   &corev1.ObjectReference{Kind: "WorkloadCluster", Name: cluster},
		Type:      corev1.EventTypeWarning, Reason: "HomeGated", Action: "Probe", Note: note,
	}
}

// observe observes ev and writes what it decides, as a recorder whose writes succeed does.
func observe(b *Book, ev *eventsv1.Event) Decision {
	k, d := b.Observe(ev)
	if d == Create || d == Write {
		b.Wrote(k, "event-"+k.Note, b.Series(k).Count)
	}
	return d
}

// Three gates of one home with three causes are three Events, each with its own note:
// client-go's recorder made the second a count on the first and never showed the third.
func TestEachCauseIsItsOwnEvent(t *testing.T) {
	b := NewBook(testLimits)
	for i, note := range []string{"HTTP 503", "HTTP 404", "HTTP 502"} {
		if d := observe(b, gate("chat", "worker-c", note, t0.Add(time.Duration(i)*10*time.Second))); d != Create {
			t.Fatalf("gate %d (%s): %v, want Create", i, note, d)
		}
	}
	if b.Len() != 3 {
		t.Fatalf("%d series, want 3", b.Len())
	}
	// Another home with the first cause is another series too.
	if d := observe(b, gate("chat", "worker-a", "HTTP 503", t0.Add(time.Minute))); d != Create {
		t.Fatalf("another home: %v, want Create", d)
	}
}

// A storm of identical occurrences is one Event whose count is written at most once per
// gap, and whose final count is exact.
func TestIdenticalOccurrencesAreCountedNotWritten(t *testing.T) {
	b := NewBook(testLimits)
	writes := 0
	const n = 10000
	var k Key
	for i := range n {
		at := t0.Add(time.Duration(i) * 6 * time.Millisecond) // one minute in all
		var d Decision
		k, d = b.Observe(gate("chat", "worker-c", "HTTP 503", at))
		if d == Create || d == Write {
			writes++
			b.Wrote(k, "e", b.Series(k).Count)
		}
		for _, due := range b.Due(at) {
			writes++
			b.Wrote(due, "e", b.Series(due).Count)
		}
	}
	if writes > 1+2+1 { // the create, then at most one write per 30 s gap within the minute
		t.Fatalf("%d writes for %d identical occurrences in a minute", writes, n)
	}
	end := t0.Add(time.Minute + testLimits.WriteGap)
	for _, due := range b.Due(end) {
		b.Wrote(due, "e", b.Series(due).Count)
	}
	s := b.Series(k)
	if s.Count != n || s.Written != n {
		t.Fatalf("count %d, written %d, want %d", s.Count, s.Written, n)
	}
	if b.Len() != 1 {
		t.Fatalf("%d series, want 1", b.Len())
	}
}

// When a home's cause changes back to an earlier one, that series' count is written at
// once, so that the Event seen last is the current cause.
func TestCauseChangedBackIsWrittenAtOnce(t *testing.T) {
	b := NewBook(testLimits)
	observe(b, gate("chat", "worker-c", "HTTP 503", t0))
	observe(b, gate("chat", "worker-c", "HTTP 404", t0.Add(5*time.Second)))
	if d := observe(b, gate("chat", "worker-c", "HTTP 503", t0.Add(10*time.Second))); d != Write {
		t.Fatalf("503 again after 404: %v, want Write", d)
	}
	// The same cause again, inside the gap: counted, written later.
	if d := observe(b, gate("chat", "worker-c", "HTTP 503", t0.Add(15*time.Second))); d != Wait {
		t.Fatalf("503 repeated: %v, want Wait", d)
	}
}

// New Events are spent from the home's budget; over it they are dropped, and the budget
// refills. Another home has its own.
func TestBudgetBoundsNewEventsPerHome(t *testing.T) {
	b := NewBook(testLimits)
	for i := range testLimits.Burst {
		if d := observe(b, gate("chat", "worker-c", fmt.Sprintf("note %d", i), t0)); d != Create {
			t.Fatalf("note %d: %v, want Create", i, d)
		}
	}
	if d := observe(b, gate("chat", "worker-c", "one too many", t0)); d != Drop {
		t.Fatalf("over the burst: %v, want Drop", d)
	}
	if d := observe(b, gate("chat", "worker-a", "another home", t0)); d != Create {
		t.Fatalf("another home: %v, want Create", d)
	}
	if d := observe(b, gate("chat", "worker-c", "after a refill", t0.Add(testLimits.Refill))); d != Create {
		t.Fatalf("after a refill: %v, want Create", d)
	}
	// A repeat of a recorded note still counts when the budget is spent.
	if d := observe(b, gate("chat", "worker-c", "note 0", t0.Add(testLimits.Refill))); d != Wait && d != Write {
		t.Fatalf("repeat with the budget spent: %v", d)
	}
}

// A series ends after End without an occurrence; the next identical one starts anew.
func TestSeriesEnds(t *testing.T) {
	b := NewBook(testLimits)
	observe(b, gate("chat", "worker-c", "HTTP 503", t0))
	b.Sweep(t0.Add(testLimits.End))
	if b.Len() != 1 {
		t.Fatal("series forgotten before its end")
	}
	if d := observe(b, gate("chat", "worker-c", "HTTP 503", t0.Add(testLimits.End+time.Second))); d != Create {
		t.Fatalf("after the end: %v, want Create", d)
	}
	b.Sweep(t0.Add(3 * testLimits.End))
	if b.Len() != 0 || len(b.latest) != 0 || len(b.budgets) != 0 {
		t.Fatalf("after sweeping: %d series, %d channels, %d budgets", b.Len(), len(b.latest), len(b.budgets))
	}
}

// A series whose count is not written yet does not end, and Pending hands it back.
func TestUnwrittenSeriesIsKept(t *testing.T) {
	b := NewBook(testLimits)
	k, _ := b.Observe(gate("chat", "worker-c", "HTTP 503", t0)) // its create fails
	b.Failed(k, t0, true)
	if d := observe(b, gate("chat", "worker-c", "HTTP 503", t0.Add(time.Second))); d != Wait {
		t.Fatalf("repeat before the Event exists: %v, want Wait", d)
	}
	b.Sweep(t0.Add(2 * testLimits.End))
	if got := b.Pending(); len(got) != 1 || b.Series(k).Count != 2 {
		t.Fatalf("pending %v", got)
	}
	if got := b.Due(t0.Add(testLimits.WriteGap)); len(got) != 1 {
		t.Fatalf("due %v", got)
	}
}

// Failures give a series up after MaxTries in a row, or at once when a retry cannot help.
func TestFailedWritesGiveUp(t *testing.T) {
	b := NewBook(testLimits)
	k, _ := b.Observe(gate("chat", "worker-c", "HTTP 503", t0))
	for i := 1; i < testLimits.MaxTries; i++ {
		if b.Failed(k, t0, true) {
			t.Fatalf("given up after %d failures", i)
		}
	}
	if !b.Failed(k, t0, true) || b.Series(k) != nil {
		t.Fatal("not given up after MaxTries failures")
	}
	k, _ = b.Observe(gate("chat", "worker-c", "refused by the API server", t0))
	if !b.Failed(k, t0, false) || b.Series(k) != nil {
		t.Fatal("not given up on a failure a retry cannot fix")
	}
}

// A series at the largest int32 count stays there: a wrapped, negative count is one the API
// server refuses, and the whole series would stop being written.
func TestCountSaturates(t *testing.T) {
	b := NewBook(testLimits)
	ev := gate("chat", "worker-a", "HTTP 503", t0)
	k, d := b.Observe(ev)
	if d != Create {
		t.Fatalf("first: %v, want Create", d)
	}
	b.Wrote(k, "event-1", 1)
	b.Series(k).Count = math.MaxInt32 - 1
	for i := 1; i <= 3; i++ {
		b.Observe(gate("chat", "worker-a", "HTTP 503", t0.Add(time.Duration(i)*time.Second)))
	}
	if got := b.Series(k).Count; got != math.MaxInt32 {
		t.Fatalf("count %d, want %d", got, int32(math.MaxInt32))
	}
}
