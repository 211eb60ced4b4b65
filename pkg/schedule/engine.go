package schedule

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// Policy is what one kind of work does with the engine: how a due home's work is sent, how
// its answer is read and what is announced. The engine decides when each home goes and how
// many go at once; the prober and the capacity poller are policies on it.
type Policy[G, H, R, N any] interface {
	// Send does one due home's work, outside the engine's lock, and returns its result and
	// how long it waited for a slot before it started, which counts into its lateness. It
	// may read only what does not change while the home is scheduled. ctx ends when the
	// home is removed or the engine stops; the result is thrown away then.
	Send(ctx context.Context, h *Home[G, H]) (R, time.Duration)
	// Record applies a result to a home that is still scheduled, under the engine's lock,
	// and reports whether it is news for the home's group: news is announced once none of
	// the group's homes is still running, or once it has waited the group's timeout.
	Record(ctx context.Context, h *Home[G, H], r R, finished time.Time) bool
	// Notice is the announcement of a group's news, made under the engine's lock.
	Notice(g *Group[G, H]) N
	// Announce hands a notice on, outside the lock.
	Announce(ctx context.Context, n N)
}

// Options are an engine's dispatch limits and clock.
type Options struct {
	// MaxInFlight caps the homes dispatched at once (at least 1). A due home past the cap
	// waits in the engine (a heap slot) rather than as a goroutine parked on a slot of the
	// observer, so an engine that has fallen behind does not grow a goroutine per home.
	MaxInFlight int
	// PastCap is how many homes beyond MaxInFlight may be dispatched, one per group with
	// nothing in flight in a tenant under its share (see dispatch.go); 0 keeps every
	// dispatch under the cap.
	PastCap int
	// Clock decides every due time and times every result; nil is the real clock. Tests
	// drive a fake one, so that scheduling is checked exactly and without waiting.
	Clock clock.Clock
	// OnStart, when set, receives each home's lateness: how long after its due time its
	// work started, the wait for a slot included.
	OnStart func(lateness time.Duration)
}

// Engine runs every home of every group on its schedule: one heap of due homes for one
// timer, homes of a group on the group's slot of its period, the next attempt one period
// after the previous one was due (never before it finished, no catch-up bursts), at most
// MaxInFlight at once shared fairly between tenants and their groups, and each group's
// results announced once a round. Its methods are safe for concurrent use; those documented to need the
// lock are called between Lock and Unlock.
type Engine[G, H, R, N any] struct {
	policy      Policy[G, H, R, N]
	clock       clock.Clock
	maxInFlight int
	pastCap     int
	onStart     func(time.Duration)

	mu     sync.Mutex
	groups int
	queue  dueQueue[*Home[G, H]]
	// tenants are the groups' tenants by name, and ready, in no order, those with groups
	// whose held homes are under their share; served numbers the tenants' turns; see
	// dispatch.go. held counts the homes held.
	tenants map[string]*tenant[G, H]
	ready   []*tenant[G, H]
	served  uint64
	held    int
	wake    chan struct{}
	running int // homes dispatched whose results are not yet recorded
	// cancels ends each running home's work, by home. It is here rather than on each
	// home, as only the few homes in flight have one.
	cancels map[*Home[G, H]]context.CancelFunc
	// inFlight counts dispatched work, so Start can wait for it on the way out, and
	// workers the goroutines that send it (see runWork).
	inFlight, workers sync.WaitGroup
	// busy counts dispatched work not yet done, its announcement included (see Idle).
	busy atomic.Int64
	// parent is the parent of every home's context: Start's context without its
	// cancellation. A home's own cancel ends its work, and on the way out Start calls the
	// cancel of every home in flight; a child of Start's context itself would also be
	// registered with it and taken off again, under its lock, on every attempt.
	parent context.Context
	// idle hands dispatched work to a goroutine waiting for it (see runWork). It is
	// unbuffered: a send succeeds only when one waits, and otherwise a new goroutine is
	// started. workerCount counts those goroutines.
	idle        chan job[G, H]
	workerCount int
}

// Group is the homes of one map under one policy, and the policy's data about it (Data).
// Its fields are guarded by the engine's lock.
type Group[G, H any] struct {
	Data G
	// name is the group's slot key, made once; tenant is whose it is (the map's
	// namespace), with which it shares the dispatch cap (see dispatch.go).
	name            string
	tenant          *tenant[G, H]
	period, timeout time.Duration
	homes           map[string]*Home[G, H]
	// running counts the group's work in flight; held are its due homes waiting for it
	// to drop under its fair share (see dispatch.go).
	running int
	held    []*Home[G, H]
	inReady bool
	// unannouncedSince is when the oldest news not yet announced arrived (zero when
	// there is none). The group is announced once none of its homes is still running, so
	// the homes of one round cost one announcement, not one each; or once that news has
	// waited a timeout, so homes whose work keeps overlapping cannot hold it back longer.
	unannouncedSince time.Time
}

// Name is the group's slot key: its homes share the slot Offset gives it.
func (g *Group[G, H]) Name() string { return g.name }

// Home is the home of the group at cluster, or nil. It needs the engine's lock.
func (g *Group[G, H]) Home(cluster string) *Home[G, H] { return g.homes[cluster] }

// Home is one home's schedule and the policy's data about it (Data). Its fields are
// guarded by the engine's lock.
type Home[G, H any] struct {
	Data     H
	group    *Group[G, H]
	cluster  string
	endpoint string
	queued   // when its next attempt is due
	running  bool
	waiting  bool // held until its group may send it; see dispatch.go
	removed  bool
}

// Group is the home's group.
func (h *Home[G, H]) Group() *Group[G, H] { return h.group }

// Cluster names the home within its group.
func (h *Home[G, H]) Cluster() string { return h.cluster }

// Endpoint is where the home's work goes, as its policy kept it.
func (h *Home[G, H]) Endpoint() string { return h.endpoint }

// New returns an engine that runs policy's work under opts.
func New[G, H, R, N any](policy Policy[G, H, R, N], opts Options) *Engine[G, H, R, N] {
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Engine[G, H, R, N]{
		policy:      policy,
		clock:       clk,
		maxInFlight: max(opts.MaxInFlight, 1),
		pastCap:     max(opts.PastCap, 0),
		onStart:     opts.OnStart,
		wake:        make(chan struct{}, 1),
		idle:        make(chan job[G, H]),
		cancels:     map[*Home[G, H]]context.CancelFunc{},
		tenants:     map[string]*tenant[G, H]{},
	}
}

// Lock takes the engine's lock, for the methods and fields that need it.
func (e *Engine[G, H, R, N]) Lock() { e.mu.Lock() }

// Unlock releases the engine's lock.
func (e *Engine[G, H, R, N]) Unlock() { e.mu.Unlock() }

// Now is the engine's clock's time.
func (e *Engine[G, H, R, N]) Now() time.Time {
	if e.clock == nil {
		return time.Now()
	}
	return e.clock.Now()
}

// AddGroup starts a group of tenant (for the prober, the map's namespace) whose homes
// share name's slot of period and whose news waits at most timeout for its siblings. The
// dispatch cap is shared between tenants, then between groups (see dispatch.go). It needs
// the lock.
func (e *Engine[G, H, R, N]) AddGroup(name, tenant string, period, timeout time.Duration, data G) *Group[G, H] {
	e.groups++
	t := e.tenantLocked(tenant)
	t.groups++
	return &Group[G, H]{Data: data, name: name, tenant: t, period: period, timeout: timeout, homes: map[string]*Home[G, H]{}}
}

// DropGroup stops every home of g, cancelling the work in flight, and stops counting g
// towards the fair shares. It needs the lock.
func (e *Engine[G, H, R, N]) DropGroup(g *Group[G, H]) {
	for _, h := range g.homes {
		e.removeLocked(h)
	}
	clear(g.homes)
	e.unholdGroupLocked(g)
	e.groups--
	g.tenant.groups--
	e.forgetTenantLocked(g.tenant)
}

// Targets is a policy's side of SyncGroup: the homes it wants run.
type Targets[G, H any] interface {
	// Len is the number of targets.
	Len() int
	// Target is the cluster and endpoint of target i.
	Target(i int) (cluster, endpoint string)
	// New makes the home of target i, which has none: its data, the endpoint to keep
	// (target i's, perhaps a string its data shares) and when it is first due.
	New(i int) (data H, endpoint string, due time.Time)
	// Seen is called with the home of every target i, new or not.
	Seen(i int, h *Home[G, H])
	// Gone is called with each home that is no longer a target, once it is removed.
	Gone(h *Home[G, H])
}

// SyncGroup makes the engine run exactly the targets' homes in g. A target with no home,
// or whose home has another endpoint (another thing to run: what the old one did says
// nothing about it), gets a new one; a home that is not a target stops. It needs the lock.
func (e *Engine[G, H, R, N]) SyncGroup(g *Group[G, H], t Targets[G, H]) {
	n := t.Len()
	wanted := make(map[string]bool, n)
	for i := range n {
		cluster, endpoint := t.Target(i)
		wanted[cluster] = true
		h := g.homes[cluster]
		if h != nil && h.endpoint != endpoint {
			e.removeLocked(h)
			delete(g.homes, cluster)
			h = nil
		}
		if h == nil {
			data, kept, due := t.New(i)
			h = &Home[G, H]{Data: data, group: g, cluster: cluster, endpoint: kept, queued: unqueued()}
			g.homes[cluster] = h
			e.queue.schedule(h, due)
		}
		t.Seen(i, h)
	}
	for cluster, h := range g.homes {
		if !wanted[cluster] {
			e.removeLocked(h)
			delete(g.homes, cluster)
			t.Gone(h)
		}
	}
	e.poke()
}

func (e *Engine[G, H, R, N]) removeLocked(h *Home[G, H]) {
	h.removed = true
	e.queue.remove(h)
	if cancel := e.cancels[h]; cancel != nil {
		cancel()
	}
}

func (e *Engine[G, H, R, N]) poke() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// Stats is what an engine holds at one moment.
type Stats struct {
	// Running is the homes dispatched whose results are not yet recorded, Held the due
	// homes waiting for room (removed ones among them until their turn), Queued the homes
	// waiting for their due time, and Workers the goroutines that send the work.
	Running, Held, Queued, Workers int
}

// Stats reports what the engine holds now.
func (e *Engine[G, H, R, N]) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return Stats{Running: e.running, Held: e.held, Queued: e.queue.Len(), Workers: e.workerCount}
}

// Idle reports whether all work dispatched so far is done, its announcement included.
func (e *Engine[G, H, R, N]) Idle() bool { return e.busy.Load() == 0 }

// NextDue is the earliest due time of a queued home, and false when none is queued.
func (e *Engine[G, H, R, N]) NextDue() (time.Time, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.queue.next()
}

// Start runs the schedule until ctx ends, then cancels the work in flight (its results
// are thrown away, never recorded) and waits for it. An engine made without New has no
// policy and refuses to start.
func (e *Engine[G, H, R, N]) Start(ctx context.Context) error {
	if e.policy == nil {
		return errors.New("schedule: the engine has no policy (make it with New)")
	}
	timer := e.clock.NewTimer(time.Hour)
	defer timer.Stop()
	e.mu.Lock()
	e.parent = context.WithoutCancel(ctx)
	e.mu.Unlock()
	for {
		e.mu.Lock()
		now := e.clock.Now()
		for h := e.nextLocked(now); h != nil; h = e.nextLocked(now) {
			e.handOff(ctx, e.dispatchLocked(h, now))
		}
		next, ok := e.queue.next()
		e.mu.Unlock()

		// Even with every slot taken, a home of a group with nothing running may be
		// dispatched when due; other due homes are held, so the queue's next is never
		// overdue here.
		wait := time.Hour
		read := e.clock.Now()
		if ok {
			wait = next.Sub(read)
			if wait <= 0 {
				continue // came due meanwhile
			}
		}
		timer.Reset(wait)
		if ok && e.clock.Since(read) > time.Microsecond {
			// The clock moved between reading it and setting the timer, which counts wait
			// from the later time: with a clock that jumps (a test's), it would fire that
			// much late, or never if the clock is not moved again. A real clock moves less
			// than that here, unless the goroutine was preempted: one more turn then.
			continue
		}
		select {
		case <-ctx.Done():
			e.mu.Lock()
			for _, cancel := range e.cancels {
				cancel()
			}
			e.mu.Unlock()
			e.inFlight.Wait()
			e.workers.Wait()
			return nil
		case <-timer.C():
		case <-e.wake:
		}
	}
}

// job is one dispatched home: its context and what its lateness is measured from.
type job[G, H any] struct {
	h      *Home[G, H]
	ctx    context.Context
	cancel context.CancelFunc
	// due is when the home was due, and dispatched when it was handed out.
	due, dispatched time.Time
}

// dispatchLocked marks h as running and returns its work, for a goroutine to send.
func (e *Engine[G, H, R, N]) dispatchLocked(h *Home[G, H], now time.Time) job[G, H] {
	ctx, cancel := context.WithCancel(e.parent)
	h.running, e.cancels[h] = true, cancel
	e.running++
	h.group.running++
	h.group.tenant.running++
	e.inFlight.Add(1)
	e.busy.Add(1)
	return job[G, H]{h: h, ctx: ctx, cancel: cancel, due: h.due, dispatched: now}
}

// handOff gives dispatched work to a goroutine waiting for it, or to a new one.
func (e *Engine[G, H, R, N]) handOff(ctx context.Context, j job[G, H]) {
	select {
	case e.idle <- j:
	default:
		e.workerCount++
		e.workers.Add(1)
		go e.runWork(ctx, j)
	}
}

// surplusWorkerLocked reports whether enough goroutines exist that one with nothing to do
// should end: more than can be sending at once. A goroutine about to wait is not yet
// waiting, so handOff may start another meanwhile; without this bound such extra
// goroutines would add up over time.
func (e *Engine[G, H, R, N]) surplusWorkerLocked() bool {
	return e.workerCount > e.pastCapLimit()
}

// runWork sends j, then the work its finish hands back, one after another, and then waits
// for more until ctx ends. Reusing the goroutines keeps an attempt from paying for a new
// goroutine and for growing its stack into net/http's depth each time, and a home held
// behind a sibling (see dispatch.go) goes out from the goroutine that freed its room,
// without waking Start. At most as many wait as were ever sending at once, which the
// dispatch cap bounds.
func (e *Engine[G, H, R, N]) runWork(ctx context.Context, j job[G, H]) {
	defer e.workers.Done()
	for {
		for more := true; more; {
			j, more = e.send(ctx, j)
		}
		e.mu.Lock()
		if e.surplusWorkerLocked() {
			e.workerCount--
			e.mu.Unlock()
			return
		}
		e.mu.Unlock()
		select {
		case j = <-e.idle:
		case <-ctx.Done():
			e.mu.Lock()
			e.workerCount--
			e.mu.Unlock()
			return
		}
	}
}

// send does one home's work and records its result; it returns the next work for the same
// goroutine, if its finish dispatched some.
func (e *Engine[G, H, R, N]) send(ctx context.Context, j job[G, H]) (job[G, H], bool) {
	defer e.inFlight.Done()
	defer e.busy.Add(-1)
	r, slotWait := e.policy.Send(j.ctx, j.h)
	j.cancel()
	if e.onStart != nil {
		e.onStart(Lateness(j.due, j.dispatched.Add(slotWait)))
	}
	return e.finish(ctx, j.h, r)
}

// finish records a result and schedules the home's next attempt on its group's slot, one
// period after this one was due, or later if it ran past that: a late home is not caught
// up with a burst. The room it leaves goes to the homes it was holding back: the first is
// returned for the caller to send, any others are handed off.
func (e *Engine[G, H, R, N]) finish(ctx context.Context, h *Home[G, H], r R) (job[G, H], bool) {
	e.mu.Lock()
	h.running = false
	delete(e.cancels, h)
	e.running--
	g := h.group
	e.finishedLocked(g)
	finished := e.clock.Now()
	announce := false
	var notice N
	if !h.removed {
		if e.policy.Record(ctx, h, r, finished) && g.unannouncedSince.IsZero() {
			g.unannouncedSince = finished
		}
		// Every home of a group shares the group's offset, so the homes of one group go
		// together and their results are announced together.
		e.queue.schedule(h, NextDue(h.due, finished, g.name, g.period))
		if h.index == 0 {
			// It is now the earliest due: Start's timer is set for a later one.
			e.poke()
		}
		announce = !g.unannouncedSince.IsZero() &&
			(!g.anyRunning() || finished.Sub(g.unannouncedSince) >= g.timeout)
		if announce {
			g.unannouncedSince = time.Time{}
			notice = e.policy.Notice(g)
		}
	}
	var next job[G, H]
	found := false
	if ctx.Err() == nil {
		for n := e.nextLocked(finished); n != nil; n = e.nextLocked(finished) {
			j := e.dispatchLocked(n, finished)
			if !found {
				next, found = j, true
				continue
			}
			e.handOff(ctx, j)
		}
	}
	e.mu.Unlock()

	if announce {
		e.policy.Announce(ctx, notice)
	}
	return next, found
}

// anyRunning reports whether work of one of the group's homes is in flight or held.
func (g *Group[G, H]) anyRunning() bool {
	for _, h := range g.homes {
		if h.running || h.waiting {
			return true
		}
	}
	return false
}
