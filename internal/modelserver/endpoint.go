package modelserver

import (
	"errors"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Mode is how an Endpoint answers.
type Mode string

// The ways an Endpoint can behave.
const (
	// Serve answers 200 with a small model list.
	Serve Mode = "200"
	// Unavailable answers 503.
	Unavailable Mode = "503"
	// NotFound answers 404 on the probe path too, as a server without the model does.
	NotFound Mode = "404"
	// BadGateway answers 502, as a proxy in front of a dead model server does.
	BadGateway Mode = "502"
	// Redirect answers 301 to itself.
	Redirect Mode = "301"
	// Hang accepts the request and never answers until the mode changes.
	Hang Mode = "hang"
	// Refuse closes the listening socket, so connections are refused.
	Refuse Mode = "refuse"
)

// ProbePath is the path an Endpoint answers on: the probe path of the user guide's policy.
// A request for any other path (but MetricsPath, and ReportPath once told to) gets a 404,
// so a probe sent to the wrong URL fails its test instead of passing by accident.
const ProbePath = "/v1/models"

// Endpoint is a real HTTP server on loopback that stands in for a model server. Tests
// switch how it answers, and read how many requests it has had, their methods and paths,
// and how many were in flight at once.
type Endpoint struct {
	addr string
	// name, when set, is sent back in ServedByHeader with every answer, so that a client
	// behind a gateway can tell which server answered.
	name string

	mu       sync.Mutex
	mode     Mode
	listener net.Listener
	server   *http.Server
	release  chan struct{}

	delay time.Duration
	// onAnswer, when set, is told of every answer (answer.go).
	onAnswer func(Answer)
	// report is how the endpoint answers capacity polls on ReportPath (report.go).
	report report
	// failures is the share of traffic that fails whatever the mode (failshare.go).
	failures trafficFailures
	// queue is how traffic waits for a slot in slots (queue.go); off by default.
	queue Queue
	slots slots
	// metrics are answered on MetricsPath (metrics.go); metricsStatus, when set, is the
	// status every scrape gets instead (BreakMetrics).
	metrics       *endpointMetrics
	metricsStatus int

	requests atomic.Int64
	inFlight *InFlight
	// seen holds the "METHOD path" of every request, in arrival order.
	seen []string
}

// InFlight counts requests in flight, across every endpoint that shares it, and the most
// seen at once.
type InFlight struct {
	now, max atomic.Int64
}

// Max is the most requests that were in flight at once.
func (g *InFlight) Max() int64 { return g.max.Load() }

func (g *InFlight) enter() {
	n := g.now.Add(1)
	for {
		m := g.max.Load()
		if n <= m || g.max.CompareAndSwap(m, n) {
			return
		}
	}
}

func (g *InFlight) leave() { g.now.Add(-1) }

// StartEndpoint starts an endpoint on a free loopback port, answering 200. Every request
// is counted in inFlight, which endpoints may share; nil gives the endpoint its own.
func StartEndpoint(inFlight *InFlight) (*Endpoint, error) {
	return StartEndpointAt("127.0.0.1:0", "", inFlight)
}

// StartEndpointAt starts an endpoint listening on addr (a loopback address; port 0 picks a
// free one), answering 200. A non-empty name is sent back in ServedByHeader.
func StartEndpointAt(addr, name string, inFlight *InFlight) (*Endpoint, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if inFlight == nil {
		inFlight = &InFlight{}
	}
	e := &Endpoint{addr: l.Addr().String(), name: name, mode: Serve, release: make(chan struct{}), inFlight: inFlight}
	e.metrics = newEndpointMetrics(&e.slots)
	e.serve(l)
	return e, nil
}

// URL is the endpoint's base address, the value a copy reports in status.url.
func (e *Endpoint) URL() string { return "http://" + e.addr }

// Requests is how many requests the endpoint has received, metrics scrapes aside.
func (e *Endpoint) Requests() int64 { return e.requests.Load() }

// Seen is the "METHOD path" of every request so far, in arrival order, metrics scrapes
// aside.
func (e *Endpoint) Seen() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.seen)
}

// SetDelay makes every answer wait d first, so that requests overlap.
func (e *Endpoint) SetDelay(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.delay = d
}

// Set switches how the endpoint answers from now on.
func (e *Endpoint) Set(mode Mode) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mode == Hang && mode != Hang {
		close(e.release)
		e.release = make(chan struct{})
	}
	switch {
	case mode == Refuse && e.listener != nil:
		_ = e.server.Close()
		e.listener, e.server = nil, nil
	case mode != Refuse && e.listener == nil:
		l, err := net.Listen("tcp", e.addr)
		if err != nil {
			return err
		}
		e.serve(l)
	}
	e.mode = mode
	return nil
}

// Close stops the endpoint.
func (e *Endpoint) Close() {
	_ = e.Set(Refuse)
}

func (e *Endpoint) serve(l net.Listener) {
	e.listener = l
	e.server = &http.Server{Handler: http.HandlerFunc(e.handle), ReadHeaderTimeout: 5 * time.Second}
	srv := e.server
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(err)
		}
	}()
}

func (e *Endpoint) handle(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path == MetricsPath {
		e.serveMetrics(rw, r)
		return
	}
	e.requests.Add(1)
	e.inFlight.enter()
	defer e.inFlight.leave()
	e.mu.Lock()
	e.seen = append(e.seen, r.Method+" "+r.URL.Path)
	mode, release, delay, report, onAnswer, queue := e.mode, e.release, e.delay, e.report, e.onAnswer, e.queue
	failStatus, fail, traffic := 0, false, IsTraffic(r)
	if traffic {
		failStatus, fail = e.failures.failNow()
	}
	e.mu.Unlock()
	if e.name != "" {
		rw.Header().Set(ServedByHeader, e.name)
	}
	w := rw
	if onAnswer != nil {
		rec := &statusRecorder{ResponseWriter: rw, status: http.StatusOK}
		w = rec
		defer func() { onAnswer(Answer{At: time.Now(), Request: r, Status: rec.status}) }()
	}
	if delay > 0 {
		time.Sleep(delay)
	}
	if mode != Hang && report.answer(w, r) {
		return
	}
	switch {
	case r.URL.Path != ProbePath:
		http.NotFound(w, r)
	case fail:
		http.Error(w, http.StatusText(failStatus), failStatus)
	case mode == Unavailable:
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	case mode == NotFound:
		http.NotFound(w, r)
	case mode == BadGateway:
		http.Error(w, "bad gateway", http.StatusBadGateway)
	case mode == Redirect:
		http.Redirect(w, r, r.URL.Path, http.StatusMovedPermanently)
	case mode == Hang:
		select {
		case <-release:
		case <-r.Context().Done():
		}
	default:
		// Only traffic (and background load) waits its turn: a probe must see the server's
		// health, not its load.
		if (traffic || IsBackground(r)) && queue.on() && !e.serveInTurn(w, r, queue) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"` + ModelID + `","object":"model"}]}`))
	}
}
