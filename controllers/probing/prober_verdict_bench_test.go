package probing

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
)

// BenchmarkProberFirstVerdict measures how soon the prober has a verdict for a map, from
// the Sync that hands it the map to the announcement that all of its homes have a result,
// with the chart's 10s period, against loopback servers. It prints one line:
//
//	prober first_verdict maps=… new_p50=… new_p99=… new_max=… restart_late_p50=… restart_late_p99=… restart_late_max=…
//
// new: maps never probed, which are probed at once (before this, a new home waited for its
// map's slot: up to a whole period, half of one on average). restart_late: maps restored
// from records that say their last probe was less than a period ago, as after a restart;
// each is due at lastProbeTime plus one period, and the figure is how long after that
// instant its verdict came. It ignores b.N: run it with -benchtime=1x. It asserts nothing
// about time: it reports.
func BenchmarkProberFirstVerdict(b *testing.B) {
	const (
		maps   = 200
		spread = 2 * time.Second // restored maps fall due over this long
	)
	period := benchEnvDuration(b, "OME_BENCH_PERIOD", 10*time.Second)
	fleet := startBenchFleet(b, 0)
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: benchMaxRequests, MaxResponseBytes: 65536, AllowLoopback: true})
	if err != nil {
		b.Fatal(err)
	}
	defer obs.Close()
	p := NewProber(obs, benchMaxRequests)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Start(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	var mu sync.Mutex
	verdicts := map[types.NamespacedName]time.Time{}
	go func() {
		for {
			select {
			case ev := <-p.Events():
				key := ev.Object.Service
				mu.Lock()
				if _, seen := verdicts[key]; !seen {
					verdicts[key] = time.Now()
				}
				mu.Unlock()
			case <-ctx.Done():
				return
			}
		}
	}()

	policy := testPolicy(period, min(3*time.Second, period/2))
	digest := probe.Digest(policy)
	targets := func(i int, last *metav1.Time) []ProbeTarget {
		ts := make([]ProbeTarget, benchHomesPerMap)
		for j := range ts {
			var rec *omev1beta1.TrafficMapProbe
			if last != nil {
				rec = &omev1beta1.TrafficMapProbe{PolicyDigest: digest, Result: omev1beta1.ProbePassing, Message: "HTTP 200", LastProbeTime: last}
			}
			ts[j] = ProbeTarget{Cluster: fmt.Sprintf("worker-%d", j), Endpoint: fleet.servers[(i+j)%len(fleet.servers)].URL, Persisted: rec}
		}
		return ts
	}

	// expected is when each map's verdict could come at the earliest.
	expected := map[types.NamespacedName]time.Time{}
	newKeys, restoredKeys := make([]types.NamespacedName, maps), make([]types.NamespacedName, maps)
	for i := range maps {
		key := types.NamespacedName{Namespace: "bench", Name: fmt.Sprintf("new-%d", i)}
		newKeys[i] = key
		expected[key] = time.Now()
		p.Sync(key, "", policy, digest, targets(i, nil))
	}
	for i := range maps {
		key := types.NamespacedName{Namespace: "bench", Name: fmt.Sprintf("restored-%d", i)}
		restoredKeys[i] = key
		wait := spread * time.Duration(i) / maps
		now := time.Now()
		last := metav1.NewTime(now.Add(wait - period))
		expected[key] = last.Add(period)
		p.Sync(key, "", policy, digest, targets(i, &last))
	}

	deadline := time.Now().Add(spread + period)
	for {
		mu.Lock()
		n := len(verdicts)
		mu.Unlock()
		if n == 2*maps {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d maps had a verdict within %s", n, 2*maps, spread+period)
		}
		time.Sleep(10 * time.Millisecond) // polling a figure, not waiting for a condition in a test
	}
	late := func(keys []types.NamespacedName) []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		out := make([]time.Duration, len(keys))
		for i, k := range keys {
			out[i] = max(verdicts[k].Sub(expected[k]), 0)
		}
		slices.Sort(out)
		return out
	}
	fresh, restored := late(newKeys), late(restoredKeys)
	pct := func(d []time.Duration, q float64) time.Duration { return round(d[int(q*float64(len(d)-1))]) }
	fmt.Printf("prober first_verdict maps=%d homes_per_map=%d period=%s new_p50=%s new_p99=%s new_max=%s "+
		"restart_late_p50=%s restart_late_p99=%s restart_late_max=%s\n",
		maps, benchHomesPerMap, period, pct(fresh, 0.5), pct(fresh, 0.99), pct(fresh, 1),
		pct(restored, 0.5), pct(restored, 0.99), pct(restored, 1))
}
