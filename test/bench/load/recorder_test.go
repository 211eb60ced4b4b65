package load

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/test/dataplane"
)

// recorder keeps, with the time each was seen, every version of the service's TrafficMap
// (each cluster's share, weight and load message) and of its HTTPRoute (each cluster's
// weight), and the answers of worker-b's model server to its probes.
type recorder struct {
	mu sync.Mutex
	// ended says which watch the API server ended, when one did: the figures after it
	// would be missing, so the waits fail saying so.
	ended  string
	maps   []mapVersion
	routes []routeVersion
	probes []probeAnswer
}

// mapVersion is one version of the map.
type mapVersion struct {
	at time.Time
	// share is each cluster's share in percent: 100 without a load record, as the weights
	// read it.
	share, weight map[string]int32
	// message is each cluster's load message, for the log.
	message map[string]string
}

type routeVersion struct {
	at     time.Time
	weight map[string]int32
}

type probeAnswer struct {
	at time.Time
	ok bool
}

// watch records every version of the service's map and route until ctx ends.
func (r *recorder) watch(ctx context.Context, env *dataplane.Env) error {
	wc, err := client.NewWithWatch(env.Fleet.ControlPlane.Config, client.Options{Scheme: envfleet.Scheme})
	if err != nil {
		return err
	}
	tms, err := wc.Watch(ctx, &omev1beta1.TrafficMapList{}, client.InNamespace(service.Namespace))
	if err != nil {
		return err
	}
	routes, err := wc.Watch(ctx, &gatewayv1.HTTPRouteList{}, client.InNamespace(service.Namespace))
	if err != nil {
		tms.Stop()
		return err
	}
	clusterOf := map[string]string{}
	for _, w := range workers {
		clusterOf[publish.BackendName(service.Namespace, service.Name, w)] = w
	}
	go func() {
		defer tms.Stop()
		defer routes.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, open := <-tms.ResultChan():
				if !open {
					r.closed("the map's")
					return
				}
				if tm, ok := ev.Object.(*omev1beta1.TrafficMap); ok && ev.Type != watch.Deleted && tm.Name == service.Name {
					r.addMap(tm)
				}
			case ev, open := <-routes.ResultChan():
				if !open {
					r.closed("the route's")
					return
				}
				if rt, ok := ev.Object.(*gatewayv1.HTTPRoute); ok && ev.Type != watch.Deleted && len(rt.Spec.Rules) > 0 {
					v := routeVersion{at: time.Now(), weight: map[string]int32{}}
					for _, ref := range rt.Spec.Rules[0].BackendRefs {
						v.weight[clusterOf[string(ref.Name)]] = ptr.Deref(ref.Weight, 1)
					}
					r.mu.Lock()
					r.routes = append(r.routes, v)
					r.mu.Unlock()
				}
			}
		}
	}()
	return nil
}

// closed records that the API server ended a watch.
func (r *recorder) closed(which string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = which + " watch ended"
}

// watchEnded says which watch the API server ended, if one did.
func (r *recorder) watchEnded() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended
}

func (r *recorder) addMap(tm *omev1beta1.TrafficMap) {
	v := mapVersion{at: time.Now(), share: map[string]int32{}, weight: map[string]int32{}, message: map[string]string{}}
	for _, e := range tm.Spec.Entries {
		v.share[e.Cluster], v.weight[e.Cluster] = 100, e.Weight
		if e.Load != nil && e.Load.SharePercent >= 1 {
			v.share[e.Cluster], v.message[e.Cluster] = e.Load.SharePercent, e.Load.Message
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.maps = append(r.maps, v)
}

// answer records worker-b's answers to probes (the model servers' Observe hook).
func (r *recorder) answer(cluster string, a modelserver.Answer) {
	if cluster != "worker-b" || a.Request.URL.Path != modelserver.ProbePath || modelserver.IsTraffic(a.Request) || modelserver.IsBackground(a.Request) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.probes = append(r.probes, probeAnswer{a.At, a.Status == 200})
}

// sharePath is cluster's share from since to until: its value at since (the last version
// before it, 100 before any), then every change in between.
func (r *recorder) sharePath(cluster string, since, until time.Time) []sharePoint {
	r.mu.Lock()
	defer r.mu.Unlock()
	path := []sharePoint{{at: since, share: 100}}
	for _, v := range r.maps {
		s, ok := v.share[cluster]
		switch {
		case !ok || v.at.After(until):
		case !v.at.After(since):
			path[0].share = s
		case s != path[len(path)-1].share:
			path = append(path, sharePoint{at: v.at, share: s})
		}
	}
	return path
}

// routeChanges counts the versions of the route from since to until whose weights differ
// from the version before.
func (r *recorder) routeChanges(since, until time.Time) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	var last map[string]int32
	for _, v := range r.routes {
		if v.at.After(since) && !v.at.After(until) && last != nil && !maps.Equal(v.weight, last) {
			n++
		}
		if !v.at.After(until) {
			last = v.weight
		}
	}
	return n
}

// weightAt is the first version of the map after since that gave cluster weight w.
func (r *recorder) weightAt(cluster string, since time.Time, w int32) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range r.maps {
		if got, ok := v.weight[cluster]; ok && v.at.After(since) && got == w {
			return v.at, true
		}
	}
	return time.Time{}, false
}

// failingProbe is worker-b's k-th failing probe answer after since.
func (r *recorder) failingProbe(since time.Time, k int) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.probes {
		if a.at.After(since) && !a.ok {
			if k--; k == 0 {
				return a.at, true
			}
		}
	}
	return time.Time{}, false
}

// lastWeight is cluster's weight in the newest map version; -1 before any.
func (r *recorder) lastWeight(cluster string) int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.maps) == 0 {
		return -1
	}
	w, ok := r.maps[len(r.maps)-1].weight[cluster]
	if !ok {
		return -1
	}
	return w
}

// shares are the newest map version's shares; nil before any.
func (r *recorder) shares() map[string]int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.maps) == 0 {
		return nil
	}
	return r.maps[len(r.maps)-1].share
}

// hasRecords says whether the newest map version has a load record for every cluster.
func (r *recorder) hasRecords() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.maps) > 0 && len(r.maps[len(r.maps)-1].message) == len(workers)
}

// summary is the newest map version, for a timeout's message.
func (r *recorder) summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.maps) == 0 {
		return "no version of the map seen " + r.ended
	}
	v := r.maps[len(r.maps)-1]
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(v.weight)) {
		parts = append(parts, fmt.Sprintf("%s weight %d share %d%% (%s)", c, v.weight[c], v.share[c], v.message[c]))
	}
	return fmt.Sprintf("the map at %s: %s %s", v.at.Format(time.StampMilli), strings.Join(parts, "; "), r.ended)
}

// log writes every map version from since on that changed a weight, a share or a load
// message, with the messages, for the run's log (OME_BENCH_DIR): what the decision said at
// each move. The versions in between changed only the status.
func (r *recorder) log(since time.Time) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	last := ""
	for _, v := range r.maps {
		if v.at.Before(since) {
			continue
		}
		var line strings.Builder
		for _, c := range workers {
			fmt.Fprintf(&line, "  %s w=%d share=%d%% %q", c, v.weight[c], v.share[c], v.message[c])
		}
		if line.String() == last {
			continue
		}
		last = line.String()
		fmt.Fprintf(&b, "%8.1fs%s\n", v.at.Sub(since).Seconds(), last)
	}
	return b.String()
}
