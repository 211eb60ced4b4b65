package probing

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/event"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/passivegate"
	"github.com/ome-routing/operator/pkg/schedule"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// SignalPoller reads the traffic signal (routing.trafficSignal) of every home whose
// service has a passive gate, and of every home a map holds at weight 0 (the evidence of
// TrafficApplied): each interval, the requests and the failures that the
// global gateway's counters show for the home over the window, from its source (a
// SignalSource: PrometheusSource, whose queries go through the observer the probes use,
// under the same cap and the same fairness between namespaces). Like the capacity poller it writes nothing: when a home's reading changes
// what a passive gate could decide, or whether a home at weight 0 gets requests at all,
// it asks the routing reconciler to run, which reads
// the readings with Sync.
//
// Readings live only in memory; the gates they set are in the TrafficMap, so a new leader
// keeps every passive gate and reads the signal afresh.
//
// It runs only on the leader.
type SignalPoller struct {
	source   SignalSource[passivegate.Reading]
	settings *trafficsignal.Settings
	notify   chan event.GenericEvent
	engine   *signalEngine
	maps     map[types.NamespacedName]*signalGroup // guarded by the engine's lock
}

type (
	signalEngine = schedule.Engine[mapSignals, homeSignal, passivegate.Reading, types.NamespacedName]
	signalGroup  = schedule.Group[mapSignals, homeSignal]
	signalHome   = schedule.Home[mapSignals, homeSignal]
)

// mapSignals is what the poller keeps of one TrafficMap read under one passive gate (nil
// when only its homes at weight 0 are read).
type mapSignals struct {
	key    types.NamespacedName
	policy *passivegate.Policy
}

// homeSignal is one home's query and last reading; read is false until the first one
// arrives.
type homeSignal struct {
	query   SignalQuery
	reading passivegate.Reading
	read    bool
}

// NewSignalPoller returns a poller that sends its queries through obs, which has
// maxConcurrentRequests slots; it dispatches at most a quarter of them at once (at least
// one), so that probes, which gate traffic on their own, always find slots.
func NewSignalPoller(obs *observer.Observer, settings *trafficsignal.Settings, maxConcurrentRequests int) *SignalPoller {
	return newSignalPoller(obs, settings, maxConcurrentRequests, clock.RealClock{})
}

func newSignalPoller(obs *observer.Observer, settings *trafficsignal.Settings, maxConcurrentRequests int, clk clock.Clock) *SignalPoller {
	p := &SignalPoller{
		settings: settings,
		notify:   make(chan event.GenericEvent, 1024),
		maps:     map[types.NamespacedName]*signalGroup{},
	}
	if settings != nil {
		p.source = NewPrometheusSource(obs, settings)
	}
	p.engine = schedule.New(signalPolicy{p}, schedule.Options{MaxInFlight: max(maxConcurrentRequests/4, 1), Clock: clk})
	return p
}

// Configured says whether the installation names a signal source. A nil poller has none.
func (p *SignalPoller) Configured() bool { return p != nil && p.settings != nil }

// Interval is how often each home's signal is read, zero without a source.
func (p *SignalPoller) Interval() time.Duration {
	if !p.Configured() {
		return 0
	}
	return p.settings.Interval
}

// Window is the signal's window, zero without a source.
func (p *SignalPoller) Window() time.Duration {
	if !p.Configured() {
		return 0
	}
	return p.settings.Window
}

// Events is the channel the routing controller watches for maps whose readings changed;
// a nil poller's never delivers.
func (p *SignalPoller) Events() <-chan event.GenericEvent {
	if p == nil {
		return nil
	}
	return p.notify
}

// NeedLeaderElection makes the poller run only on the leader.
func (p *SignalPoller) NeedLeaderElection() bool { return true }

// Start runs the schedule until ctx ends.
func (p *SignalPoller) Start(ctx context.Context) error { return p.engine.Start(ctx) }

// NotReadYet is the reason of a home's reading before its first one arrives.
const NotReadYet = "no reading yet: the traffic signal is read every routing.trafficSignal.interval"

// Sync makes the poller read exactly the given homes of a map under the passive gate's
// policy (nil when the map has none) and returns every home's last reading (not Known before the first). A home
// whose names changed (a new route, another backend) starts afresh, and so does every
// home when the policy's thresholds change. Without a signal source every reading says so.
func (p *SignalPoller) Sync(key types.NamespacedName, policy *passivegate.Policy, targets []SignalTarget) map[string]passivegate.Reading {
	out := make(map[string]passivegate.Reading, len(targets))
	if !p.Configured() {
		for _, t := range targets {
			out[t.Cluster] = passivegate.Reading{Reason: "routing.trafficSignal is not set: there is no traffic signal to read"}
		}
		return out
	}
	s := p.settings
	p.engine.Lock()
	defer p.engine.Unlock()
	g := p.maps[key]
	if g != nil && !samePolicy(g.Data.policy, policy) {
		p.dropLocked(key, g)
		g = nil
	}
	if g == nil {
		g = p.engine.AddGroup(key.String(), key.Namespace, s.Interval, p.source.Timeout(), mapSignals{key: key, policy: clonePolicy(policy)})
		p.maps[key] = g
	}
	sync := &signalSync{p: p, g: g, now: p.engine.Now(), readings: out}
	for _, t := range targets {
		sync.add(t)
	}
	p.engine.SyncGroup(g, sync)
	return out
}

// Forget stops reading a map's homes.
func (p *SignalPoller) Forget(key types.NamespacedName) {
	if !p.Configured() {
		return
	}
	p.engine.Lock()
	defer p.engine.Unlock()
	if g := p.maps[key]; g != nil {
		p.dropLocked(key, g)
	}
}

func (p *SignalPoller) dropLocked(key types.NamespacedName, g *signalGroup) {
	p.engine.DropGroup(g)
	delete(p.maps, key)
}

// signalSync is one Sync's targets: each home's "endpoint", for the engine, is its
// query's key, so that a home whose query changes starts afresh.
type signalSync struct {
	p        *SignalPoller
	g        *signalGroup
	now      time.Time
	clusters []string
	queries  []SignalQuery
	readings map[string]passivegate.Reading
}

func (s *signalSync) add(t SignalTarget) {
	q, err := s.p.source.Prepare(t)
	if err != nil {
		// Validate checked the settings once; a failure here is the operator's own bug.
		s.readings[t.Cluster] = passivegate.Reading{Reason: err.Error()}
		return
	}
	s.clusters = append(s.clusters, t.Cluster)
	s.queries = append(s.queries, q)
}

func (s *signalSync) Len() int { return len(s.clusters) }

func (s *signalSync) Target(i int) (string, string) { return s.clusters[i], s.queries[i].Key() }

func (s *signalSync) New(i int) (homeSignal, string, time.Time) {
	return homeSignal{query: s.queries[i]}, s.queries[i].Key(), schedule.FirstDue(s.now, s.g.Name(), s.p.settings.Interval)
}

func (s *signalSync) Seen(i int, h *signalHome) {
	r := h.Data.reading
	if !h.Data.read {
		r = passivegate.Reading{Reason: NotReadYet, Window: s.p.settings.Window}
	}
	s.readings[s.clusters[i]] = r
}

func (*signalSync) Gone(*signalHome) {}

// signalPolicy is the poller's side of the engine.
type signalPolicy struct{ p *SignalPoller }

func (sp signalPolicy) Send(ctx context.Context, h *signalHome) (passivegate.Reading, time.Duration) {
	r, wait := sp.p.source.Read(ctx, h.Group().Data.key, h.Data.query, sp.p.engine.Now())
	countSignalRead(r.Known)
	return r, wait
}

// Record keeps the reading, and says it is news when it changes what a passive gate or
// TrafficApplied can decide: the reading turns Known or Unknown (or its reason changes),
// it starts or stops crossing the policy's threshold, or the home starts or stops getting
// requests at all.
func (signalPolicy) Record(_ context.Context, h *signalHome, r passivegate.Reading, _ time.Time) bool {
	before, was := h.Data.reading, h.Data.read
	h.Data.reading, h.Data.read = r, true
	if !was {
		return true
	}
	if before.Known != r.Known || before.Reason != r.Reason || served(before) != served(r) {
		return true
	}
	policy := h.Group().Data.policy
	return policy != nil && policy.Fails(before) != policy.Fails(r)
}

// served says whether a reading counts a whole request (increase() extrapolates).
func served(r passivegate.Reading) bool { return r.Known && r.Requests >= 0.5 }

func clonePolicy(p *passivegate.Policy) *passivegate.Policy {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

func samePolicy(a, b *passivegate.Policy) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func (signalPolicy) Notice(g *signalGroup) types.NamespacedName { return g.Data.key }

func (sp signalPolicy) Announce(ctx context.Context, key types.NamespacedName) {
	obj := &omev1beta1.InferenceService{}
	obj.Name, obj.Namespace = key.Name, key.Namespace
	select {
	case sp.p.notify <- event.GenericEvent{Object: obj}:
	case <-ctx.Done():
	}
}
