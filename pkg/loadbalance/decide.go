package loadbalance

import (
	"fmt"
	"math"
	"time"
)

// MaxPressurePercent bounds a recorded pressure (the CRD's maximum): a queue a thousand
// times its target is saturated all the same.
const MaxPressurePercent = 100000

// Home is one cluster as the decision sees it.
type Home struct {
	Cluster string
	// Replicas is the cluster's ready replicas, which waitingPerReplica divides by.
	Replicas int32
	// Eligible is true when the cluster takes traffic before load has its say: not gated,
	// drained or refused, and with servable capacity. Load divides only what is left, so
	// the share of a home that is not eligible holds as it was.
	Eligible bool
	Reading  Reading
	State    State
}

// State is what a cluster's record keeps between decisions.
type State struct {
	// SharePercent is the share of its capacity weight the cluster keeps, from the floor
	// to 100; 0 is a cluster never decided, which keeps all of it.
	SharePercent int32
	// LastChange is when the share last moved, or a draining queue last held it.
	LastChange time.Time
	// ChangePressure is the pressure when the share last moved or held: after a fall,
	// while the pressure is lower, that change is still taking effect; after a climb, a
	// pressure risen past it by more than the band holds the next climb.
	ChangePressure int32
	// SaturatedShare is the share the cluster last fell from, found saturated at
	// SaturatedAt: for CeilingHold minIntervals, a climb stops short of it (0: none).
	SaturatedShare int32
	SaturatedAt    time.Time
	// HeadroomShare is the share at which the cluster last climbed, or held below the
	// ceiling, with headroom (0: none): while the ceiling holds, a fall from above it goes
	// back to it rather than a whole step down.
	HeadroomShare int32
}

// Share is the share in percent, 100 for a cluster never decided.
func (s State) Share() int32 {
	if s.SharePercent <= 0 {
		return 100
	}
	return min(s.SharePercent, 100)
}

// Decision is one cluster's outcome.
type Decision struct {
	State State
	// Pressure is the reading against the target in percent, valid when Known.
	Pressure int32
	Known    bool
	// Moved says whether the share changed in this decision.
	Moved bool
	// Next, when not zero, says that the share would move but waits (for minInterval
	// since its last change, or twice that after a fall): the caller looks again then.
	Next time.Time
	// Message says why the share moved or holds, or why the reading is Unknown.
	Message string
}

// Decide takes every cluster's decision at now. Each decision looks at the others, as a
// share given up goes to the clusters that can take it: a saturated cluster (pressure past
// the target plus the band) gives up a step, down to the floor, only while another eligible
// cluster is below its target; a cluster with headroom (pressure below the target less the
// band) takes half a step back, up to 100, only while no eligible cluster is saturated and
// its pressure has not risen by more than the band since its last change, and not within
// twice MinInterval of a fall. A share moves at most once per MinInterval, and after it
// falls it holds while the pressure keeps falling: a queue drains slower than the traffic
// leaves. A cluster whose reading is Unknown keeps its share and counts as neither
// saturated nor below its target.
//
// Near a cluster's rate its queue is noisy, and a share that followed each reading would
// swing wider than a step. So a queue past its target (by less than twice) in one reading
// only is a burst and moves nothing; a climb stops short of the share the cluster last fell
// from, for CeilingHold minIntervals (or until a cache use far below its target shows the
// load has fallen); and while that ceiling holds, a fall stops at the share the cluster
// last had headroom at (or, saturated at that very share, falls half a step).
//
// Only the ratio of the shares reaches the weights, so when no eligible cluster is left at
// 100 every eligible share is scaled up until the highest is (rescale): the weights stay
// as they are, and a cluster that gave up its share while the others were saturated in turn
// is not left stuck at the floor with every other one.
func Decide(p Policy, homes []Home, now time.Time) []Decision {
	out := make([]Decision, len(homes))
	for i, h := range homes {
		out[i] = Decision{State: h.State}
		if !h.Eligible {
			out[i].Message = fmt.Sprintf("takes no traffic before load has its say (gated, drained or without capacity): holds at %d%%", h.State.Share())
			continue
		}
		out[i].Pressure, out[i].Message = pressure(p, h)
		out[i].Known = out[i].Message == ""
	}
	// A queue past its target in this reading only, and by less than twice the target,
	// may be a burst of arrivals: it moves nothing until the next reading says the same.
	burst := make([]bool, len(homes))
	for i, h := range homes {
		before := h.Reading.Before
		burst[i] = out[i].Known && before != nil && p.WaitingPerReplica > 0 && out[i].Pressure <= burstPressurePercent &&
			band(p, waitingPressure(p, h.Replicas, *before)) <= 0
	}
	saturated := func(d Decision) bool { return d.Known && band(p, d.Pressure) > 0 }
	headroom := func(d Decision) bool { return d.Known && band(p, d.Pressure) < 0 }
	belowTarget := func(d Decision) bool { return d.Known && d.Pressure < 100 }
	anySaturated := false
	for i, d := range out {
		anySaturated = anySaturated || (saturated(d) && !burst[i])
	}
	for i, h := range homes {
		d := &out[i]
		if !d.Known {
			continue
		}
		otherBelow := false
		for j, o := range out {
			otherBelow = otherBelow || (j != i && belowTarget(o))
		}
		share := h.State.Share()
		due := h.State.LastChange.IsZero() || !now.Before(h.State.LastChange.Add(p.MinInterval))
		// After a fall (a change at a saturated pressure) the first readings find the queue
		// short because traffic has just left: a climb waits twice as long.
		climbDue := due && (band(p, h.State.ChangePressure) <= 0 || !now.Before(h.State.LastChange.Add(2*p.MinInterval)))
		at := reading(p, h, d.Pressure)
		// The share a climb may not reach, and whether it holds (101: none that does).
		ceil := ceiling(p, h.State, now)
		ceilingHolds := ceil <= 100
		switch {
		case saturated(*d) && burst[i]:
			d.Message = fmt.Sprintf("past the target (%s) in this reading only: holds at %d%%", at, share)
		case saturated(*d) && !otherBelow:
			d.Message = fmt.Sprintf("saturated (%s), no other cluster is below its target: holds at %d%%", at, share)
		case saturated(*d) && share <= p.FloorPercent:
			d.Message = fmt.Sprintf("saturated (%s): holds at the floor, %d%%", at, share)
		case saturated(*d) && !due:
			d.Next = h.State.LastChange.Add(p.MinInterval)
			d.Message = fmt.Sprintf("saturated (%s): holds at %d%% until minInterval has passed", at, share)
		case saturated(*d) && d.Pressure < h.State.ChangePressure:
			d.State.LastChange, d.State.ChangePressure = now, d.Pressure
			d.Message = fmt.Sprintf("saturated (%s), falling since the last change: holds at %d%%", at, share)
		case saturated(*d):
			remembered := int32(0)
			if ceilingHolds {
				remembered = h.State.HeadroomShare
			}
			next, headroomShare := fall(p, share, remembered)
			d.State = State{SharePercent: next, LastChange: now, ChangePressure: d.Pressure,
				SaturatedShare: share, SaturatedAt: now, HeadroomShare: headroomShare}
			d.Moved = true
			d.Message = fmt.Sprintf("saturated (%s): share %d%% -> %d%%", at, share, next)
		case headroom(*d) && share < 100 && anySaturated:
			d.Message = fmt.Sprintf("headroom (%s), another cluster is saturated: holds at %d%%", at, share)
		case headroom(*d) && share < 100 && !due:
			d.Next = h.State.LastChange.Add(p.MinInterval)
			d.Message = fmt.Sprintf("headroom (%s): holds at %d%% until minInterval has passed", at, share)
		case headroom(*d) && share < 100 && !climbDue:
			d.Next = h.State.LastChange.Add(2 * p.MinInterval)
			d.Message = fmt.Sprintf("headroom (%s): holds at %d%% for twice minInterval after a fall", at, share)
		case headroom(*d) && share < 100 && d.Pressure > h.State.ChangePressure+p.HysteresisPercent:
			d.Message = fmt.Sprintf("headroom (%s), risen since the last change: holds at %d%%", at, share)
		case headroom(*d) && share < 100 && ceil <= min(share+climbStep(p), 100) && !loadFell(p, *d):
			d.State.HeadroomShare = share
			d.Message = fmt.Sprintf("headroom (%s), %d%% was saturated: holds at %d%%", at, h.State.SaturatedShare, share)
		case headroom(*d) && share < 100:
			next := min(share+climbStep(p), 100)
			d.State = State{SharePercent: next, LastChange: now, ChangePressure: d.Pressure, HeadroomShare: share}
			if ceilingHolds {
				d.State.SaturatedShare, d.State.SaturatedAt = h.State.SaturatedShare, h.State.SaturatedAt
			}
			if next == 100 {
				d.State.HeadroomShare = 0 // whole again: what it remembered was of another load
			}
			d.Moved = true
			d.Message = fmt.Sprintf("headroom (%s): share %d%% -> %d%%", at, share, next)
		default:
			d.Message = fmt.Sprintf("within target (%s): holds at %d%%", at, share)
		}
	}
	rescale(homes, out)
	return out
}

// CeilingHold is how long, in minIntervals, a share found saturated stops a climb, unless
// the cache use shows the load has fallen (loadFell). An empty queue cannot tell a cluster
// that could take more from one just below its rate, so a climb would find the share it
// fell from saturated again and again; after this long the load may have changed, and a
// climb may try it once more. A hold of 8 left three times as many seeds of the simulated
// bench loop (sim_test.go) swinging wider than a step, and 4 four times as many.
const CeilingHold = 16

// loadFell says whether a reading shows that the load has fallen since the cluster was
// saturated: its cache use, which grows with the load below the rate where a queue stays
// empty, is under half its target. A queue alone cannot tell, so with waitingPerReplica
// only the ceiling holds its time.
func loadFell(p Policy, d Decision) bool {
	return p.CacheUsePercent > 0 && d.Pressure < 50
}

// burstPressurePercent is the pressure up to which one reading past the target may be a
// burst; past it, a queue twice its target is saturated at once.
const burstPressurePercent = 200

// ceiling is the share a climb may not reach: the one the cluster last fell from, while
// that is recent, else above 100. A fall recorded in the future (a hand edit, or a clock
// that went back) is none: it would hold the share down for as long as it is ahead.
func ceiling(p Policy, st State, now time.Time) int32 {
	if st.SaturatedShare <= 0 || st.SaturatedAt.After(now) || !now.Before(st.SaturatedAt.Add(CeilingHold*p.MinInterval)) {
		return 101
	}
	return st.SaturatedShare
}

// fall is where a saturated share falls to, and the headroom share it keeps: a step down,
// to the floor at least, but no lower than the share it last had headroom at (the caller
// passes it only while the ceiling above it holds: an older one is of another load); a
// cluster saturated at that very share (the load grew a little, or the queue is noisy at
// its edge) falls half a step and forgets it.
func fall(p Policy, share, headroomShare int32) (int32, int32) {
	if headroomShare >= share {
		return max(share-climbStep(p), p.FloorPercent), 0
	}
	return max(share-p.MaxStepPercent, p.FloorPercent, headroomShare), headroomShare
}

// climbStep is how far a share climbs back at once: half a step down. A queue that is empty
// says only that the cluster is below its rate, not how far, so the climb probes for the
// rate in smaller steps than the fall that found it.
func climbStep(p Policy) int32 {
	return max(p.MaxStepPercent/2, 1)
}

// rescale scales every eligible share up so that the highest is 100, when none is: the
// shares keep their ratio (to a point), so the weights do not move. A home that is not
// eligible keeps its share, as it takes no traffic to compare.
func rescale(homes []Home, out []Decision) {
	highest := int32(0)
	for i, h := range homes {
		if h.Eligible {
			highest = max(highest, out[i].State.Share())
		}
	}
	if highest == 0 || highest >= 100 {
		return
	}
	for i, h := range homes {
		if !h.Eligible {
			continue
		}
		d := &out[i]
		was := d.State.Share()
		d.State.SharePercent = min((was*100+highest/2)/highest, 100)
		d.State.SaturatedShare = min((d.State.SaturatedShare*100+highest/2)/highest, 100)
		d.State.HeadroomShare = min((d.State.HeadroomShare*100+highest/2)/highest, 100)
		d.Message += fmt.Sprintf("; no share left at 100%%, every share scaled up: %d%% -> %d%%", was, d.State.SharePercent)
	}
}

// pressure is how far the reading is toward the policy's targets, in percent (the higher
// of the two), or why it cannot be told.
func pressure(p Policy, h Home) (int32, string) {
	r := h.Reading
	if !r.Known {
		return 0, r.Reason
	}
	var worst float64
	if p.WaitingPerReplica > 0 {
		if r.Waiting == nil {
			return 0, "routing.trafficSignal.queries.waiting is not set: waitingPerReplica has nothing to read"
		}
		worst = max(worst, float64(waitingPressure(p, h.Replicas, *r.Waiting)))
	}
	if p.CacheUsePercent > 0 {
		if r.CacheUse == nil {
			return 0, "routing.trafficSignal.queries.cacheUse is not set: cacheUsePercent has nothing to read"
		}
		worst = max(worst, 100*100**r.CacheUse/float64(p.CacheUsePercent))
	}
	return int32(math.Round(min(max(worst, 0), MaxPressurePercent))), ""
}

// waitingPressure is waiting requests over replicas against waitingPerReplica, in percent.
func waitingPressure(p Policy, replicas int32, waiting float64) int32 {
	v := 100 * waiting / float64(max(replicas, 1)) / float64(p.WaitingPerReplica)
	return int32(math.Round(min(max(v, 0), MaxPressurePercent)))
}

// reading is the words for a cluster's reading against the targets.
func reading(p Policy, h Home, pressure int32) string {
	s := ""
	if p.WaitingPerReplica > 0 {
		s = fmt.Sprintf("%.1f waiting/replica of %d", *h.Reading.Waiting/float64(max(h.Replicas, 1)), p.WaitingPerReplica)
	}
	if p.CacheUsePercent > 0 {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("cache %.0f%% of %d%%", 100**h.Reading.CacheUse, p.CacheUsePercent)
	}
	return fmt.Sprintf("%s: %d%%", s, pressure)
}
