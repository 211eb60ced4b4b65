package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
)

func serviceName(i int) string { return fmt.Sprintf("svc-%03d", i) }

// createServices creates the namespace everywhere, then per service a ready copy on every
// worker (status.url on that worker's home server) and the routed source on the control
// plane, eight services at a time.
func createServices(ctx context.Context, t *testing.T, fleet *envfleet.Fleet, homes map[string]*homeServer) {
	for _, c := range append([]*envfleet.Cluster{fleet.ControlPlane}, workerClusters(fleet)...) {
		if err := c.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
			t.Fatal(err)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i := range services {
		name := serviceName(i)
		g.Go(func() error {
			for _, w := range workers {
				if err := envfleet.PlaceCopy(gctx, fleet.Workers[w].Client, client.ObjectKey{Namespace: namespace, Name: name}, homes[w].url(name), 1, 1); err != nil {
					return fmt.Errorf("copy of %s on %s: %w", name, w, err)
				}
			}
			isvc := envfleet.SourceService(client.ObjectKey{Namespace: namespace, Name: name}, workers, benchRouting())
			return fleet.ControlPlane.Client.Create(gctx, isvc)
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

func workerClusters(fleet *envfleet.Fleet) []*envfleet.Cluster {
	var out []*envfleet.Cluster
	for _, w := range workers {
		out = append(out, fleet.Workers[w])
	}
	return out
}

// homeServer is one workload cluster's gateway: every service's endpoint on that cluster
// is a path on it, "/<service>", so the probe arrives at "/<service>/v1/models".
type homeServer struct {
	// host is the cluster's name for the server: the publisher refuses IP addresses as
	// backend hosts, so endpoints carry a name that the manager's observer resolves to
	// loopback (benchHosts).
	host     string
	srv      *httptest.Server
	requests atomic.Int64
	mu       sync.Mutex
	homes    map[string]*homeState
}

// homeState is how one service's endpoint on one cluster answers.
type homeState struct {
	mu       sync.Mutex
	mode     int // modePass, modeArmed or modeFail
	switched time.Time
	failures []time.Time
}

const (
	_ = iota // the zero value: every probe passes
	// modeArmed answers the next probe 200 and fails from then on.
	modeArmed
	modeFail
)

func startHomeServer(t *testing.T, worker string) *homeServer {
	s := &homeServer{host: worker + ".bench.test", homes: map[string]*homeState{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *homeServer) url(service string) string {
	return "http://" + net.JoinHostPort(s.host, strconv.Itoa(s.srv.Listener.Addr().(*net.TCPAddr).Port)) + "/" + service
}

// benchHosts resolves every worker's host name to loopback, for the observer.
func benchHosts() map[string]netip.Addr {
	out := map[string]netip.Addr{}
	for _, w := range workers {
		out[w+".bench.test"] = netip.MustParseAddr("127.0.0.1")
	}
	return out
}

func (s *homeServer) home(service string) *homeState {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.homes[service]
	if h == nil {
		h = &homeState{}
		s.homes[service] = h
	}
	return h
}

func (s *homeServer) handle(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	service, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	h := s.home(service)
	h.mu.Lock()
	defer h.mu.Unlock()
	switch h.mode {
	case modeFail:
		h.failures = append(h.failures, time.Now())
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"model","object":"model"}]}`)
	if h.mode == modeArmed {
		w.(http.Flusher).Flush()
		h.mode, h.switched = modeFail, time.Now()
	}
}

// pass makes the endpoint answer every probe 200 again.
func (h *homeState) pass() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.mode = 0
}

func (h *homeState) arm() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.mode = modeArmed
}

// times is when the endpoint switched to failing (right after its last passing answer)
// and when each failing probe arrived.
func (h *homeState) times() (time.Time, []time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.switched, slices.Clone(h.failures)
}

func totalRequests(homes map[string]*homeServer) int64 {
	var n int64
	for _, s := range homes {
		n += s.requests.Load()
	}
	return n
}

// failoverOn is OME_BENCH_E2E_FAILOVER=1: every service orders its homes in two failover
// tiers, worker-a and worker-b first, worker-c on standby, so that the run measures what
// the tier split costs at fleet size.
var failoverOn bool

// benchRouting is the services' own routing settings: none, or the two tiers.
func benchRouting() *omev1beta1.Routing {
	if !failoverOn {
		return nil
	}
	return &omev1beta1.Routing{Failover: &omev1beta1.RoutingFailover{Tiers: []omev1beta1.FailoverTier{
		{Name: "first", Clusters: []string{"worker-a", "worker-b"}},
		{Name: "standby", Clusters: []string{"worker-c"}},
	}}}
}

// gateWorkers are the workers whose homes the gate samples switch to failing: under
// failover, the first tier's only, since a standby home is at weight 0 before its gate.
func gateWorkers() []string {
	if failoverOn {
		return workers[:2]
	}
	return workers
}
