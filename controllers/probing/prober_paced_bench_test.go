package probing

import (
	"context"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/pkg/schedule"
)

// The paced bare floor of BenchmarkProberScale: what a bare net/http client costs when it
// sends exactly the prober's requests at the prober's pace. The saturated floor (16
// workers sending back to back) is cheaper per request than any paced sender can be,
// because back-to-back requests batch their wakeups and syscalls; this one is the fair
// comparison for "what does the prober add to the requests it has to send".

// benchMap is one service's homes as the benchmark syncs them into the prober.
type benchMap struct {
	key     types.NamespacedName
	targets []ProbeTarget
}

// pacedBare sends, with a plain http.Client, one request per home and period to the URL
// the prober probes (probeURL of the home's endpoint and the policy's path). Every home
// of a map goes out together on the map's slot, computed with the function the prober
// schedules by (schedule.FirstDue with the map's key, which schedule.NextDue lands on), and at
// most benchMaxRequests run at once, the observer's cap, from a pool of that many workers.
// It runs warmup, then measures the CPU and the requests completed over window.
func measurePacedBare(b *testing.B, maps []benchMap, path string, period, warmup, window time.Duration, profile string) benchFloor {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = benchMaxRequests
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()

	type pacedMap struct {
		first time.Time
		urls  []string
	}
	start := time.Now()
	sched := make([]pacedMap, 0, len(maps))
	homes := 0
	for _, m := range maps {
		pm := pacedMap{first: schedule.FirstDue(start, m.key.String(), period)}
		for _, t := range m.targets {
			pm.urls = append(pm.urls, probeURL(t.Endpoint, path))
		}
		homes += len(pm.urls)
		sched = append(sched, pm)
	}
	slices.SortFunc(sched, func(a, b pacedMap) int { return a.first.Compare(b.first) })

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var counting atomic.Bool
	var count atomic.Int64
	// Buffered for every home, so the pacer never blocks behind busy workers: a late
	// request waits in the channel, as a held home waits in the prober.
	jobs := make(chan string, homes)
	var wg sync.WaitGroup
	for range benchMaxRequests {
		wg.Go(func() {
			for url := range jobs {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				if err != nil {
					b.Error(err)
					continue
				}
				resp, err := client.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if counting.Load() {
					count.Add(1)
				}
			}
		})
	}
	wg.Go(func() {
		defer close(jobs)
		timer := time.NewTimer(time.Hour)
		defer timer.Stop()
		for cycle := time.Duration(0); ; cycle += period {
			for _, pm := range sched {
				due := pm.first.Add(cycle)
				if wait := time.Until(due); wait > 0 {
					timer.Reset(wait)
					select {
					case <-ctx.Done():
						return
					case <-timer.C:
					}
				}
				for _, u := range pm.urls {
					jobs <- u
				}
			}
		}
	})

	time.Sleep(warmup)
	stop := startWindowProfile(b, profile)
	cpu0, t0 := cpuTime(b), time.Now()
	counting.Store(true)
	time.Sleep(window)
	counting.Store(false)
	elapsed, cpu := time.Since(t0), cpuTime(b)-cpu0
	stop()
	cancel()
	wg.Wait()
	n := count.Load()
	return benchFloor{reqPerSec: float64(n) / elapsed.Seconds(), cpuPerReq: cpu / time.Duration(max(n, 1)), requestCount: n}
}

// startWindowProfile profiles one measured window when OME_BENCH_PROFILE is set: a CPU
// profile of the window to <prefix>-<name>.cpu, and the allocation profile at its start
// and end to <prefix>-<name>.allocs0 and .allocs1, so that
// `go tool pprof -base X.allocs0 X.allocs1` shows what the window allocated. Profiling
// only the window keeps the saturated floor, the sync and the warm-up out of the figures
// (the test binary's -cpuprofile would mix them in). The returned stop ends it.
func startWindowProfile(b *testing.B, name string) (stop func()) {
	prefix := os.Getenv("OME_BENCH_PROFILE")
	if prefix == "" || name == "" {
		return func() {}
	}
	base := prefix + "-" + name
	writeHeap := func(path string) {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		runtime.GC() // the allocation profile is as of the last collection
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			b.Fatal(err)
		}
	}
	writeHeap(base + ".allocs0")
	f, err := os.Create(base + ".cpu")
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		writeHeap(base + ".allocs1")
	}
}
