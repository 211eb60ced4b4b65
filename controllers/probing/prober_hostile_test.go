package probing

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/probe"
)

// switchingProtocolsServer answers every request with 101 Switching Protocols and the
// upgrade headers, then stays silent until the client closes the connection or the test
// ends. It counts the requests it answered.
func switchingProtocolsServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var answered atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"); err != nil {
			return
		}
		answered.Add(1)
		done := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, buf); close(done) }()
		select {
		case <-done:
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv, &answered
}

// Four services whose every endpoint answers 101 and then says nothing, on an observer of
// four slots, cannot keep a fifth service from being probed: its failing home is gated,
// the hostile homes are recorded as the answers they are, and the prober stops when
// asked.
func TestProberHostileSwitchingProtocolsHoldNoSlot(t *testing.T) {
	hostile, answered := switchingProtocolsServer(t)
	failing := newCountingServer(t)
	failing.status.Store(http.StatusServiceUnavailable)
	p, stop := runProber(t, newTestObserver(t, 4), 4)

	policy := testPolicy(50*time.Millisecond, 30*time.Millisecond)
	digest := probe.Digest(policy)
	var hostileKeys []types.NamespacedName
	for i := range 4 {
		key := types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("hostile-%d", i)}
		p.Sync(key, "", policy, digest, []ProbeTarget{{Cluster: "a", Endpoint: hostile.URL}})
		hostileKeys = append(hostileKeys, key)
	}
	eventually(t, "every hostile service has been answered with a 101 twice", func() bool { return answered.Load() >= 8 })

	normal := []ProbeTarget{{Cluster: "a", Endpoint: failing.URL}}
	p.Sync(testKey, "", policy, digest, normal)
	eventually(t, "the normal service's failing home is gated", func() bool {
		return p.Sync(testKey, "", policy, digest, normal)["a"].Gated
	})
	for _, key := range hostileKeys {
		st := p.Sync(key, "", policy, digest, []ProbeTarget{{Cluster: "a", Endpoint: hostile.URL}})["a"]
		if st.Result != omev1beta1.ProbeUnknown || st.Message != "HTTP 101 (not in accept or gate list)" || st.Gated {
			t.Errorf("%s: state = %+v, want Unknown \"HTTP 101 (not in accept or gate list)\", ungated", key, st)
		}
	}

	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("the prober did not stop while hostile endpoints held their connections open")
	}
}
