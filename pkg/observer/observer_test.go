package observer

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Timeouts are kept short so the package's tests finish in seconds. shortTimeout is for
// requests meant to time out; longTimeout for requests that must not.
const (
	shortTimeout = 300 * time.Millisecond
	longTimeout  = 5 * time.Second
)

// newObserver returns an Observer that may reach the loopback test servers, after
// applying edit to the default options.
func newObserver(t *testing.T, edit func(*Options)) *Observer {
	t.Helper()
	opts := Options{MaxConcurrentRequests: 8, MaxResponseBytes: 64 << 10, AllowLoopback: true}
	if edit != nil {
		edit(&opts)
	}
	o, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(o.Close)
	return o
}

// newServer starts a loopback server that counts the connections opened to it.
func newServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// hang blocks a handler until the client goes away or the test ends, so that
// httptest.Server.Close never waits on it for long.
func hang(r *http.Request, release <-chan struct{}) {
	select {
	case <-r.Context().Done():
	case <-release:
	}
}

// releaseOnCleanup returns a channel closed when the test ends. Registered after the
// server, it runs before the server's Close.
func releaseOnCleanup(t *testing.T) <-chan struct{} {
	ch := make(chan struct{})
	t.Cleanup(func() { close(ch) })
	return ch
}

// want checks a result's outcome and status, and that its error text holds every one of
// errParts (or that there is no error when none are given and the outcome is Response).
func want(t *testing.T, got Result, outcome Outcome, status int, errParts ...string) {
	t.Helper()
	if got.Outcome != outcome || got.StatusCode != status {
		t.Fatalf("got outcome %s status %d (err %v), want %s status %d", got.Outcome, got.StatusCode, got.Err, outcome, status)
	}
	t.Logf("%s %d: %v", got.Outcome, got.StatusCode, got.Err)
	if outcome == OutcomeResponse {
		if got.Err != nil {
			t.Fatalf("Response with an error: %v", got.Err)
		}
		return
	}
	if got.Err == nil {
		t.Fatalf("%s without an error", outcome)
	}
	for _, part := range errParts {
		if !strings.Contains(got.Err.Error(), part) {
			t.Fatalf("error %q does not contain %q", got.Err, part)
		}
	}
}

func TestNewRejectsNonPositiveLimits(t *testing.T) {
	cases := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"zero concurrency", Options{MaxConcurrentRequests: 0, MaxResponseBytes: 1}, "MaxConcurrentRequests must be positive, got 0"},
		{"negative concurrency", Options{MaxConcurrentRequests: -1, MaxResponseBytes: 1}, "MaxConcurrentRequests must be positive, got -1"},
		{"zero body", Options{MaxConcurrentRequests: 1, MaxResponseBytes: 0}, "MaxResponseBytes must be positive, got 0"},
		{"negative body", Options{MaxConcurrentRequests: 1, MaxResponseBytes: -5}, "MaxResponseBytes must be positive, got -5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := New(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("New(%+v) = %v, %v; want error containing %q", tc.opts, o, err, tc.wantErr)
			}
		})
	}
	if _, err := New(Options{MaxConcurrentRequests: 1, MaxResponseBytes: 1}); err != nil {
		t.Fatalf("New with the smallest valid limits: %v", err)
	}
}

func TestConcurrencyCap(t *testing.T) {
	const limit, requests = 3, 12
	var inFlight, maxSeen atomic.Int64
	release := releaseOnCleanup(t)
	srv, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := maxSeen.Load()
			if n <= m || maxSeen.CompareAndSwap(m, n) {
				break
			}
		}
		// Hold every request until the cap has been reached once. Requests beyond the
		// cap, if the observer let them through, would pile up here too and show in
		// maxSeen; with the cap working, the first batch fills it and all move on.
		deadline := time.Now().Add(longTimeout)
		for maxSeen.Load() < limit && time.Now().Before(deadline) {
			select {
			case <-release:
				return
			case <-time.After(time.Millisecond):
			}
		}
		time.Sleep(2 * time.Millisecond)
	}))
	o := newObserver(t, func(opts *Options) { opts.MaxConcurrentRequests = limit })

	var wg sync.WaitGroup
	results := make([]Result, requests)
	for i := range requests {
		wg.Go(func() { results[i] = o.Do(t.Context(), Request{URL: srv.URL, Timeout: longTimeout}) })
	}
	wg.Wait()
	for i, res := range results {
		if res.Outcome != OutcomeResponse {
			t.Fatalf("request %d: %s: %v", i, res.Outcome, res.Err)
		}
	}
	if got := maxSeen.Load(); got != limit {
		t.Fatalf("server saw at most %d requests at once, want exactly the cap %d", got, limit)
	}
}

func TestTimeoutStartsWhenSlotIsHeld(t *testing.T) {
	const slowFor = 3 * shortTimeout
	started := make(chan struct{}, 1)
	srv, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			started <- struct{}{}
			time.Sleep(slowFor)
		}
	}))
	o := newObserver(t, func(opts *Options) { opts.MaxConcurrentRequests = 1 })

	slow := make(chan Result, 1)
	go func() { slow <- o.Do(t.Context(), Request{URL: srv.URL + "/slow", Timeout: longTimeout}) }()
	<-started

	// This request waits about slowFor for the only slot, three times its own timeout,
	// and must still succeed: the wait is not part of the timeout.
	fast := o.Do(t.Context(), Request{URL: srv.URL + "/fast", Timeout: shortTimeout})
	want(t, fast, OutcomeResponse, http.StatusOK)
	if fast.SlotWait <= shortTimeout {
		t.Fatalf("SlotWait %v, want more than the request's timeout %v", fast.SlotWait, shortTimeout)
	}
	if fast.Duration >= shortTimeout {
		t.Fatalf("Duration %v includes the wait; want it under the timeout %v", fast.Duration, shortTimeout)
	}
	want(t, <-slow, OutcomeResponse, http.StatusOK)
}

func TestCancelledVersusTimedOut(t *testing.T) {
	release := releaseOnCleanup(t)
	srv, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/headers-then-hang":
			w.WriteHeader(http.StatusOK)
			w.Write([]byte("partial"))
			w.(http.Flusher).Flush()
		}
		hang(r, release)
	}))

	// Each case builds its context inside its subtest, so a cancel timer starts with the
	// request it is meant to interrupt.
	background := func(t *testing.T) context.Context { return t.Context() }
	cancelAfter := func(d time.Duration) func(*testing.T) context.Context {
		return func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(d, cancel)
			return ctx
		}
	}
	deadlineAfter := func(d time.Duration) func(*testing.T) context.Context {
		return func(t *testing.T) context.Context {
			ctx, cancel := context.WithTimeout(t.Context(), d)
			t.Cleanup(cancel)
			return ctx
		}
	}
	cases := []struct {
		name    string
		ctx     func(*testing.T) context.Context
		path    string
		timeout time.Duration
		outcome Outcome
		status  int
		errPart string
	}{
		{"observer timeout before headers", background, "/hang", shortTimeout, OutcomeTransportError, 0, "context deadline exceeded"},
		{"observer timeout in the body", background, "/headers-then-hang", shortTimeout, OutcomeBodyError, 200, "reading the response body: context deadline exceeded"},
		{"caller cancels before headers", cancelAfter(shortTimeout), "/hang", longTimeout, OutcomeCancelled, 0, "context canceled"},
		{"caller cancels in the body", cancelAfter(shortTimeout), "/headers-then-hang", longTimeout, OutcomeCancelled, 0, "reading the response body: context canceled"},
		{"caller deadline shorter than the timeout", deadlineAfter(shortTimeout), "/hang", longTimeout, OutcomeCancelled, 0, "context deadline exceeded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := newObserver(t, nil)
			res := o.Do(tc.ctx(t), Request{URL: srv.URL + tc.path, Timeout: tc.timeout})
			want(t, res, tc.outcome, tc.status, tc.errPart)
			// Every case here got its slot at once and was stopped while it ran.
			if strings.Contains(res.Err.Error(), "waiting for an observer slot") || res.Duration < shortTimeout/4 {
				t.Fatalf("stopped after %v with %v; want a request stopped while running", res.Duration, res.Err)
			}
		})
	}
}

func TestCancelledWhileWaitingForSlot(t *testing.T) {
	release := releaseOnCleanup(t)
	var requests atomic.Int64
	started := make(chan struct{}, 1)
	srv, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		started <- struct{}{}
		hang(r, release)
	}))
	o := newObserver(t, func(opts *Options) { opts.MaxConcurrentRequests = 1 })

	holder := make(chan Result, 1)
	go func() { holder <- o.Do(t.Context(), Request{URL: srv.URL, Timeout: longTimeout}) }()
	<-started

	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(shortTimeout/2, cancel)
	res := o.Do(ctx, Request{URL: srv.URL, Timeout: longTimeout})
	want(t, res, OutcomeCancelled, 0, "waiting for an observer slot", "context canceled")
	if res.SlotWait <= 0 || res.Duration != 0 {
		t.Fatalf("SlotWait %v Duration %v: want a wait and no run", res.SlotWait, res.Duration)
	}

	// A context that has already ended never takes a slot, even a free one.
	ended, endNow := context.WithCancel(t.Context())
	endNow()
	want(t, o.Do(ended, Request{URL: srv.URL, Timeout: longTimeout}), OutcomeCancelled, 0, "context canceled")

	if got := requests.Load(); got != 1 {
		t.Fatalf("server saw %d requests, want only the one holding the slot", got)
	}
}

func TestRequestValidation(t *testing.T) {
	o := newObserver(t, nil)
	cases := []struct {
		name    string
		req     Request
		errPart string
	}{
		{"zero timeout", Request{URL: "http://127.0.0.1:1/", Timeout: 0}, "request timeout must be positive, got 0s"},
		{"negative timeout", Request{URL: "http://127.0.0.1:1/", Timeout: -time.Second}, "request timeout must be positive"},
		{"unparsable URL", Request{URL: "http://[::1/", Timeout: longTimeout}, "missing ']' in host"},
		{"bad method", Request{Method: "GE T", URL: "http://127.0.0.1:1/", Timeout: longTimeout}, "invalid method"},
		{"no host", Request{URL: "http:///v1/models", Timeout: longTimeout}, "no Host in request URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := o.Do(t.Context(), tc.req)
			want(t, res, OutcomeTransportError, 0, tc.errPart)
		})
	}
}
