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
type SignalPoller = ReadingPoller[passivegate.Reading, passivegate.Policy, trafficKind]

// ReadingPoller reads one kind of reading R of the homes of every map that asks, each
// under the map's policy P, from a SignalSource on the installation's traffic signal
// schedule. SignalPoller (the traffic signal of the passive gate and TrafficApplied) and
// LoadPoller (the model servers' load, signal_load.go) are its two kinds; readingKind says
// what sets them apart.
type ReadingPoller[R any, P comparable, K readingKind[R, P]] struct {
	source   SignalSource[R]
	settings *trafficsignal.Settings
	notify   chan event.GenericEvent
	engine   *schedule.Engine[mapSignals[P], homeSignal[R], R, types.NamespacedName]
	maps     map[types.NamespacedName]*schedule.Group[mapSignals[P], homeSignal[R]] // guarded by the engine's lock
}

// readingKind is what a poller knows of its kind of reading; its zero value is ready, so
// that a nil poller can still say why it reads nothing.
type readingKind[R any, P comparable] interface {
	// unknown is a reading that says why the home was not read.
	unknown(reason string, window time.Duration) R
	// news says whether a new reading changes what the map's policy (nil when it has
	// none) can decide, so that the routing reconciler must run.
	news(policy *P, before, after R) bool
	// counted counts a reading taken, for the poller's metrics.
	counted(r R)
	// follow is the reading kept when after follows before (the home's last reading).
	follow(before, after R) R
}

// mapSignals is what the poller keeps of one TrafficMap read under one policy (nil when
// it has none: only the traffic signal reads such maps, for their homes at weight 0).
type mapSignals[P comparable] struct {
	key    types.NamespacedName
	policy *P
}

// homeSignal is one home's query and last reading; read is false until the first one
// arrives.
type homeSignal[R any] struct {
	query   SignalQuery
	reading R
	read    bool
}

// NewSignalPoller returns a poller that sends its queries through obs, which has
// maxConcurrentRequests slots; it dispatches at most a quarter of them at once (at least
// one), so that probes, which gate traffic on their own, always find slots.
func NewSignalPoller(obs *observer.Observer, settings *trafficsignal.Settings, maxConcurrentRequests int) *SignalPoller {
	return newSignalPoller(obs, settings, maxConcurrentRequests, clock.RealClock{})
}

func newSignalPoller(obs *observer.Observer, settings *trafficsignal.Settings, maxConcurrentRequests int, clk clock.Clock) *SignalPoller {
	var source SignalSource[passivegate.Reading]
	if settings != nil {
		source = NewPrometheusSource(obs, settings)
	}
	return newReadingPoller[passivegate.Reading, passivegate.Policy, trafficKind](source, settings, maxConcurrentRequests, clk)
}

func newReadingPoller[R any, P comparable, K readingKind[R, P]](source SignalSource[R], settings *trafficsignal.Settings,
	maxConcurrentRequests int, clk clock.Clock) *ReadingPoller[R, P, K] {
	p := &ReadingPoller[R, P, K]{
		source:   source,
		settings: settings,
		notify:   make(chan event.GenericEvent, 1024),
		maps:     map[types.NamespacedName]*schedule.Group[mapSignals[P], homeSignal[R]]{},
	}
	p.engine = schedule.New(signalPolicy[R, P, K]{p}, schedule.Options{MaxInFlight: max(maxConcurrentRequests/4, 1), Clock: clk})
	return p
}

// kind is the poller's kind of reading.
func (*ReadingPoller[R, P, K]) kind() K {
	var k K
	return k
}

// Configured says whether the installation names a signal source. A nil poller has none.
func (p *ReadingPoller[R, P, K]) Configured() bool { return p != nil && p.settings != nil }

// Interval is how often each home's signal is read, zero without a source.
func (p *ReadingPoller[R, P, K]) Interval() time.Duration {
	if !p.Configured() {
		return 0
	}
	return p.settings.Interval
}

// Window is the signal's window, zero without a source.
func (p *ReadingPoller[R, P, K]) Window() time.Duration {
	if !p.Configured() {
		return 0
	}
	return p.settings.Window
}

// Events is the channel the routing controller watches for maps whose readings changed;
// a nil poller's never delivers.
func (p *ReadingPoller[R, P, K]) Events() <-chan event.GenericEvent {
	if p == nil {
		return nil
	}
	return p.notify
}

// NeedLeaderElection makes the poller run only on the leader.
func (p *ReadingPoller[R, P, K]) NeedLeaderElection() bool { return true }

// Start runs the schedule until ctx ends.
func (p *ReadingPoller[R, P, K]) Start(ctx context.Context) error { return p.engine.Start(ctx) }

// NotReadYet is the reason of a home's reading before its first one arrives.
const NotReadYet = "no reading yet: the traffic signal is read every routing.trafficSignal.interval"

// Sync makes the poller read exactly the given homes of a map under the passive gate's
// policy (nil when the map has none) and returns every home's last reading (not Known before the first). A home
// whose names changed (a new route, another backend) starts afresh, and so does every
// home when the policy's thresholds change. Without a signal source every reading says so.
func (p *ReadingPoller[R, P, K]) Sync(key types.NamespacedName, policy *P, targets []SignalTarget) map[string]R {
	out := make(map[string]R, len(targets))
	if !p.Configured() {
		for _, t := range targets {
			out[t.Cluster] = p.kind().unknown("routing.trafficSignal is not set: there is no traffic signal to read", 0)
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
		g = p.engine.AddGroup(key.String(), key.Namespace, s.Interval, p.source.Timeout(), mapSignals[P]{key: key, policy: clonePolicy(policy)})
		p.maps[key] = g
	}
	sync := &signalSync[R, P, K]{p: p, g: g, now: p.engine.Now(), readings: out}
	for _, t := range targets {
		sync.add(t)
	}
	p.engine.SyncGroup(g, sync)
	return out
}

// Forget stops reading a map's homes.
func (p *ReadingPoller[R, P, K]) Forget(key types.NamespacedName) {
	if !p.Configured() {
		return
	}
	p.engine.Lock()
	defer p.engine.Unlock()
	if g := p.maps[key]; g != nil {
		p.dropLocked(key, g)
	}
}

func (p *ReadingPoller[R, P, K]) dropLocked(key types.NamespacedName, g *schedule.Group[mapSignals[P], homeSignal[R]]) {
	p.engine.DropGroup(g)
	delete(p.maps, key)
}

// signalSync is one Sync's targets: each home's "endpoint", for the engine, is its
// query's key, so that a home whose query changes starts afresh.
type signalSync[R any, P comparable, K readingKind[R, P]] struct {
	p        *ReadingPoller[R, P, K]
	g        *schedule.Group[mapSignals[P], homeSignal[R]]
	now      time.Time
	clusters []string
	queries  []SignalQuery
	readings map[string]R
}

func (s *signalSync[R, P, K]) add(t SignalTarget) {
	q, err := s.p.source.Prepare(t)
	if err != nil {
		// Validate checked the settings once; a failure here is the operator's own bug.
		s.readings[t.Cluster] = s.p.kind().unknown(err.Error(), 0)
		return
	}
	s.clusters = append(s.clusters, t.Cluster)
	s.queries = append(s.queries, q)
}

func (s *signalSync[R, P, K]) Len() int { return len(s.clusters) }

func (s *signalSync[R, P, K]) Target(i int) (string, string) {
	return s.clusters[i], s.queries[i].Key()
}

func (s *signalSync[R, P, K]) New(i int) (homeSignal[R], string, time.Time) {
	return homeSignal[R]{query: s.queries[i]}, s.queries[i].Key(), schedule.FirstDue(s.now, s.g.Name(), s.p.settings.Interval)
}

func (s *signalSync[R, P, K]) Seen(i int, h *schedule.Home[mapSignals[P], homeSignal[R]]) {
	r := h.Data.reading
	if !h.Data.read {
		r = s.p.kind().unknown(NotReadYet, s.p.settings.Window)
	}
	s.readings[s.clusters[i]] = r
}

func (*signalSync[R, P, K]) Gone(*schedule.Home[mapSignals[P], homeSignal[R]]) {}

// signalPolicy is the poller's side of the engine.
type signalPolicy[R any, P comparable, K readingKind[R, P]] struct{ p *ReadingPoller[R, P, K] }

func (sp signalPolicy[R, P, K]) Send(ctx context.Context, h *schedule.Home[mapSignals[P], homeSignal[R]]) (R, time.Duration) {
	r, wait := sp.p.source.Read(ctx, h.Group().Data.key, h.Data.query, sp.p.engine.Now())
	sp.p.kind().counted(r)
	return r, wait
}

// Record keeps the reading, and says it is news when the first one arrives or the kind
// says so.
func (sp signalPolicy[R, P, K]) Record(_ context.Context, h *schedule.Home[mapSignals[P], homeSignal[R]], r R, _ time.Time) bool {
	before, was := h.Data.reading, h.Data.read
	if was {
		r = sp.p.kind().follow(before, r)
	}
	h.Data.reading, h.Data.read = r, true
	return !was || sp.p.kind().news(h.Group().Data.policy, before, r)
}

// trafficKind is the traffic signal's kind of reading, for the passive gate and
// TrafficApplied.
type trafficKind struct{}

func (trafficKind) unknown(reason string, window time.Duration) passivegate.Reading {
	return passivegate.Reading{Reason: reason, Window: window}
}

func (trafficKind) counted(r passivegate.Reading) { countSignalRead(r.Known) }

func (trafficKind) follow(_, after passivegate.Reading) passivegate.Reading { return after }

// news: the reading turns Known or Unknown (or its reason changes), it starts or stops
// crossing the passive gate's threshold, or the home starts or stops getting requests at
// all (TrafficApplied).
func (trafficKind) news(policy *passivegate.Policy, before, r passivegate.Reading) bool {
	if before.Known != r.Known || before.Reason != r.Reason || served(before) != served(r) {
		return true
	}
	return policy != nil && policy.Fails(before) != policy.Fails(r)
}

// served says whether a reading counts a whole request (increase() extrapolates).
func served(r passivegate.Reading) bool { return r.Known && r.Requests >= 0.5 }

func clonePolicy[P any](p *P) *P {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

func samePolicy[P comparable](a, b *P) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func (signalPolicy[R, P, K]) Notice(g *schedule.Group[mapSignals[P], homeSignal[R]]) types.NamespacedName {
	return g.Data.key
}

func (sp signalPolicy[R, P, K]) Announce(ctx context.Context, key types.NamespacedName) {
	obj := &omev1beta1.InferenceService{}
	obj.Name, obj.Namespace = key.Name, key.Namespace
	select {
	case sp.p.notify <- event.GenericEvent{Object: obj}:
	case <-ctx.Done():
	}
}
