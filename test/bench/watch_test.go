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
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
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
	gates      map[types.NamespacedName]*gateWait
}

type gateWait struct {
	cluster string
	seen    time.Time
}

func startMapWatch(ctx context.Context, t *testing.T, cfg *rest.Config) *mapWatch {
	w := &mapWatch{latest: map[types.NamespacedName]*omev1beta1.TrafficMap{}, gates: map[types.NamespacedName]*gateWait{}}
	c, err := cache.New(cfg, cache.Options{Scheme: framework.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	inf, err := c.GetInformer(ctx, &omev1beta1.TrafficMap{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { w.observe(nil, obj.(*omev1beta1.TrafficMap)) },
		UpdateFunc: func(old, obj any) {
			w.observe(old.(*omev1beta1.TrafficMap), obj.(*omev1beta1.TrafficMap))
		},
	}); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("TrafficMap informer did not sync")
	}
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
	if g := w.gates[key]; g != nil && g.seen.IsZero() {
		for _, e := range tm.Spec.Entries {
			if e.Cluster == g.cluster && e.Weight == 0 {
				g.seen = now
			}
		}
	}
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

func (w *mapWatch) expectGate(key types.NamespacedName, cluster string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gates[key] = &gateWait{cluster: cluster}
}

func (w *mapWatch) gatedAt(key types.NamespacedName) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	if g := w.gates[key]; g != nil {
		return g.seen
	}
	return time.Time{}
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

// waitFor polls cond until it holds; state, if given, says what it found when it gives up.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool, state ...func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			found := ""
			for _, s := range state {
				found += " (" + s() + ")"
			}
			t.Fatalf("timed out after %s waiting until %s%s", timeout, what, found)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func maxOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return slices.Max(ds)
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
	gates  map[types.NamespacedName]*gateWait
}

func startRouteWatch(ctx context.Context, t *testing.T, cfg *rest.Config) *routeWatch {
	w := &routeWatch{routes: map[types.NamespacedName]*gatewayv1.HTTPRoute{}, gates: map[types.NamespacedName]*gateWait{}}
	c, err := cache.New(cfg, cache.Options{Scheme: framework.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	inf, err := c.GetInformer(ctx, &gatewayv1.HTTPRoute{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.observe(obj.(*gatewayv1.HTTPRoute)) },
		UpdateFunc: func(_, obj any) { w.observe(obj.(*gatewayv1.HTTPRoute)) },
	}); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("HTTPRoute informer did not sync")
	}
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
	g := w.gates[key]
	if g == nil || !g.seen.IsZero() || len(r.Spec.Rules) == 0 {
		return
	}
	backend := publish.BackendName(key.Namespace, key.Name, g.cluster)
	for _, ref := range r.Spec.Rules[0].BackendRefs {
		if string(ref.Name) == backend && ref.Weight != nil && *ref.Weight == 0 {
			g.seen = now
		}
	}
}

func (w *routeWatch) expectGate(key types.NamespacedName, cluster string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gates[key] = &gateWait{cluster: cluster}
}

func (w *routeWatch) gatedAt(key types.NamespacedName) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	if g := w.gates[key]; g != nil {
		return g.seen
	}
	return time.Time{}
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
