package observer

import (
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// newServerOn starts a loopback server listening on addr ("[::1]:0", say), plain or
// with TLS, that counts the connections opened to it. It skips the test when the
// address cannot be listened on (no IPv6 on the machine).
func newServerOn(t *testing.T, addr string, tls bool) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, &conns
}

// A zone on the unspecified address does not make it a destination: Linux connects
// [::%x] to ::1 as it does [::], so a server on ::1 would answer a probe that
// AllowLoopback never permitted. Each zoned URL must be refused in the dialer, over http
// and https, with and without AllowLoopback, and open no connection.
func TestGuardRefusesZonedUnspecifiedOnTheWire(t *testing.T) {
	for _, scheme := range []string{"http", "https"} {
		t.Run(scheme, func(t *testing.T) {
			srv, conns := newServerOn(t, "[::1]:0", scheme == "https")
			_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
			pool := x509.NewCertPool()
			if srv.Certificate() != nil {
				pool.AddCert(srv.Certificate())
			}
			// The server answers on ::1 itself, so a refusal below is the guard's.
			o := newObserver(t, func(o *Options) { o.RootCAs = pool })
			want(t, o.Do(t.Context(), Request{URL: scheme + "://[::1]:" + port + "/", Timeout: longTimeout}), OutcomeResponse, http.StatusOK)
			before := conns.Load()

			for _, loopback := range []bool{false, true} {
				o := newObserver(t, func(o *Options) { o.RootCAs, o.AllowLoopback = pool, loopback })
				for _, zone := range []string{"x", "eth0", "lo", "1"} {
					url := scheme + "://[::%25" + zone + "]:" + port + "/"
					res := o.Do(t.Context(), Request{URL: url, Timeout: shortTimeout})
					want(t, res, OutcomeTransportError, 0, "destination ::%"+zone+" is unspecified and refused by the observer's network guard")
					if _, notSent := NotSent(res.Err); !notSent {
						t.Errorf("%s: %v is not a refusal of the observer's own", url, res.Err)
					}
				}
			}
			if got := conns.Load() - before; got != 0 {
				t.Fatalf("%d connections reached the server on ::1 through a zoned ::, want 0", got)
			}
		})
	}
}
