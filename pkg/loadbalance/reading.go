package loadbalance

import "time"

// Reading is what the load signal read of one cluster's model servers, or why it could
// not. Only the quantities the installation has a query for are read: a nil field was not
// asked. A Reading that is not Known moves nothing.
type Reading struct {
	Known  bool
	Reason string
	// Waiting is the requests waiting in the cluster's model servers (a sum over them).
	Waiting *float64
	// CacheUse is their KV-cache use, a fraction from 0 to 1.
	CacheUse *float64
	// Before is the waiting requests of the reading before this one, nil when there was
	// none: a queue past its target in two readings in a row is saturated, where one
	// reading alone may be a burst.
	Before *float64
	// At is when the reading was asked for.
	At time.Time
}
