package modelserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Queue makes an Endpoint serve its traffic the way a loaded model server does: a few
// requests at a time, each for a while, and the rest waiting their turn, so that traffic
// sent through a gateway fills a server's queue. Probes are never queued.
type Queue struct {
	// Slots is how many requests are served at once, as a model server's largest batch.
	// 0 or less turns the queue off.
	Slots int
	// ServiceTime is how long one request holds its slot.
	ServiceTime time.Duration
	// PerToken, when not 0, is the time added to ServiceTime per token the request asks
	// for: max_tokens in its JSON body, or else its MaxTokensHeader.
	PerToken time.Duration
}

// QueueWaitHeader is the response header in which a queued answer gives how long its
// request waited for a slot, in milliseconds (with a fraction), so that a load generator
// can tell queue-wait percentiles from the client's side.
const QueueWaitHeader = "X-Queue-Wait-Ms"

// MaxTokensHeader gives the tokens a request asks for when its body has no max_tokens,
// for a client that sends no body (as the traffic package's GETs do).
const MaxTokensHeader = "X-Max-Tokens" //nolint:gosec // a header name, not a credential

const (
	// maxTokens bounds the tokens a request is served for, far beyond any model's context,
	// so that a huge ask cannot overflow its service time.
	maxTokens = 1 << 24
	// maxBodyRead is how much of a body is read looking for max_tokens.
	maxBodyRead = 1 << 20
	// statusClientClosedRequest is what an OnAnswer hook sees for a request whose client
	// left before it was served: nginx's 499, which no client ever receives.
	statusClientClosedRequest = 499
)

func (q Queue) on() bool { return q.Slots > 0 }

// SetQueue makes the endpoint queue its traffic as q says from now on; a Queue with no
// Slots turns the queue off, and traffic is answered at once again. Slots apply at once,
// also to the requests waiting: more slots (or none, the queue off) let waiting requests in
// now, fewer take no slot from a request holding one. A request's service time is fixed
// when it arrives, so ServiceTime and PerToken apply to the requests that arrive after.
func (e *Endpoint) SetQueue(q Queue) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !q.on() {
		q = Queue{}
	}
	e.queue = q
	e.slots.setLimit(q.Slots)
}

// QueueState is how many requests wait for a slot now and how many hold one, as read at
// one instant (the gauges on MetricsPath read the same).
func (e *Endpoint) QueueState() (waiting, running int) {
	waiting, running, _ = e.slots.state()
	return waiting, running
}

// serveInTurn has a traffic request wait for a slot and hold it for its service time, and
// says whether it is to be answered: false when its client left first, which the request
// is recorded as (statusClientClosedRequest). It gives the wait in QueueWaitHeader, and
// frees the slot before the answer is written, so that a client holding its answer sees
// the slot free in QueueState.
func (e *Endpoint) serveInTurn(w http.ResponseWriter, r *http.Request, q Queue) bool {
	service := q.serviceTime(r)
	arrived := time.Now()
	if err := e.slots.acquire(r.Context()); err != nil {
		w.WriteHeader(statusClientClosedRequest)
		return false
	}
	waited := time.Since(arrived)
	e.metrics.queueTime.Observe(waited.Seconds())
	w.Header().Set(QueueWaitHeader, strconv.FormatFloat(float64(waited)/float64(time.Millisecond), 'f', 3, 64))
	defer e.slots.release()
	if !holdFor(r.Context(), service) {
		w.WriteHeader(statusClientClosedRequest)
		return false
	}
	return true
}

// holdFor is a request's work: it takes d, unless the client leaves first, as a model
// server stops generating for a client that is gone. It says whether the client stayed.
func holdFor(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// serviceTime is how long r holds its slot.
func (q Queue) serviceTime(r *http.Request) time.Duration {
	if q.PerToken <= 0 {
		return q.ServiceTime
	}
	return q.ServiceTime + time.Duration(min(tokensAsked(r), maxTokens))*q.PerToken
}

// tokensAsked is the max_tokens of r's JSON body, or else its MaxTokensHeader, or else 0.
// The body is read to its end (or maxBodyRead), so that the server goes on to watch the
// connection and cancels the request's context when its client leaves.
func tokensAsked(r *http.Request) int64 {
	if r.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxBodyRead))
		var asked struct {
			MaxTokens *int64 `json:"max_tokens"`
		}
		if json.Unmarshal(body, &asked) == nil && asked.MaxTokens != nil {
			return max(*asked.MaxTokens, 0)
		}
	}
	n, err := strconv.ParseInt(r.Header.Get(MaxTokensHeader), 10, 64)
	if err != nil {
		return 0
	}
	return max(n, 0)
}
