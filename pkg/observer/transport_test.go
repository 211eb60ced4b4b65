package observer

import (
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestTransportErrors(t *testing.T) {
	release := releaseOnCleanup(t)
	hanging, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hang(r, release) }))
	hugeHeader, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Padding", strings.Repeat("h", 2<<20))
	}))

	// A port that was just in use and is now closed refuses connections.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := ln.Addr().String()
	closedURL := "http://" + closedAddr + "/v1/models"
	ln.Close()

	cases := []struct {
		name     string
		url      string
		timeout  time.Duration
		errParts []string
	}{
		{"refused", closedURL, longTimeout, []string{`Get "` + closedURL + `": dial tcp ` + closedAddr + `: connect: connection refused`}},
		{"no answer", hanging.URL, shortTimeout, []string{`Get "` + hanging.URL + `"`, "context deadline exceeded"}},
		// .invalid never resolves (RFC 6761). Either the resolver says so or the timeout
		// ends the wait; the request must not hang either way.
		{"unresolvable", "http://nonexistent.invalid/v1/models", shortTimeout, []string{`Get "http://nonexistent.invalid/v1/models"`, "nonexistent.invalid"}},
		{"header too large", hugeHeader.URL, longTimeout, []string{"server response headers exceeded 1048576 bytes"}},
	}
	o := newObserver(t, nil)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := o.Do(t.Context(), Request{URL: tc.url, Timeout: tc.timeout})
			want(t, res, OutcomeTransportError, 0, tc.errParts...)
		})
	}
}

func TestTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("secure"))
	}))
	// The refused handshake is expected; keep the server from logging it.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())

	t.Run("untrusted certificate", func(t *testing.T) {
		o := newObserver(t, nil)
		res := o.Do(t.Context(), Request{URL: srv.URL, Timeout: longTimeout})
		want(t, res, OutcomeTransportError, 0, "tls: failed to verify certificate", "x509: certificate signed by unknown authority")
	})
	t.Run("trusted through RootCAs", func(t *testing.T) {
		o := newObserver(t, func(opts *Options) { opts.RootCAs = pool })
		res := o.Do(t.Context(), Request{URL: srv.URL, Timeout: longTimeout})
		want(t, res, OutcomeResponse, http.StatusOK)
		if res.BytesRead != int64(len("secure")) {
			t.Fatalf("BytesRead %d, want %d", res.BytesRead, len("secure"))
		}
	})
}

// TestEnvironmentProxyIgnored points HTTP_PROXY at a server that records what reaches it.
// net/http never proxies loopback addresses or "localhost", so the target is named by a
// host that resolves to loopback only through the test seam.
func TestEnvironmentProxyIgnored(t *testing.T) {
	var proxied, direct atomic.Int64
	proxy, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { proxied.Add(1) }))
	target, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { direct.Add(1) }))
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")

	o := newObserver(t, nil)
	o.lookupIP = resolveTo(t, "model.example.test", netip.MustParseAddr("127.0.0.1"))
	_, port, _ := net.SplitHostPort(target.Listener.Addr().String())
	res := o.Do(t.Context(), Request{URL: "http://model.example.test:" + port + "/", Timeout: longTimeout})
	want(t, res, OutcomeResponse, http.StatusOK)
	if proxied.Load() != 0 || direct.Load() != 1 {
		t.Fatalf("proxy saw %d requests and target %d; want 0 and 1", proxied.Load(), direct.Load())
	}
}

// TestErrorsHidePasswords shows a password in the URL stays out of Err, both in the
// errors net/http phrases and in the observer's own.
func TestErrorsHidePasswords(t *testing.T) {
	srv, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10")
		w.Write([]byte("short"))
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	cases := []struct {
		name    string
		url     string
		timeout time.Duration
		outcome Outcome
	}{
		{"other scheme", "ftp://probe:s3cret@" + host + "/", longTimeout, OutcomeTransportError},
		{"no timeout", "http://probe:s3cret@" + host + "/", 0, OutcomeTransportError},
		{"refused", "http://probe:s3cret@" + closed + "/", longTimeout, OutcomeTransportError},
		{"body error", "http://probe:s3cret@" + host + "/", longTimeout, OutcomeBodyError},
	}
	o := newObserver(t, nil)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := o.Do(t.Context(), Request{URL: tc.url, Timeout: tc.timeout})
			if res.Outcome != tc.outcome {
				t.Fatalf("outcome %s (%v), want %s", res.Outcome, res.Err, tc.outcome)
			}
			if msg := res.Err.Error(); strings.Contains(msg, "s3cret") || !strings.Contains(msg, "probe:***@") {
				t.Fatalf("error %q shows the password or hides the user", msg)
			}
		})
	}
}
