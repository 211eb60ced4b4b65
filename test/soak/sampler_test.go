package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/test/framework/stats"
)

// scrapeEvery is how often the sampler reads each replica's metrics: often enough to see
// the routing queue drain and which replica leads.
const scrapeEvery = 5 * time.Second

// minute is one row of the per-minute table.
type minute struct {
	n      int
	phase  string
	leader string
	// by replica: the last scrape of the minute.
	last map[string]sample
	// writesPerMapRound are the map versions the watcher saw, per map and period.
	writesPerMapRound float64
	// requestsPerMapRound are the replicas' requests to the control plane, by method.
	requestsPerMapRound map[string]float64
	reconcileErrors     float64
	probeErrors         float64
	queueMax            float64
	objects             map[string]int
	// mapBytes is a TrafficMap's mean size as JSON; mapBytesBare without managedFields.
	mapBytes, mapBytesBare int
	// load is the machine's one-minute load average: the soak shares its cores.
	load string
}

// sampler scrapes the replicas every few seconds and makes a row of the table every
// minute, printed as it goes.
type sampler struct {
	replicas []*replica
	cpHost   string
	fleet    *envfleet.Fleet
	watch    *watcher
	services int

	mu       sync.Mutex
	scrapes  []sample
	prev     map[string]sample // the last scrape of each replica, for counter deltas
	requests map[string]float64
	errors   float64
	// probeErrors are the probes that failed in transport this minute; the total is the
	// run's.
	probeErrors, probeErrorsTotal float64
	rows                          []minute
	versions                      int64
}

func (s *sampler) run(ctx context.Context, start time.Time, print func(string)) {
	tick := time.NewTicker(scrapeEvery)
	defer tick.Stop()
	next := start.Add(time.Minute)
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			s.scrapeAll(ctx)
			if !now.Before(next) {
				row := s.minute(ctx, int(next.Sub(start)/time.Minute), s.watch.sched.phase(next.Sub(start)-time.Second))
				print(row.String(s.replicas))
				next = next.Add(time.Minute)
			}
		}
	}
}

func (s *sampler) scrapeAll(ctx context.Context) {
	for _, r := range s.replicas {
		sm, err := r.scrape(ctx, s.cpHost)
		if err != nil {
			continue // killed, starting, or too busy to answer in time: the next scrape counts
		}
		s.mu.Lock()
		s.scrapes = append(s.scrapes, sm)
		if s.prev == nil {
			s.prev, s.requests = map[string]sample{}, map[string]float64{}
		}
		p, ok := s.prev[r.name]
		if !ok || p.incarnation != sm.incarnation {
			p = sample{requests: map[string]float64{}}
		}
		for m, v := range sm.requests {
			s.requests[m] += v - p.requests[m]
		}
		s.errors += sm.reconcileErrors - p.reconcileErrors
		s.probeErrors += sm.probeErrors - p.probeErrors
		s.probeErrorsTotal += sm.probeErrors - p.probeErrors
		s.prev[r.name] = sm
		s.mu.Unlock()
	}
}

// leader is the replica that its latest scrape says leads, if any did within 15 s.
func (s *sampler) leader() *replica {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.scrapes) - 1; i >= 0 && time.Since(s.scrapes[i].at) < 15*time.Second; i-- {
		if s.scrapes[i].leader {
			for _, r := range s.replicas {
				if r.name == s.scrapes[i].replica && r.pid() != 0 {
					return r
				}
			}
		}
	}
	return nil
}

func (s *sampler) minute(ctx context.Context, n int, phase string) minute {
	row := minute{n: n, phase: phase, last: map[string]sample{}, requestsPerMapRound: map[string]float64{}}
	rounds := float64(s.services) * time.Minute.Seconds() / period.Seconds()
	s.watch.mu.Lock()
	versions := s.watch.versions
	bytes, bare := 0, 0
	for _, tm := range s.watch.maps {
		if b, err := json.Marshal(tm); err == nil {
			bytes += len(b)
		}
		// Without managedFields, which grow here as each incarnation writes under a field
		// manager of its own (an installation's replicas share one).
		stripped := tm.DeepCopy()
		stripped.ManagedFields = nil
		if b, err := json.Marshal(stripped); err == nil {
			bare += len(b)
		}
	}
	if len(s.watch.maps) > 0 {
		row.mapBytes, row.mapBytesBare = bytes/len(s.watch.maps), bare/len(s.watch.maps)
	}
	s.watch.mu.Unlock()
	s.mu.Lock()
	row.writesPerMapRound = float64(versions-s.versions) / rounds
	s.versions = versions
	from := time.Now().Add(-time.Minute)
	for _, sm := range s.scrapes {
		if sm.at.Before(from) {
			continue
		}
		row.last[sm.replica] = sm
		if sm.leader {
			row.leader = sm.replica
			row.queueMax = max(row.queueMax, sm.queueDepth)
		}
	}
	for m, v := range s.requests {
		row.requestsPerMapRound[strings.ToLower(m)] = v / rounds
	}
	s.requests, row.reconcileErrors, s.errors = map[string]float64{}, s.errors, 0
	row.probeErrors, s.probeErrors = s.probeErrors, 0
	s.mu.Unlock()
	row.objects = countObjects(ctx, s.fleet)
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		row.load, _, _ = strings.Cut(string(raw), " ")
	}
	s.mu.Lock()
	s.rows = append(s.rows, row)
	s.mu.Unlock()
	return row
}

// String is the row as the run prints it.
func (m minute) String(replicas []*replica) string {
	var rss, gor, fds []string
	for _, r := range replicas {
		sm, ok := m.last[r.name]
		if !ok {
			rss, gor, fds = append(rss, r.name+":-"), append(gor, r.name+":-"), append(fds, r.name+":-")
			continue
		}
		rss = append(rss, fmt.Sprintf("%s:%.1f", r.name, sm.rssBytes/(1<<20)))
		gor = append(gor, fmt.Sprintf("%s:%.0f", r.name, sm.goroutines))
		fds = append(fds, fmt.Sprintf("%s:%.0f", r.name, sm.fds))
	}
	var req []string
	total := 0.0
	for _, k := range slices.Sorted(maps.Keys(m.requestsPerMapRound)) {
		req = append(req, fmt.Sprintf("%s:%.2f", k, m.requestsPerMapRound[k]))
		total += m.requestsPerMapRound[k]
	}
	var objs []string
	for _, k := range slices.Sorted(maps.Keys(m.objects)) {
		objs = append(objs, fmt.Sprintf("%s:%d", k, m.objects[k]))
	}
	return fmt.Sprintf("soak minute=%d phase=%s load=%s leader=%s rss_mib=%s goroutines=%s open_fds=%s writes_per_map_per_round=%.2f "+
		"requests_per_map_per_round=%.2f by_method=%s reconcile_errors=%.0f probe_transport_errors=%.0f routing_queue_max=%.0f map_bytes=%d map_bytes_without_managed_fields=%d objects=%s",
		m.n, m.phase, or(m.load, "-"), or(m.leader, "none"), strings.Join(rss, ","), strings.Join(gor, ","), strings.Join(fds, ","), m.writesPerMapRound,
		total, or(strings.Join(req, ","), "-"), m.reconcileErrors, m.probeErrors, m.queueMax, m.mapBytes, m.mapBytesBare, strings.Join(objs, ","))
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// countedKinds are what the managers' informers hold on the control plane, and the
// copies on each member, counted from the API servers each minute: what the caches
// must hold, so growth here is growth there.
var countedKinds = []struct {
	name string
	gvk  schema.GroupVersionKind
	ns   string
}{
	{"isvc", schema.GroupVersionKind{Group: "ome.io", Version: "v1beta1", Kind: "InferenceServiceList"}, ""},
	{"trafficmap", schema.GroupVersionKind{Group: "ome.io", Version: "v1beta1", Kind: "TrafficMapList"}, ""},
	{"workloadcluster", schema.GroupVersionKind{Group: "ome.io", Version: "v1beta1", Kind: "WorkloadClusterList"}, ""},
	{"httproute", schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "HTTPRouteList"}, ""},
	{"service", schema.GroupVersionKind{Version: "v1", Kind: "ServiceList"}, namespace},
	{"secret", schema.GroupVersionKind{Version: "v1", Kind: "SecretList"}, envfleet.SecretNamespace},
	{"event", schema.GroupVersionKind{Version: "v1", Kind: "EventList"}, namespace},
}

func countObjects(ctx context.Context, fleet *envfleet.Fleet) map[string]int {
	out := map[string]int{}
	count := func(c client.Client, gvk schema.GroupVersionKind, ns string) int {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk)
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			return -1
		}
		return len(list.Items)
	}
	for _, k := range countedKinds {
		out[k.name] = count(fleet.ControlPlane.Client, k.gvk, k.ns)
	}
	for _, w := range workers {
		out["copies@"+w] = count(fleet.Workers[w].Client, countedKinds[0].gvk, namespace)
	}
	return out
}

// series are the scrapes of each replica incarnation, in order: while it led, or over its
// whole life (standing by, then leading).
func (s *sampler) series(leading bool) map[string][]sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]sample{}
	for _, sm := range s.scrapes {
		if sm.leader || !leading {
			key := fmt.Sprintf("%s%d", sm.replica, sm.incarnation)
			out[key] = append(out[key], sm)
		}
	}
	return out
}

// memoryLines are the slopes of memory, goroutines and open files: per incarnation while
// it led and over its life (each after its first minute, which fills the caches and the
// prober), and over the whole run for whichever replica led each minute. No incarnation
// lives through the run (each is killed after leading), so the last line is the one that
// spans it.
func (s *sampler) memoryLines() []string {
	var lines []string
	for _, leading := range []bool{true, false} {
		lines = append(lines, s.slopeLines(leading)...)
	}
	s.mu.Lock()
	var leaders []sample
	for _, row := range s.rows {
		if sm, ok := row.last[row.leader]; ok && row.leader != "" {
			leaders = append(leaders, sm)
		}
	}
	s.mu.Unlock()
	if len(leaders) >= 2 {
		xs, rss, gor, fds := seriesOf(leaders)
		lines = append(lines, fmt.Sprintf("soak memory run=leader_each_minute minutes=%d rss_mib_min=%.1f rss_mib_max=%.1f rss_slope_mib_per_min=%.2f "+
			"goroutines_min=%.0f goroutines_max=%.0f goroutine_slope_per_min=%.2f fd_slope_per_min=%.2f",
			len(leaders), slices.Min(rss), slices.Max(rss), stats.Slope(xs, rss), slices.Min(gor), slices.Max(gor), stats.Slope(xs, gor), stats.Slope(xs, fds)))
	}
	return lines
}

// slopeLines are one line per incarnation: while it led, or over its life.
func (s *sampler) slopeLines(leading bool) []string {
	var lines []string
	series := s.series(leading)
	span := "life"
	if leading {
		span = "leading"
	}
	keys := slices.Collect(maps.Keys(series))
	sort.Strings(keys)
	for _, k := range keys {
		ss := series[k]
		var warm []sample
		for _, sm := range ss {
			if sm.at.Sub(ss[0].at) >= time.Minute {
				warm = append(warm, sm)
			}
		}
		if len(warm) < 2 {
			continue
		}
		xs, rss, gor, fds := seriesOf(warm)
		lines = append(lines, fmt.Sprintf("soak memory incarnation=%s span=%s measured=%s rss_mib_first=%.1f rss_mib_last=%.1f rss_slope_mib_per_min=%.2f "+
			"goroutines_first=%.0f goroutines_last=%.0f goroutine_slope_per_min=%.2f open_fds_last=%.0f fd_slope_per_min=%.2f",
			k, span, warm[len(warm)-1].at.Sub(warm[0].at).Round(time.Second), rss[0], rss[len(rss)-1], stats.Slope(xs, rss),
			gor[0], gor[len(gor)-1], stats.Slope(xs, gor), fds[len(fds)-1], stats.Slope(xs, fds)))
	}
	return lines
}

// seriesOf is the minutes since the first sample and the samples' RSS (MiB), goroutines
// and open files.
func seriesOf(ss []sample) (xs, rss, gor, fds []float64) {
	for _, sm := range ss {
		xs = append(xs, sm.at.Sub(ss[0].at).Minutes())
		rss = append(rss, sm.rssBytes/(1<<20))
		gor = append(gor, sm.goroutines)
		fds = append(fds, sm.fds)
	}
	return
}

// drained is when, after the slower window ended at end, the leader's routing queue was
// back to its steady depth (the 90th percentile of the steady scrapes before the first
// fault); zero if it never was.
func (s *sampler) drained(steadyFrom, steadyTo, end time.Time) (time.Duration, float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var steady []time.Duration
	for _, sm := range s.scrapes {
		if sm.leader && sm.at.After(steadyFrom) && sm.at.Before(steadyTo) {
			steady = append(steady, time.Duration(sm.queueDepth))
		}
	}
	base := float64(stats.Quantile(steady, 0.9))
	for _, sm := range s.scrapes {
		if sm.leader && sm.at.After(end) && sm.queueDepth <= max(base, 1) {
			return sm.at.Sub(end), base
		}
	}
	return 0, base
}
