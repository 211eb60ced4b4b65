package probing

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

// BenchmarkProberFairness measures how much services whose every probe hangs for its
// whole timeout delay a normal service's probes when all share the chart's 16 slots: the
// gaps between one normal home's probes, against its period. greedy_service is one
// service with 32 hanging homes beside a normal service;
// hanging_namespace is 200 services of one namespace, each with a hanging home and a
// timeout just under its period, beside a service in another namespace. With fair shares
// the normal service keeps its schedule; without them it would wait a hanging timeout or
// more, round after round.
func BenchmarkProberFairness(b *testing.B) {
	b.Run("greedy_service", benchGreedyService)
	b.Run("hanging_namespace", benchHangingNamespace)
}

// fairnessBench is a prober on the chart's 16 slots with a server that never answers and
// one that answers at once, noting when each path was asked.
type fairnessBench struct {
	p        *Prober
	stop     func()
	hanging  string
	normal   string
	mu       sync.Mutex
	arrivals map[string][]time.Time
}

const fairnessSlots = 16

func newFairnessBench(b *testing.B) *fairnessBench {
	f := &fairnessBench{arrivals: map[string][]time.Time{}}
	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	b.Cleanup(hanging.Close)
	b.Cleanup(func() { close(release) })
	normal := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.arrivals[r.URL.Path] = append(f.arrivals[r.URL.Path], time.Now())
		f.mu.Unlock()
	}))
	b.Cleanup(normal.Close)
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: fairnessSlots, MaxResponseBytes: 1024, AllowLoopback: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(obs.Close)
	f.p, f.stop = runProber(b, obs, fairnessSlots)
	f.hanging, f.normal = hanging.URL, normal.URL
	return f
}

// syncNormal has the prober probe a normal service of three homes at key.
func (f *fairnessBench) syncNormal(key types.NamespacedName, period time.Duration) []ProbeTarget {
	policy := testPolicy(period, period/2)
	policy.Path = "/"
	var targets []ProbeTarget
	for i := range 3 {
		targets = append(targets, ProbeTarget{Cluster: fmt.Sprintf("n-%d", i), Endpoint: f.normal + fmt.Sprintf("/n-%d", i)})
	}
	f.p.Sync(key, "", policy, probe.Digest(policy), targets)
	return targets
}

// run lets the prober run for run, then returns how many probes the normal service got
// and the sorted gaps between one home's probes.
func (f *fairnessBench) run(b *testing.B, run time.Duration) (int, []time.Duration) {
	b.ResetTimer()
	time.Sleep(run) // the run's length; the figures come from what the servers saw meanwhile
	b.StopTimer()
	f.stop()
	f.mu.Lock()
	defer f.mu.Unlock()
	var gaps []time.Duration
	probes := 0
	for _, times := range f.arrivals {
		probes += len(times)
		for i := 1; i < len(times); i++ {
			gaps = append(gaps, times[i].Sub(times[i-1]))
		}
	}
	if len(gaps) == 0 {
		b.Fatalf("the normal service was probed %d times in %s", probes, run)
	}
	slices.Sort(gaps)
	return probes, gaps
}

func benchGreedyService(b *testing.B) {
	const (
		greedyHomes   = 32
		greedyTimeout = 2 * time.Second
		normalPeriod  = 500 * time.Millisecond
	)
	run := benchEnvDuration(b, "OME_BENCH_FAIRNESS_RUN", 12*time.Second)
	f := newFairnessBench(b)
	greedyPolicy := testPolicy(greedyTimeout+500*time.Millisecond, greedyTimeout)
	var greedy []ProbeTarget
	for i := range greedyHomes {
		greedy = append(greedy, ProbeTarget{Cluster: fmt.Sprintf("g-%02d", i), Endpoint: f.hanging})
	}
	greedyKey := types.NamespacedName{Namespace: "bench", Name: "greedy"}
	f.p.Sync(greedyKey, "", greedyPolicy, probe.Digest(greedyPolicy), greedy)
	targets := f.syncNormal(testKey, normalPeriod)

	probes, gaps := f.run(b, run)
	fmt.Printf("prober fairness slots=%d greedy_homes=%d greedy_timeout_s=%.1f normal_homes=%d normal_period_s=%.1f run_s=%.0f "+
		"normal_probes=%d normal_expected=%d normal_gap_p50_s=%.3f normal_gap_max_s=%.3f\n",
		fairnessSlots, greedyHomes, greedyTimeout.Seconds(), len(targets), normalPeriod.Seconds(), run.Seconds(),
		probes, int(run/normalPeriod)*len(targets), gaps[len(gaps)/2].Seconds(), gaps[len(gaps)-1].Seconds())
}

func benchHangingNamespace(b *testing.B) {
	const (
		hangingServices = 200
		period          = time.Second
		hangingTimeout  = period - 50*time.Millisecond // just under the period
	)
	run := benchEnvDuration(b, "OME_BENCH_FAIRNESS_RUN", 12*time.Second)
	f := newFairnessBench(b)
	hangPolicy := testPolicy(period, hangingTimeout)
	for i := range hangingServices {
		key := types.NamespacedName{Namespace: "hostile", Name: fmt.Sprintf("hang-%03d", i)}
		f.p.Sync(key, "", hangPolicy, probe.Digest(hangPolicy), []ProbeTarget{{Cluster: "a", Endpoint: f.hanging}})
	}
	targets := f.syncNormal(types.NamespacedName{Namespace: "victim", Name: "svc"}, period)

	probes, gaps := f.run(b, run)
	rounds := float64(run / period)
	fmt.Printf("prober fairness case=hanging_namespace slots=%d hanging_services=%d hanging_timeout_s=%.2f victim_homes=%d period_s=%.1f run_s=%.0f "+
		"victim_probes=%d victim_expected=%d victim_probes_per_home_round=%.2f victim_gap_p50_periods=%.2f victim_gap_max_periods=%.2f\n",
		fairnessSlots, hangingServices, hangingTimeout.Seconds(), len(targets), period.Seconds(), run.Seconds(),
		probes, int(rounds)*len(targets), float64(probes)/float64(len(targets))/rounds,
		float64(gaps[len(gaps)/2])/float64(period), float64(gaps[len(gaps)-1])/float64(period))
}
