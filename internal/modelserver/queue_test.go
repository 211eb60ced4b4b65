package modelserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ome-routing/operator/internal/poll"
)

// serviceTime is the queued requests' service time in these tests: long enough to tell
// one request served after another, short enough to keep the tests fast.
const serviceTime = 30 * time.Millisecond

// blockerTokens, at a millisecond per token, holds a slot for hours: a blocker holds its
// slot until its client leaves, so a test decides when the queue moves.
const blockerTokens = 1 << 22

// Traffic requests are served one at a time with one slot, first come first served: while
// the first holds the slot the others wait, and each waits a service time longer than the
// one before it in line.
func TestQueueServesTrafficOneAtATimeInArrivalOrder(t *testing.T) {
	e := startEndpoint(t)
	e.SetQueue(Queue{Slots: 1, ServiceTime: serviceTime, PerToken: time.Millisecond})
	unblock, blocker := startBlocker(t, e)
	const waiters = 4
	var answers [waiters]<-chan trafficAnswer
	for i := range answers {
		answers[i] = sendTraffic(context.Background(), e, nil)
		// The next one is sent once this one is in line, so their order is known.
		waitForQueue(t, e, i+1, 1)
	}
	unblock()
	if a := <-blocker; a.err == nil {
		t.Fatalf("the blocker was answered %d after its client left", a.status)
	}
	for i, ch := range answers {
		a := <-ch
		if a.err != nil || a.status != http.StatusOK || !a.queued {
			t.Fatalf("waiter %d: %+v, want 200 with %s", i, a, QueueWaitHeader)
		}
		// Every waiter came before the blocker left, and the slot goes to one waiter a
		// service time after the other: so waiter i waits more than i service times. Two
		// served at once, or out of turn, would wait less.
		if least := float64(i) * float64(serviceTime) / float64(time.Millisecond); a.waitMs <= least {
			t.Fatalf("waiter %d waited %.3fms, want more than %.3fms", i, a.waitMs, least)
		}
	}
	// A slot is freed before its answer is written, so the queue is empty by now.
	if w, r := e.QueueState(); w != 0 || r != 0 {
		t.Fatalf("after every answer %d wait and %d run", w, r)
	}
}

// A probe is answered at once while the queue is full: it sees the server's health, not
// its load.
func TestProbeIsNotQueued(t *testing.T) {
	e := startEndpoint(t)
	e.SetQueue(Queue{Slots: 1, ServiceTime: serviceTime, PerToken: time.Millisecond})
	unblock, _ := startBlocker(t, e)
	defer unblock()
	waiter := sendTraffic(context.Background(), e, nil)
	waitForQueue(t, e, 1, 1)
	resp, err := http.Get(e.URL() + ProbePath)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get(QueueWaitHeader) != "" {
		t.Fatalf("the probe answered %d with %s %q, want 200 and none", resp.StatusCode, QueueWaitHeader, resp.Header.Get(QueueWaitHeader))
	}
	if w, r := e.QueueState(); w != 1 || r != 1 {
		t.Fatalf("after the probe %d wait and %d run, want the blocker running and the waiter waiting", w, r)
	}
	unblock()
	if a := <-waiter; a.status != http.StatusOK {
		t.Fatalf("the waiter: %+v", a)
	}
}

// A client that leaves while waiting leaves the queue: it takes no slot, and the one
// behind it is served next.
func TestClientLeavingWhileWaitingLeavesTheQueue(t *testing.T) {
	e := startEndpoint(t)
	e.SetQueue(Queue{Slots: 1, ServiceTime: serviceTime, PerToken: time.Millisecond})
	statuses := make(chan int, 10)
	e.OnAnswer(func(a Answer) { statuses <- a.Status })
	unblock, _ := startBlocker(t, e)
	leaverCtx, leave := context.WithCancel(context.Background())
	leaver := sendTraffic(leaverCtx, e, nil)
	waitForQueue(t, e, 1, 1)
	stayer := sendTraffic(context.Background(), e, nil)
	waitForQueue(t, e, 2, 1)
	leave()
	if a := <-leaver; a.err == nil {
		t.Fatalf("the client that left was answered %d", a.status)
	}
	if s := <-statuses; s != statusClientClosedRequest {
		t.Fatalf("the request whose client left was recorded as %d, want %d", s, statusClientClosedRequest)
	}
	waitForQueue(t, e, 1, 1)
	unblock()
	if a := <-stayer; a.status != http.StatusOK || !a.queued {
		t.Fatalf("the one behind it: %+v", a)
	}
	if w, r := e.QueueState(); w != 0 || r != 0 {
		t.Fatalf("after every answer %d wait and %d run", w, r)
	}
}

// Turning the queue off lets the requests waiting in at once and answers traffic as
// before: at once, unqueued, without a wait header.
func TestQueueOffAnswersTrafficAtOnce(t *testing.T) {
	e := startEndpoint(t)
	e.SetQueue(Queue{Slots: 1, ServiceTime: serviceTime, PerToken: time.Millisecond})
	unblock, _ := startBlocker(t, e)
	defer unblock()
	waiter := sendTraffic(context.Background(), e, nil)
	waitForQueue(t, e, 1, 1)
	e.SetQueue(Queue{})
	// The blocker still holds its slot: only the lifted limit lets the waiter in.
	if a := <-waiter; a.status != http.StatusOK || !a.queued {
		t.Fatalf("the waiter after the queue was turned off: %+v", a)
	}
	var answers [5]<-chan trafficAnswer
	for i := range answers {
		answers[i] = sendTraffic(context.Background(), e, nil)
	}
	for i, ch := range answers {
		if a := <-ch; a.err != nil || a.status != http.StatusOK || a.queued {
			t.Fatalf("request %d with the queue off: %+v, want 200 without %s", i, a, QueueWaitHeader)
		}
	}
	if w, r := e.QueueState(); w != 0 || r != 1 {
		t.Fatalf("with the queue off %d wait and %d run, want only the blocker running", w, r)
	}
}

// A request asking for tokens holds its slot PerToken longer for each, whether it asks in
// a JSON body's max_tokens or in MaxTokensHeader.
func TestServiceTimeGrowsWithTheTokensAsked(t *testing.T) {
	e := startEndpoint(t)
	e.SetQueue(Queue{Slots: 1, ServiceTime: serviceTime, PerToken: time.Millisecond})
	for _, c := range []struct {
		name   string
		header http.Header
		body   string
	}{
		{"max_tokens in the body", http.Header{"Content-Type": {"application/json"}}, `{"model":"` + ModelID + `","max_tokens":40}`},
		{MaxTokensHeader, http.Header{MaxTokensHeader: {"40"}}, ""},
	} {
		req, err := http.NewRequest(http.MethodGet, e.URL()+ProbePath, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = c.header
		req.Header.Set(TrafficHeader, "1")
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if took, least := time.Since(start), serviceTime+40*time.Millisecond; resp.StatusCode != http.StatusOK || took < least {
			t.Fatalf("%s: answered %d in %s, want 200 after at least %s", c.name, resp.StatusCode, took, least)
		}
	}
}

func TestTokensAsked(t *testing.T) {
	for _, c := range []struct {
		name, body, header string
		want               int64
	}{
		{"body", `{"max_tokens": 12}`, "", 12},
		{"body before header", `{"max_tokens": 12}`, "7", 12},
		{"body without max_tokens", `{"prompt": "hi"}`, "7", 7},
		{"not JSON", `max_tokens=12`, "7", 7},
		{"header only", "", "7", 7},
		{"neither", "", "", 0},
		{"negative", `{"max_tokens": -3}`, "", 0},
		{"bad header", "", "many", 0},
	} {
		r := httptest.NewRequest(http.MethodPost, ProbePath, strings.NewReader(c.body))
		if c.header != "" {
			r.Header.Set(MaxTokensHeader, c.header)
		}
		if got := tokensAsked(r); got != c.want {
			t.Errorf("%s: %d tokens, want %d", c.name, got, c.want)
		}
	}
}

func TestServersSetQueueNamesACluster(t *testing.T) {
	s, err := StartServers("test", []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetQueue("b", Queue{Slots: 1}); err == nil {
		t.Fatal("no error for a cluster without a server")
	}
	if err := s.SetQueue("a", Queue{Slots: 1, ServiceTime: serviceTime}); err != nil {
		t.Fatal(err)
	}
	if s.Endpoints["a"].queue.Slots != 1 {
		t.Fatal("the cluster's server has no queue")
	}
}

func startEndpoint(t *testing.T) *Endpoint {
	t.Helper()
	e, err := StartEndpoint(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// trafficAnswer is what became of one traffic request.
type trafficAnswer struct {
	status int
	// queued says the answer carried QueueWaitHeader, waitMs its value.
	queued bool
	waitMs float64
	err    error
}

// sendTraffic sends one traffic request to ProbePath in the background, with header's
// fields too; its answer comes on the channel.
func sendTraffic(ctx context.Context, e *Endpoint, header http.Header) <-chan trafficAnswer {
	out := make(chan trafficAnswer, 1)
	go func() {
		var a trafficAnswer
		defer func() { out <- a }()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL()+ProbePath, nil)
		if err != nil {
			a.err = err
			return
		}
		for k, v := range header {
			req.Header[k] = v
		}
		req.Header.Set(TrafficHeader, "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			a.err = err
			return
		}
		_ = resp.Body.Close()
		a.status = resp.StatusCode
		if v := resp.Header.Get(QueueWaitHeader); v != "" {
			a.queued = true
			a.waitMs, a.err = strconv.ParseFloat(v, 64)
		}
	}()
	return out
}

// startBlocker sends a traffic request that takes a slot (the queue must have PerToken of
// a millisecond) and holds it until unblock is called, which makes its client leave. It
// waits until the blocker holds its slot.
func startBlocker(t *testing.T, e *Endpoint) (unblock func(), answer <-chan trafficAnswer) {
	t.Helper()
	_, running := e.QueueState()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	answer = sendTraffic(ctx, e, http.Header{MaxTokensHeader: {strconv.Itoa(blockerTokens)}})
	waitForQueue(t, e, 0, running+1)
	return cancel, answer
}

// waitForQueue waits until e has waiting requests in line and running holding slots.
func waitForQueue(t *testing.T, e *Endpoint, waiting, running int) {
	t.Helper()
	err := poll.Until(context.Background(), time.Millisecond, 5*time.Second, func(context.Context) error {
		if w, r := e.QueueState(); w != waiting || r != running {
			return fmt.Errorf("%d waiting and %d running, want %d and %d", w, r, waiting, running)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
