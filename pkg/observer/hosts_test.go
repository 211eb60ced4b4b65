package observer

import (
	"net"
	"net/http"
	"net/netip"
	"testing"
)

// Options.Hosts gives a loopback server a two-label name, and the guard still checks the
// address the name maps to.
func TestHosts(t *testing.T) {
	srv, conns := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	hosts := map[string]netip.Addr{"worker-a.example.test": netip.MustParseAddr("127.0.0.1")}
	url := "http://worker-a.example.test:" + port + "/v1/models"

	o := newObserver(t, func(o *Options) { o.Hosts = hosts })
	want(t, o.Do(t.Context(), Request{URL: url, Timeout: shortTimeout}), OutcomeResponse, http.StatusOK)
	if conns.Load() != 1 {
		t.Fatalf("%d connections reached the server, want 1", conns.Load())
	}

	guarded := newObserver(t, func(o *Options) { o.Hosts, o.AllowLoopback = hosts, false })
	want(t, guarded.Do(t.Context(), Request{URL: url, Timeout: shortTimeout}), OutcomeTransportError, 0,
		"destination 127.0.0.1 is loopback and refused by the observer's network guard (routing.observer.allowLoopback is off)")

	// A name that is not in the map goes to the system's resolver, as before.
	res := o.Do(t.Context(), Request{URL: "http://localhost:" + port + "/", Timeout: shortTimeout})
	want(t, res, OutcomeResponse, http.StatusOK)
}
