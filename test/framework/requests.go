package framework

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/rest"
)

// Request is one request a client sent to an API server, as Requests records it.
type Request struct {
	// Verb is the HTTP method, LIST for a GET of a collection and WATCH for a watch.
	Verb string
	// Resource is the resource and, after a slash, the subresource: "trafficmaps/status".
	Resource  string
	Namespace string
	// Name is the object's name, empty for a collection.
	Name string
	// FieldManager is the request's fieldManager parameter (server-side apply and patches).
	FieldManager string
}

// Key is the request as "VERB resource", e.g. "PATCH httproutes".
func (r Request) Key() string { return r.Verb + " " + r.Resource }

// Requests records, in order, the requests of the clients made from the configs it
// wraps: what a manager asks of an API server, counted on the manager's side of the wire.
type Requests struct {
	mu  sync.Mutex
	log []Request
	// hold is a request to keep waiting: match picks it, held is closed when one waits,
	// and release lets it (and every later match) go.
	hold *Held
}

// Held is a hold on requests (see Requests.Hold).
type Held struct {
	match   func(Request) bool
	waiting atomic.Int64
	once    sync.Once
	release chan struct{}
}

// Waiting is how many requests wait on the hold now.
func (h *Held) Waiting() int64 { return h.waiting.Load() }

// Release lets every held request go, and every later one through.
func (h *Held) Release() { h.once.Do(func() { close(h.release) }) }

// Wrap returns a copy of cfg whose requests Requests records.
func (rs *Requests) Wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &recordingTripper{requests: rs, next: rt} })
	return cfg
}

// Reset forgets what was recorded so far.
func (rs *Requests) Reset() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.log = nil
}

// Log is what was recorded since the last Reset, in the order sent.
func (rs *Requests) Log() []Request {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]Request(nil), rs.log...)
}

// Count is how many recorded requests match.
func (rs *Requests) Count(match func(Request) bool) int {
	n := 0
	for _, r := range rs.Log() {
		if match(r) {
			n++
		}
	}
	return n
}

// Hold makes the requests that match wait before they are sent, until Release. Each
// client that sent one is stuck on it meanwhile, which is how a test keeps a controller's
// workers busy for as long as it needs, without guessing at times: Waiting says how many
// are.
func (rs *Requests) Hold(match func(Request) bool) *Held {
	h := &Held{match: match, release: make(chan struct{})}
	rs.mu.Lock()
	rs.hold = h
	rs.mu.Unlock()
	return h
}

type recordingTripper struct {
	requests *Requests
	next     http.RoundTripper
}

func (t *recordingTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	r := ParseRequest(req)
	t.requests.mu.Lock()
	if r.Verb != "WATCH" {
		t.requests.log = append(t.requests.log, r)
	}
	h := t.requests.hold
	t.requests.mu.Unlock()
	if h != nil && h.match(r) {
		h.waiting.Add(1)
		select {
		case <-h.release:
			h.waiting.Add(-1)
		case <-req.Context().Done():
			h.waiting.Add(-1)
			return nil, req.Context().Err()
		}
	}
	return t.next.RoundTrip(req)
}

// ParseRequest reads the verb, resource, namespace and name an API request names.
func ParseRequest(req *http.Request) Request {
	q := req.URL.Query()
	r := Request{Verb: req.Method, FieldManager: q.Get("fieldManager")}
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	// /api/v1/... or /apis/<group>/<version>/...
	switch {
	case len(parts) > 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) > 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		r.Resource = req.URL.Path
		return r
	}
	if len(parts) >= 2 && parts[0] == "namespaces" && len(parts) > 2 {
		r.Namespace, parts = parts[1], parts[2:]
	}
	if len(parts) > 0 {
		r.Resource = parts[0]
	}
	if len(parts) > 1 {
		r.Name = parts[1]
	}
	if len(parts) > 2 {
		r.Resource += "/" + parts[2]
	}
	switch {
	case q.Get("watch") == "true":
		r.Verb = "WATCH"
	case req.Method == http.MethodGet && r.Name == "":
		r.Verb = "LIST"
	}
	return r
}
