package bench

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/poll"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/test/framework"
)

// mapWatch follows the TrafficMaps on the control plane with an informer of its own: it
// counts writes (every new resourceVersion, split into spec writes, which move the
// generation, and status writes) and notes when an expected home's weight reaches 0.
type mapWatch struct {
	mu                          sync.Mutex
	counting                    bool
	writes, specWrites, statusW int64
	// heartbeats are spec writes that changed nothing but lastProbeTime.
	heartbeats int64
	latest     map[types.NamespacedName]*omev1beta1.TrafficMap
	gateTimes
}

// gateTimes are the gates a watch waits to see, by service: the cluster whose weight is to
// reach 0, and when the watch saw it do so.
type gateTimes struct {
	mu    sync.Mutex
	gates map[types.NamespacedName]*gateWait
}

type gateWait struct {
	cluster string
	seen    time.Time
}

func (w *gateTimes) expectGate(key types.NamespacedName, cluster string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gates == nil {
		w.gates = map[types.NamespacedName]*gateWait{}
	}
	w.gates[key] = &gateWait{cluster: cluster}
}

func (w *gateTimes) gatedAt(key types.NamespacedName) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	if g := w.gates[key]; g != nil {
		return g.seen
	}
	return time.Time{}
}

// see notes now as the time of key's gate when one is expected and not seen yet, and
// weightZero says its cluster's weight is 0 in the version just seen.
func (w *gateTimes) see(key types.NamespacedName, now time.Time, weightZero func(cluster string) bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if g := w.gates[key]; g != nil && g.seen.IsZero() && weightZero(g.cluster) {
		g.seen = now
	}
}

func startMapWatch(ctx context.Context, t *testing.T, cfg *rest.Config) *mapWatch {
	w := &mapWatch{latest: map[types.NamespacedName]*omev1beta1.TrafficMap{}}
	framework.StartWatch(ctx, t, cfg, cache.Options{},
		framework.On(&omev1beta1.TrafficMap{}, func(tm *omev1beta1.TrafficMap) { w.observe(nil, tm) }, w.observe))
	return w
}

func (w *mapWatch) observe(old, tm *omev1beta1.TrafficMap) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	key := client.ObjectKeyFromObject(tm)
	w.latest[key] = tm
	if old != nil && old.ResourceVersion != tm.ResourceVersion && w.counting {
		w.writes++
		if old.Generation != tm.Generation {
			w.specWrites++
			if sameButProbeTimes(old.Spec.Entries, tm.Spec.Entries) {
				w.heartbeats++
			}
		} else {
			w.statusW++
		}
	}
	w.see(key, now, func(cluster string) bool {
		return slices.ContainsFunc(tm.Spec.Entries, func(e omev1beta1.TrafficMapEntry) bool { return e.Cluster == cluster && e.Weight == 0 })
	})
}

func (w *mapWatch) count(on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.counting = on
}

// reset zeroes the write counts, for the next window.
func (w *mapWatch) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes, w.specWrites, w.statusW, w.heartbeats = 0, 0, 0, 0
}

func (w *mapWatch) totals() (writes, spec, status, heartbeats int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes, w.specWrites, w.statusW, w.heartbeats
}

// sameButProbeTimes says whether two entry lists differ in nothing but lastProbeTime.
func sameButProbeTimes(a, b []omev1beta1.TrafficMapEntry) bool {
	strip := func(in []omev1beta1.TrafficMapEntry) []omev1beta1.TrafficMapEntry {
		out := make([]omev1beta1.TrafficMapEntry, len(in))
		for i := range in {
			in[i].DeepCopyInto(&out[i])
			if out[i].Probe != nil {
				out[i].Probe.LastProbeTime = nil
			}
		}
		return out
	}
	return equality.Semantic.DeepEqual(strip(a), strip(b))
}

// allPassing says whether every service's map has an entry per worker, each probed
// Passing with a positive weight, or on standby in a failover tier (benchRouting).
func (w *mapWatch) allPassing() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.latest) < services {
		return false
	}
	for _, tm := range w.latest {
		if len(tm.Spec.Entries) != len(workers) {
			return false
		}
		for _, e := range tm.Spec.Entries {
			if e.Probe == nil || e.Probe.Result != omev1beta1.ProbePassing || (e.Weight == 0 && e.WeightReason != omev1beta1.WeightStandby) {
				return false
			}
		}
	}
	return true
}

// waitFor polls cond every 20ms until it holds; state, if given, says what it found when it
// gives up.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool, state ...func() string) {
	t.Helper()
	waitEvery(context.Background(), t, what, timeout, 20*time.Millisecond, cond, state...)
}

// waitEvery polls cond every interval until it holds, or fails the test with what state says.
func waitEvery(ctx context.Context, t testing.TB, what string, timeout, interval time.Duration, cond func() bool, state ...func() string) {
	t.Helper()
	if err := poll.Until(ctx, interval, timeout, poll.Holds(cond, state...)); err != nil {
		t.Fatalf("waiting until %s: %v", what, err)
	}
}

func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }

// envCount is framework.EnvInt that also takes 0.
func envCount(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "0" {
		return 0
	}
	return framework.EnvInt(t, name, def)
}

// routeWatch follows the HTTPRoutes on the control plane with an informer of its own and
// notes when an expected backend's weight reaches 0, and how many of the maps have a
// route that names every worker.
type routeWatch struct {
	mu     sync.Mutex
	routes map[types.NamespacedName]*gatewayv1.HTTPRoute
	gateTimes
}

func startRouteWatch(ctx context.Context, t *testing.T, cfg *rest.Config) *routeWatch {
	w := &routeWatch{routes: map[types.NamespacedName]*gatewayv1.HTTPRoute{}}
	framework.StartWatch(ctx, t, cfg, cache.Options{},
		framework.On(&gatewayv1.HTTPRoute{}, w.observe, func(_, r *gatewayv1.HTTPRoute) { w.observe(r) }))
	return w
}

// serviceOf is the service a published route stands for, from its labels.
func serviceOf(r *gatewayv1.HTTPRoute) types.NamespacedName {
	return types.NamespacedName{Namespace: r.Labels[publish.LabelServiceNamespace], Name: r.Labels[publish.LabelService]}
}

func (w *routeWatch) observe(r *gatewayv1.HTTPRoute) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	key := serviceOf(r)
	w.routes[key] = r
	if len(r.Spec.Rules) == 0 {
		return
	}
	w.see(key, now, func(cluster string) bool {
		backend := publish.BackendName(key.Namespace, key.Name, cluster)
		return slices.ContainsFunc(r.Spec.Rules[0].BackendRefs, func(ref gatewayv1.HTTPBackendRef) bool {
			return string(ref.Name) == backend && ref.Weight != nil && *ref.Weight == 0
		})
	})
}

// allPublished says whether every service has a route with a backend per worker.
func (w *routeWatch) allPublished() bool { return w.complete() == services }

// complete is how many routes have a backend per worker.
func (w *routeWatch) complete() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, r := range w.routes {
		if len(r.Spec.Rules) > 0 && len(r.Spec.Rules[0].BackendRefs) == len(workers) {
			n++
		}
	}
	return n
}

// published says whether every map is published. (At fleet size some maps are always a
// generation ahead of their publication, for the moment between the routing reconciler's
// write and the publisher's.)
func (w *mapWatch) published() bool { return w.publishedCount() == services }

func (w *mapWatch) publishedCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, tm := range w.latest {
		if tm.Status.Published {
			n++
		}
	}
	return n
}

// unpublished describes a few maps that are not published: their name, finalizers and
// Published condition.
func (w *mapWatch) unpublished() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for key, tm := range w.latest {
		if tm.Status.Published || len(out) == 3 {
			continue
		}
		c := meta.FindStatusCondition(tm.Status.Conditions, omev1beta1.TrafficMapPublished)
		out = append(out, fmt.Sprintf("%s generation %d finalizers %v Published %+v", key, tm.Generation, tm.Finalizers, c))
	}
	return strings.Join(out, "; ")
}
