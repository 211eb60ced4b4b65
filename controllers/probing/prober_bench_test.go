package probing

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
)

// BenchmarkProberScale runs the prober, without an API server, against a few loopback
// keep-alive servers with 1,000, 10,000 and 50,000 homes (three homes a map, as with three
// workload clusters), a 10s period and 64 observer slots. Each size is synced, left to
// run one period to warm up (first probes, connections), then measured over a few
// periods. It ignores b.N: run it with -benchtime=1x. Each size prints one line:
//
//	prober homes=… probes_per_s=… offered_per_s=… on_time_share=… p99_lateness=… …
//
// each after two floors measured against the same servers in the same process just
// before: "prober floor", a bare net/http client at saturation (16 workers back to back),
// read as cpu_ratio_to_bare; and "prober paced_bare", a bare client sending the prober's
// very requests at its pace over a window as long as the prober's (see
// measurePacedBare), read as cpu_ratio_to_paced_bare. A last run with 50,000 homes is
// past capacity on purpose, and has no paced floor.
//
// OME_BENCH_PERIOD (default 10s), OME_BENCH_PERIODS (measured periods, default 3) and
// OME_BENCH_FLOOR (default 2s) shorten a development run; the figures are only meaningful
// with the defaults. OME_BENCH_PROFILE=/some/prefix writes CPU and allocation profiles of
// each measured window (see startWindowProfile).
// It asserts nothing about time: it reports.
func BenchmarkProberScale(b *testing.B) {
	period := benchEnvDuration(b, "OME_BENCH_PERIOD", 10*time.Second)
	periods := benchEnvInt(b, "OME_BENCH_PERIODS", 3)
	for _, homes := range []int{1000, 10000, 50000} {
		b.Run(fmt.Sprintf("homes=%d", homes), func(b *testing.B) {
			runProberScale(b, homes, 0, period, periods)
		})
	}
	// Past capacity on purpose: every answer takes 20ms, so 64 slots serve at most 3,200
	// probes/s against 5,000 offered. This shows how the prober behaves when it cannot keep
	// up (lateness, skipped slots, goroutines and memory), whatever the machine.
	b.Run("homes=50000/overload", func(b *testing.B) {
		runProberScale(b, 50000, 20*time.Millisecond, period, periods)
	})
}

const (
	benchServers      = 8
	benchHomesPerMap  = 3
	benchMaxRequests  = 64
	benchFloorWorkers = 16
	// benchPacedWarmup runs the paced floor before its window opens (connections).
	benchPacedWarmup = 2 * time.Second
	benchProbeBody   = `{"object":"list","data":[{"id":"llama","object":"model"}]}`
)

// benchFleet is a handful of loopback keep-alive servers that answer 200 and count.
type benchFleet struct {
	servers  []*httptest.Server
	requests atomic.Int64
	// conns counts the connections accepted: with keep-alive working it stays near the
	// number of observer slots.
	conns atomic.Int64
}

// startBenchFleet starts the servers; each answer waits delay first.
func startBenchFleet(b *testing.B, delay time.Duration) *benchFleet {
	f := &benchFleet{}
	for range benchServers {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			f.requests.Add(1)
			if delay > 0 {
				time.Sleep(delay)
			}
			_, _ = io.WriteString(w, benchProbeBody)
		}))
		srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				f.conns.Add(1)
			}
		}
		srv.Start()
		f.servers = append(f.servers, srv)
	}
	b.Cleanup(func() {
		for _, s := range f.servers {
			s.Close()
		}
	})
	return f
}

// latenessLog keeps the lateness of every probe that started while it is on.
type latenessLog struct {
	mu      sync.Mutex
	on      bool
	n       int
	samples []time.Duration
}

func (l *latenessLog) add(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.on && l.n < len(l.samples) {
		l.samples[l.n] = d
		l.n++
	}
}

func (l *latenessLog) record(on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.on = on
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// liveHeap is the heap in use by live objects right after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// benchFloor is what a bare net/http client reaches against the fleet: benchFloorWorkers
// goroutines sending GETs in a loop for d, round robin over the servers.
type benchFloor struct {
	reqPerSec    float64
	cpuPerReq    time.Duration
	requestCount int64
}

func measureFloor(b *testing.B, f *benchFleet, d time.Duration) benchFloor {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = benchFloorWorkers
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	var count atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cpu0, t0 := cpuTime(b), time.Now()
	var wg sync.WaitGroup
	for w := range benchFloorWorkers {
		wg.Go(func() {
			for i := w; ctx.Err() == nil; i++ {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.servers[i%len(f.servers)].URL+"/v1/models", nil)
				resp, err := client.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				count.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed, cpu := time.Since(t0), cpuTime(b)-cpu0
	n := count.Load()
	return benchFloor{reqPerSec: float64(n) / elapsed.Seconds(), cpuPerReq: cpu / time.Duration(max(n, 1)), requestCount: n}
}

func runProberScale(b *testing.B, homes int, delay, period time.Duration, periods int) {
	fleet := startBenchFleet(b, 0)
	floor := measureFloor(b, fleet, benchEnvDuration(b, "OME_BENCH_FLOOR", 2*time.Second))
	label := fmt.Sprintf("homes=%d", homes)
	if delay > 0 {
		label += fmt.Sprintf(" overload_server_delay=%s", delay)
		fleet = startBenchFleet(b, delay)
	}
	fmt.Printf("prober floor %s bare_req_per_s=%.0f bare_cpu_us_per_req=%.1f workers=%d\n",
		label, floor.reqPerSec, us(floor.cpuPerReq), benchFloorWorkers)

	policy := testPolicy(period, time.Second)
	digest := probe.Digest(policy)
	maps := benchMaps(fleet, homes)
	window := time.Duration(periods) * period
	var paced benchFloor
	if delay == 0 {
		// Past capacity, a paced client would be as late as the prober: no floor there.
		paced = measurePacedBare(b, maps, policy.Path, period, benchPacedWarmup, window, "paced-"+label)
		fmt.Printf("prober paced_bare %s req_per_s=%.1f cpu_us_per_req=%.1f concurrency=%d window=%s\n",
			label, paced.reqPerSec, us(paced.cpuPerReq), benchMaxRequests, window)
	}

	// With the observer's metrics, as the manager runs it.
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: benchMaxRequests, MaxResponseBytes: 64 << 10, AllowLoopback: true,
		Metrics: observer.NewMetrics()})
	if err != nil {
		b.Fatal(err)
	}
	defer obs.Close()
	p := NewProber(obs, benchMaxRequests)
	lat := &latenessLog{samples: make([]time.Duration, homes*(periods+2))}
	p.onStart = lat.add
	heapBefore, goroutinesBefore := liveHeap(), runtime.NumGoroutine()

	// Sync every map, as the routing reconciler would on its first pass.
	syncStart := time.Now()
	for _, m := range maps {
		p.Sync(m.key, "", policy, digest, m.targets)
	}
	syncTime := time.Since(syncStart)
	heapSynced := liveHeap()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Start(ctx); close(done) }()
	// Drain and count the notifications, as the routing controller's channel source would.
	var notified atomic.Int64
	go func() {
		for {
			select {
			case <-p.Events():
				notified.Add(1)
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() { cancel(); <-done }()

	time.Sleep(period) // warm-up: every home's first probe, and the connections

	// Sample the goroutines while measuring.
	var gMax, gSum, gSamples, peakMem atomic.Int64
	sampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		// Every 50ms, and the memory every 500ms: sampling costs CPU in the process it
		// measures (a wakeup each time, and ReadMemStats stops the world). At 1,000 homes
		// and a 10ms tick its own goroutine was about 4% of the CPU profile of the window.
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-sampling:
				return
			case <-tick.C:
				if i%10 == 0 {
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					if m := int64(ms.HeapInuse + ms.StackInuse); m > peakMem.Load() {
						peakMem.Store(m)
					}
				}
				n := int64(runtime.NumGoroutine())
				gSum.Add(n)
				gSamples.Add(1)
				if n > gMax.Load() {
					gMax.Store(n)
				}
			}
		}
	}()

	req0, notified0, conns0 := fleet.requests.Load(), notified.Load(), fleet.conns.Load()
	stopProfile := startWindowProfile(b, "prober-"+label)
	cpu0, t0 := cpuTime(b), time.Now()
	lat.record(true)
	time.Sleep(window)
	lat.record(false)
	elapsed, cpu := time.Since(t0), cpuTime(b)-cpu0
	stopProfile()
	requests, notifications, conns := fleet.requests.Load()-req0, notified.Load()-notified0, fleet.conns.Load()-conns0
	close(sampling)
	<-sampled
	heapRunning := liveHeap()

	lat.mu.Lock()
	n := lat.n
	lat.mu.Unlock()
	samples := lat.samples[:n]
	slices.Sort(samples)
	onTime := 0
	for _, d := range samples {
		if d <= period/10 {
			onTime++
		}
	}
	pct := func(q float64) time.Duration {
		if len(samples) == 0 {
			return 0
		}
		return samples[min(int(q*float64(len(samples))), len(samples)-1)]
	}
	probesPerSec := float64(n) / elapsed.Seconds()
	offered := float64(homes) / period.Seconds()
	cpuPerProbe := cpu / time.Duration(max(n, 1))
	perHome := func(after uint64) int64 { return (int64(after) - int64(heapBefore)) / int64(homes) }
	gMean := float64(gSum.Load()) / float64(max(gSamples.Load(), 1))

	fmt.Printf("prober %s probes_per_s=%.1f offered_per_s=%.1f requests_per_s=%.1f on_time_share=%.4f "+
		"p50_lateness=%s p99_lateness=%s max_lateness=%s cpu_cores=%.3f cpu_us_per_probe=%.1f cpu_ratio_to_bare=%.2f%s "+
		"bytes_per_home_synced=%d bytes_per_home_running=%d goroutines_idle=%d goroutines_mean=%.0f goroutines_max=%d peak_heap_and_stacks_mib=%.1f "+
		"notifications_per_probe=%.2f new_conns=%d sync_us_per_home=%.1f window=%s\n",
		label, probesPerSec, offered, float64(requests)/elapsed.Seconds(), float64(onTime)/float64(max(n, 1)),
		round(pct(0.50)), round(pct(0.99)), round(pct(1)), cpu.Seconds()/elapsed.Seconds(), us(cpuPerProbe),
		float64(cpuPerProbe)/float64(max(floor.cpuPerReq, 1)), pacedRatio(cpuPerProbe, paced),
		perHome(heapSynced), perHome(heapRunning), goroutinesBefore, gMean, gMax.Load(), float64(peakMem.Load())/(1<<20),
		float64(notifications)/float64(max(n, 1)), conns, us(syncTime)/float64(homes), elapsed.Round(time.Millisecond))

	b.ReportMetric(probesPerSec, "probes/s")
	b.ReportMetric(offered, "offered/s")
	b.ReportMetric(float64(onTime)/float64(max(n, 1)), "on_time_share")
	b.ReportMetric(float64(pct(0.99))/1e6, "p99_lateness_ms")
	b.ReportMetric(cpu.Seconds()/elapsed.Seconds(), "cpu_cores")
	b.ReportMetric(float64(perHome(heapRunning)), "bytes/home")
	b.ReportMetric(float64(gMax.Load()), "goroutines_max")
}

// benchMaps are the maps of a fleet of homes: three homes a map, spread round robin over
// the fleet's servers, each with its own path on its server.
func benchMaps(fleet *benchFleet, homes int) []benchMap {
	var maps []benchMap
	for m := range (homes + benchHomesPerMap - 1) / benchHomesPerMap {
		bm := benchMap{key: types.NamespacedName{Namespace: "bench", Name: fmt.Sprintf("svc-%05d", m)}}
		for c := range benchHomesPerMap {
			i := m*benchHomesPerMap + c
			if i >= homes {
				break
			}
			srv := fleet.servers[i%len(fleet.servers)]
			bm.targets = append(bm.targets, ProbeTarget{
				Cluster:  fmt.Sprintf("worker-%d", c),
				Endpoint: fmt.Sprintf("%s/%s/worker-%d", srv.URL, bm.key.Name, c),
			})
		}
		maps = append(maps, bm)
	}
	return maps
}

// pacedRatio is the cpu_ratio_to_paced_bare field, empty when no paced floor was measured.
func pacedRatio(perProbe time.Duration, paced benchFloor) string {
	if paced.requestCount == 0 {
		return ""
	}
	return fmt.Sprintf(" cpu_ratio_to_paced_bare=%.2f", float64(perProbe)/float64(max(paced.cpuPerReq, 1)))
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// round keeps a lateness readable: microseconds under a millisecond, else milliseconds.
func round(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(time.Millisecond)
}

func benchEnvDuration(b *testing.B, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: want a positive duration", name, v)
	}
	return d
}

func benchEnvInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
