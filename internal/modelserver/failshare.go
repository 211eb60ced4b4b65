package modelserver

// trafficFailures makes a share of the requests marked with TrafficHeader fail: every
// every-th one is answered with status, whatever the endpoint's mode. Probes and capacity
// polls never count toward it, so a cluster can fail a share of its real traffic while
// its probe passes: what a gateway-side traffic signal sees and a probe does not.
type trafficFailures struct {
	every  int
	status int
	seen   int
}

// SetTrafficFailures makes every every-th request marked with TrafficHeader from now on
// answer status (503, 404, ...), counting from the next one; every 0 stops it. The
// counting is exact, so a test knows how many of its requests failed.
func (e *Endpoint) SetTrafficFailures(every, status int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failures = trafficFailures{every: every, status: status}
}

// failNow says whether this traffic request is one to fail, and with which status. The
// caller holds e.mu.
func (f *trafficFailures) failNow() (int, bool) {
	if f.every <= 0 {
		return 0, false
	}
	f.seen++
	if f.seen%f.every != 0 {
		return 0, false
	}
	return f.status, true
}
