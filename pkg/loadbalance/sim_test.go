package loadbalance

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"k8s.io/utils/ptr"
)

// loopSim is the bench's loop in miniature, tick by tick: two clusters whose servers have
// a number of slots each holding a request for a fixed service time, fed Poisson arrivals
// split by a smooth weighted round robin of the shares the gateway last applied; a scrape
// of each server's waiting queue every scrape interval; a reading of the last scrape every
// signal interval per cluster (the two out of phase), each of which decides; and a route
// that reaches the gateway a random delay after the decision that moved it.
type loopSim struct {
	rng            *rand.Rand
	slots          [2]int
	service        time.Duration
	running        [2][]time.Duration // each running request's end
	waiting        [2][]time.Duration // each waiting request's arrival
	scraped        [2]float64
	read, before   [2]*float64
	readAt         [2]time.Duration
	states         [2]State
	applied        [2]int32
	pending        []pendingRoute
	rr             [2]float64
	waits          []time.Duration
	slowShares     []sharePoint
	routeChanges   int
	scrape, signal time.Duration
	applyDelay     [2]time.Duration // lowest and highest
}

type pendingRoute struct {
	at     time.Duration
	shares [2]int32
}

type sharePoint struct {
	at    time.Duration
	share int32
}

func newLoopSim(seed uint64) *loopSim {
	return &loopSim{rng: rand.New(rand.NewPCG(seed, 1)), slots: [2]int{4, 2}, service: 100 * time.Millisecond,
		applied: [2]int32{100, 100}, scrape: time.Second, signal: 2 * time.Second,
		applyDelay: [2]time.Duration{500 * time.Millisecond, 2500 * time.Millisecond}}
}

// run offers rate requests a second from `from` to `to`, in ticks of dt.
func (s *loopSim) run(p Policy, rate float64, from, to time.Duration) {
	const dt = 5 * time.Millisecond
	for now := from; now < to; now += dt {
		// Arrivals in this tick.
		n := poisson(s.rng, rate*dt.Seconds())
		for range n {
			i := s.pick()
			s.waiting[i] = append(s.waiting[i], now)
		}
		for i := range 2 {
			s.running[i] = slices.DeleteFunc(s.running[i], func(end time.Duration) bool { return end <= now })
			for len(s.running[i]) < s.slots[i] && len(s.waiting[i]) > 0 {
				s.waits = append(s.waits, now-s.waiting[i][0])
				s.waiting[i] = s.waiting[i][1:]
				s.running[i] = append(s.running[i], now+s.service)
			}
			if now%s.scrape == 0 {
				s.scraped[i] = float64(len(s.waiting[i]))
			}
			if (now+time.Duration(i)*s.signal/2)%s.signal == 0 {
				s.before[i], s.read[i], s.readAt[i] = s.read[i], ptr.To(s.scraped[i]), now
				s.decide(p, now)
			}
		}
		for len(s.pending) > 0 && s.pending[0].at <= now {
			s.applied = s.pending[0].shares
			s.pending = s.pending[1:]
		}
	}
}

// decide runs the decision on both clusters' last readings, as a reconcile does on a
// reading's news, and sends a route that moved to the gateway, which takes it a random
// delay later.
func (s *loopSim) decide(p Policy, now time.Duration) {
	at := t0.Add(now)
	homes := make([]Home, 2)
	for i := range homes {
		homes[i] = Home{Cluster: []string{"a", "b"}[i], Replicas: 2, Eligible: true, State: s.states[i],
			Reading: Reading{Known: s.read[i] != nil, Reason: "not read yet", Waiting: s.read[i], Before: s.before[i], At: t0.Add(s.readAt[i])}}
	}
	before := [2]int32{s.states[0].Share(), s.states[1].Share()}
	for i, d := range Decide(p, homes, at) {
		s.states[i] = d.State
	}
	after := [2]int32{s.states[0].Share(), s.states[1].Share()}
	if after != before {
		if before[1]*after[0] != after[1]*before[0] {
			s.routeChanges++
		}
		delay := s.applyDelay[0] + time.Duration(s.rng.Int64N(int64(s.applyDelay[1]-s.applyDelay[0])))
		s.pending = append(s.pending, pendingRoute{at: now + delay, shares: after})
		sort.Slice(s.pending, func(i, j int) bool { return s.pending[i].at < s.pending[j].at })
		s.slowShares = append(s.slowShares, sharePoint{now, s.slowShare()})
	}
}

// pick is the gateway's smooth weighted round robin over the applied shares.
func (s *loopSim) pick() int {
	total := float64(s.applied[0] + s.applied[1])
	for i := range 2 {
		s.rr[i] += float64(s.applied[i])
	}
	best := 0
	if s.rr[1] > s.rr[0] {
		best = 1
	}
	s.rr[best] -= total
	return best
}

// poisson draws the arrivals of one tick (Knuth's method: the mean is small).
func poisson(rng *rand.Rand, mean float64) int {
	l, k, p := math.Exp(-mean), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// p95 is the 95th percentile of the waits.
func p95(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)*95/100]
}

// TestTheSharesSettleInTheBenchLoop runs the bench's loop (make bench-load: servers of 4
// and 2 slots of 100 ms, two replicas each under equal static weights, waitingPerReplica 2,
// a 2 s signal interval and minInterval 4 s) under 60 seeds: 20 s at 40% of the capacity,
// 90 s at 80%, then 120 s at 40% again. After the step up, the slower cluster's share must
// settle within 3 signal intervals (from then on its values span one step at most) in at
// least three seeds of four, and move the route fewer than ten times in the 90 s on
// average; after the step down, it must come back to 100% in every seed.
func TestTheSharesSettleInTheBenchLoop(t *testing.T) {
	p := Policy{Mode: "Enforce", WaitingPerReplica: 2, MinInterval: 4 * time.Second, MaxStepPercent: 25, HysteresisPercent: 20, FloorPercent: 10}
	const seeds = 60
	var within3, changes, notBack int
	var settles, backs []float64
	var waits []time.Duration
	for seed := range uint64(seeds) {
		s := newLoopSim(seed)
		s.run(p, 24, 0, 20*time.Second)
		s.waits, s.slowShares, s.routeChanges = nil, []sharePoint{{20 * time.Second, s.slowShare()}}, 0
		s.run(p, 48, 20*time.Second, 110*time.Second)
		i := settledFrom(s.slowShares, p.MaxStepPercent)
		settle := 0.0
		if i > 0 {
			settle = (s.slowShares[i].at - 20*time.Second).Seconds() / s.signal.Seconds()
		}
		settles = append(settles, settle)
		if settle <= 3 {
			within3++
		}
		changes += s.routeChanges
		waits = append(waits, p95(s.waits))
		s.slowShares = nil
		s.run(p, 24, 110*time.Second, 230*time.Second)
		if s.slowShare() < 99 {
			notBack++
			t.Errorf("seed %d: 120 s after the load fell the slower share is %d%%, want 100%%", seed, s.slowShare())
		} else if n := len(s.slowShares); n > 0 {
			backs = append(backs, (s.slowShares[n-1].at-110*time.Second).Seconds()/s.signal.Seconds())
		}
	}
	slices.Sort(settles)
	slices.Sort(backs)
	slices.Sort(waits)
	t.Logf("settled within 3 intervals in %d of %d seeds (median %.1f intervals, p90 %.1f); %.1f route changes in 90 s; p95 wait (median of seeds) %s; back to 100%% after the load fell in a median of %.1f intervals",
		within3, seeds, settles[seeds/2], settles[seeds*9/10], float64(changes)/seeds, waits[seeds/2], backs[len(backs)/2])
	if within3*4 < seeds*3 {
		t.Errorf("settled within 3 intervals in %d of %d seeds, want three in four", within3, seeds)
	}
	if changes >= 10*seeds {
		t.Errorf("%.1f route changes in 90 s on average, want fewer than 10", float64(changes)/seeds)
	}
}

// slowShare is the slower cluster's share against the faster one's, as the route has it.
func (s *loopSim) slowShare() int32 { return 100 * s.states[1].Share() / s.states[0].Share() }

// settledFrom is the first point of path from which its values span at most step.
func settledFrom(path []sharePoint, step int32) int {
	for i := range path {
		lo, hi := path[i].share, path[i].share
		for _, p := range path[i:] {
			lo, hi = min(lo, p.share), max(hi, p.share)
		}
		if hi-lo <= step {
			return i
		}
	}
	return len(path) - 1
}
