package schedule

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// epoch is where the fake clocks start.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// result is what testPolicy's work returns: whether it is news, and whether it was
// cancelled before it was answered.
type result struct{ news, cancelled bool }

type (
	testEngine = Engine[struct{}, struct{}, result, string]
	testHome   = Home[struct{}, struct{}]
	testGroup  = Group[struct{}, struct{}]
)

// testPolicy's work waits, while hold is set, until the test sends on release (or its
// context ends), and counts how much of it is in flight at once. Every answer is news
// unless quiet is set. Notices name the group and are kept in notices.
type testPolicy struct {
	hold, quiet      atomic.Bool
	release          chan struct{}
	now, maxAtOnce   atomic.Int32
	sent, recorded   atomic.Int32
	cancelledResults atomic.Int32
	notices          chan string

	mu    sync.Mutex
	sends []string // "group/cluster" of every Send, in order
}

func (p *testPolicy) Send(ctx context.Context, h *testHome) (result, time.Duration) {
	p.mu.Lock()
	p.sends = append(p.sends, h.Group().Name()+"/"+h.Cluster())
	p.mu.Unlock()
	n := p.now.Add(1)
	defer p.now.Add(-1)
	for m := p.maxAtOnce.Load(); n > m && !p.maxAtOnce.CompareAndSwap(m, n); m = p.maxAtOnce.Load() {
	}
	p.sent.Add(1)
	if p.hold.Load() {
		select {
		case <-p.release:
		case <-ctx.Done():
			return result{cancelled: true}, 0
		}
	}
	return result{news: !p.quiet.Load()}, 0
}

func (p *testPolicy) Record(_ context.Context, _ *testHome, r result, _ time.Time) bool {
	if r.cancelled {
		p.cancelledResults.Add(1)
		return false
	}
	p.recorded.Add(1)
	return r.news
}

func (p *testPolicy) Notice(g *testGroup) string { return g.Name() }

func (p *testPolicy) Announce(_ context.Context, n string) { p.notices <- n }

func (p *testPolicy) sendLog() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.sends)
}

// fakeEngine is a started engine on a fake clock.
type fakeEngine struct {
	*testEngine
	policy *testPolicy
	clk    *clocktesting.FakeClock
	stop   func()
}

func startFakeEngine(t *testing.T, opts Options) *fakeEngine {
	policy := &testPolicy{release: make(chan struct{}), notices: make(chan string, 1024)}
	clk := clocktesting.NewFakeClock(epoch)
	opts.Clock = clk
	e := New[struct{}, struct{}, result, string](policy, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = e.Start(ctx); close(done) }()
	stop := sync.OnceFunc(func() { cancel(); <-done })
	t.Cleanup(stop)
	return &fakeEngine{testEngine: e, policy: policy, clk: clk, stop: stop}
}

// targets are homes by cluster name at one endpoint, each first due at due.
type targets struct {
	clusters []string
	due      time.Time
	gone     []string
}

func (t *targets) Len() int                      { return len(t.clusters) }
func (t *targets) Target(i int) (string, string) { return t.clusters[i], "http://" + t.clusters[i] }
func (t *targets) New(i int) (struct{}, string, time.Time) {
	return struct{}{}, "http://" + t.clusters[i], t.due
}
func (t *targets) Seen(int, *testHome) {}
func (t *targets) Gone(h *testHome)    { t.gone = append(t.gone, h.Cluster()) }

func clusters(n int) []string {
	var c []string
	for i := range n {
		c = append(c, fmt.Sprintf("worker-%d", i))
	}
	return c
}

// group adds a group of n homes, all first due at once. name is "tenant/group".
func (f *fakeEngine) group(name string, period, timeout time.Duration, n int) *testGroup {
	f.Lock()
	defer f.Unlock()
	tenant, _, _ := strings.Cut(name, "/")
	g := f.AddGroup(name, tenant, period, timeout, struct{}{})
	f.SyncGroup(g, &targets{clusters: clusters(n), due: f.clk.Now()})
	return g
}

// stepTo moves the fake clock forward to at, never back.
func (f *fakeEngine) stepTo(at time.Time) {
	if at.After(f.clk.Now()) {
		f.clk.SetTime(at)
	}
}

func (f *fakeEngine) nextDue() time.Time {
	next, _ := f.NextDue()
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

func TestEngineRunsOnScheduleExactly(t *testing.T) {
	f := startFakeEngine(t, Options{MaxInFlight: 4})
	const period = 10 * time.Second
	f.group("ns/svc", period, time.Second, 1)
	// First due at once, as the targets say.
	eventually(t, "the first attempt is done", func() bool { return f.policy.recorded.Load() == 1 && f.Idle() })
	// Then it joins the group's slot, at least half a period later, and keeps to it.
	due := FirstDue(epoch.Add(period/2), "ns/svc", period)
	if got := f.nextDue(); !got.Equal(due) {
		t.Fatalf("second attempt due at %s, want the group's slot %s", got, due)
	}
	for round := int32(2); round <= 4; round++ {
		f.stepTo(due.Add(-time.Millisecond))
		if got := f.policy.sent.Load(); got != round-1 {
			t.Fatalf("attempt %d: %d sent a millisecond before the due time, want %d", round, got, round-1)
		}
		f.stepTo(due)
		eventually(t, fmt.Sprintf("attempt %d is done", round), func() bool { return f.policy.recorded.Load() == round && f.Idle() })
		due = due.Add(period)
		if got := f.nextDue(); !got.Equal(due) {
			t.Fatalf("attempt %d: next due at %s, want one period later, %s", round, got, due)
		}
	}
}

// An attempt that runs past its next slots skips them: no second attempt of a home starts
// while one is in flight, and none is caught up afterwards.
func TestEngineNeverOverlapsAHomeNorCatchesUp(t *testing.T) {
	f := startFakeEngine(t, Options{MaxInFlight: 4})
	f.policy.hold.Store(true)
	const period = 10 * time.Second
	f.group("ns/svc", period, 5*time.Second, 1)
	eventually(t, "the first attempt is in flight", func() bool { return f.policy.now.Load() == 1 })
	answered := epoch.Add(3*period + time.Second)
	f.stepTo(answered)
	f.policy.release <- struct{}{}
	eventually(t, "the first attempt is done", f.Idle)
	next := FirstDue(answered, "ns/svc", period)
	if got := f.nextDue(); !got.Equal(next) {
		t.Fatalf("next attempt due at %s, want the first slot after the late answer, %s", got, next)
	}
	if got := f.policy.sent.Load(); got != 1 {
		t.Errorf("%d attempts sent, want 1", got)
	}
	if got := f.policy.maxAtOnce.Load(); got != 1 {
		t.Errorf("a home had %d attempts in flight at once, want 1", got)
	}
}

func TestEngineCapsWorkInFlight(t *testing.T) {
	for _, pastCap := range []int{0, 2} {
		t.Run(fmt.Sprintf("pastCap=%d", pastCap), func(t *testing.T) {
			f := startFakeEngine(t, Options{MaxInFlight: 2, PastCap: pastCap})
			f.policy.hold.Store(true)
			f.group("ns/svc", 10*time.Second, 5*time.Second, 10)
			// Every home is due at once; one group never goes past the cap.
			eventually(t, "two are in flight", func() bool { return f.policy.now.Load() == 2 })
			if st := f.Stats(); st.Running != 2 || st.Held != 8 {
				t.Fatalf("stats %+v, want 2 running and 8 held", st)
			}
			for range 10 {
				f.policy.release <- struct{}{}
			}
			eventually(t, "every home has run", func() bool { return f.policy.recorded.Load() == 10 })
			if got := f.policy.maxAtOnce.Load(); got != 2 {
				t.Errorf("%d in flight at once, want the cap of 2", got)
			}
		})
	}
}

// A group whose every home hangs holds only its fair share of the cap; another group's
// homes run meanwhile.
func TestEngineSharesTheCapFairly(t *testing.T) {
	f := startFakeEngine(t, Options{MaxInFlight: 4, PastCap: 4})
	f.policy.hold.Store(true)
	// Both groups exist before the greedy one's homes are due, so its share is half.
	f.Lock()
	greedy := f.AddGroup("ns/greedy", "ns", time.Hour, time.Hour, struct{}{})
	normal := f.AddGroup("ns/normal", "ns", time.Hour, time.Hour, struct{}{})
	f.SyncGroup(greedy, &targets{clusters: clusters(8), due: epoch})
	f.Unlock()
	eventually(t, "the greedy group holds its share", func() bool { return f.policy.now.Load() == 2 })
	f.Lock()
	f.SyncGroup(normal, &targets{clusters: clusters(2), due: epoch})
	f.Unlock()
	eventually(t, "the normal group's homes are in flight", func() bool { return f.policy.now.Load() == 4 })
	if st := f.Stats(); st.Running != 4 || st.Held != 6 {
		t.Errorf("stats %+v, want 4 running (2 a group) and 6 of the greedy group's held", st)
	}
	var normalSends int
	for _, s := range f.policy.sendLog() {
		if len(s) > len("ns/normal") && s[:len("ns/normal")] == "ns/normal" {
			normalSends++
		}
	}
	if normalSends != 2 {
		t.Errorf("sends %v: want both of the normal group's homes sent beside the greedy group's two", f.policy.sendLog())
	}
}

// A tenant with many hanging groups leaves the last free slot to the others: a home of a
// tenant under its share is sent at its due time, though the hanging tenant's groups
// each hold less than their own share and have more homes due.
func TestEngineKeepsTheLastSlotForATenantUnderItsShare(t *testing.T) {
	f := startFakeEngine(t, Options{MaxInFlight: 4, PastCap: 4})
	f.policy.hold.Store(true)
	// Both tenants exist before the hanging one's homes are due: a tenant alone has the
	// whole cap and the room past it.
	f.Lock()
	var hanging []*testGroup
	for i := range 8 {
		hanging = append(hanging, f.AddGroup(fmt.Sprintf("hostile/hang-%d", i), "hostile", time.Hour, time.Hour, struct{}{}))
	}
	victim := f.AddGroup("victim/svc", "victim", time.Hour, time.Hour, struct{}{})
	for _, g := range hanging {
		f.SyncGroup(g, &targets{clusters: clusters(1), due: epoch})
	}
	f.Unlock()
	eventually(t, "the hanging tenant's probes are in flight", func() bool { return f.policy.now.Load() == 3 })
	if st := f.Stats(); st.Running != 3 || st.Held != 5 {
		t.Fatalf("stats %+v, want 3 running (all but the last slot) and 5 held", st)
	}
	f.Lock()
	f.SyncGroup(victim, &targets{clusters: clusters(1), due: epoch})
	f.Unlock()
	eventually(t, "the other tenant's home is sent", func() bool { return f.policy.now.Load() == 4 })
	if log := f.policy.sendLog(); log[len(log)-1] != "victim/svc/worker-0" {
		t.Errorf("sends %v, want the victim's home last, at once", log)
	}
	if st := f.Stats(); st.Running != 4 || st.Held != 5 {
		t.Errorf("stats %+v, want 4 running and the hanging tenant's 5 still held", st)
	}
}

// Past the cap, a group with nothing in flight still sends one home, up to PastCap more
// than the cap in all; the rest are held.
func TestEngineBoundsWorkPastTheCap(t *testing.T) {
	for _, tt := range []struct{ pastCap, running int }{{0, 2}, {2, 4}} {
		t.Run(fmt.Sprintf("pastCap=%d", tt.pastCap), func(t *testing.T) {
			f := startFakeEngine(t, Options{MaxInFlight: 2, PastCap: tt.pastCap})
			f.policy.hold.Store(true)
			for i := range 20 {
				f.group(fmt.Sprintf("ns/idle-%02d", i), time.Hour, time.Hour, 1)
			}
			eventually(t, "every due home is sent or held", func() bool {
				st := f.Stats()
				return st.Running+st.Held == 20 && f.policy.now.Load() == int32(st.Running)
			})
			if st := f.Stats(); st.Running != tt.running || st.Held != 20-tt.running {
				t.Errorf("stats %+v on a cap of 2, past it %d: want %d running and the rest held", st, tt.pastCap, tt.running)
			}
		})
	}
}

// The results of one round are announced once, when the last of the round is in.
func TestEngineAnnouncesAGroupOncePerRound(t *testing.T) {
	f := startFakeEngine(t, Options{MaxInFlight: 8})
	g := f.group("ns/svc", 10*time.Second, time.Second, 4)
	_ = g
	for round := int32(1); round <= 3; round++ {
		f.stepTo(f.nextDue())
		eventually(t, fmt.Sprintf("round %d is done", round), func() bool { return f.policy.recorded.Load() == 4*round && f.Idle() })
		if got := len(f.policy.notices); got != 1 {
			t.Fatalf("round %d of 4 homes: %d announcements, want exactly 1", round, got)
		}
		if n := <-f.policy.notices; n != "ns/svc" {
			t.Fatalf("announced %q, want ns/svc", n)
		}
	}
	// Results that are no news are not announced.
	f.policy.quiet.Store(true)
	f.stepTo(f.nextDue())
	eventually(t, "a quiet round is done", func() bool { return f.policy.recorded.Load() == 16 && f.Idle() })
	if got := len(f.policy.notices); got != 0 {
		t.Errorf("a round with no news: %d announcements, want none", got)
	}
}

// News waits for the group's other homes at most the group's timeout.
func TestEngineAnnouncementWaitsForSiblingsAtMostATimeout(t *testing.T) {
	f := startFakeEngine(t, Options{MaxInFlight: 4})
	const period, timeout = 2 * time.Minute, time.Minute
	f.policy.hold.Store(true)
	f.group("ns/svc", period, timeout, 2)
	eventually(t, "both homes are in flight", func() bool { return f.policy.now.Load() == 2 })
	// One answer: its sibling is still running, so it waits.
	f.policy.release <- struct{}{}
	eventually(t, "one answer is recorded", func() bool { return f.policy.recorded.Load() == 1 })
	eventually(t, "one is left in flight", func() bool { return f.Stats().Running == 1 && f.policy.now.Load() == 1 })
	if got := len(f.policy.notices); got != 0 {
		t.Fatalf("announced while a sibling was still running")
	}
	// The first home's next answer comes a period later, more than a timeout after the
	// first result: it is announced though the sibling still runs.
	f.policy.hold.Store(false)
	f.stepTo(f.nextDue())
	eventually(t, "the second answer is recorded", func() bool { return f.policy.recorded.Load() == 2 })
	eventually(t, "it is announced", func() bool { return len(f.policy.notices) == 1 })
	<-f.policy.notices
	// The sibling's answer, the last of its round, is announced too. (It is so late that
	// its next slot is now: that attempt is held.)
	f.policy.hold.Store(true)
	f.policy.release <- struct{}{}
	eventually(t, "the sibling's answer is announced", func() bool { return len(f.policy.notices) == 1 })
	if got := f.policy.recorded.Load(); got != 3 {
		t.Errorf("%d answers recorded, want 3", got)
	}
}

// A removed home's work is cancelled at once and its result thrown away; the engine keeps
// no cancel once nothing is in flight.
func TestEngineCancelsARemovedHomesWork(t *testing.T) {
	f := startFakeEngine(t, Options{MaxInFlight: 4})
	f.policy.hold.Store(true)
	g := f.group("ns/svc", 10*time.Second, time.Hour, 2)
	eventually(t, "both are in flight", func() bool { return f.policy.now.Load() == 2 })
	tg := &targets{clusters: []string{"worker-1"}}
	f.Lock()
	f.SyncGroup(g, tg)
	f.Unlock()
	eventually(t, "the removed home's work ends", func() bool { return f.Stats().Running == 1 })
	f.Lock()
	left, homes := len(f.cancels), len(g.homes)
	f.Unlock()
	if left != 1 || homes != 1 || !slices.Equal(tg.gone, []string{"worker-0"}) {
		t.Errorf("%d cancels kept with one home in flight, %d homes, gone %v; want 1, 1, [worker-0]", left, homes, tg.gone)
	}
	f.policy.release <- struct{}{}
	eventually(t, "nothing is in flight", f.Idle)
	f.Lock()
	left = len(f.cancels)
	f.Unlock()
	if left != 0 || f.policy.recorded.Load() != 1 {
		t.Errorf("%d cancels kept and %d results recorded, want none and 1", left, f.policy.recorded.Load())
	}
	// Dropping the group stops every home.
	f.Lock()
	f.DropGroup(g)
	f.Unlock()
	if st := f.Stats(); st.Queued != 0 {
		t.Errorf("after DropGroup %d homes are queued, want none", st.Queued)
	}
	f.stepTo(epoch.Add(time.Hour))
	if got := f.policy.sent.Load(); got != 2 {
		t.Errorf("after DropGroup %d more were sent", got-2)
	}
}

// Stopping the engine cancels the work in flight; nothing it returns is announced.
func TestEngineDiscardsWorkCancelledByStop(t *testing.T) {
	f := startFakeEngine(t, Options{MaxInFlight: 4})
	f.policy.hold.Store(true)
	f.group("ns/svc", 10*time.Second, time.Hour, 1)
	eventually(t, "the home is in flight", func() bool { return f.policy.now.Load() == 1 })
	f.stop()
	if f.policy.recorded.Load() != 0 || len(f.policy.notices) != 0 {
		t.Errorf("work cancelled by the stop was recorded (%d) or announced (%d)", f.policy.recorded.Load(), len(f.policy.notices))
	}
	if st := f.Stats(); st.Workers != 0 {
		t.Errorf("%d goroutines left after Start returned, want none", st.Workers)
	}
}

// Work goes out from reused goroutines, never more of them than can be in flight at once,
// however many rounds go by.
func TestEngineReusesABoundedSetOfGoroutines(t *testing.T) {
	f := startFakeEngine(t, Options{MaxInFlight: 2, PastCap: 2})
	for m := range 12 {
		f.group(fmt.Sprintf("ns/svc-%d", m), 10*time.Second, time.Second, 2)
	}
	for round := int32(1); round <= 10; round++ {
		eventually(t, fmt.Sprintf("round %d is done", round), func() bool { return f.policy.recorded.Load() == 24*round && f.Idle() })
		for len(f.policy.notices) > 0 {
			<-f.policy.notices
		}
		if st := f.Stats(); st.Workers < 1 || st.Workers > 4 {
			t.Fatalf("round %d: %d goroutines, want between 1 and 4", round, st.Workers)
		}
		// Every group's next slot is before a period and a half past the last round's.
		f.stepTo(epoch.Add(time.Duration(round)*10*time.Second + 5*time.Second - 1))
	}
	f.stop()
	if st := f.Stats(); st.Workers != 0 {
		t.Errorf("%d goroutines left after Start returned, want none", st.Workers)
	}
}

// The zero engine holds nothing, reports so and refuses to start.
func TestZeroEngine(t *testing.T) {
	var e testEngine
	if st := e.Stats(); st != (Stats{}) || !e.Idle() {
		t.Errorf("zero engine: stats %+v, idle %v", st, e.Idle())
	}
	if _, ok := e.NextDue(); ok {
		t.Error("zero engine has a due time")
	}
	if e.Now().IsZero() {
		t.Error("zero engine has no time")
	}
	if err := e.Start(context.Background()); err == nil || err.Error() != "schedule: the engine has no policy (make it with New)" {
		t.Errorf("zero engine started without a policy: err %v", err)
	}
}
