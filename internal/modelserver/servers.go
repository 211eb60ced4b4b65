package modelserver

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
)

// Servers are the model servers of a fleet behind a gateway: one named Endpoint per
// cluster, each on a loopback address of its own and all on one port. A gateway reaches
// a cluster through the host name of the ExternalName Service the publisher writes, on the
// one backendPort of the installation: so the clusters need distinct names that resolve
// to distinct addresses, and the same port.
type Servers struct {
	// Port is the port every server listens on: the publisher's backendPort.
	Port int
	// Endpoints are the servers by cluster name.
	Endpoints map[string]*Endpoint
	// Addrs are the servers' addresses by cluster name: 127.0.0.2, 127.0.0.3, ...
	Addrs  map[string]netip.Addr
	domain string

	received map[string]*atomic.Int64
	mu       sync.Mutex
	observe  func(cluster string, a Answer)
}

// TrafficHeader marks the requests a test sends through the gateway, so that a server
// counts them apart from probes and capacity polls.
const TrafficHeader = "X-Ome-Test-Traffic"

// IsTraffic says whether a request is one a test sent through the gateway.
func IsTraffic(r *http.Request) bool { return r.Header.Get(TrafficHeader) != "" }

// BackgroundHeader marks requests a test sends a server directly, to keep its queue
// busy: they wait for a slot as traffic does, but are not traffic (Received leaves them
// out, and a failure share does not fail them), so the split of the gateway's requests
// that a test measures is unchanged. The model servers' other clients stand for them.
const BackgroundHeader = "X-Ome-Test-Background"

// IsBackground says whether a request is background load (BackgroundHeader).
func IsBackground(r *http.Request) bool { return r.Header.Get(BackgroundHeader) != "" }

// StartServers starts one server per cluster, named after it, on 127.0.0.2, 127.0.0.3, ...
// and a port free on all of them. domain makes each cluster's host name: <cluster>.<domain>.
func StartServers(domain string, clusters []string) (*Servers, error) {
	var errs []error
	for range 10 {
		s, err := startServers(domain, clusters)
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("no port free on all of the servers' loopback addresses: %w", errors.Join(errs...))
}

func startServers(domain string, clusters []string) (*Servers, error) {
	s := &Servers{Endpoints: map[string]*Endpoint{}, Addrs: map[string]netip.Addr{}, domain: domain, received: map[string]*atomic.Int64{}}
	for i, c := range clusters {
		addr := netip.AddrFrom4([4]byte{127, 0, 0, byte(2 + i)})
		ep, err := StartEndpointAt(net.JoinHostPort(addr.String(), fmt.Sprint(s.Port)), c, nil)
		if err != nil {
			s.Close()
			return nil, err
		}
		if s.Port == 0 {
			s.Port = int(netip.MustParseAddrPort(ep.addr).Port())
		}
		s.Endpoints[c], s.Addrs[c] = ep, addr
		count := &atomic.Int64{}
		s.received[c] = count
		ep.OnAnswer(func(a Answer) {
			if IsTraffic(a.Request) {
				count.Add(1)
			}
			s.mu.Lock()
			observe := s.observe
			s.mu.Unlock()
			if observe != nil {
				observe(c, a)
			}
		})
	}
	return s, nil
}

// Host is a cluster's host name.
func (s *Servers) Host(cluster string) string { return cluster + "." + s.domain }

// URL is a cluster's model server as its copy reports it in status.url: by host name.
func (s *Servers) URL(cluster string) string {
	return fmt.Sprintf("http://%s:%d", s.Host(cluster), s.Port)
}

// Hosts maps every cluster's host name to its server's address, for the resolvers of the
// gateway and of the observer.
func (s *Servers) Hosts() map[string]netip.Addr {
	out := map[string]netip.Addr{}
	for c, a := range s.Addrs {
		out[s.Host(c)] = a
	}
	return out
}

// Received is how many requests marked with TrafficHeader each server has answered.
func (s *Servers) Received() map[string]int64 {
	out := map[string]int64{}
	for c, n := range s.received {
		out[c] = n.Load()
	}
	return out
}

// Observe has fn told of every request a server answers (probes and capacity polls too,
// metrics scrapes not; IsTraffic tells the marked ones), with its cluster; nil stops it.
func (s *Servers) Observe(fn func(cluster string, a Answer)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.observe = fn
}

// Set switches how a cluster's server answers.
func (s *Servers) Set(cluster string, mode Mode) error {
	ep, ok := s.Endpoints[cluster]
	if !ok {
		return fmt.Errorf("no server for cluster %q", cluster)
	}
	return ep.Set(mode)
}

// SetQueue makes a cluster's server queue its traffic as q says (Endpoint.SetQueue).
func (s *Servers) SetQueue(cluster string, q Queue) error {
	ep, ok := s.Endpoints[cluster]
	if !ok {
		return fmt.Errorf("no server for cluster %q", cluster)
	}
	ep.SetQueue(q)
	return nil
}

// Close stops every server.
func (s *Servers) Close() {
	for _, ep := range s.Endpoints {
		ep.Close()
	}
}

// Delta is how many marked requests each server answered since before, a Received.
func (s *Servers) Delta(before map[string]int64) map[string]int64 {
	out := s.Received()
	for c := range maps.Keys(out) {
		out[c] -= before[c]
	}
	return out
}

// SplitMatches says whether the requests the servers received, n in all, went as the
// weights say: none to a server of weight 0 (or of no weight), and to each other server
// its weight's share of n within tolerance, a fraction of n.
func SplitMatches(received map[string]int64, weights map[string]int32, n int, tolerance float64) bool {
	total := int32(0)
	for _, w := range weights {
		total += w
	}
	for c, got := range received {
		if weights[c] == 0 && got != 0 {
			return false
		}
	}
	for c, w := range weights {
		if w == 0 {
			if received[c] != 0 {
				return false
			}
			continue
		}
		share := float64(n) * float64(w) / float64(total)
		if d := float64(received[c]) - share; d > tolerance*float64(n) || -d > tolerance*float64(n) {
			return false
		}
	}
	return true
}
