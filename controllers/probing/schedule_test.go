package probing

import (
	"fmt"
	"testing"
	"time"
)

// fakeScheduled is a prober or a poller started on a fake clock.
type fakeScheduled interface {
	stepTo(at time.Time)
	nextDue() time.Time
	idle() bool
}

// checkOnSchedule steps s's clock through rounds attempts of one home, the first of them
// the from-th and due at due, the others a period apart. None may start a millisecond
// before it is due, each must go when it is due, and each must leave the next due exactly
// one period later. answered counts the attempts the home's server has answered.
func checkOnSchedule(t *testing.T, s fakeScheduled, answered func() int32, from int32, due time.Time, period time.Duration, rounds int32) {
	t.Helper()
	for n := from; n < from+rounds; n++ {
		s.stepTo(due.Add(-time.Millisecond))
		if got := answered(); got != n-1 {
			t.Fatalf("attempt %d: %d answered a millisecond before the due time, want %d", n, got, n-1)
		}
		s.stepTo(due)
		eventually(t, fmt.Sprintf("attempt %d is answered and recorded", n), func() bool { return answered() == n && s.idle() })
		due = due.Add(period)
		if got := s.nextDue(); !got.Equal(due) {
			t.Fatalf("attempt %d: next due at %s, want one period later, %s", n, got, due)
		}
	}
}
