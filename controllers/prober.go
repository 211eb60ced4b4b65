package controllers

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
)

// Prober sends every home's routing probe on its schedule through the shared observer and
// keeps each home's counter and gate state in memory. It never writes a TrafficMap: after
// a result it asks the routing reconciler to run, which reads the states with Sync and
// writes the map once, so results that arrive together coalesce into one write.
//
// It runs only on the leader (a manager runnable that needs leader election).
type Prober struct {
	observer *observer.Observer
	// notify receives a notice for every map with new results.
	notify chan event.TypedGenericEvent[ProbeNotice]
	// clock decides every due time and times every result; tests drive a fake one, so
	// that scheduling is checked exactly and without waiting.
	clock clock.Clock

	// maxInFlight caps the probes dispatched at once. A due home past the cap stays in
	// the queue (a heap slot) instead of becoming a goroutine parked on an observer slot,
	// so a prober that has fallen behind does not grow a goroutine per waiting home.
	maxInFlight int

	mu      sync.Mutex
	maps    map[types.NamespacedName]*mapProbes
	queue   dueQueue[*homeProbe]
	held    heldHomes // due homes waiting for room under maxInFlight; see prober_fair.go
	wake    chan struct{}
	running int // probes dispatched and not yet finished
	// cancels ends each running probe's request, by home. It is here rather than on each
	// home, as only the few homes in flight have one.
	cancels map[*homeProbe]context.CancelFunc
	// inFlight counts running probes, so Start can wait for them on the way out, and
	// workers the goroutines that send them (see runProbes).
	inFlight, workers sync.WaitGroup
	// onStart, when set (by benchmarks), receives each probe's lateness: how long after
	// its due time its request started, including the wait for an observer slot.
	onStart func(lateness time.Duration)
	// probeParent is the parent of every probe's context: Start's context without its
	// cancellation. A probe's own cancel ends it, and on the way out Start calls the
	// cancel of every probe in flight; a child of Start's context itself would also be
	// registered with it and taken off again, under its lock, on every probe.
	probeParent context.Context
	// idle hands a dispatched probe to a prober goroutine waiting for work (see runProbes).
	// It is unbuffered: a send succeeds only when one waits, and otherwise a new goroutine
	// is started. workerCount counts those goroutines.
	idle        chan probeJob
	workerCount int
}

// mapProbes is the probing of one TrafficMap's homes under one policy.
type mapProbes struct {
	key types.NamespacedName
	// name is key.String(), made once: the observer's tenant and the schedule's slot key.
	name string
	// results are the map's ome_routing_probe_results_total series, by result, looked up
	// on first use; forgetProbeMetrics deletes them with the map.
	results probeResultCounters
	// uid is the service's: a service created again under the same name is another one.
	uid    types.UID
	policy probe.Policy
	digest string
	homes  map[string]*homeProbe
	// departed remembers, by cluster, homes that left the map (see DepartedHomeMemory).
	// It is made when a home first leaves: most maps never need it.
	departed map[string]departedHome
	// running counts the map's probes in flight; held are its due homes waiting for it
	// to drop under its fair share (see prober_fair.go).
	running int
	held    []*homeProbe
	inReady bool
	// transitionAt is when a result that gated or lifted one of its homes arrived, until
	// the reconciler reads the states (see Sync): the time a transition waits for it.
	transitionAt time.Time
	// counted is whether a pass ended an ungated home's run of failures since the
	// reconciler last read the states (see ProbeNotice.Counted).
	counted bool
	// unannouncedSince is when the oldest counted result not yet handed to the
	// reconciler arrived (zero when there is none). The map is announced once none of its
	// homes is still running, so the homes of one round cost one reconcile and one write,
	// not one each; or once that result has waited a probe timeout, so homes whose probes
	// keep overlapping cannot hold it back for longer.
	unannouncedSince time.Time
}

// departedHome is the state a home had when it left its map.
type departedHome struct {
	state    probe.State
	endpoint string
	until    time.Time
}

// homeProbe is one home's schedule and state. Its fields are guarded by Prober.mu.
type homeProbe struct {
	owner    *mapProbes
	cluster  string
	endpoint string
	// url is where its probes go, probeURL of endpoint and the policy's path, made once:
	// both are fixed for a home's life (another endpoint or policy is another home).
	url     string
	state   probe.State
	queued  // when its next probe is due
	running bool
	waiting bool // held until its map may send it; see prober_fair.go
	removed bool
}

// ProbeTarget is a home the routing reconciler wants probed.
type ProbeTarget struct {
	Cluster  string
	Endpoint string
	// Persisted is the home's probe block in the current TrafficMap, from which a new
	// schedule restores its counts and gate after a restart.
	Persisted *omev1beta1.TrafficMapProbe
}

// NewProber returns a prober that sends its requests through obs, with at most
// maxInFlight probes dispatched at once (the observer's request cap).
func NewProber(obs *observer.Observer, maxInFlight int) *Prober {
	return &Prober{
		observer:    obs,
		maxInFlight: max(maxInFlight, 1),
		notify:      make(chan event.TypedGenericEvent[ProbeNotice], 1024),
		clock:       clock.RealClock{},
		maps:        map[types.NamespacedName]*mapProbes{},
		wake:        make(chan struct{}, 1),
		idle:        make(chan probeJob),
		cancels:     map[*homeProbe]context.CancelFunc{},
	}
}

// ProbeNotice tells the routing controller that a map has new probe results.
type ProbeNotice struct {
	// Service is the map's source InferenceService.
	Service types.NamespacedName
	// Transition says a result gated or lifted a home since the reconciler last read the
	// map's states: the map's weights change, so its reconcile goes ahead of those that
	// only move lastProbeTime.
	Transition bool
	// Counted says a pass ended an ungated home's run of failures. The map's record is
	// what a new leader counts on from: left behind the refreshes, that pass could still
	// be unwritten when the leader dies, and the next leader would count the following
	// failures onto the old run and gate a home that never failed failureThreshold times
	// in a row. So it goes ahead of refreshes too, behind transitions. (A failure that is
	// not yet written can only make the next leader gate later, never wrongly.)
	Counted bool
}

// Events is the channel the routing controller watches for maps with new results.
func (p *Prober) Events() <-chan event.TypedGenericEvent[ProbeNotice] { return p.notify }

// NeedLeaderElection makes the prober run only on the leader.
func (p *Prober) NeedLeaderElection() bool { return true }

// DepartedHomeMemory is how long the prober remembers the state of a home that left its
// map (its cluster briefly not Ready, its copy's status.url briefly empty). A home that
// comes back within it, at the same endpoint, picks up its counts and gate where they
// were, so a blip cannot lift a gate; one that stays away longer starts over.
const DepartedHomeMemory = 10 * time.Minute

// Sync makes the prober probe exactly the given homes of a map under the policy, and
// returns every home's current state. State belongs to one service (uid) and one
// endpoint: a policy with another digest or a service with another UID starts every home
// over, ungated, and so does a home whose endpoint changed. A new home restores its state
// from its persisted block when that block was made under the same policy, or from the
// prober's memory when it left the map less than DepartedHomeMemory ago; a home that is
// not in targets stops being probed.
func (p *Prober) Sync(key types.NamespacedName, uid types.UID, policy probe.Policy, digest string, targets []ProbeTarget) map[string]probe.State {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock.Now()
	mp := p.maps[key]
	if mp != nil && (mp.digest != digest || mp.uid != uid) {
		p.dropLocked(mp)
		mp = nil
	}
	if mp == nil {
		mp = &mapProbes{key: key, name: key.String(), uid: uid, policy: policy.DeepCopy(), digest: digest,
			homes: map[string]*homeProbe{}}
		p.maps[key] = mp
	}
	// The digest leaves the mode out, so that a switch between Shadow and Enforce keeps the
	// counts and gates; the states follow the new mode from the next result on.
	mp.policy.Mode = policy.Mode
	if !mp.transitionAt.IsZero() {
		observeTransitionWait(now.Sub(mp.transitionAt))
		mp.transitionAt = time.Time{}
	}
	mp.counted = false
	for cluster, d := range mp.departed {
		if !now.Before(d.until) {
			delete(mp.departed, cluster)
		}
	}
	wanted := make(map[string]bool, len(targets))
	states := make(map[string]probe.State, len(targets))
	for _, t := range targets {
		wanted[t.Cluster] = true
		h := mp.homes[t.Cluster]
		if h != nil && h.endpoint != t.Endpoint {
			// Another endpoint is another thing to probe: what the old one did says
			// nothing about it.
			p.removeLocked(h)
			delete(mp.homes, t.Cluster)
			h = nil
		}
		if h == nil {
			state := probe.Seed(t.Persisted, digest)
			if d, ok := mp.departed[t.Cluster]; ok {
				delete(mp.departed, t.Cluster)
				if d.endpoint == t.Endpoint {
					state = d.state
				}
			}
			h = &homeProbe{owner: mp, cluster: t.Cluster, queued: unqueued(), state: state}
			h.endpoint, h.url = endpointAndURL(t.Endpoint, mp.policy.Path)
			mp.homes[t.Cluster] = h
			// A new home is probed at once; a restored one a period after its last probe.
			// From its second probe on, it shares the map's slot (see finish).
			p.queue.schedule(h, probe.FirstProbe(now, h.state.LastProbeTime, policy.Period))
		}
		states[t.Cluster] = h.state
	}
	for cluster, h := range mp.homes {
		if !wanted[cluster] {
			p.removeLocked(h)
			delete(mp.homes, cluster)
			if h.state.Probed {
				if mp.departed == nil {
					mp.departed = map[string]departedHome{}
				}
				mp.departed[cluster] = departedHome{state: h.state, endpoint: h.endpoint, until: now.Add(DepartedHomeMemory)}
			}
		}
	}
	p.poke()
	return states
}

// Forget stops probing a map's homes and forgets their states.
func (p *Prober) Forget(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if mp := p.maps[key]; mp != nil {
		p.dropLocked(mp)
	}
}

func (p *Prober) dropLocked(mp *mapProbes) {
	for _, h := range mp.homes {
		p.removeLocked(h)
	}
	delete(p.maps, mp.key)
	forgetProbeMetrics(mp.key)
}

func (p *Prober) removeLocked(h *homeProbe) {
	h.removed = true
	p.queue.remove(h)
	if cancel := p.cancels[h]; cancel != nil {
		cancel()
	}
}

func (p *Prober) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Start runs the schedule until ctx ends, then cancels the probes in flight (their
// results are thrown away, never counted) and waits for them.
func (p *Prober) Start(ctx context.Context) error {
	timer := p.clock.NewTimer(time.Hour)
	defer timer.Stop()
	p.mu.Lock()
	p.probeParent = context.WithoutCancel(ctx)
	p.mu.Unlock()
	for {
		p.mu.Lock()
		now := p.clock.Now()
		for h := p.nextLocked(now); h != nil; h = p.nextLocked(now) {
			p.handOff(ctx, p.dispatchLocked(h, now))
		}
		next, ok := p.queue.next()
		p.mu.Unlock()

		// Even with every slot taken, a home of a map with nothing running is dispatched
		// when due; other due homes are held, so the queue's next is never overdue here.
		wait := time.Hour
		if ok {
			wait = next.Sub(p.clock.Now())
			if wait <= 0 {
				continue // came due meanwhile
			}
		}
		timer.Reset(wait)
		if ok && !p.clock.Now().Before(next) {
			// The clock reached next between reading it and setting the timer, which then
			// counts wait from the later time: with a clock that jumps (a test's), it
			// would fire late or never.
			continue
		}
		select {
		case <-ctx.Done():
			p.mu.Lock()
			for _, cancel := range p.cancels {
				cancel()
			}
			p.mu.Unlock()
			p.inFlight.Wait()
			p.workers.Wait()
			return nil
		case <-timer.C():
		case <-p.wake:
		}
	}
}

// probeJob is one dispatched probe: its home, its request and what its lateness is
// measured from.
type probeJob struct {
	h      *homeProbe
	ctx    context.Context
	cancel context.CancelFunc
	req    observer.Request
	// due is when the probe was due, and dispatched when it was handed out.
	due, dispatched time.Time
}

// dispatchLocked marks h as running and returns its probe, for a prober goroutine to send.
func (p *Prober) dispatchLocked(h *homeProbe, now time.Time) probeJob {
	reqCtx, cancel := context.WithCancel(p.probeParent)
	h.running, p.cancels[h] = true, cancel
	p.running++
	mp := h.owner
	mp.running++
	p.inFlight.Add(1)
	return probeJob{h: h, ctx: reqCtx, cancel: cancel, due: h.due, dispatched: now, req: observer.Request{
		Method:  mp.policy.Method,
		URL:     h.url,
		Timeout: mp.policy.Timeout,
		// The observer shares its slots fairly between services.
		Tenant: mp.name,
	}}
}

// handOff gives a dispatched probe to a prober goroutine waiting for work, or to a new one.
func (p *Prober) handOff(ctx context.Context, job probeJob) {
	select {
	case p.idle <- job:
	default:
		p.workerCount++
		p.workers.Add(1)
		go p.runProbes(ctx, job)
	}
}

// surplusWorkerLocked reports whether enough prober goroutines exist that one with
// nothing to do should end: more than can be sending at once. A goroutine about to wait
// is not yet waiting, so handOff may start another meanwhile; without this bound such
// extra goroutines would add up over time.
func (p *Prober) surplusWorkerLocked() bool {
	return p.workerCount > p.pastCapLimit()
}

// runProbes sends job, then the probes that its finish hands back, one after another, and
// then waits for another until ctx ends. Reusing the goroutines keeps a probe from paying
// for a new goroutine and for growing its stack into net/http's depth each time, and a
// home held behind a sibling (see prober_fair.go) goes out from the goroutine that
// freed its room, without waking Start. At most as many wait as were ever sending at
// once, which the dispatch cap bounds.
func (p *Prober) runProbes(ctx context.Context, job probeJob) {
	defer p.workers.Done()
	for {
		for more := true; more; {
			job, more = p.send(ctx, job)
		}
		p.mu.Lock()
		if p.surplusWorkerLocked() {
			p.workerCount--
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		select {
		case job = <-p.idle:
		case <-ctx.Done():
			p.mu.Lock()
			p.workerCount--
			p.mu.Unlock()
			return
		}
	}
}

// send sends one probe and records its result; it returns the next probe for the same
// goroutine, if its finish dispatched one.
func (p *Prober) send(ctx context.Context, job probeJob) (probeJob, bool) {
	defer p.inFlight.Done()
	res := p.observer.Do(job.ctx, job.req)
	job.cancel()
	lateness := probe.Lateness(job.due, job.dispatched.Add(res.SlotWait))
	observeLateness(lateness)
	if p.onStart != nil {
		p.onStart(lateness)
	}
	return p.finish(ctx, job.h, res)
}

// finish records a probe's result and schedules the home's next probe one period after
// this one was due, or later if it ran past that: a late home is not caught up with a
// burst. The room the probe leaves goes to the homes it was holding back: the first is
// returned for the caller to send, any others are handed off.
func (p *Prober) finish(ctx context.Context, h *homeProbe, res observer.Result) (probeJob, bool) {
	p.mu.Lock()
	h.running = false
	delete(p.cancels, h)
	p.running--
	p.finishedLocked(h.owner)
	mp := h.owner
	finished := p.clock.Now()
	var transition probe.Transition
	announce := false
	if !h.removed {
		result, message, counted := probe.Classify(res, mp.policy)
		if counted {
			wasGated, failures := h.state.Gated, h.state.ConsecutiveFailures
			transition = h.state.Observe(result, message, finished, mp.policy, mp.digest)
			if transition == probe.NoChange && !wasGated && failures > 0 && h.state.ConsecutiveFailures == 0 {
				mp.counted = true
			}
			mp.results.count(mp.key, result)
			if mp.unannouncedSince.IsZero() {
				mp.unannouncedSince = finished
			}
		}
		// Every home of a map shares the map's offset, so the homes of one map are probed
		// together and their results reach the map in one write.
		p.queue.schedule(h, probe.NextDue(h.due, finished, mp.name, mp.policy.Period))
		if h.index == 0 {
			// It is now the earliest due: Start's timer is set for a later one.
			p.poke()
		}
		// A gate or a lift still waits for the round's other probes (usually milliseconds),
		// so that homes failing together reach the map together: announced alone, the
		// first of them would be written, and published, gated on its own for a moment.
		if transition != probe.NoChange && mp.transitionAt.IsZero() {
			mp.transitionAt = finished
		}
		announce = !mp.unannouncedSince.IsZero() &&
			(!mp.anyRunning() || finished.Sub(mp.unannouncedSince) >= mp.policy.Timeout)
		if announce {
			mp.unannouncedSince = time.Time{}
		}
	}
	notice := ProbeNotice{Service: mp.key, Transition: !mp.transitionAt.IsZero(), Counted: mp.counted}
	var next probeJob
	found := false
	if !ctxDone(ctx) {
		for n := p.nextLocked(finished); n != nil; n = p.nextLocked(finished) {
			job := p.dispatchLocked(n, finished)
			if !found {
				next, found = job, true
				continue
			}
			p.handOff(ctx, job)
		}
	}
	p.mu.Unlock()

	if transition != probe.NoChange {
		// The arguments are built only for a logger that writes them.
		if log := logf.FromContext(ctx).V(1); log.Enabled() {
			log.Info("Probe gate changed", "InferenceService", notice.Service, "cluster", h.cluster, "transition", transition.String())
		}
	}
	if announce {
		p.enqueue(ctx, notice)
	}
	return next, found
}

// ctxDone reports whether ctx has ended, without blocking.
func ctxDone(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// anyRunning reports whether a probe of one of the map's homes is still in flight.
func (mp *mapProbes) anyRunning() bool {
	for _, h := range mp.homes {
		if h.running || h.waiting {
			return true
		}
	}
	return false
}

func (p *Prober) enqueue(ctx context.Context, notice ProbeNotice) {
	select {
	case p.notify <- event.TypedGenericEvent[ProbeNotice]{Object: notice}:
	case <-ctx.Done():
	}
}
