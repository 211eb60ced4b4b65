package bench

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/ome-routing/operator/test/framework"
)

// apiCost counts what the manager asks of the control plane's API server, from its side
// of the wire: every request by verb and resource, the bytes it sends with its writes,
// the bytes the API server answers them with (about the object as stored), and the bytes
// its watches bring in. It is how a user sizes a control plane for the operator.
type apiCost struct {
	counting atomic.Bool

	mu sync.Mutex
	// requests counts requests by "VERB resource", e.g. "PUT trafficmaps".
	requests map[string]int64
	// writes and reads count the requests that change something and those that read
	// (GET and LIST; watches are neither).
	writes, reads int64
	// sent is the request bodies of writes; answered the response bodies of writes.
	sent, answered int64
	// watched is the bytes that watch streams brought in.
	watched atomic.Int64
}

func newAPICost() *apiCost { return &apiCost{requests: map[string]int64{}} }

// wrap makes every request of clients built from cfg go through the counter.
func (c *apiCost) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &costTripper{cost: c, next: rt} })
	return cfg
}

func (c *apiCost) count(on bool) { c.counting.Store(on) }

// reset forgets what was counted, for the next window.
func (c *apiCost) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests, c.writes, c.reads, c.sent, c.answered = map[string]int64{}, 0, 0, 0, 0
	c.watched.Store(0)
}

// writeCount is the writes counted.
func (c *apiCost) writeCount() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}

type costTripper struct {
	cost *apiCost
	next http.RoundTripper
}

// RoundTrip counts while counting is on. Watch streams opened before that are counted
// too: their bytes are added as they arrive.
func (t *costTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	r := framework.ParseRequest(req)
	watch := r.Verb == "WATCH"
	write := req.Method != http.MethodGet && req.Method != http.MethodHead
	if t.cost.counting.Load() {
		t.cost.mu.Lock()
		t.cost.requests[r.Key()]++
		switch {
		case write:
			t.cost.writes++
			t.cost.sent += max(req.ContentLength, 0)
		case !watch:
			t.cost.reads++
		}
		t.cost.mu.Unlock()
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	switch {
	case watch:
		resp.Body = &countingBody{ReadCloser: resp.Body, add: func(n int) {
			if t.cost.counting.Load() {
				t.cost.watched.Add(int64(n))
			}
		}}
	case write && t.cost.counting.Load():
		resp.Body = &countingBody{ReadCloser: resp.Body, add: func(n int) {
			t.cost.mu.Lock()
			t.cost.answered += int64(n)
			t.cost.mu.Unlock()
		}}
	}
	return resp, nil
}

type countingBody struct {
	io.ReadCloser
	add func(int)
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.add(n)
	return n, err
}

// report is the line the end-to-end run prints: per map and period, and the requests by
// verb and resource in the order of their count.
func (c *apiCost) report(perMapPeriod func(int64) float64) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var total int64
	kinds := make([]string, 0, len(c.requests))
	for k, n := range c.requests {
		total += n
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return c.requests[kinds[i]] > c.requests[kinds[j]] })
	var by strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&by, " %s=%.3f", strings.ReplaceAll(strings.ToLower(k), " ", ":"), perMapPeriod(c.requests[k]))
	}
	return fmt.Sprintf("requests_per_map_per_period=%.2f writes_per_map_per_period=%.2f reads_per_map_per_period=%.3f "+
		"write_request_bytes_per_map_per_period=%.0f write_response_bytes_per_map_per_period=%.0f watch_bytes_per_map_per_period=%.0f by_request%s",
		perMapPeriod(total), perMapPeriod(c.writes), perMapPeriod(c.reads), perMapPeriod(c.sent), perMapPeriod(c.answered),
		perMapPeriod(c.watched.Load()), by.String())
}

// profileAPIServer saves a CPU profile of the API server behind cfg over d to path (the
// API server serves /debug/pprof to an admin). It runs in the background; wait on the
// returned channel for it to finish.
func profileAPIServer(t *testing.T, cfg *rest.Config, d time.Duration, path string) <-chan struct{} {
	done := make(chan struct{})
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(done)
		hc.Timeout = d + 30*time.Second
		resp, err := hc.Get(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", strings.TrimSuffix(cfg.Host, "/"), int(d.Seconds())))
		if err != nil {
			t.Errorf("API server profile: %v", err)
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("API server profile: %s", resp.Status)
			return
		}
		f, err := os.Create(path)
		if err != nil {
			t.Errorf("API server profile: %v", err)
			return
		}
		defer f.Close()
		if _, err := io.Copy(f, resp.Body); err != nil {
			t.Errorf("API server profile: %v", err)
		}
	}()
	return done
}
