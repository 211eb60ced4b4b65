package observer

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestNotSent tells the observer's own refusals, which say nothing about an endpoint,
// from failures on the way to it, and shows the reason quotes no URL.
func TestNotSent(t *testing.T) {
	srv, conns := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	host := strings.TrimPrefix(srv.URL, "http://")
	_, port, _ := net.SplitHostPort(host)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, closedPort, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()

	cases := []struct {
		name     string
		url      string
		timeout  time.Duration
		loopback bool
		lookup   []netip.Addr
		want     string // "" when the request was sent, or at least tried
	}{
		{name: "not a URL", url: "http://probe:s3cret@[::1/v1/models", timeout: longTimeout, loopback: true,
			want: "the endpoint is not a valid URL"},
		{name: "another scheme", url: "ftp://probe:s3cret@" + host + "/", timeout: longTimeout, loopback: true,
			want: `scheme "ftp" refused: the observer only sends http and https`},
		{name: "no timeout", url: "http://probe:s3cret@" + host + "/", loopback: true,
			want: "request timeout must be positive, got 0s"},
		{name: "guard refuses the only address", url: "http://probe:s3cret@" + host + "/", timeout: longTimeout,
			want: "destination 127.0.0.1 is loopback and refused by the observer's network guard (routing.observer.allowLoopback is off)"},
		{name: "link-local, always refused", url: "http://probe:s3cret@169.254.169.254/", timeout: longTimeout, loopback: true,
			want: "destination 169.254.169.254 is link-local and refused by the observer's network guard"},
		{name: "refused address, then one that does not answer", url: "http://mixed.example.test:" + closedPort + "/", timeout: longTimeout,
			loopback: true, lookup: []netip.Addr{netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("127.0.0.1")}},
		{name: "connection refused", url: "http://127.0.0.1:" + closedPort + "/", timeout: longTimeout, loopback: true},
		{name: "answered", url: "http://127.0.0.1:" + port + "/", timeout: longTimeout, loopback: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := newObserver(t, func(o *Options) { o.AllowLoopback = tc.loopback })
			if tc.lookup != nil {
				o.lookupIP = resolveTo(t, "mixed.example.test", tc.lookup...)
			}
			res := o.Do(t.Context(), Request{URL: tc.url, Timeout: tc.timeout})
			reason, ok := NotSent(res.Err)
			if reason != tc.want || ok != (tc.want != "") {
				t.Fatalf("NotSent(%s: %v) = %q, %t; want %q", res.Outcome, res.Err, reason, ok, tc.want)
			}
			if strings.Contains(reason, "s3cret") || strings.Contains(reason, "probe") {
				t.Fatalf("reason %q quotes the URL's credentials", reason)
			}
		})
	}
	if got := conns.Load(); got != 1 {
		t.Fatalf("%d connections reached the server, want only the answered one", got)
	}
}

// A zero or nil Observer refuses to send, as a probe not sent, instead of panicking.
func TestZeroObserverSendsNothing(t *testing.T) {
	for name, o := range map[string]*Observer{"zero": {}, "nil": nil} {
		res := o.Do(t.Context(), Request{URL: "http://127.0.0.1:1/", Timeout: time.Second})
		if reason, notSent := NotSent(res.Err); res.Outcome != OutcomeTransportError || !notSent || reason != "the observer is not set up (make it with observer.New)" {
			t.Errorf("%s observer: outcome %s, err %v; want a transport error that is not sent", name, res.Outcome, res.Err)
		}
	}
}
