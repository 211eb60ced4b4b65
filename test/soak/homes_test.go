package soak

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// behaviour is how a home's endpoint answers, by the count of probes it has answered
// since flapping began: a pattern of passes and failures, repeated.
type behaviour struct {
	name    string
	pattern []bool // true: 200, false: 503
}

func repeat(fails, passes int) []bool {
	out := make([]bool, 0, fails+passes)
	for range fails {
		out = append(out, false)
	}
	for range passes {
		out = append(out, true)
	}
	return out
}

var (
	// steady homes always pass.
	steady = behaviour{name: "steady", pattern: []bool{true}}
	// fast homes fail twice and pass twice, over and over: one failure short of the
	// threshold, so they are never gated.
	fast = behaviour{name: "fast", pattern: repeat(failureThreshold-1, successThreshold)}
	// slow homes fail five times and pass five times: gated at the third failure, lifted
	// at the second pass, every 20 s.
	slow = behaviour{name: "slow", pattern: repeat(5, 5)}
)

// behaviourOf says how the home of service i on worker j behaves: one home in ten flaps,
// half of those fast and half slow. Homes are numbered across services, so no service
// has more than one flapping home and every service always has passing ones.
func behaviourOf(i, j int) behaviour {
	h := i*len(workers) + j
	switch {
	case h%10 != 7:
		return steady
	case (h/10)%2 == 0:
		return fast
	default:
		return slow
	}
}

// homeServer is one workload cluster's gateway: every service's endpoint on that cluster
// is a path on it, "/<service>", so the probe arrives at "/<service>/v1/models".
type homeServer struct {
	// host is the cluster's name for the server: the publisher refuses IP addresses as
	// backend hosts, so endpoints carry a name that the managers resolve to loopback
	// (--observer-host).
	host     string
	srv      *httptest.Server
	requests atomic.Int64
	homes    map[string]*home // by service; filled before the server starts
	connsMu  sync.Mutex
	conns    map[net.Conn]lastAnswer
}

// home is one service's endpoint on one cluster, and everything it answered.
type home struct {
	behaviour behaviour
	mu        sync.Mutex
	flapping  bool
	answered  int // since flapping began
	truth     homeTruth
}

func startHomeServer(t *testing.T, worker string, services int) *homeServer {
	s := &homeServer{host: worker + ".soak.test", homes: map[string]*home{}, conns: map[net.Conn]lastAnswer{}}
	j := workerIndex(worker)
	for i := range services {
		s.homes[serviceName(i)] = &home{behaviour: behaviourOf(i, j)}
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	s.srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) }
	s.srv.Config.ConnState = s.connState
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

// connKey carries a request's connection in its context.
type connKey struct{}

// lastAnswer is the answer a connection carried last.
type lastAnswer struct {
	home  *home
	index int
	at    time.Time
}

// connState marks an answer undelivered when its connection closes within a probe
// timeout of it with no request after it: the prober timed out, or died, before it
// read the answer (an idle keep-alive connection lives for 90 s).
func (s *homeServer) connState(c net.Conn, state http.ConnState) {
	if state != http.StateClosed && state != http.StateHijacked {
		return
	}
	s.connsMu.Lock()
	last, ok := s.conns[c]
	delete(s.conns, c)
	s.connsMu.Unlock()
	if ok && time.Since(last.at) < probeTimeout+answerSlack {
		last.home.mu.Lock()
		last.home.truth.undeliver(last.index)
		last.home.mu.Unlock()
	}
}

func workerIndex(worker string) int {
	for j, w := range workers {
		if w == worker {
			return j
		}
	}
	panic(fmt.Sprintf("no worker %q", worker))
}

func (s *homeServer) url(service string) string {
	return "http://" + net.JoinHostPort(s.host, strconv.Itoa(s.srv.Listener.Addr().(*net.TCPAddr).Port)) + "/" + service
}

func (s *homeServer) handle(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	service, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	h := s.homes[service]
	if h == nil {
		http.NotFound(w, r)
		return
	}
	now := time.Now()
	pass, index := h.answer(now)
	if c, ok := r.Context().Value(connKey{}).(net.Conn); ok {
		s.connsMu.Lock()
		s.conns[c] = lastAnswer{home: h, index: index, at: now}
		s.connsMu.Unlock()
	}
	if pass {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"model","object":"model"}]}`)
		return
	}
	http.Error(w, "unavailable", http.StatusServiceUnavailable)
}

// answer notes a probe that arrived at at and says whether it passes, and the answer's
// index.
func (h *home) answer(at time.Time) (bool, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	pass := true
	if h.flapping {
		pass = h.behaviour.pattern[h.answered%len(h.behaviour.pattern)]
		h.answered++
	}
	h.truth.add(answer{at: at, pass: pass})
	return pass, len(h.truth.answers) - 1
}

// startFlapping makes the home follow its pattern from its next answer on.
func (h *home) startFlapping() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.flapping = true
}

// withTruth runs f with the home's answers held still.
func (h *home) withTruth(f func(*homeTruth)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f(&h.truth)
}
