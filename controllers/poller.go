package controllers

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
)

// Poller sends every home's capacity poll on its schedule through the observer the prober
// uses, and keeps each home's window of readings in memory. Like the prober it never
// writes a TrafficMap: when a home's verdict changes it asks the routing reconciler to
// run, which reads the verdicts with Sync.
//
// It keeps the prober's discipline: one heap for every home, homes spread over the period
// by their map's name, the next poll one period after the previous one was due (never
// before it finished, no catch-up bursts), and a request's timeout starting only once the
// observer gives it a slot. Windows live only in memory, so a restart or a change of
// leader starts every home with an empty window, as a changed setting or endpoint does.
//
// It runs only on the leader.
type Poller struct {
	observer *observer.Observer
	notify   chan event.GenericEvent
	now      func() time.Time

	// maxInFlight caps the polls dispatched at once. NewPoller sets it to half the
	// observer's slots, so that polls can never hold every slot: a probe, which gates
	// traffic, always finds one freeing up within one poll's timeout.
	maxInFlight int

	mu       sync.Mutex
	maps     map[types.NamespacedName]*mapPolls
	queue    dueQueue[*homePoll]
	wake     chan struct{}
	running  int
	inFlight sync.WaitGroup
	// onStart, when set (by benchmarks), receives each poll's lateness.
	onStart func(lateness time.Duration)
	// onFinish, when set (by tests), is called after each counted poll.
	onFinish func(key types.NamespacedName)
}

// mapPolls is the polling of one TrafficMap's homes under one policy.
type mapPolls struct {
	key    types.NamespacedName
	policy capacity.Policy
	format capacity.Format
	digest string
	homes  map[string]*homePoll
	// unannouncedSince is when the oldest verdict change not yet handed to the
	// reconciler happened; zero when there is none.
	unannouncedSince time.Time
}

// homePoll is one home's schedule and window, guarded by Poller.mu.
type homePoll struct {
	owner    *mapPolls
	cluster  string
	endpoint string
	window   capacity.Window
	queued   // when its next poll is due
	running  bool
	cancel   context.CancelFunc
	removed  bool
}

// PollTarget is a home the routing reconciler wants polled.
type PollTarget struct {
	Cluster  string
	Endpoint string
}

// NewPoller returns a poller that sends its requests through obs, which has
// maxConcurrentRequests slots; it dispatches at most half of them at once (at least one).
func NewPoller(obs *observer.Observer, maxConcurrentRequests int) *Poller {
	return &Poller{
		observer:    obs,
		maxInFlight: max(maxConcurrentRequests/2, 1),
		notify:      make(chan event.GenericEvent, 1024),
		now:         time.Now,
		maps:        map[types.NamespacedName]*mapPolls{},
		wake:        make(chan struct{}, 1),
	}
}

// Events is the channel the routing controller watches for maps whose verdicts changed.
func (p *Poller) Events() <-chan event.GenericEvent { return p.notify }

// NeedLeaderElection makes the poller run only on the leader.
func (p *Poller) NeedLeaderElection() bool { return true }

// Sync makes the poller poll exactly the given homes of a map under the policy and
// returns every home's verdict now, and when the earliest reading held expires (zero when
// none does): the verdict can change then without a poll. A policy with another digest,
// or a home whose endpoint changed, starts with an empty window.
func (p *Poller) Sync(key types.NamespacedName, policy capacity.Policy, digest string, targets []PollTarget) (map[string]capacity.Ceiling, time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	mp := p.maps[key]
	if mp != nil && mp.digest != digest {
		p.dropLocked(mp)
		mp = nil
	}
	if mp == nil {
		// Resolve has checked that the format is registered.
		format, _ := capacity.Lookup(policy.Format)
		mp = &mapPolls{key: key, policy: policy.DeepCopy(), format: format, digest: digest, homes: map[string]*homePoll{}}
		p.maps[key] = mp
	}
	now := p.now()
	wanted := make(map[string]bool, len(targets))
	verdicts := make(map[string]capacity.Ceiling, len(targets))
	var nextExpiry time.Time
	for _, t := range targets {
		wanted[t.Cluster] = true
		h := mp.homes[t.Cluster]
		if h != nil && h.endpoint != t.Endpoint {
			// Readings from the old endpoint say nothing about the new one.
			p.removeLocked(h)
			h = nil
		}
		if h == nil {
			h = &homePoll{owner: mp, cluster: t.Cluster, endpoint: t.Endpoint, queued: unqueued()}
			mp.homes[t.Cluster] = h
			p.queue.schedule(h, probe.FirstDue(now, key.String(), policy.Period))
		}
		verdicts[t.Cluster] = h.window.Ceiling(mp.policy, now)
		if at, ok := h.window.NextExpiry(); ok && (nextExpiry.IsZero() || at.Before(nextExpiry)) {
			nextExpiry = at
		}
	}
	for cluster, h := range mp.homes {
		if !wanted[cluster] {
			p.removeLocked(h)
			delete(mp.homes, cluster)
		}
	}
	p.poke()
	return verdicts, nextExpiry
}

// Forget stops polling a map's homes and forgets their windows.
func (p *Poller) Forget(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if mp := p.maps[key]; mp != nil {
		p.dropLocked(mp)
	}
}

func (p *Poller) dropLocked(mp *mapPolls) {
	for _, h := range mp.homes {
		p.removeLocked(h)
	}
	delete(p.maps, mp.key)
}

func (p *Poller) removeLocked(h *homePoll) {
	h.removed = true
	p.queue.remove(h)
	if h.cancel != nil {
		h.cancel()
	}
}

func (p *Poller) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Start runs the schedule until ctx ends, then cancels the polls in flight (their
// results are thrown away) and waits for them.
func (p *Poller) Start(ctx context.Context) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		p.mu.Lock()
		now := p.now()
		for p.running < p.maxInFlight {
			h := p.queue.popDueOne(now)
			if h == nil {
				break
			}
			p.dispatchLocked(ctx, h, now)
		}
		next, ok := p.queue.next()
		full := p.running >= p.maxInFlight
		p.mu.Unlock()

		wait := time.Hour
		if ok && !full {
			wait = max(next.Sub(p.now()), 0)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			p.mu.Lock()
			for _, mp := range p.maps {
				for _, h := range mp.homes {
					if h.cancel != nil {
						h.cancel()
					}
				}
			}
			p.mu.Unlock()
			p.inFlight.Wait()
			return nil
		case <-timer.C:
		case <-p.wake:
		}
	}
}

func (p *Poller) dispatchLocked(ctx context.Context, h *homePoll, now time.Time) {
	reqCtx, cancel := context.WithCancel(ctx)
	h.running, h.cancel = true, cancel
	p.running++
	mp := h.owner
	req, buildErr := mp.format.Request(h.endpoint, mp.policy)
	due := h.due
	p.inFlight.Add(1)
	go func() {
		defer p.inFlight.Done()
		defer cancel()
		if buildErr != nil {
			// Nothing to send: the poll fails as it would at the endpoint, without a slot.
			p.finish(ctx, h, capacity.Outcome{Counted: true, Failure: buildErr.Error()})
			return
		}
		res := p.observer.Do(reqCtx, req)
		if p.onStart != nil {
			p.onStart(probe.Lateness(due, now.Add(res.SlotWait)))
		}
		p.finish(ctx, h, mp.format.Interpret(res, p.now(), mp.policy))
	}()
}

// finish applies a poll's outcome to the home's window and schedules its next poll. The
// map is announced when the verdict changed, once none of its homes is still running or
// the change has waited a poll timeout, so the homes of one round cost one write.
func (p *Poller) finish(ctx context.Context, h *homePoll, out capacity.Outcome) {
	p.mu.Lock()
	h.running, h.cancel = false, nil
	p.running--
	p.poke()
	if h.removed {
		p.mu.Unlock()
		return
	}
	mp := h.owner
	finished := p.now()
	before := h.window.Ceiling(mp.policy, finished)
	h.window.Observe(out, mp.policy, finished)
	if h.window.Ceiling(mp.policy, finished) != before && mp.unannouncedSince.IsZero() {
		mp.unannouncedSince = finished
	}
	p.queue.schedule(h, probe.NextDue(h.due, finished, mp.key.String(), mp.policy.Period))
	announce := !mp.unannouncedSince.IsZero() &&
		(!mp.anyRunning() || finished.Sub(mp.unannouncedSince) >= mp.policy.Timeout)
	if announce {
		mp.unannouncedSince = time.Time{}
	}
	key := mp.key
	onFinish := p.onFinish
	p.mu.Unlock()

	if onFinish != nil && out.Counted {
		onFinish(key)
	}
	if announce {
		obj := &omev1beta1.InferenceService{}
		obj.Name, obj.Namespace = key.Name, key.Namespace
		select {
		case p.notify <- event.GenericEvent{Object: obj}:
		case <-ctx.Done():
		}
	}
}

func (mp *mapPolls) anyRunning() bool {
	for _, h := range mp.homes {
		if h.running {
			return true
		}
	}
	return false
}
