package load

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/internal/poll"
)

// requestTimeout bounds one request. The static weights overload the slower cluster on
// purpose, so its queue grows for the whole phase: at the end of it a request waits tens
// of seconds, and must still be measured, not cut off.
const requestTimeout = 2 * time.Minute

// sender offers a Poisson load through the gateway, as independent users do: the gaps
// between requests are exponential at the rate asked, each request is sent on its own
// goroutine, so a slow answer never slows the stream, and the rate can change while it
// runs. A steady ticker would hand each cluster a regular stream that never queues below
// its capacity, which no production load does.
type sender struct {
	addr, host string
	client     *http.Client
	// rate is the offered rate in requests per second, as float64 bits; 0 sends nothing.
	rate   atomic.Uint64
	rateMu sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
	flight sync.WaitGroup
	// inFlight counts the requests not yet answered, for drain.
	inFlight atomic.Int64
	mu       sync.Mutex
	results  []result
}

// result is what became of one request.
type result struct {
	sent, done time.Time
	// cluster is the model server that answered (modelserver.ServedByHeader); empty when
	// the gateway answered itself or no answer came.
	cluster string
	status  int
	// wait is the time the request waited for a slot, from modelserver.QueueWaitHeader;
	// queued says the answer carried it.
	wait   time.Duration
	queued bool
	err    error
}

// startSender starts a sender to the route with hostname host on the gateway at addr,
// sending nothing until setRate. seed makes its gaps the same from run to run.
func startSender(ctx context.Context, addr, host string, seed uint64) *sender {
	ctx, cancel := context.WithCancel(ctx)
	s := &sender{addr: addr, host: host, cancel: cancel, done: make(chan struct{}), client: &http.Client{
		Timeout: requestTimeout,
		// Every request waiting in a queue holds a connection: keep them all for reuse.
		Transport: &http.Transport{MaxIdleConns: 2048, MaxIdleConnsPerHost: 2048, DisableCompression: true},
	}}
	rng := rand.New(rand.NewPCG(seed, 55))
	go func() {
		defer close(s.done)
		next := time.Now()
		for ctx.Err() == nil {
			r := math.Float64frombits(s.rate.Load())
			if r <= 0 {
				select {
				case <-ctx.Done():
				case <-time.After(50 * time.Millisecond):
				}
				next = time.Now()
				continue
			}
			// A sender that fell behind sends at once, and so keeps the average rate.
			next = next.Add(time.Duration(rng.ExpFloat64() / r * float64(time.Second)))
			if d := time.Until(next); d > 0 {
				t := time.NewTimer(d)
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
			}
			// The check and the count under one lock with setRate: a drain that has set the
			// rate to 0 sees every request that will be sent.
			s.rateMu.Lock()
			drained := math.Float64frombits(s.rate.Load()) <= 0
			if !drained {
				s.inFlight.Add(1)
			}
			s.rateMu.Unlock()
			if drained {
				continue
			}
			s.flight.Go(func() {
				s.record(s.do(context.WithoutCancel(ctx)))
				s.inFlight.Add(-1)
			})
		}
	}()
	return s
}

// setRate changes the offered rate, in requests per second.
func (s *sender) setRate(rps float64) {
	s.rateMu.Lock()
	defer s.rateMu.Unlock()
	s.rate.Store(math.Float64bits(rps))
}

// drain stops sending and waits until every request sent has been answered (the stream
// goes on at rate 0 until setRate).
func (s *sender) drain(ctx context.Context) error {
	s.setRate(0)
	return poll.Until(ctx, 50*time.Millisecond, requestTimeout+time.Minute, poll.Holds(func() bool {
		return s.inFlight.Load() == 0
	}, func() string { return fmt.Sprintf("%d requests in flight", s.inFlight.Load()) }))
}

// stop ends the stream, waits for the requests in flight, and returns every result in the
// order the requests were sent.
func (s *sender) stop() []result {
	s.cancel()
	<-s.done
	s.flight.Wait()
	s.client.CloseIdleConnections()
	return s.snapshot()
}

func (s *sender) snapshot() []result {
	s.mu.Lock()
	out := slices.Clone(s.results)
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b result) int { return a.sent.Compare(b.sent) })
	return out
}

func (s *sender) record(r result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results = append(s.results, r)
}

// do sends one request to the route, marked as traffic so that the model server queues it.
func (s *sender) do(ctx context.Context) result {
	r := result{sent: time.Now()}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.addr+modelserver.ProbePath, nil)
	if err != nil {
		r.err, r.done = err, time.Now()
		return r
	}
	req.Host = s.host
	req.Header.Set(modelserver.TrafficHeader, "1")
	resp, err := s.client.Do(req)
	if err != nil {
		r.err, r.done = err, time.Now()
		return r
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	r.done = time.Now()
	r.status, r.cluster = resp.StatusCode, resp.Header.Get(modelserver.ServedByHeader)
	if v := resp.Header.Get(modelserver.QueueWaitHeader); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			r.wait, r.queued = time.Duration(ms*float64(time.Millisecond)), true
		}
	}
	return r
}
