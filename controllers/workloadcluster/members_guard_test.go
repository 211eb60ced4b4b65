package workloadcluster

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
)

// loopbackObserver is the observer of an installation that opens loopback, as the suites'
// is: their members listen there.
func loopbackObserver(t *testing.T) *observer.Observer {
	t.Helper()
	return newObserver(t, observer.Options{AllowLoopback: true})
}

func newObserver(t *testing.T, opts observer.Options) *observer.Observer {
	t.Helper()
	opts.MaxConcurrentRequests, opts.MaxResponseBytes = 1, 1024
	obs, err := observer.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

func memberScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := omev1beta1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return scheme
}

// A member's server, whether a kubeconfig Secret or a ClusterProfile names it, is dialled
// through the probes' network guard: loopback only where routing.observer.allowLoopback
// opens it, and the metadata service never, whatever the settings. A refused connection
// sends nothing, so the member's credential goes nowhere.
func TestMemberConnectionsGoThroughTheNetworkGuard(t *testing.T) {
	var hits atomic.Int32
	srv, data := memberServer(t, func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	port := srv.URL[strings.LastIndexByte(srv.URL, ':'):]
	everythingOpen := observer.Options{AllowLoopback: true, AllowPrivateNetworks: true,
		Hosts: map[string]netip.Addr{"metadata.google.internal": netip.MustParseAddr("169.254.169.254")}}
	cases := []struct {
		name     string
		server   string
		obs      *observer.Observer
		wantKind string
		setting  string
	}{
		{"loopback with allowLoopback off", srv.URL, nil, "loopback", observer.LoopbackSetting},
		{"loopback named by a private-only installation", srv.URL, newObserver(t, observer.Options{AllowPrivateNetworks: true}), "loopback", observer.LoopbackSetting},
		{"a private address with allowPrivateNetworks off", "https://10.1.2.3" + port, loopbackObserver(t), "in a private network", observer.PrivateSetting},
		{"AWS metadata over IPv4", "https://169.254.169.254" + port, newObserver(t, everythingOpen), "link-local", ""},
		{"AWS metadata over IPv6", "https://[fd00:ec2::254]" + port, newObserver(t, everythingOpen), "a cloud metadata address", ""},
		{"GCP metadata by name", "https://metadata.google.internal" + port, newObserver(t, everythingOpen), "link-local", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := memberConfig(data, ExecPolicy{})
			if err != nil {
				t.Fatal(err)
			}
			cfg.Host = tc.server
			m := NewMembers(memberScheme(t), 2*time.Second, tc.obs)
			t.Cleanup(m.stop)
			err = m.Connect(context.Background(), "worker-a", []byte(tc.server), cfg)
			var refused *observer.RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("Connect = %v, want the network guard's refusal", err)
			}
			if refused.Kind != tc.wantKind || refused.Setting != tc.setting {
				t.Fatalf("refused as %q naming %q, want %q naming %q", refused.Kind, refused.Setting, tc.wantKind, tc.setting)
			}
			if tc.setting != "" && !strings.Contains(refused.Error(), tc.setting+" is off") {
				t.Fatalf("the refusal %q does not name %s", refused, tc.setting)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the member got %d request(s) through a refused connection", n)
	}

	// Where the installation opens loopback, the same member is asked for /version.
	cfg, err := memberConfig(data, ExecPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	m := NewMembers(memberScheme(t), 2*time.Second, loopbackObserver(t))
	t.Cleanup(m.stop)
	err = m.Connect(context.Background(), "worker-a", data, cfg)
	var refused *observer.RefusedError
	if errors.As(err, &refused) || hits.Load() == 0 {
		t.Fatalf("Connect with allowLoopback = %v after %d request(s), want the member asked", err, hits.Load())
	}
}
