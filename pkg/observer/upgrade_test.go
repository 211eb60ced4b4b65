package observer

import (
	"bufio"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// switchingServer answers every request with 101 Switching Protocols, with upgradeHeaders
// or without, then says nothing more: it reads until the client closes the connection
// and reports that on the returned channel. Over TLS when tls is set.
func switchingServer(t *testing.T, tls, upgradeHeaders bool) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	closed := make(chan struct{}, 16)
	release := releaseOnCleanup(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		defer conn.Close()
		head := "HTTP/1.1 101 Switching Protocols\r\n"
		if upgradeHeaders {
			head += "Upgrade: h2c-but-not-really\r\nConnection: Upgrade\r\n"
		}
		if _, err := io.WriteString(conn, head+"\r\n"); err != nil {
			return
		}
		// Silent from here on. The read ends when the client closes the connection (or
		// the test ends and closes it).
		done := make(chan struct{})
		go func() {
			_, _ = io.Copy(io.Discard, bufio.NewReader(buf))
			close(done)
		}()
		select {
		case <-done:
			closed <- struct{}{}
		case <-release:
		}
	}))
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, closed
}

// doBounded runs o.Do in its own goroutine and fails the test if it has not returned
// long after the request's timeout: a hang must fail the test, not stall the run.
func doBounded(t *testing.T, o *Observer, req Request) Result {
	t.Helper()
	got := make(chan Result, 1)
	go func() { got <- o.Do(t.Context(), req) }()
	select {
	case res := <-got:
		return res
	case <-time.After(20 * req.Timeout):
		t.Fatalf("Do(%s) did not return within 20 times its %s timeout", req.URL, req.Timeout)
		return Result{}
	}
}

// A 101 that stays silent is an answer with status 101: Do returns at once, reads
// nothing after it, closes the connection and frees the slot, over http and https. The
// caller classifies the status like any other (a probe records Unknown unless a list
// names 101).
func TestSwitchingProtocolsIsAnAnswerAndFreesTheSlot(t *testing.T) {
	for _, tls := range []bool{false, true} {
		for _, headers := range []bool{true, false} {
			name := map[bool]string{false: "http", true: "https"}[tls]
			if headers {
				name += " with Upgrade headers"
			} else {
				name += " without Upgrade headers"
			}
			t.Run(name, func(t *testing.T) {
				srv, closed := switchingServer(t, tls, headers)
				normal, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
				pool := x509.NewCertPool()
				if tls {
					pool.AddCert(srv.Certificate())
				}
				m := NewMetrics()
				// One slot: a 101 that kept it would block the next request for good.
				o := newObserver(t, func(o *Options) { o.MaxConcurrentRequests, o.RootCAs, o.Metrics = 1, pool, m })
				for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
					res := doBounded(t, o, Request{Method: method, URL: srv.URL + "/v1/models", Timeout: shortTimeout, KeepBody: true})
					want(t, res, OutcomeResponse, http.StatusSwitchingProtocols)
					if res.BytesRead != 0 || len(res.Body) != 0 || res.Truncated {
						t.Fatalf("%s: read %d bytes (%q) after a 101, want none", method, res.BytesRead, res.Body)
					}
					if headers {
						// Without the headers net/http treats the 101 as an ordinary answer
						// without a body and may keep the connection; with them the
						// connection belongs to the caller, and the observer closes it.
						select {
						case <-closed:
						case <-time.After(10 * longTimeout):
							t.Fatalf("%s: the server never saw the connection close", method)
						}
					}
					want(t, doBounded(t, o, Request{URL: normal.URL, Timeout: longTimeout}), OutcomeResponse, http.StatusOK)
				}
				if got := testutil.ToFloat64(m.inFlight); got != 0 {
					t.Fatalf("%v requests in flight after every request returned, want 0", got)
				}
			})
		}
	}
}
