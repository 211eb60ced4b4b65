package probing

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/schedule"
)

// reportServer answers capacity polls with its current servable count, observed at the
// time its clock says, or with status when that is not 200. With hang set, every answer
// waits for a value on release first (or for the poll to be cancelled). It counts the
// polls it answered and those in flight at once.
type reportServer struct {
	*httptest.Server
	servable              atomic.Int32
	status                atomic.Int32
	hang                  atomic.Bool
	release               chan struct{}
	total, now, maxAtOnce atomic.Int32
}

func newReportServer(t *testing.T, clk *clocktesting.FakeClock, servable int32) *reportServer {
	s := &reportServer{release: make(chan struct{})}
	s.servable.Store(servable)
	s.status.Store(http.StatusOK)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.now.Add(1)
		defer s.now.Add(-1)
		for m := s.maxAtOnce.Load(); n > m && !s.maxAtOnce.CompareAndSwap(m, n); m = s.maxAtOnce.Load() {
		}
		// Counted once answered, so a test that sees the count knows the answer is on
		// its way.
		defer s.total.Add(1)
		if s.hang.Load() {
			select {
			case <-s.release:
			case <-r.Context().Done():
				return
			}
		}
		if code := int(s.status.Load()); code != http.StatusOK {
			w.WriteHeader(code)
			return
		}
		fmt.Fprintf(w, `{"servable": %d, "observedAt": %q}`, s.servable.Load(), clk.Now().UTC().Format(time.RFC3339Nano))
	}))
	t.Cleanup(s.Close)
	return s
}

func testPoll(period, timeout time.Duration, quorum int32) capacity.Policy {
	return capacity.Policy{Path: "/capacity", Method: "GET", Format: capacity.FormatReport,
		Samples: 3, Quorum: quorum, Period: period, Timeout: timeout, MaxAge: time.Duration(quorum+1) * period}
}

func newTestObserver(t *testing.T, maxRequests int64) *observer.Observer {
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: maxRequests, MaxResponseBytes: 1024, AllowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(obs.Close)
	return obs
}

// fakePoller is a started poller on a fake clock. Its announcements are left in Events
// for the test to read.
type fakePoller struct {
	*Poller
	clk  *clocktesting.FakeClock
	stop func()
}

// startFakePoller starts a poller on obs, whose slots are maxRequests, on clk.
func startFakePoller(t *testing.T, obs *observer.Observer, maxRequests int, clk *clocktesting.FakeClock) *fakePoller {
	p := newPoller(obs, maxRequests, clk)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Start(ctx); close(done) }()
	stop := sync.OnceFunc(func() { cancel(); <-done })
	t.Cleanup(stop)
	return &fakePoller{Poller: p, clk: clk, stop: stop}
}

// startPollerFixture starts a poller on a fake clock and an observer of slots, and a
// report server answering servable on the same clock.
func startPollerFixture(t *testing.T, slots int, servable int32) (*fakePoller, *reportServer) {
	clk := clocktesting.NewFakeClock(epoch)
	srv := newReportServer(t, clk, servable)
	return startFakePoller(t, newTestObserver(t, int64(slots)), slots, clk), srv
}

func (f *fakePoller) stepTo(at time.Time) {
	if at.After(f.clk.Now()) {
		f.clk.SetTime(at)
	}
}

func (f *fakePoller) idle() bool { return f.engine.Idle() }

func (f *fakePoller) nextDue() time.Time {
	next, _ := f.engine.NextDue()
	return next
}

// poll moves the clock to the next due time and waits until the want-th poll of srv is
// answered and recorded.
func (f *fakePoller) poll(t *testing.T, srv *reportServer, want int32) {
	t.Helper()
	f.stepTo(f.nextDue())
	eventually(t, fmt.Sprintf("poll %d is answered", want), func() bool { return srv.total.Load() == want })
	eventually(t, fmt.Sprintf("poll %d is recorded", want), f.idle)
}

func (f *fakePoller) verdict(policy capacity.Policy, targets []PollTarget, cluster string) capacity.Ceiling {
	v, _ := f.Sync(testKey, policy, capacity.Digest(policy), targets)
	return v[cluster]
}

// A new home is first polled on its map's slot, not at once, and then every period.
func TestPollerPollsOnScheduleExactly(t *testing.T) {
	f, srv := startPollerFixture(t, 4, 2)
	policy := testPoll(10*time.Second, time.Second, 1)
	targets := []PollTarget{{Cluster: "worker-a", Endpoint: srv.URL}}
	f.Sync(testKey, policy, capacity.Digest(policy), targets)

	due := schedule.FirstDue(epoch, testKey.String(), policy.Period)
	if got := f.nextDue(); !got.Equal(due) {
		t.Fatalf("first poll due at %s, want the map's slot %s", got, due)
	}
	checkOnSchedule(t, f, srv.total.Load, 1, due, policy.Period, 3)
	if got := f.verdict(policy, targets, "worker-a"); got != (capacity.Ceiling{OK: true, Value: 2}) {
		t.Errorf("verdict = %+v, want capped at 2", got)
	}
}

// A poll that runs past its next slots skips them: one poll of a home at a time, no
// catch-up after it.
func TestPollerNeverOverlapsAHomeNorCatchesUp(t *testing.T) {
	f, srv := startPollerFixture(t, 4, 1)
	srv.hang.Store(true)
	policy := testPoll(10*time.Second, time.Hour, 1)
	f.Sync(testKey, policy, capacity.Digest(policy), []PollTarget{{Cluster: "worker-a", Endpoint: srv.URL}})
	first := f.nextDue()
	f.stepTo(first)
	eventually(t, "the poll is in flight", func() bool { return srv.now.Load() == 1 })
	// Three periods go by before it is answered.
	late := first.Add(3*policy.Period + time.Second)
	f.stepTo(late)
	if got := srv.total.Load() + srv.now.Load(); got != 1 {
		t.Fatalf("%d polls reached the endpoint while one was in flight, want 1", got)
	}
	srv.release <- struct{}{}
	eventually(t, "the late poll is recorded", func() bool { return srv.total.Load() == 1 && f.engine.Idle() })
	if got, want := f.nextDue(), schedule.FirstDue(late, testKey.String(), policy.Period); !got.Equal(want) {
		t.Errorf("after the late poll the next is due at %s, want the first slot after it, %s", got, want)
	}
	if got := srv.maxAtOnce.Load(); got != 1 {
		t.Errorf("a home had %d polls in flight at once, want 1", got)
	}
}

func TestPollerCapsAfterQuorumAndFallsBackOnFailure(t *testing.T) {
	f, srv := startPollerFixture(t, 4, 0)
	policy := testPoll(10*time.Second, time.Second, 2)
	targets := []PollTarget{{Cluster: "worker-b", Endpoint: srv.URL}}

	if got := f.verdict(policy, targets, "worker-b"); got.Reason != "no capacity report yet" {
		t.Fatalf("first verdict = %+v, want no report yet", got)
	}
	awaiting := capacity.Ceiling{Reason: capacity.AwaitingQuorum(1, 2)}
	for i, step := range []struct {
		status, servable int32
		want             capacity.Ceiling
	}{
		{http.StatusOK, 0, awaiting}, // one reading of a quorum of 2
		{http.StatusOK, 0, capacity.Ceiling{OK: true, Value: 0}},
		{http.StatusNotFound, 0, capacity.Ceiling{Reason: "capacity endpoint returned HTTP 404"}}, // the fallback
		{http.StatusOK, 1, awaiting},                                                              // a failure empties the window
		{http.StatusOK, 1, capacity.Ceiling{OK: true, Value: 1}},
	} {
		srv.status.Store(step.status)
		srv.servable.Store(step.servable)
		f.poll(t, srv, int32(i+1))
		if got := f.verdict(policy, targets, "worker-b"); got != step.want {
			t.Fatalf("after poll %d: %+v, want %+v", i+1, got, step.want)
		}
	}
}

func TestPollerStartsOverOnNewEndpointOrPolicy(t *testing.T) {
	f, srv := startPollerFixture(t, 4, 2)
	other := newReportServer(t, f.clk, 2)
	policy := testPoll(10*time.Second, time.Second, 1)
	targets := []PollTarget{{Cluster: "worker-a", Endpoint: srv.URL}}
	f.Sync(testKey, policy, capacity.Digest(policy), targets)
	f.poll(t, srv, 1)
	if got := f.verdict(policy, targets, "worker-a"); !got.OK {
		t.Fatalf("after a reading: %+v, want a ceiling", got)
	}

	moved := []PollTarget{{Cluster: "worker-a", Endpoint: other.URL}}
	if got := f.verdict(policy, moved, "worker-a"); got.Reason != "no capacity report yet" {
		t.Errorf("after an endpoint change: %+v, want an empty window", got)
	}
	f.poll(t, other, 1)
	if got := f.verdict(policy, moved, "worker-a"); !got.OK {
		t.Fatalf("after a reading at the new endpoint: %+v, want a ceiling", got)
	}
	changed := policy
	changed.Samples = 2
	if got := f.verdict(changed, moved, "worker-a"); got.Reason != "no capacity report yet" {
		t.Errorf("after a setting change: %+v, want an empty window", got)
	}
	if got := srv.total.Load(); got != 1 {
		t.Errorf("the old endpoint got %d polls, want 1: it is not polled once the home moved", got)
	}
}

func TestPollerNextExpiry(t *testing.T) {
	f, srv := startPollerFixture(t, 4, 1)
	policy := testPoll(10*time.Second, time.Second, 1)
	targets := []PollTarget{{Cluster: "worker-a", Endpoint: srv.URL}}
	if _, expiry := f.Sync(testKey, policy, capacity.Digest(policy), targets); !expiry.IsZero() {
		t.Errorf("Sync() gave an expiry for an empty window")
	}
	f.poll(t, srv, 1)
	observed := f.clk.Now().Truncate(time.Nanosecond) // the report's observedAt
	if _, expiry := f.Sync(testKey, policy, capacity.Digest(policy), targets); !expiry.Equal(observed.Add(policy.MaxAge)) {
		t.Errorf("Sync() gave expiry %s, want the reading's observedAt plus maxAge, %s", expiry, observed.Add(policy.MaxAge))
	}
}

// The poller dispatches at most half the observer's slots at once, and a map's homes go
// out one after another as the earlier ones finish.
func TestPollerCapsPollsInFlight(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch)
	srv := newReportServer(t, clk, 1)
	srv.hang.Store(true)
	f := startFakePoller(t, newTestObserver(t, 64), 4, clk)
	policy := testPoll(10*time.Second, time.Hour, 1)
	var targets []PollTarget
	for i := range 10 {
		targets = append(targets, PollTarget{Cluster: fmt.Sprintf("worker-%d", i), Endpoint: srv.URL})
	}
	f.Sync(testKey, policy, capacity.Digest(policy), targets)
	f.stepTo(f.nextDue())
	eventually(t, "two polls are in flight", func() bool { return srv.now.Load() == 2 })
	if st := f.engine.Stats(); st.Running != 2 || st.Held != 8 {
		t.Fatalf("stats %+v, want 2 polls in flight (half of 4 slots; the observer would allow 64) and 8 held", st)
	}
	for range 10 {
		srv.release <- struct{}{} // one answer at a time; each frees room for the next
	}
	eventually(t, "every home is polled", func() bool { return srv.total.Load() == 10 })
	if got := srv.maxAtOnce.Load(); got != 2 {
		t.Errorf("the endpoint saw %d polls at once, want the poller's cap of 2", got)
	}
}

// A map is announced once a round, and only when a verdict changed.
func TestPollerAnnouncesVerdictChangesOncePerRound(t *testing.T) {
	f, srv := startPollerFixture(t, 8, 1)
	policy := testPoll(10*time.Second, time.Second, 1)
	var targets []PollTarget
	for i := range 3 {
		targets = append(targets, PollTarget{Cluster: fmt.Sprintf("worker-%d", i), Endpoint: srv.URL})
	}
	f.Sync(testKey, policy, capacity.Digest(policy), targets)
	for i, step := range []struct {
		servable  int32
		announced int
	}{
		{1, 1}, // no report yet to capped at 1: every home changed, one announcement
		{1, 0}, // the same readings: nothing to announce
		{0, 1}, // capped at 0 (the lowest of the last three readings, with a quorum of 1)
	} {
		srv.servable.Store(step.servable)
		f.poll(t, srv, 3*int32(i+1))
		if got := len(f.Events()); got != step.announced {
			t.Fatalf("round %d: %d announcements, want %d", i+1, got, step.announced)
		}
		for range step.announced {
			if e := <-f.Events(); e.Object.GetName() != testKey.Name || e.Object.GetNamespace() != testKey.Namespace {
				t.Fatalf("announced %s/%s, want %s", e.Object.GetNamespace(), e.Object.GetName(), testKey)
			}
		}
	}
}

// Stopping the poller cancels the polls in flight; their results are thrown away. Forget
// stops polling a map.
func TestPollerDiscardsCancelledPollsAndForgets(t *testing.T) {
	f, srv := startPollerFixture(t, 4, 1)
	policy := testPoll(10*time.Second, time.Hour, 1)
	targets := []PollTarget{{Cluster: "worker-a", Endpoint: srv.URL}}
	other := types.NamespacedName{Namespace: "ns", Name: "other"}
	f.Sync(other, policy, capacity.Digest(policy), targets)
	f.Forget(other)
	f.Sync(testKey, policy, capacity.Digest(policy), targets)
	f.poll(t, srv, 1)
	if st := f.engine.Stats(); st.Queued != 1 {
		t.Fatalf("after Forget and one Sync: %d homes queued, want 1", st.Queued)
	}

	srv.hang.Store(true)
	f.stepTo(f.nextDue())
	eventually(t, "a poll is in flight", func() bool { return srv.now.Load() == 1 })
	f.stop()
	if len(f.Events()) != 1 {
		t.Errorf("%d announcements, want the first poll's only", len(f.Events()))
	}
	if got := f.verdict(policy, targets, "worker-a"); got != (capacity.Ceiling{OK: true, Value: 1}) {
		t.Errorf("a poll cancelled by the stop changed the verdict to %+v", got)
	}
}

// At saturation, one service's polls (every one hanging) must not starve another
// service's probes: the poller takes at most half the observer's slots, so a probe always
// has one. Counted, not timed: while one poll holds its slot and the rest wait in the
// poller, round after round of probes is answered, and no other poll reaches the endpoint.
func TestPollsDoNotStarveAnotherServicesProbes(t *testing.T) {
	const slots = 2
	clk := clocktesting.NewFakeClock(epoch)
	obs := newTestObserver(t, slots)
	hanging := newReportServer(t, clk, 1)
	hanging.hang.Store(true)
	fast := newCountingServer(t)

	poller := startFakePoller(t, obs, slots, clk)
	prober := newProber(obs, slots, clk)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = prober.Start(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	// Service "heavy": 40 homes, every poll due at once and hanging.
	poll := testPoll(time.Hour, time.Hour, 1)
	var targets []PollTarget
	for i := range 40 {
		targets = append(targets, PollTarget{Cluster: fmt.Sprintf("worker-%02d", i), Endpoint: hanging.URL})
	}
	heavy := types.NamespacedName{Namespace: "ns", Name: "heavy"}
	poller.Sync(heavy, poll, capacity.Digest(poll), targets)
	poller.stepTo(poller.nextDue())
	eventually(t, "a poll holds a slot", func() bool { return hanging.now.Load() == 1 })

	// Service "light": one home probed every 10s.
	policy := testPolicy(10*time.Second, 5*time.Second)
	light := types.NamespacedName{Namespace: "ns", Name: "light"}
	probeTargets := []ProbeTarget{{Cluster: "worker-a", Endpoint: fast.URL}}
	prober.Sync(light, "", policy, probe.Digest(policy), probeTargets)
	for round := int32(1); round <= 5; round++ {
		eventually(t, fmt.Sprintf("probe %d is answered", round), func() bool { return fast.total.Load() == round })
		eventually(t, fmt.Sprintf("probe %d is recorded", round), prober.engine.Idle)
		next, _ := prober.engine.NextDue()
		if next.After(clk.Now()) {
			clk.SetTime(next)
		}
	}
	if got := hanging.now.Load() + hanging.total.Load(); got != 1 {
		t.Errorf("%d polls reached the endpoint while the first hung, want 1", got)
	}
	if st := poller.engine.Stats(); st.Running != 1 || st.Held != 39 {
		t.Errorf("poller stats %+v, want 1 poll in flight and 39 held", st)
	}
}
