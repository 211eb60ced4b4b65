package soak

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/test/framework"
)

// homeKey names one home: a service on a cluster.
type homeKey struct{ service, cluster string }

// entryState is what the watcher last saw of a home in its map.
type entryState struct {
	present, gated bool
	// record is the probe record last judged: lastProbeTime and gate.
	record string
}

// finding is one thing the watcher found wrong, for the report.
type finding struct {
	at   time.Time
	what string
}

// takeover follows one kill of the leader until the other replica has written every map.
type takeover struct {
	killed  string
	at      time.Time
	leased  time.Time // the Lease changed hands
	by      string    // the incarnation that took over
	first   time.Time // the new leader's first map write
	all     time.Time // the new leader has written every map
	written map[string]bool

	// pending are the gates the answers had made before the kill that no map showed yet:
	// decided, or about to be, by the killed leader and not written. Each leaves when its
	// map shows it, or when the answers lift it before that (dropped).
	pending map[homeKey]bool
	// gates is how many were pending at the kill, dropped how many the answers lifted
	// first, and gatesOn when the last of the others reached its map.
	gates, dropped int
	gatesOn        time.Time
}

// gateSeen updates the takeover's pending gates with an entry of a new map version:
// gated, or not gated while the answers no longer gate the home.
func (to *takeover) gateSeen(key homeKey, gated, stillDue bool, now time.Time) {
	if !to.pending[key] || now.Before(to.at) {
		return
	}
	switch {
	case gated:
	case !stillDue:
		to.dropped++
	default:
		return
	}
	delete(to.pending, key)
	if len(to.pending) == 0 {
		to.gatesOn = now
	}
}

// watcher follows the TrafficMaps, the HTTPRoutes and the Lease on the control plane with
// informers of its own, straight to the API server (never through the proxy), and checks
// every map version as it comes: each entry's gate against what the home answered, the
// writers against the kills, and each route against its map.
type watcher struct {
	sched    schedule
	services int
	homes    map[homeKey]*home

	mu       sync.Mutex
	start    time.Time
	counting bool
	maps     map[string]*omev1beta1.TrafficMap
	entries  map[homeKey]entryState
	writers  *writerLog
	follow   *follower
	leaseBy  string

	versions     int64
	judged       int64
	verdicts     map[verdict]int
	positiveGate int
	lostFresh    int
	findings     []finding
	onsetLate    map[string][]time.Duration
	liftLate     map[string][]time.Duration
	matched      map[homeKey]map[int]bool
	onsets       map[homeKey]int
	lifts        map[homeKey]int
	reentries    map[homeKey]int
	takeovers    []*takeover
	// memberChanges are the WorkloadClusters' Ready changes; cutOffMaps counts the maps
	// that have an entry on the cut-off member now, cutOffMin its lowest since begin.
	memberChanges []memberChange
	cutOffMaps    map[string]bool
	cutOffMin     struct {
		n  int
		at time.Time
	}
}

// memberChange is a WorkloadCluster's Ready condition changing.
type memberChange struct {
	at                      time.Time
	cluster, status, reason string
	maps                    int
}

func newWatcher(sched schedule, services int, homes map[homeKey]*home) *watcher {
	return &watcher{
		sched: sched, services: services, homes: homes,
		maps: map[string]*omev1beta1.TrafficMap{}, entries: map[homeKey]entryState{},
		writers: newWriterLog(5 * time.Second), follow: newFollower(),
		verdicts: map[verdict]int{}, onsetLate: map[string][]time.Duration{}, liftLate: map[string][]time.Duration{},
		matched: map[homeKey]map[int]bool{}, onsets: map[homeKey]int{}, lifts: map[homeKey]int{}, reentries: map[homeKey]int{},
		cutOffMaps: map[string]bool{},
	}
}

// run starts the informers and waits until they have synced.
func (w *watcher) run(ctx context.Context, t *testing.T, cfg *rest.Config) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, -1
	framework.StartWatch(ctx, t, cfg, cache.Options{ByObject: map[client.Object]cache.ByObject{
		&coordinationv1.Lease{}: {Namespaces: map[string]cache.Config{envfleet.SecretNamespace: {}}},
	}},
		framework.On(&omev1beta1.TrafficMap{}, func(tm *omev1beta1.TrafficMap) { w.mapSeen(nil, tm) }, w.mapSeen),
		framework.On(&gatewayv1.HTTPRoute{}, w.routeSeen, func(_, r *gatewayv1.HTTPRoute) { w.routeSeen(r) }),
		framework.On(&omev1beta1.WorkloadCluster{}, nil, w.memberSeen),
		framework.On(&coordinationv1.Lease{}, w.leaseSeen, func(_, l *coordinationv1.Lease) { w.leaseSeen(l) }),
	)
}

// begin starts the checks: what came before was the fleet coming up.
func (w *watcher) begin(at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.start, w.counting = at, true
	w.cutOffMin.n, w.cutOffMin.at = len(w.cutOffMaps), at
}

func (w *watcher) memberSeen(old, wc *omev1beta1.WorkloadCluster) {
	was := meta.FindStatusCondition(old.Status.Conditions, omev1beta1.WorkloadClusterReady)
	now := meta.FindStatusCondition(wc.Status.Conditions, omev1beta1.WorkloadClusterReady)
	if now == nil || (was != nil && was.Status == now.Status && was.Reason == now.Reason) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.counting {
		w.memberChanges = append(w.memberChanges, memberChange{at: time.Now(), cluster: wc.Name,
			status: string(now.Status), reason: now.Reason, maps: countTrue(w.cutOffMaps)})
	}
}

func (w *watcher) phase(at time.Time) string { return w.sched.phase(at.Sub(w.start)) }

func (w *watcher) find(at time.Time, format string, args ...any) {
	if len(w.findings) < 40 {
		w.findings = append(w.findings, finding{at: at, what: fmt.Sprintf(format, args...)})
	}
}

func (w *watcher) mapSeen(old, tm *omev1beta1.TrafficMap) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	svc := tm.Name
	w.maps[svc] = tm
	w.cutOffMaps[svc] = false
	for _, e := range tm.Spec.Entries {
		if e.Cluster == cutOff {
			w.cutOffMaps[svc] = true
		}
	}
	if n := countTrue(w.cutOffMaps); w.counting && n < w.cutOffMin.n {
		w.cutOffMin.n, w.cutOffMin.at = n, now
	}
	w.follow.mapSeen(svc, mapWeights(tm), now)
	if !w.counting || old == nil || old.ResourceVersion == tm.ResourceVersion {
		return
	}
	w.versions++
	writers := writersOf(old.ManagedFields, tm.ManagedFields)
	w.writers.observe(svc, writers, now)
	for _, m := range writers {
		if r := replicaOf(m); r != "" {
			w.wroteAs(r, svc, now)
		}
	}
	allGated := len(tm.Spec.Entries) > 0
	for _, e := range tm.Spec.Entries {
		allGated = allGated && e.Probe != nil && e.Probe.Gated
	}
	seen := map[homeKey]bool{}
	for _, e := range tm.Spec.Entries {
		key := homeKey{svc, e.Cluster}
		seen[key] = true
		w.entrySeen(key, e, allGated, now)
	}
	for key, st := range w.entries {
		if key.service == svc && st.present && !seen[key] {
			w.entries[key] = entryState{}
		}
	}
}

// entrySeen judges one entry of a new map version.
func (w *watcher) entrySeen(key homeKey, e omev1beta1.TrafficMapEntry, allGated bool, now time.Time) {
	h := w.homes[key]
	if h == nil {
		return
	}
	prev := w.entries[key]
	gated := e.Probe != nil && e.Probe.Gated
	if gated && e.Weight > 0 && !allGated {
		w.positiveGate++
		w.find(now, "%s on %s: gated with weight %d", key.service, key.cluster, e.Weight)
	}
	st := entryState{present: true, gated: gated, record: prev.record}
	h.withTruth(func(truth *homeTruth) {
		if e.Probe == nil || e.Probe.LastProbeTime == nil {
			if !prev.present && truth.judgeFresh(now) == lost {
				w.lostFresh++
				w.find(now, "%s on %s: back in its map without its gate while its endpoint fails (%s)", key.service, key.cluster, w.phase(now))
			}
			st.record = ""
			return
		}
		record := fmt.Sprintf("%s/%t", e.Probe.LastProbeTime.UTC().Format(time.RFC3339), gated)
		if record != prev.record {
			st.record = record
			w.judged++
			v := truth.judge(e.Probe.LastProbeTime.Time, gated)
			w.verdicts[v]++
			if v != consistent && v != unanswered {
				w.find(now, "%s on %s (%s): gate %s in a record of %s (consecutiveFailures %d, %s, %s); the answers: %s", key.service, key.cluster,
					h.behaviour.name, map[verdict]string{lost: "lost", madeUp: "made up", lateLift: "lifted late", disturbed: "lost or made up after a timeout"}[v],
					e.Probe.LastProbeTime.UTC().Format(time.RFC3339), e.Probe.ConsecutiveFailures, e.Probe.Message, w.phase(now),
					truth.around(e.Probe.LastProbeTime.Time))
			}
		}
		_, hi := truth.span(time.Time{}, now)
		for _, to := range w.takeovers {
			to.gateSeen(key, gated, truth.gatedAfter(hi-1), now)
		}
		switch {
		case gated && !prev.present:
			w.reentries[key]++
		case gated && !prev.gated:
			w.onsets[key]++
			w.late(key, truth, true, now, w.onsetLate)
		case !gated && prev.gated && prev.present:
			w.lifts[key]++
			w.late(key, truth, false, now, w.liftLate)
		}
	})
	w.entries[key] = st
}

// late notes how long after the answer that changed the gate the map showed the change,
// by the phase the answer came in. Each change of the truth counts once.
func (w *watcher) late(key homeKey, truth *homeTruth, gated bool, now time.Time, into map[string][]time.Duration) {
	i := truth.lastChange(now, gated)
	if i < 0 {
		return
	}
	if w.matched[key] == nil {
		w.matched[key] = map[int]bool{}
	}
	if w.matched[key][i] {
		return
	}
	w.matched[key][i] = true
	at := truth.answers[i].at
	into[w.phase(at)] = append(into[w.phase(at)], now.Sub(at))
}

// wroteAs follows the takeovers: replica r wrote service's map.
func (w *watcher) wroteAs(r, svc string, now time.Time) {
	for _, to := range w.takeovers {
		if to.killed == r || !to.all.IsZero() || now.Before(to.at) {
			continue
		}
		if to.first.IsZero() {
			to.first, to.by = now, r
		}
		if r != to.by {
			continue
		}
		to.written[svc] = true
		if len(to.written) == w.services {
			to.all = now
		}
	}
}

// killed records a kill of the leader, for the writer check and the takeover times.
func (w *watcher) killed(replica string, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writers.killed(replica, at)
	to := &takeover{killed: replica, at: at, written: map[string]bool{}, pending: map[homeKey]bool{}}
	for key, h := range w.homes {
		if st := w.entries[key]; !st.present || st.gated {
			continue
		}
		h.withTruth(func(truth *homeTruth) {
			if _, hi := truth.span(time.Time{}, at); truth.gatedAfter(hi - 1) {
				to.pending[key] = true
			}
		})
	}
	to.gates = len(to.pending)
	if to.gates == 0 {
		to.gatesOn = at
	}
	w.takeovers = append(w.takeovers, to)
}

func (w *watcher) leaseSeen(l *coordinationv1.Lease) {
	if l.Name != leaseName || l.Spec.HolderIdentity == nil {
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if *l.Spec.HolderIdentity == w.leaseBy {
		return
	}
	w.leaseBy = *l.Spec.HolderIdentity
	for _, to := range w.takeovers {
		if to.leased.IsZero() && !now.Before(to.at) {
			to.leased = now
		}
	}
}

func (w *watcher) routeSeen(r *gatewayv1.HTTPRoute) {
	now := time.Now()
	svc := r.Labels[publish.LabelService]
	if svc == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.follow.routeSeen(svc, routeWeights(r), now)
}

// mapWeights are a map's entries as the route's backends should carry them.
func mapWeights(tm *omev1beta1.TrafficMap) string {
	out := map[string]int32{}
	for _, e := range tm.Spec.Entries {
		out[publish.BackendName(tm.Namespace, tm.Name, e.Cluster)] = e.Weight
	}
	return weights(out)
}

func routeWeights(r *gatewayv1.HTTPRoute) string {
	out := map[string]int32{}
	for _, rule := range r.Spec.Rules {
		for _, ref := range rule.BackendRefs {
			w := int32(1)
			if ref.Weight != nil {
				w = *ref.Weight
			}
			out[string(ref.Name)] = w
		}
	}
	return weights(out)
}

// allPassing says whether every map has an entry per worker, each probed Passing with a
// positive weight, and every route carries its map's weights.
func (w *watcher) allPassing() (bool, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	passing := 0
	for _, tm := range w.maps {
		ok := len(tm.Spec.Entries) == len(workers)
		for _, e := range tm.Spec.Entries {
			ok = ok && e.Probe != nil && e.Probe.Result == omev1beta1.ProbePassing && e.Weight > 0
		}
		if ok {
			passing++
		}
	}
	published := 0
	for svc, tm := range w.maps {
		if w.follow.routes[svc] == mapWeights(tm) {
			published++
		}
	}
	return passing == w.services && published == w.services,
		fmt.Sprintf("%d of %d maps with every home passing, %d routes carrying their map's weights", passing, w.services, published)
}

func countTrue(m map[string]bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}
