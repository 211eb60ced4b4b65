package routing

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
)

// BenchmarkProberFairness measures how much a greedy service, every one of whose homes
// hangs for its whole timeout, delays a normal service's probes when both share the
// chart's 16 slots: the gaps between one normal home's probes, against its period. With a
// fair share the normal service keeps its schedule; without one it would wait a greedy
// timeout or more, round after round.
func BenchmarkProberFairness(b *testing.B) {
	const (
		slots         = 16
		greedyHomes   = 32
		greedyTimeout = 2 * time.Second
		normalPeriod  = 500 * time.Millisecond
	)
	run := benchEnvDuration(b, "OME_BENCH_FAIRNESS_RUN", 12*time.Second)

	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hanging.Close()
	defer close(release)
	var mu sync.Mutex
	arrivals := map[string][]time.Time{}
	normal := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals[r.URL.Path] = append(arrivals[r.URL.Path], time.Now())
		mu.Unlock()
	}))
	defer normal.Close()

	obs, err := observer.New(observer.Options{MaxConcurrentRequests: slots, MaxResponseBytes: 1024, AllowLoopback: true})
	if err != nil {
		b.Fatal(err)
	}
	defer obs.Close()
	p, stop := runProber(b, obs, slots)

	greedyPolicy := testPolicy(greedyTimeout+500*time.Millisecond, greedyTimeout)
	var greedy []ProbeTarget
	for i := range greedyHomes {
		greedy = append(greedy, ProbeTarget{Cluster: fmt.Sprintf("g-%02d", i), Endpoint: hanging.URL})
	}
	greedyKey := types.NamespacedName{Namespace: "bench", Name: "greedy"}
	p.Sync(greedyKey, "", greedyPolicy, probe.Digest(greedyPolicy), greedy)

	normalPolicy := testPolicy(normalPeriod, normalPeriod/2)
	normalPolicy.Path = "/"
	var targets []ProbeTarget
	for i := range 3 {
		targets = append(targets, ProbeTarget{Cluster: fmt.Sprintf("n-%d", i), Endpoint: normal.URL + fmt.Sprintf("/n-%d", i)})
	}
	p.Sync(testKey, "", normalPolicy, probe.Digest(normalPolicy), targets)

	b.ResetTimer()
	time.Sleep(run) // the run's length; the figures come from what the servers saw meanwhile
	b.StopTimer()
	stop()

	mu.Lock()
	defer mu.Unlock()
	var gaps []time.Duration
	probes := 0
	for _, times := range arrivals {
		probes += len(times)
		for i := 1; i < len(times); i++ {
			gaps = append(gaps, times[i].Sub(times[i-1]))
		}
	}
	if len(gaps) == 0 {
		b.Fatalf("the normal service was probed %d times in %s", probes, run)
	}
	slices.Sort(gaps)
	fmt.Printf("prober fairness slots=%d greedy_homes=%d greedy_timeout_s=%.1f normal_homes=%d normal_period_s=%.1f run_s=%.0f "+
		"normal_probes=%d normal_expected=%d normal_gap_p50_s=%.3f normal_gap_max_s=%.3f\n",
		slots, greedyHomes, greedyTimeout.Seconds(), len(targets), normalPeriod.Seconds(), run.Seconds(),
		probes, int(run/normalPeriod)*len(targets), gaps[len(gaps)/2].Seconds(), gaps[len(gaps)-1].Seconds())
}
