package probing

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/event"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/schedule"
)

// Poller sends every home's capacity poll on its schedule through the observer the prober
// uses, and keeps each home's window of readings in memory. Like the prober it never
// writes a TrafficMap: when a home's verdict changes it asks the routing reconciler to
// run, which reads the verdicts with Sync.
//
// It is a policy on the scheduling engine the prober runs on (pkg/schedule): homes spread
// over the period by their map's name, the next poll one period after the previous one was
// due (never before it finished, no catch-up bursts), a fair share of its cap per map, and
// a request's timeout starting only once the observer gives it a slot. Windows live only
// in memory, so a restart or a change of leader starts every home with an empty window, as
// a changed setting or endpoint does.
//
// It runs only on the leader.
type Poller struct {
	observer *observer.Observer
	notify   chan event.GenericEvent
	engine   *pollEngine
	maps     map[types.NamespacedName]*pollGroup // guarded by the engine's lock
	// onStart, when set (by benchmarks), receives each poll's lateness.
	onStart func(lateness time.Duration)
}

type (
	pollEngine = schedule.Engine[mapPolls, homePoll, capacity.Outcome, types.NamespacedName]
	pollGroup  = schedule.Group[mapPolls, homePoll]
	pollHome   = schedule.Home[mapPolls, homePoll]
)

// mapPolls is what the poller keeps of one TrafficMap polled under one policy.
type mapPolls struct {
	key    types.NamespacedName
	policy capacity.Policy
	format capacity.Format
	digest string
}

// homePoll is one home's window.
type homePoll struct {
	window capacity.Window
}

// PollTarget is a home the routing reconciler wants polled.
type PollTarget struct {
	Cluster  string
	Endpoint string
}

// NewPoller returns a poller that sends its requests through obs, which has
// maxConcurrentRequests slots; it dispatches at most half of them at once (at least one).
func NewPoller(obs *observer.Observer, maxConcurrentRequests int) *Poller {
	return newPoller(obs, maxConcurrentRequests, clock.RealClock{})
}

func newPoller(obs *observer.Observer, maxConcurrentRequests int, clk clock.Clock) *Poller {
	p := &Poller{
		observer: obs,
		notify:   make(chan event.GenericEvent, 1024),
		maps:     map[types.NamespacedName]*pollGroup{},
	}
	p.engine = schedule.New(pollPolicy{p}, schedule.Options{
		// Half the observer's slots, and never past them, so that polls can never hold
		// every slot: a probe, which gates traffic, always finds one freeing up within
		// one poll's timeout.
		MaxInFlight: max(maxConcurrentRequests/2, 1),
		Clock:       clk,
		OnStart: func(lateness time.Duration) {
			if p.onStart != nil {
				p.onStart(lateness)
			}
		},
	})
	return p
}

// Events is the channel the routing controller watches for maps whose verdicts changed.
func (p *Poller) Events() <-chan event.GenericEvent { return p.notify }

// NeedLeaderElection makes the poller run only on the leader.
func (p *Poller) NeedLeaderElection() bool { return true }

// Start runs the schedule until ctx ends, then cancels the polls in flight (their
// results are thrown away) and waits for them.
func (p *Poller) Start(ctx context.Context) error { return p.engine.Start(ctx) }

// Sync makes the poller poll exactly the given homes of a map under the policy and
// returns every home's verdict now, and when the earliest reading held expires (zero when
// none does): the verdict can change then without a poll. A policy with another digest,
// or a home whose endpoint changed, starts with an empty window. A new home is first
// polled on its map's slot.
func (p *Poller) Sync(key types.NamespacedName, policy capacity.Policy, digest string, targets []PollTarget) (map[string]capacity.Ceiling, time.Time) {
	p.engine.Lock()
	defer p.engine.Unlock()
	g := p.maps[key]
	if g != nil && g.Data.digest != digest {
		p.dropLocked(key, g)
		g = nil
	}
	if g == nil {
		// Resolve has checked that the format is registered.
		format, _ := capacity.Lookup(policy.Format)
		g = p.engine.AddGroup(key.String(), key.Namespace, policy.Period, policy.Timeout,
			mapPolls{key: key, policy: policy.DeepCopy(), format: format, digest: digest})
		p.maps[key] = g
	}
	s := &pollSync{g: g, targets: targets, now: p.engine.Now(), verdicts: make(map[string]capacity.Ceiling, len(targets))}
	p.engine.SyncGroup(g, s)
	return s.verdicts, s.nextExpiry
}

// pollSync is one Sync's targets, and the verdicts it reads.
type pollSync struct {
	g          *pollGroup
	targets    []PollTarget
	now        time.Time
	verdicts   map[string]capacity.Ceiling
	nextExpiry time.Time
}

func (s *pollSync) Len() int { return len(s.targets) }

func (s *pollSync) Target(i int) (string, string) { return s.targets[i].Cluster, s.targets[i].Endpoint }

func (s *pollSync) New(i int) (homePoll, string, time.Time) {
	return homePoll{}, s.targets[i].Endpoint, schedule.FirstDue(s.now, s.g.Name(), s.g.Data.policy.Period)
}

func (s *pollSync) Seen(i int, h *pollHome) {
	s.verdicts[s.targets[i].Cluster] = h.Data.window.Ceiling(s.g.Data.policy, s.now)
	if at, ok := h.Data.window.NextExpiry(); ok && (s.nextExpiry.IsZero() || at.Before(s.nextExpiry)) {
		s.nextExpiry = at
	}
}

func (s *pollSync) Gone(*pollHome) {}

// Forget stops polling a map's homes and forgets their windows.
func (p *Poller) Forget(key types.NamespacedName) {
	p.engine.Lock()
	defer p.engine.Unlock()
	if g := p.maps[key]; g != nil {
		p.dropLocked(key, g)
	}
}

func (p *Poller) dropLocked(key types.NamespacedName, g *pollGroup) {
	p.engine.DropGroup(g)
	delete(p.maps, key)
}

// pollPolicy is the poller's side of the engine: a poll is the format's request, its
// answer is read into the home's window, and a map is announced when a verdict changed.
type pollPolicy struct{ p *Poller }

func (pp pollPolicy) Send(ctx context.Context, h *pollHome) (capacity.Outcome, time.Duration) {
	mp := &h.Group().Data
	req, err := mp.format.Request(h.Endpoint(), mp.policy)
	if err != nil {
		// Nothing to send: the poll fails as it would at the endpoint, without a slot.
		return capacity.Outcome{Counted: true, Failure: err.Error()}, 0
	}
	res := pp.p.observer.Do(ctx, req)
	return mp.format.Interpret(res, pp.p.engine.Now(), mp.policy), res.SlotWait
}

func (pollPolicy) Record(_ context.Context, h *pollHome, out capacity.Outcome, finished time.Time) bool {
	policy := h.Group().Data.policy
	before := h.Data.window.Ceiling(policy, finished)
	h.Data.window.Observe(out, policy, finished)
	return h.Data.window.Ceiling(policy, finished) != before
}

func (pollPolicy) Notice(g *pollGroup) types.NamespacedName { return g.Data.key }

func (pp pollPolicy) Announce(ctx context.Context, key types.NamespacedName) {
	obj := &omev1beta1.InferenceService{}
	obj.Name, obj.Namespace = key.Name, key.Namespace
	select {
	case pp.p.notify <- event.GenericEvent{Object: obj}:
	case <-ctx.Done():
	}
}
