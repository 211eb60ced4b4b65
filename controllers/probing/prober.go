package probing

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/schedule"
)

// Prober sends every home's routing probe on its schedule through the shared observer and
// keeps each home's counter and gate state in memory. It never writes a TrafficMap: after
// a result it asks the routing reconciler to run, which reads the states with Sync and
// writes the map once, so results that arrive together coalesce into one write.
//
// It is a policy on the scheduling engine (pkg/schedule), which decides when each home is
// probed and how many probes are in flight: at most maxInFlight (the observer's request
// cap), shared fairly between namespaces and between the maps of each, and past it one
// probe per map with nothing in flight in a namespace under its share, up to maxInFlight
// more (see schedule.Options.PastCap).
//
// It runs only on the leader (a manager runnable that needs leader election).
type Prober struct {
	observer *observer.Observer
	// notify receives a notice for every map with new results.
	notify chan event.TypedGenericEvent[ProbeNotice]
	engine *probeEngine
	// maps are the engine's groups by service; guarded by the engine's lock.
	maps map[types.NamespacedName]*probeGroup
	// onStart, when set (by benchmarks), receives each probe's lateness: how long after
	// its due time its request started, including the wait for an observer slot.
	onStart func(lateness time.Duration)
}

type (
	probeEngine = schedule.Engine[mapProbes, homeProbe, observer.Result, ProbeNotice]
	probeGroup  = schedule.Group[mapProbes, homeProbe]
	probeHome   = schedule.Home[mapProbes, homeProbe]
)

// mapProbes is what the prober keeps of one TrafficMap probed under one policy.
type mapProbes struct {
	key types.NamespacedName
	// results are the map's ome_routing_probe_results_total series, by result, looked up
	// on first use; forgetProbeMetrics deletes them with the map.
	results probeResultCounters
	// uid is the service's: a service created again under the same name is another one.
	uid    types.UID
	policy probe.Policy
	digest string
	// departed remembers, by cluster, homes that left the map (see DepartedHomeMemory).
	// It is made when a home first leaves: most maps never need it.
	departed map[string]departedHome
	// transitionAt is when a result that gated or lifted one of its homes arrived, until
	// the reconciler reads the states (see Sync): the time a transition waits for it.
	transitionAt time.Time
	// counted is whether a pass ended an ungated home's run of failures since the
	// reconciler last read the states (see ProbeNotice.Counted).
	counted bool
}

// departedHome is the state a home had when it left its map.
type departedHome struct {
	state    probe.State
	endpoint string
	until    time.Time
}

// homeProbe is one home's probe state.
type homeProbe struct {
	// url is where its probes go, probeURL of its endpoint and the policy's path, made
	// once: both are fixed for a home's life (another endpoint or policy is another home).
	url   string
	state probe.State
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
	return newProber(obs, maxInFlight, clock.RealClock{})
}

// newProber returns a prober whose schedule runs on clk; tests drive a fake one, so that
// scheduling is checked exactly and without waiting.
func newProber(obs *observer.Observer, maxInFlight int, clk clock.Clock) *Prober {
	p := &Prober{
		observer: obs,
		notify:   make(chan event.TypedGenericEvent[ProbeNotice], 1024),
		maps:     map[types.NamespacedName]*probeGroup{},
	}
	maxInFlight = max(maxInFlight, 1)
	p.engine = schedule.New(probePolicy{p}, schedule.Options{
		MaxInFlight: maxInFlight,
		PastCap:     maxInFlight,
		Clock:       clk,
		OnStart: func(lateness time.Duration) {
			observeLateness(lateness)
			if p.onStart != nil {
				p.onStart(lateness)
			}
		},
	})
	return p
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
	p.engine.Lock()
	defer p.engine.Unlock()
	now := p.engine.Now()
	g := p.maps[key]
	if g != nil && (g.Data.digest != digest || g.Data.uid != uid) {
		p.dropLocked(g)
		g = nil
	}
	if g == nil {
		g = p.engine.AddGroup(key.String(), key.Namespace, policy.Period, policy.Timeout,
			mapProbes{key: key, uid: uid, policy: policy.DeepCopy(), digest: digest})
		p.maps[key] = g
	}
	mp := &g.Data
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
	s := &probeSync{mp: mp, targets: targets, now: now, states: make(map[string]probe.State, len(targets))}
	p.engine.SyncGroup(g, s)
	return s.states
}

// probeSync is one Sync's targets, and the states it reads.
type probeSync struct {
	mp      *mapProbes
	targets []ProbeTarget
	now     time.Time
	states  map[string]probe.State
}

func (s *probeSync) Len() int { return len(s.targets) }

func (s *probeSync) Target(i int) (string, string) {
	return s.targets[i].Cluster, s.targets[i].Endpoint
}

// New restores a new home's state from its persisted block when that block was made under
// the same policy, or from the prober's memory when it left the map less than
// DepartedHomeMemory ago at the same endpoint. A new home is probed at once; a restored
// one a period after its last probe. From its second probe on, it shares the map's slot.
func (s *probeSync) New(i int) (homeProbe, string, time.Time) {
	t := s.targets[i]
	state := probe.Seed(t.Persisted, s.mp.digest)
	if d, ok := s.mp.departed[t.Cluster]; ok {
		delete(s.mp.departed, t.Cluster)
		if d.endpoint == t.Endpoint {
			state = d.state
		}
	}
	endpoint, url := endpointAndURL(t.Endpoint, s.mp.policy.Path)
	return homeProbe{url: url, state: state}, endpoint, schedule.Resume(s.now, state.LastProbeTime, s.mp.policy.Period)
}

func (s *probeSync) Seen(i int, h *probeHome) { s.states[s.targets[i].Cluster] = h.Data.state }

// Gone remembers a home that left the map, if it was ever probed.
func (s *probeSync) Gone(h *probeHome) {
	if !h.Data.state.Probed {
		return
	}
	if s.mp.departed == nil {
		s.mp.departed = map[string]departedHome{}
	}
	s.mp.departed[h.Cluster()] = departedHome{state: h.Data.state, endpoint: h.Endpoint(), until: s.now.Add(DepartedHomeMemory)}
}

// Forget stops probing a map's homes and forgets their states.
func (p *Prober) Forget(key types.NamespacedName) {
	p.engine.Lock()
	defer p.engine.Unlock()
	if g := p.maps[key]; g != nil {
		p.dropLocked(g)
	}
}

func (p *Prober) dropLocked(g *probeGroup) {
	p.engine.DropGroup(g)
	delete(p.maps, g.Data.key)
	forgetProbeMetrics(g.Data.key)
}

// Start runs the schedule until ctx ends, then cancels the probes in flight (their
// results are thrown away, never counted) and waits for them.
func (p *Prober) Start(ctx context.Context) error { return p.engine.Start(ctx) }

// probePolicy is the prober's side of the engine: a probe is the policy's request to the
// home's URL, its answer is counted into the home's state, and a map is announced with
// the priority its results call for (see ProbeNotice).
type probePolicy struct{ p *Prober }

func (pp probePolicy) Send(ctx context.Context, h *probeHome) (observer.Result, time.Duration) {
	g := h.Group()
	res := pp.p.observer.Do(ctx, observer.Request{
		Method:  g.Data.policy.Method,
		URL:     h.Data.url,
		Timeout: g.Data.policy.Timeout,
		// The observer shares its slots fairly between namespaces, then between the
		// services of one namespace.
		Tenant: g.Data.key.Namespace,
		Group:  g.Name(),
	})
	return res, res.SlotWait
}

// Record counts a probe's result into the home's state. A gate or a lift still waits
// for the round's other probes (usually milliseconds), so that homes failing together
// reach the map together: announced alone, the first of them would be written, and
// published, gated on its own for a moment.
func (probePolicy) Record(ctx context.Context, h *probeHome, res observer.Result, finished time.Time) bool {
	mp := &h.Group().Data
	result, message, counted := probe.Classify(res, mp.policy)
	if !counted {
		return false
	}
	st := &h.Data.state
	wasGated, failures := st.Gated, st.ConsecutiveFailures
	transition := st.Observe(result, message, finished, mp.policy, mp.digest)
	if transition == probe.NoChange && !wasGated && failures > 0 && st.ConsecutiveFailures == 0 {
		mp.counted = true
	}
	mp.results.count(mp.key, result)
	if transition != probe.NoChange {
		if mp.transitionAt.IsZero() {
			mp.transitionAt = finished
		}
		// The arguments are built only for a logger that writes them.
		if log := logf.FromContext(ctx).V(1); log.Enabled() {
			log.Info("Probe gate changed", "InferenceService", mp.key, "cluster", h.Cluster(), "transition", transition.String())
		}
	}
	return true
}

func (probePolicy) Notice(g *probeGroup) ProbeNotice {
	return ProbeNotice{Service: g.Data.key, Transition: !g.Data.transitionAt.IsZero(), Counted: g.Data.counted}
}

func (pp probePolicy) Announce(ctx context.Context, notice ProbeNotice) {
	select {
	case pp.p.notify <- event.TypedGenericEvent[ProbeNotice]{Object: notice}:
	case <-ctx.Done():
	}
}
