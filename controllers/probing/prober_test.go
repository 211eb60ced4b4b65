package probing

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/schedule"
)

// testProbePath is the path of testPolicy: the servers answer only there, so a probe sent
// anywhere else gets a 404 and is seen in the recorded requests.
const testProbePath = "/v1/models"

// countingServer answers with status on testProbePath only (404 elsewhere), records the
// method and path of every request, and counts requests in total and in flight at once.
// With hold set, every answer waits for a value on release first, so that a test decides
// when a probe finishes.
type countingServer struct {
	*httptest.Server
	status                atomic.Int32
	total, now, maxAtOnce atomic.Int32
	hold                  atomic.Bool
	release               chan struct{}

	mu   sync.Mutex
	seen []string
}

func newCountingServer(t *testing.T) *countingServer {
	s := &countingServer{release: make(chan struct{})}
	s.status.Store(http.StatusOK)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		n := s.now.Add(1)
		defer s.now.Add(-1)
		for m := s.maxAtOnce.Load(); n > m && !s.maxAtOnce.CompareAndSwap(m, n); m = s.maxAtOnce.Load() {
		}
		if s.hold.Load() {
			select {
			case <-s.release:
			case <-r.Context().Done():
			}
		}
		// Counted once answered, so a test that sees the count knows the answer is on
		// its way.
		defer s.total.Add(1)
		if r.URL.Path != testProbePath {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(int(s.status.Load()))
	}))
	t.Cleanup(s.Close)
	return s
}

// requests is the "METHOD path" of every request so far.
func (s *countingServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

func testPolicy(period, timeout time.Duration) probe.Policy {
	return probe.Policy{
		Path: testProbePath, Method: "GET",
		AcceptStatuses: []int32{200}, GateStatuses: []int32{503},
		Period: period, Timeout: timeout, FailureThreshold: 2, SuccessThreshold: 1,
		AllFailedPolicy: omev1beta1.AllFailedPreserveTraffic,
	}
}

// epoch is where the fake clocks start.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fakeProber is a started prober on a fake clock: due times are exact and come only when
// the test steps the clock.
type fakeProber struct {
	*Prober
	clk  *clocktesting.FakeClock
	stop func()
}

// startFakeProber starts a prober with maxInFlight dispatch slots on a fake clock. Its
// announcements are left in Events for the test to read.
func startFakeProber(t *testing.T, maxInFlight int) *fakeProber {
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: 64, MaxResponseBytes: 1024, AllowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(epoch)
	p := newProber(obs, maxInFlight, clk)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Start(ctx); close(done) }()
	stop := sync.OnceFunc(func() { cancel(); <-done })
	t.Cleanup(func() { stop(); obs.Close() })
	return &fakeProber{Prober: p, clk: clk, stop: stop}
}

// stepTo moves the fake clock forward to at. It never moves it back: at is often the
// queue's next due time, which is the zero time once the prober has already taken the
// home out of the queue to send it, and a clock set back to the zero time would stamp
// results with a time that reads as "none".
func (f *fakeProber) stepTo(at time.Time) {
	if at.After(f.clk.Now()) {
		f.clk.SetTime(at)
	}
}

// state is a home's current state.
func (p *Prober) state(key types.NamespacedName, cluster string) (probe.State, bool) {
	p.engine.Lock()
	defer p.engine.Unlock()
	g := p.maps[key]
	if g == nil || g.Home(cluster) == nil {
		return probe.State{}, false
	}
	return g.Home(cluster).Data.state, true
}

// idle reports whether every probe sent so far is recorded and, if it announced, its
// announcement sent.
func (p *Prober) idle() bool { return p.engine.Idle() }

// nextDue is the earliest due time in the queue.
func (p *Prober) nextDue() time.Time {
	next, _ := p.engine.NextDue()
	return next
}

// eventually waits for cond, polling; it fails the test after ten seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var testKey = types.NamespacedName{Namespace: "ns", Name: "svc"}

const testUID = types.UID("6b1c0e4a-0000-4000-8000-000000000001")

func TestProberProbesOnScheduleExactly(t *testing.T) {
	srv := newCountingServer(t)
	f := startFakeProber(t, 4)
	policy := testPolicy(10*time.Second, time.Second)
	f.Sync(testKey, testUID, policy, probe.Digest(policy), []ProbeTarget{{Cluster: "worker-a", Endpoint: srv.URL + "/"}})

	// A new home is probed at once, without moving the clock.
	eventually(t, "the first probe is answered", func() bool { return srv.total.Load() == 1 })
	eventually(t, "the first probe is recorded", f.idle)
	// Then it joins the map's slot, at least half a period later, and keeps to it.
	due := schedule.FirstDue(epoch.Add(policy.Period/2), testKey.String(), policy.Period)
	if got := f.nextDue(); !got.Equal(due) {
		t.Fatalf("second probe due at %s, want the map's slot %s", got, due)
	}
	checkOnSchedule(t, f, srv.total.Load, 2, due, policy.Period, 3)
	want := []string{"GET /v1/models", "GET /v1/models", "GET /v1/models", "GET /v1/models"}
	if got := srv.requests(); !slices.Equal(got, want) {
		t.Errorf("requests = %q, want %q (the endpoint joined with the probe path, the policy's method)", got, want)
	}
	if st, _ := f.state(testKey, "worker-a"); st.Result != omev1beta1.ProbePassing || st.Message != "HTTP 200" {
		t.Errorf("state = %+v, want Passing HTTP 200", st)
	}
}

// TestProberFirstProbeAfterRestart: a home restored from its record is probed one period
// after its lastProbeTime, or at once when that has passed, so a restart costs no time
// towards a gate; a record made under another policy does not count.
func TestProberFirstProbeAfterRestart(t *testing.T) {
	policy := testPolicy(10*time.Second, time.Second)
	digest := probe.Digest(policy)
	record := func(digest string, ago time.Duration) *omev1beta1.TrafficMapProbe {
		last := metav1.NewTime(epoch.Add(-ago))
		return &omev1beta1.TrafficMapProbe{PolicyDigest: digest, Result: omev1beta1.ProbeFailing, Message: "HTTP 503",
			Gated: true, ConsecutiveFailures: 3, LastProbeTime: &last}
	}
	tests := []struct {
		name      string
		persisted *omev1beta1.TrafficMapProbe
		want      time.Time
	}{
		{"never probed", nil, epoch},
		{"probed 3s before the restart", record(digest, 3*time.Second), epoch.Add(7 * time.Second)},
		{"probed a minute before the restart", record(digest, time.Minute), epoch},
		{"probed 3s before, under another policy", record("other", 3*time.Second), epoch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProber(nil, 1, clocktesting.NewFakeClock(epoch)) // never started: only the schedule is looked at
			p.Sync(testKey, testUID, policy, digest, []ProbeTarget{{Cluster: "worker-a", Endpoint: "http://x", Persisted: tt.persisted}})
			if got := p.nextDue(); !got.Equal(tt.want) {
				t.Fatalf("first probe due at epoch%+v, want epoch%+v", got.Sub(epoch), tt.want.Sub(epoch))
			}
		})
	}
}

func TestProberSendsThePolicysMethodToTheJoinedPath(t *testing.T) {
	srv := newCountingServer(t)
	f := startFakeProber(t, 4)
	policy := testPolicy(10*time.Second, time.Second)
	policy.Method = http.MethodHead
	f.Sync(testKey, testUID, policy, probe.Digest(policy), []ProbeTarget{{Cluster: "worker-a", Endpoint: srv.URL}})
	f.stepTo(f.nextDue())
	eventually(t, "the probe is answered", func() bool { return srv.total.Load() == 1 })
	if got, want := srv.requests(), []string{"HEAD /v1/models"}; !slices.Equal(got, want) {
		t.Errorf("requests = %q, want %q", got, want)
	}
}

func TestProberGatesAndNeverOverlapsAHome(t *testing.T) {
	srv := newCountingServer(t)
	srv.status.Store(http.StatusServiceUnavailable)
	srv.hold.Store(true)
	f := startFakeProber(t, 4)
	policy := testPolicy(10*time.Second, 5*time.Second)
	digest := probe.Digest(policy)
	targets := []ProbeTarget{{Cluster: "worker-a", Endpoint: srv.URL}}
	f.Sync(testKey, testUID, policy, digest, targets)

	// A new home: probed at once.
	eventually(t, "the first probe is in flight", func() bool { return srv.now.Load() == 1 })
	// The answer takes three periods: no second probe may start meanwhile.
	answered := epoch.Add(3*policy.Period + time.Second)
	f.stepTo(answered)
	srv.release <- struct{}{}
	eventually(t, "the first probe is recorded", func() bool { st, _ := f.state(testKey, "worker-a"); return st.Probed })
	eventually(t, "the first probe is recorded", f.idle)
	// The slots it ran over are skipped, not caught up.
	next := schedule.FirstDue(answered, testKey.String(), policy.Period)
	if got := f.nextDue(); !got.Equal(next) {
		t.Fatalf("next probe due at %s, want the first slot after the late answer, %s", got, next)
	}
	f.stepTo(next)
	eventually(t, "the second probe is in flight", func() bool { return srv.now.Load() == 1 })
	srv.release <- struct{}{}
	eventually(t, "the home is gated", func() bool { st, _ := f.state(testKey, "worker-a"); return st.Gated })

	st, _ := f.state(testKey, "worker-a")
	if st.Message != "HTTP 503" || st.Result != omev1beta1.ProbeFailing || st.ConsecutiveFailures != 2 {
		t.Errorf("state = %+v, want Failing HTTP 503 twice", st)
	}
	if got := srv.maxAtOnce.Load(); got != 1 {
		t.Errorf("a home had %d probes in flight at once, want 1", got)
	}
}

func TestProberForgetStopsProbing(t *testing.T) {
	srv := newCountingServer(t)
	f := startFakeProber(t, 4)
	policy := testPolicy(10*time.Second, time.Second)
	f.Sync(testKey, testUID, policy, probe.Digest(policy), []ProbeTarget{{Cluster: "worker-a", Endpoint: srv.URL}})
	first := f.nextDue()
	f.stepTo(first)
	eventually(t, "the home is probed", func() bool { return srv.total.Load() == 1 })
	eventually(t, "the probe is recorded", f.idle)

	f.Forget(testKey)
	f.engine.Lock()
	maps := len(f.maps)
	f.engine.Unlock()
	queued := f.engine.Stats().Queued
	if queued != 0 || maps != 0 {
		t.Fatalf("after Forget %d homes are queued and %d maps kept, want none", queued, maps)
	}
	f.stepTo(first.Add(5 * policy.Period))
	if got := srv.total.Load(); got != 1 {
		t.Errorf("after Forget the endpoint got %d more requests", got-1)
	}
}

func TestProberSyncSeedsFromThePersistedBlock(t *testing.T) {
	p := NewProber(nil, 1) // never started: Sync alone decides the states
	policy := testPolicy(time.Hour, time.Second)
	digest := probe.Digest(policy)
	now := metav1.Now()
	persisted := &omev1beta1.TrafficMapProbe{PolicyDigest: digest, Result: omev1beta1.ProbeFailing,
		Message: "HTTP 503", Gated: true, ConsecutiveFailures: 5, LastProbeTime: &now}

	st := p.Sync(testKey, testUID, policy, digest, []ProbeTarget{{Cluster: "worker-a", Endpoint: "http://x", Persisted: persisted}})
	if !st["worker-a"].Gated || st["worker-a"].ConsecutiveFailures != 5 {
		t.Errorf("same digest: state = %+v, want the persisted gate and count", st["worker-a"])
	}

	other := testPolicy(time.Hour, 2*time.Second)
	st = p.Sync(testKey, testUID, other, probe.Digest(other), []ProbeTarget{{Cluster: "worker-a", Endpoint: "http://x", Persisted: persisted}})
	if st["worker-a"].Gated || st["worker-a"].ConsecutiveFailures != 0 || st["worker-a"].Record() != nil {
		t.Errorf("another digest: state = %+v, want a fresh start", st["worker-a"])
	}

	st = p.Sync(testKey, testUID, other, probe.Digest(other), nil)
	if len(st) != 0 || p.engine.Stats().Queued != 0 {
		t.Errorf("a home left out of targets must stop being scheduled: states %v, queue %d", st, p.engine.Stats().Queued)
	}
}

func TestProberDiscardsCancelledProbes(t *testing.T) {
	srv := newCountingServer(t)
	srv.hold.Store(true)
	f := startFakeProber(t, 4)
	policy := testPolicy(10*time.Second, 5*time.Second)
	f.Sync(testKey, testUID, policy, probe.Digest(policy), []ProbeTarget{{Cluster: "worker-a", Endpoint: srv.URL}})
	f.stepTo(f.nextDue())
	eventually(t, "a probe is in flight", func() bool { return srv.now.Load() == 1 })

	// Shutting down (or losing leadership) cancels the probe in flight. The map and its
	// home are still there, so a result that slipped through would show in the state.
	f.stop()
	st, ok := f.state(testKey, "worker-a")
	if !ok {
		t.Fatal("the home's state is gone")
	}
	if st.Probed || st.ConsecutiveFailures != 0 {
		t.Errorf("a probe cancelled by shutdown was counted: %+v", st)
	}
	if len(f.Events()) != 0 {
		t.Errorf("a cancelled probe was announced")
	}
}

func TestProberCapsProbesInFlight(t *testing.T) {
	srv := newCountingServer(t)
	srv.hold.Store(true)
	f := startFakeProber(t, 2)
	policy := testPolicy(10*time.Second, 5*time.Second)
	var targets []ProbeTarget
	for i := range 10 {
		targets = append(targets, ProbeTarget{Cluster: fmt.Sprintf("worker-%d", i), Endpoint: srv.URL})
	}
	f.Sync(testKey, testUID, policy, probe.Digest(policy), targets)
	// Every home of the map is due at the same instant: only the prober's own cap keeps
	// the dispatched probes at two (the observer would allow 64).
	f.stepTo(f.nextDue())
	eventually(t, "two probes are in flight", func() bool { return srv.now.Load() == 2 })
	for range 10 {
		srv.release <- struct{}{} // one answer at a time; each frees a slot for the next
	}
	eventually(t, "every home is probed", func() bool { return srv.total.Load() == 10 })
	if got := srv.maxAtOnce.Load(); got != 2 {
		t.Errorf("the endpoint saw %d probes at once, want the prober's cap of 2", got)
	}
}

func TestProberAnnouncesAMapOncePerRound(t *testing.T) {
	srv := newCountingServer(t)
	f := startFakeProber(t, 8)
	policy := testPolicy(10*time.Second, time.Second)
	var targets []ProbeTarget
	for i := range 4 {
		targets = append(targets, ProbeTarget{Cluster: fmt.Sprintf("worker-%d", i), Endpoint: srv.URL})
	}
	f.Sync(testKey, testUID, policy, probe.Digest(policy), targets)

	for round := int32(1); round <= 3; round++ {
		f.stepTo(f.nextDue()) // the first round is due at once
		eventually(t, fmt.Sprintf("round %d is answered", round), func() bool { return srv.total.Load() == 4*round })
		// Every probe of the round has been dispatched; wait for each to be recorded and,
		// if it announces, to have sent its announcement.
		eventually(t, fmt.Sprintf("round %d is recorded", round), f.idle)
		if got := len(f.Events()); got != 1 {
			t.Fatalf("round %d of 4 homes: %d announcements, want exactly 1", round, got)
		}
		<-f.Events()
	}
}

// TestProberNeverGatesForItsOwnTrouble: an endpoint the observer will not send to (a scheme
// other than http or https, an address its network guard refuses) says nothing about the
// cluster. It is recorded as Unknown with the reason, quoting no credential, and never
// counts towards a gate.
func TestProberNeverGatesForItsOwnTrouble(t *testing.T) {
	f := startFakeProber(t, 4)
	policy := testPolicy(10*time.Second, time.Second) // gates after 2 failures
	targets := []ProbeTarget{
		{Cluster: "guarded", Endpoint: "http://probe:s3cret@169.254.169.254"},
		{Cluster: "ftp", Endpoint: "ftp://probe:s3cret@model.example.test"},
		{Cluster: "not-a-url", Endpoint: "http://probe:s3cret@[::1"},
	}
	f.Sync(testKey, testUID, policy, probe.Digest(policy), targets)
	for round := range 4 {
		eventually(t, fmt.Sprintf("round %d is recorded", round+1), func() bool {
			return len(f.Events()) == 1 && f.idle()
		})
		<-f.Events()
		f.stepTo(f.nextDue())
	}
	want := map[string]string{
		"guarded":   "probe not sent: destination 169.254.169.254 is link-local and refused by the observer's network guard",
		"ftp":       `probe not sent: scheme "ftp" refused: the observer only sends http and https`,
		"not-a-url": "probe not sent: the endpoint is not a valid URL",
	}
	for cluster, msg := range want {
		st, _ := f.state(testKey, cluster)
		if st.Result != omev1beta1.ProbeUnknown || st.Message != msg || st.Gated || st.ConsecutiveFailures != 0 {
			t.Errorf("%s: state = %+v, want Unknown %q, ungated, no failures counted", cluster, st, msg)
		}
	}
}

// gatedRecord is a persisted probe block of a gated home under policy.
func gatedRecord(policy probe.Policy) *omev1beta1.TrafficMapProbe {
	last := metav1.NewTime(epoch.Add(-time.Second))
	return &omev1beta1.TrafficMapProbe{PolicyDigest: probe.Digest(policy), Result: omev1beta1.ProbeFailing,
		Message: "HTTP 503", Gated: true, ConsecutiveFailures: 3, LastProbeTime: &last}
}

// TestProberStateBelongsToOneServiceAndEndpoint: a service created again under the same
// name (another UID) and a home at another endpoint start over; nothing carries across.
func TestProberStateBelongsToOneServiceAndEndpoint(t *testing.T) {
	p := newProber(nil, 1, clocktesting.NewFakeClock(epoch)) // never started: Sync alone decides the states
	policy := testPolicy(10*time.Second, time.Second)
	digest := probe.Digest(policy)
	gated := []ProbeTarget{{Cluster: "worker-a", Endpoint: "http://a.example.test", Persisted: gatedRecord(policy)}}
	if st := p.Sync(testKey, testUID, policy, digest, gated)["worker-a"]; !st.Gated {
		t.Fatalf("restored state = %+v, want gated", st)
	}

	again := []ProbeTarget{{Cluster: "worker-a", Endpoint: "http://a.example.test"}}
	if st := p.Sync(testKey, testUID, policy, digest, again)["worker-a"]; !st.Gated {
		t.Fatalf("same service, same endpoint: state = %+v, want the gate kept", st)
	}
	if st := p.Sync(testKey, "another-uid", policy, digest, again)["worker-a"]; st.Probed || st.Gated {
		t.Errorf("a new service of the same name inherited %+v, want a fresh state", st)
	}

	p.Sync(testKey, testUID, policy, digest, gated)
	moved := []ProbeTarget{{Cluster: "worker-a", Endpoint: "http://b.example.test"}}
	if st := p.Sync(testKey, testUID, policy, digest, moved)["worker-a"]; st.Probed || st.Gated {
		t.Errorf("a home at a new endpoint inherited %+v, want a fresh state", st)
	}
	if st := p.Sync(testKey, testUID, policy, digest, again)["worker-a"]; st.Probed || st.Gated {
		t.Errorf("back at the old endpoint the home has %+v, want a fresh state", st)
	}
}

// TestProberRemembersADepartedHome: a home that leaves its map keeps its gate for
// DepartedHomeMemory, if it comes back at the same endpoint.
func TestProberRemembersADepartedHome(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch)
	p := newProber(nil, 1, clk)
	policy := testPolicy(10*time.Second, time.Second)
	digest := probe.Digest(policy)
	gated := []ProbeTarget{{Cluster: "worker-a", Endpoint: "http://a.example.test", Persisted: gatedRecord(policy)}}
	back := []ProbeTarget{{Cluster: "worker-a", Endpoint: "http://a.example.test"}}

	p.Sync(testKey, testUID, policy, digest, gated)
	p.Sync(testKey, testUID, policy, digest, nil) // gone from the map
	clk.Step(DepartedHomeMemory - time.Second)
	st := p.Sync(testKey, testUID, policy, digest, back)["worker-a"]
	if !st.Gated || st.ConsecutiveFailures != 3 {
		t.Fatalf("back within the memory: state = %+v, want the gate and count it left with", st)
	}
	// Its last probe was long ago by now: it is probed at once.
	if due := p.nextDue(); !due.Equal(clk.Now()) {
		t.Errorf("back within the memory: next probe at %s, want at once, %s", due, clk.Now())
	}

	p.Sync(testKey, testUID, policy, digest, nil)
	clk.Step(DepartedHomeMemory)
	if st := p.Sync(testKey, testUID, policy, digest, back)["worker-a"]; st.Probed || st.Gated {
		t.Errorf("back after the memory ran out: state = %+v, want a fresh state", st)
	}

	p.Sync(testKey, testUID, policy, digest, gated)
	p.Sync(testKey, testUID, policy, digest, nil)
	moved := []ProbeTarget{{Cluster: "worker-a", Endpoint: "http://b.example.test"}}
	if st := p.Sync(testKey, testUID, policy, digest, moved)["worker-a"]; st.Probed || st.Gated {
		t.Errorf("back at another endpoint: state = %+v, want a fresh state", st)
	}

	p.Sync(testKey, testUID, policy, digest, gated)
	p.Sync(testKey, testUID, policy, digest, nil)
	p.Forget(testKey) // the service is gone, unrouted or unprobed: nothing to remember
	if st := p.Sync(testKey, testUID, policy, digest, back)["worker-a"]; st.Probed || st.Gated {
		t.Errorf("back after Forget: state = %+v, want a fresh state", st)
	}
}

// startProberOn starts a prober on an existing observer, stopped when the test ends.
func startProberOn(t *testing.T, obs *observer.Observer, maxRequests int) *Prober {
	p, _ := runProber(t, obs, maxRequests)
	return p
}

// runProber starts a prober on obs and throws its notifications away, as the routing
// controller would read them. stop ends it and waits for it; the test's end calls it too.
func runProber(tb testing.TB, obs *observer.Observer, maxRequests int) (p *Prober, stop func()) {
	p = NewProber(obs, maxRequests)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Start(ctx); close(done) }()
	go discardAll(ctx, p.Events())
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	tb.Cleanup(stop)
	return p, stop
}
