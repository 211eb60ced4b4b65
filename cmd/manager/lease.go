package main

import (
	"fmt"
	"time"

	"k8s.io/client-go/tools/leaderelection"
)

// leaseTiming is the leader election's timing. The trade-off: a shorter lease duration
// lets a stand-by take over sooner after the leader dies (no map is written in between,
// and gates decided by the dead leader wait), but the leader must renew more often (one
// Lease write per retry period) and gives leadership up, exiting, when the API server is
// slower than the renew deadline for a while.
type leaseTiming struct {
	duration, renewDeadline, retryPeriod time.Duration
}

// defaultLease is controller-runtime's default timing, which the chart sets too.
var defaultLease = leaseTiming{duration: 15 * time.Second, renewDeadline: 10 * time.Second, retryPeriod: 2 * time.Second}

// validate applies client-go's rules for a leader elector, in the flags' words: each
// positive, the lease longer than the renew deadline, and the renew deadline longer than
// the retry period times the elector's jitter factor (1.2).
func (l leaseTiming) validate() error {
	for _, d := range []struct {
		flag  string
		value time.Duration
	}{{"--leader-elect-lease-duration", l.duration}, {"--leader-elect-renew-deadline", l.renewDeadline}, {"--leader-elect-retry-period", l.retryPeriod}} {
		if d.value <= 0 {
			return fmt.Errorf("%s must be positive, got %s", d.flag, d.value)
		}
	}
	if l.duration <= l.renewDeadline {
		return fmt.Errorf("--leader-elect-lease-duration (%s) must be longer than --leader-elect-renew-deadline (%s)", l.duration, l.renewDeadline)
	}
	if float64(l.renewDeadline) <= leaderelection.JitterFactor*float64(l.retryPeriod) {
		return fmt.Errorf("--leader-elect-renew-deadline (%s) must be longer than %.1f times --leader-elect-retry-period (%s)",
			l.renewDeadline, leaderelection.JitterFactor, l.retryPeriod)
	}
	return nil
}
