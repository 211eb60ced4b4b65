package priority

import (
	"context"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Lane keeps one of a controller's workers free for the requests that move a weight.
//
// The priority queue puts a gate ahead of every refresh, but it cannot free a worker: on a
// saturated API server every worker is in the middle of a refresh write, and the gate waits
// for the first of them to finish. With a Lane, refreshes (anything not added above
// Refresh through Add) hold at most workers-1 tokens; the worker left over takes a refresh
// only while nothing urgent is queued, and hands it back the moment something is. Holding
// refreshes to workers-1 costs a saturated API server no throughput (it is the limit, not
// the workers) and leaves one fewer write ahead of a gate's.
type Lane struct {
	tokens chan struct{}

	mu     sync.Mutex
	urgent map[reconcile.Request]bool
	// wake is closed, and replaced, when an urgent request is added.
	wake chan struct{}
}

// RefreshWorkers is how many of a controller's workers may write refreshes at once: half of
// them. On a saturated API server every write in flight slows every other, a gate's too;
// the API server, not the worker count, sets how many refreshes get written, so holding
// them to half costs a little of their rate (lastProbeTime lags more) and takes a gate's
// write from one among every worker's to one among half of them.
func RefreshWorkers(workers int) int { return max(workers/2, 1) }

// A nil *Lane holds nothing back: its Add is the package's Add, and Enter never waits.

// NewLane is the lane of a controller with workers workers. With one worker there is no
// worker to keep, and refreshes are not held.
func NewLane(workers int) *Lane {
	l := &Lane{urgent: map[reconcile.Request]bool{}, wake: make(chan struct{})}
	if workers > 1 {
		l.tokens = make(chan struct{}, RefreshWorkers(workers))
	}
	return l
}

// Add adds req at priority p, as the package's Add does; above Refresh it also marks req
// urgent, so that its reconcile takes no token, and wakes a refresh waiting for one.
func (l *Lane) Add(q workqueue.TypedRateLimitingInterface[reconcile.Request], req reconcile.Request, p int) {
	if l != nil && p > Refresh {
		l.mu.Lock()
		l.urgent[req] = true
		close(l.wake)
		l.wake = make(chan struct{})
		l.mu.Unlock()
	}
	Add(q, req, p)
}

// Enter starts req's reconcile. An urgent request goes ahead at once. A refresh takes a
// token, waiting for one if all are held; if something urgent is queued meanwhile, it gives
// up with yield true, and the reconciler returns it to the queue at its priority (a
// RequeueAfter keeps it) so that its worker takes the urgent one. release gives the token
// back; it must be called once the reconcile ends.
func (l *Lane) Enter(ctx context.Context, req reconcile.Request) (release func(), yield bool) {
	if l == nil {
		return func() {}, false
	}
	l.mu.Lock()
	if l.urgent[req] || l.tokens == nil {
		delete(l.urgent, req)
		l.mu.Unlock()
		return func() {}, false
	}
	wake := l.wake
	l.mu.Unlock()
	select {
	case l.tokens <- struct{}{}:
		return l.release, false
	default:
	}
	select {
	case l.tokens <- struct{}{}:
		return l.release, false
	case <-wake:
		return nil, true
	case <-ctx.Done():
		return nil, true
	}
}

func (l *Lane) release() { <-l.tokens }

// YieldDelay is the RequeueAfter of a refresh that Enter turned back: long enough that
// the worker takes the urgent request first, short enough to cost the refresh nothing.
const YieldDelay = time.Millisecond
