package probing

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
)

// BenchmarkPollsAndProbes runs the prober and the capacity poller together, without an
// API server, through one observer (64 slots) at 10,000 homes (three a map), both with a
// 10s period, against loopback keep-alive servers that answer the probe path with a model
// list and /capacity with a report. It prints one line:
//
//	capacity homes=… probes_per_s=… polls_per_s=… offered_per_s=… probe_on_time_share=… poll_on_time_share=… …
//
// on time meaning that the request started within a tenth of a period of its due time.
// It ignores b.N (run it with -benchtime=1x) and asserts nothing about time. The
// OME_BENCH_PERIOD and OME_BENCH_PERIODS variables shorten a development run.
func BenchmarkPollsAndProbes(b *testing.B) {
	period := benchEnvDuration(b, "OME_BENCH_PERIOD", 10*time.Second)
	periods := benchEnvInt(b, "OME_BENCH_PERIODS", 3)
	const homes = 10000

	var probes, polls atomic.Int64
	var servers []*httptest.Server
	for range benchServers {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/capacity") {
				polls.Add(1)
				fmt.Fprintf(w, `{"servable": 1, "observedAt": %q}`, time.Now().UTC().Format(time.RFC3339Nano))
				return
			}
			probes.Add(1)
			_, _ = io.WriteString(w, benchProbeBody)
		}))
		servers = append(servers, srv)
	}
	defer func() {
		for _, s := range servers {
			s.Close()
		}
	}()

	obs, err := observer.New(observer.Options{MaxConcurrentRequests: benchMaxRequests, MaxResponseBytes: 64 << 10, AllowLoopback: true})
	if err != nil {
		b.Fatal(err)
	}
	defer obs.Close()
	prober, poller := NewProber(obs, benchMaxRequests), NewPoller(obs, benchMaxRequests)
	probeLat := &latenessLog{samples: make([]time.Duration, homes*(periods+2))}
	pollLat := &latenessLog{samples: make([]time.Duration, homes*(periods+2))}
	prober.onStart, poller.onStart = probeLat.add, pollLat.add
	policy := testPolicy(period, time.Second)
	digest := probe.Digest(policy)
	poll := capacity.Policy{Path: "/capacity", Method: "GET", Format: capacity.FormatReport,
		Samples: 3, Quorum: 2, Period: period, Timeout: time.Second, MaxAge: 3 * period}
	pollDigest := capacity.Digest(poll)

	heapBefore := liveHeap()
	for m := range (homes + benchHomesPerMap - 1) / benchHomesPerMap {
		key := types.NamespacedName{Namespace: "bench", Name: fmt.Sprintf("svc-%05d", m)}
		var probeTargets []ProbeTarget
		var pollTargets []PollTarget
		for c := range benchHomesPerMap {
			i := m*benchHomesPerMap + c
			if i >= homes {
				break
			}
			endpoint := fmt.Sprintf("%s/%s/worker-%d", servers[i%len(servers)].URL, key.Name, c)
			probeTargets = append(probeTargets, ProbeTarget{Cluster: fmt.Sprintf("worker-%d", c), Endpoint: endpoint})
			pollTargets = append(pollTargets, PollTarget{Cluster: fmt.Sprintf("worker-%d", c), Endpoint: endpoint})
		}
		prober.Sync(key, "", policy, digest, probeTargets)
		poller.Sync(key, poll, pollDigest, pollTargets)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { _ = prober.Start(ctx); done <- struct{}{} }()
	go func() { _ = poller.Start(ctx); done <- struct{}{} }()
	go discardAll(ctx, prober.Events())
	go discardAll(ctx, poller.Events())
	defer func() { cancel(); <-done; <-done }()

	time.Sleep(period) // warm-up: first requests and connections

	probes0, polls0 := probes.Load(), polls.Load()
	cpu0, t0 := cpuTime(b), time.Now()
	probeLat.record(true)
	pollLat.record(true)
	time.Sleep(time.Duration(periods) * period)
	probeLat.record(false)
	pollLat.record(false)
	elapsed, cpu := time.Since(t0), cpuTime(b)-cpu0
	nProbes, nPolls := probes.Load()-probes0, polls.Load()-polls0
	heapRunning := liveHeap()

	onTime := func(l *latenessLog) (share float64, p99 time.Duration) {
		l.mu.Lock()
		defer l.mu.Unlock()
		s := slices.Clone(l.samples[:l.n])
		slices.Sort(s)
		ok := 0
		for _, d := range s {
			if d <= period/10 {
				ok++
			}
		}
		if len(s) == 0 {
			return 0, 0
		}
		return float64(ok) / float64(len(s)), s[min(int(0.99*float64(len(s))), len(s)-1)]
	}
	probeShare, probeP99 := onTime(probeLat)
	pollShare, pollP99 := onTime(pollLat)
	requests := nProbes + nPolls
	fmt.Printf("capacity homes=%d probes_per_s=%.1f polls_per_s=%.1f offered_per_s=%.1f probe_on_time_share=%.4f poll_on_time_share=%.4f "+
		"p99_probe_lateness=%s p99_poll_lateness=%s cpu_cores=%.3f cpu_us_per_request=%.1f cpu_us_per_home_per_period=%.1f "+
		"bytes_per_home=%d goroutines=%d window=%s\n",
		homes, float64(nProbes)/elapsed.Seconds(), float64(nPolls)/elapsed.Seconds(), float64(homes)/period.Seconds(),
		probeShare, pollShare, round(probeP99), round(pollP99), cpu.Seconds()/elapsed.Seconds(),
		us(cpu/time.Duration(max(requests, 1))), us(cpu)/float64(homes)/float64(periods),
		(int64(heapRunning)-int64(heapBefore))/homes, runtime.NumGoroutine(), elapsed.Round(time.Millisecond))
	b.ReportMetric(probeShare, "probe_on_time_share")
	b.ReportMetric(pollShare, "poll_on_time_share")
}

// discardAll empties ch until ctx ends, so that a benchmark need not read its events.
func discardAll[T any](ctx context.Context, ch <-chan T) {
	for {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}
