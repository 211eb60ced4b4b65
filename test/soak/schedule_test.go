package soak

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// The control plane's latency in the two slow phases.
const (
	slowLatency   = 300 * time.Millisecond
	slowerLatency = 2 * time.Second
)

// window is a stretch of the run, as offsets from its start.
type window struct{ from, to time.Duration }

func (w window) contains(d time.Duration) bool { return d >= w.from && d < w.to }
func (w window) length() time.Duration         { return w.to - w.from }

// schedule is when each fault happens, as offsets from the start of the measured run. The
// faults sit at fixed fractions of the run, so that a short run has every one of them
// too; at the default 30 minutes the leader is killed every 5 minutes, the control plane
// is 300 ms slower from 4.5 to 9 minutes (a kill at 5 falls inside) and 2 s slower from
// 10.8 to 13.8 (no kill until a minute after it ends), and a member is cut off from 17.4
// to 21.6 minutes (a kill at 20 falls inside).
type schedule struct {
	duration      time.Duration
	kills         []time.Duration
	slow, slower  window
	drain         window
	partition     window
	takeoverGrace time.Duration
}

// minPartition is the shortest cut-off that still outlasts the member's grace period
// (30 s) plus one health check interval (15 s), with room for the maps to show it.
const minPartition = 75 * time.Second

func newSchedule(d time.Duration) schedule {
	at := func(f float64) time.Duration { return time.Duration(f * float64(d)).Round(time.Second) }
	s := schedule{duration: d, takeoverGrace: time.Minute}
	for k := 1; k <= 5; k++ {
		s.kills = append(s.kills, at(float64(k)/6))
	}
	s.slow = window{at(0.15), at(0.30)}
	s.slower = window{at(0.36), at(0.46)}
	s.drain = window{s.slower.to, s.slower.to + time.Minute}
	s.partition = window{at(0.58), at(0.58) + max(at(0.14), minPartition)}
	if s.partition.to > at(0.95) {
		s.partition.to = at(0.95)
	}
	return s
}

// phase names what is going on at offset d: "steady", or the faults under way joined
// with "+", such as "latency-300ms+takeover".
func (s schedule) phase(d time.Duration) string {
	var on []string
	if s.slow.contains(d) {
		on = append(on, "latency-300ms")
	}
	if s.slower.contains(d) {
		on = append(on, "latency-2s")
	}
	if s.drain.contains(d) {
		on = append(on, "after-latency")
	}
	if s.partition.contains(d) {
		on = append(on, "partition")
	}
	for _, k := range s.kills {
		if d >= k && d < k+s.takeoverGrace {
			on = append(on, "takeover")
			break
		}
	}
	if len(on) == 0 {
		return "steady"
	}
	return strings.Join(on, "+")
}

// String is the plan as the run prints it first.
func (s schedule) String() string {
	kills := make([]string, len(s.kills))
	for i, k := range s.kills {
		kills[i] = k.String()
	}
	return fmt.Sprintf("duration=%s kills=%s latency_300ms=%s-%s latency_2s=%s-%s partition=%s-%s",
		s.duration, strings.Join(kills, ","), s.slow.from, s.slow.to, s.slower.from, s.slower.to, s.partition.from, s.partition.to)
}

// event is one thing the schedule does, at an offset.
type event struct {
	at   time.Duration
	what string
}

// events are the schedule's steps in order.
func (s schedule) events() []event {
	ev := []event{
		{s.slow.from, "slow"}, {s.slow.to, "fast"},
		{s.slower.from, "slower"}, {s.slower.to, "fast"},
		{s.partition.from, "cut"}, {s.partition.to, "restore"},
	}
	for _, k := range s.kills {
		ev = append(ev, event{k, "kill"})
	}
	sort.SliceStable(ev, func(i, j int) bool { return ev[i].at < ev[j].at })
	return ev
}
