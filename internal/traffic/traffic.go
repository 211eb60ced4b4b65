package traffic

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ome-routing/operator/internal/modelserver"
)

// Traffic sends requests through a gateway to one route, as a user of the global endpoint
// does: to the gateway's address, with the route's hostname as Host. Each request carries
// modelserver.TrafficHeader, so the servers count it apart from probes.
type Traffic struct {
	// Addr is the gateway's host:port.
	Addr string
	// Host is the route's hostname.
	Host string
	// Path is the path requested: the model servers answer on modelserver.ProbePath.
	Path   string
	client *http.Client
}

// requestTimeout bounds one request: every server answers at once unless it is told to
// hang, which neither the suites nor the demo do.
const requestTimeout = 5 * time.Second

// NewTraffic is a sender to the route with hostname host on the gateway at addr.
func NewTraffic(addr, host string) *Traffic {
	return &Traffic{Addr: addr, Host: host, Path: modelserver.ProbePath, client: &http.Client{
		Timeout:   requestTimeout,
		Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true},
	}}
}

// Result is what became of one request.
type Result struct {
	// Sent and Done are when it was sent and when its answer (or error) came.
	Sent, Done time.Time
	// Status is the answer's status, 0 when none came.
	Status int
	// ServedBy names the server that answered, from modelserver.ServedByHeader; empty when
	// the gateway answered itself or no answer came.
	ServedBy string
	// Err is why no answer came.
	Err error
}

// OK says the request got a 2xx answer.
func (r Result) OK() bool { return r.Status >= 200 && r.Status < 300 }

// Do sends one request.
func (t *Traffic) Do(ctx context.Context) Result {
	r := Result{Sent: time.Now()}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+t.Addr+t.Path, nil)
	if err != nil {
		r.Err, r.Done = err, time.Now()
		return r
	}
	req.Host = t.Host
	req.Header.Set(modelserver.TrafficHeader, "1")
	resp, err := t.client.Do(req)
	r.Done = time.Now()
	if err != nil {
		r.Err = err
		return r
	}
	_ = resp.Body.Close()
	r.Status, r.ServedBy = resp.StatusCode, resp.Header.Get(modelserver.ServedByHeader)
	return r
}

// Close closes the sender's idle keep-alive connections. haproxy, stopping, waits for its
// client connections to close, so close them before stopping it.
func (t *Traffic) Close() { t.client.CloseIdleConnections() }

// batchWorkers is how many requests a Batch has in flight at once.
const batchWorkers = 4

// Batch sends n requests, a few at a time, and tallies the answers.
func (t *Traffic) Batch(ctx context.Context, n int) Tally {
	results := make(chan Result, n)
	jobs := make(chan struct{}, n)
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	var wg sync.WaitGroup
	for range batchWorkers {
		wg.Go(func() {
			for range jobs {
				results <- t.Do(ctx)
			}
		})
	}
	wg.Wait()
	close(results)
	var tally Tally
	for r := range results {
		tally.Add(r)
	}
	return tally
}

// Tally counts results by who answered and how.
type Tally struct {
	// Total is how many requests were sent.
	Total int
	// Served counts the 2xx answers by the server that gave them.
	Served map[string]int
	// Refused counts the other answers of servers (a failing cluster's own), by server.
	Refused map[string]int
	// Gateway counts the gateway's own answers (no server named itself), by status.
	Gateway map[int]int
	// Errors counts the requests that got no answer at all.
	Errors int
	// FirstError is the first such error, for a failure message.
	FirstError error
}

// Add counts one result.
func (t *Tally) Add(r Result) {
	if t.Served == nil {
		t.Served, t.Refused, t.Gateway = map[string]int{}, map[string]int{}, map[int]int{}
	}
	t.Total++
	switch {
	case r.Err != nil:
		t.Errors++
		if t.FirstError == nil {
			t.FirstError = r.Err
		}
	case r.ServedBy == "":
		t.Gateway[r.Status]++
	case r.OK():
		t.Served[r.ServedBy]++
	default:
		t.Refused[r.ServedBy]++
	}
}

// Failed counts the requests that failed through no server's own answer: the gateway's
// errors and the requests that got no answer. A server's own non-2xx answers are not in
// it (they are in Refused).
func (t Tally) Failed() int {
	n := t.Errors
	for status, c := range t.Gateway {
		if status < 200 || status >= 300 {
			n += c
		}
	}
	return n
}

// String lists the counts, for a failure message or a log.
func (t Tally) String() string {
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(t.Served)) {
		parts = append(parts, fmt.Sprintf("%s %d", s, t.Served[s]))
	}
	for _, s := range slices.Sorted(maps.Keys(t.Refused)) {
		parts = append(parts, fmt.Sprintf("%s refused %d", s, t.Refused[s]))
	}
	for _, s := range slices.Sorted(maps.Keys(t.Gateway)) {
		parts = append(parts, fmt.Sprintf("gateway %d: %d", s, t.Gateway[s]))
	}
	if t.Errors > 0 {
		parts = append(parts, fmt.Sprintf("no answer %d (first: %v)", t.Errors, t.FirstError))
	}
	return fmt.Sprintf("%d requests: %s", t.Total, strings.Join(parts, ", "))
}

// Load is a steady stream of requests at a fixed rate, each sent on its own goroutine so
// that a slow answer does not slow the stream, bounded in count.
type Load struct {
	traffic *Traffic
	cancel  context.CancelFunc
	done    chan struct{}

	mu      sync.Mutex
	results []Result
	wg      sync.WaitGroup
}

// StartLoad sends rate requests per second until Stop, or until max requests were sent.
func (t *Traffic) StartLoad(ctx context.Context, rate, max int) *Load {
	ctx, cancel := context.WithCancel(ctx)
	l := &Load{traffic: t, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for sent := 0; sent < max; sent++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			l.wg.Go(func() {
				// The request outlives a Stop by at most requestTimeout: Stop waits for it,
				// so that every request sent is counted.
				r := t.Do(context.WithoutCancel(ctx))
				l.mu.Lock()
				l.results = append(l.results, r)
				l.mu.Unlock()
			})
		}
	}()
	return l
}

// Results are the answers so far, in the order they came.
func (l *Load) Results() []Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.results)
}

// Stop ends the stream, waits for the requests in flight, and returns every result in the
// order the requests were sent.
func (l *Load) Stop() []Result {
	l.cancel()
	<-l.done
	l.wg.Wait()
	out := l.Results()
	slices.SortFunc(out, func(a, b Result) int { return a.Sent.Compare(b.Sent) })
	return out
}

// TallyOf counts the results of a stream.
func TallyOf(results []Result) Tally {
	var t Tally
	for _, r := range results {
		t.Add(r)
	}
	return t
}
