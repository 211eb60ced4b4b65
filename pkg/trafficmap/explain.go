package trafficmap

import (
	"fmt"
	"slices"
	"strings"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/text"
)

// MaxWeightMessageBytes is the longest weightMessage an entry carries: the CRD's maxLength.
// The CRD counts characters, so a byte cap is always within it.
const MaxWeightMessageBytes = 896

// Explain sets each entry's weightReason and weightMessage from the finished table: the
// entries after Build and the drains (drain.Apply), which is everything a weight depends
// on. policy is the resolved probe's allFailedPolicy ("" without a probe). Routable is
// left as it is and the input is not modified.
//
// The message is made from the entry's own fields only, and only from fields that move
// when the weight's cause moves (never a time or an age), so a quiet probe round leaves
// it as it was and costs no write of its own.
//
// For a weight of 0 the reason is the first cause that holds, in this order: Drained,
// ProbeNotSent or Refused, NoReadyReplicas, CapacityCapped, NoCapacity, Gated. The
// operator's own holds come first (no fix on the cluster lifts them), then OME's order for
// a zero weight: ready replicas, the capacity report, allocated replicas, the gate. Every
// other cause that holds follows in the message ("; also ..."), so that fixing the first
// does not come as a surprise. A positive weight is PreservedTraffic when the probe gates
// the home (only PreserveTraffic gives a gated home weight), RampingUp while rampUp scales
// it after a lift (its probe's or its passive gate's), ShadowGated while a Shadow probe
// would gate it (which moves nothing), Unobserved while the manager cannot read the home's
// cluster (unobservedSince), then CapacityCapped when a capacity report lowered its
// allocated replicas, LoadShifted while an enforcing load share lowers it, and Routed otherwise (noting what
// a Shadow load share would set). Every other reason of an unobserved home's entry says so at the end of its
// message; its time is fixed while the home stays unobserved.
func Explain(result Result, policy omev1beta1.AllFailedPolicy) Result {
	out := Result{Entries: slices.Clone(result.Entries), Routable: result.Routable, Failover: result.Failover}
	everyOpenGated := entriesAllGated(out.Entries)
	for i := range out.Entries {
		e := &out.Entries[i]
		reason, message := explainEntry(*e, everyOpenGated, policy)
		if e.Tier != "" && out.Failover != nil {
			reason, message = explainTier(*e, reason, message, out.Failover)
		}
		e.WeightReason, e.WeightMessage = reason, text.Cap(message, MaxWeightMessageBytes)
	}
	return out
}

// cause is one reason an entry's weight is what it is, with its words.
type cause struct {
	reason  omev1beta1.WeightReason
	message string
}

func explainEntry(e omev1beta1.TrafficMapEntry, everyOpenGated bool, policy omev1beta1.AllFailedPolicy) (omev1beta1.WeightReason, string) {
	gate := ""
	if e.Probe != nil && e.Probe.Gated {
		gate = gateCause(e.Probe)
	}
	passive := passiveCause(e.PassiveGate)
	if e.Weight > 0 {
		switch p, pg := e.Probe, e.PassiveGate; {
		case gate != "" || passive != "":
			held := gate
			if held == "" {
				held = passive
			}
			return omev1beta1.WeightPreservedTraffic, "takes traffic although " + held +
				": every home is gated and allFailedPolicy PreserveTraffic sets the gates aside; " + share(e) + unobservedNote(e)
		case rampOf(p, pg) < 100:
			return omev1beta1.WeightRampingUp, fmt.Sprintf("ramping back up after %s lifted: %d%% of the weight of %s", rampingGate(p, pg),
				rampOf(p, pg), strings.TrimPrefix(share(e), "takes traffic in proportion to ")) + capNote(e) + unobservedNote(e)
		case p != nil && p.WouldGate:
			return omev1beta1.WeightShadowGated, "takes traffic although a Shadow probe would gate it" + failures(p) +
				lastProbe(p) + ": Shadow mode moves no traffic; " + share(e) + capNote(e) + unobservedNote(e)
		case pg != nil && pg.WouldGate:
			return omev1beta1.WeightPassiveShadowGated, "takes traffic although a Shadow passive gate would hold it out (" + pg.Message +
				"): Shadow mode moves no traffic; " + share(e) + capNote(e) + unobservedNote(e)
		case pg != nil && pg.Capped:
			return omev1beta1.WeightPassiveGateCapped, pg.Message + "; " + share(e) + capNote(e) + unobservedNote(e)
		case loadShifted(e):
			return omev1beta1.WeightLoadShifted, fmt.Sprintf("%s, at %d%% of it by its model servers' load (see load.message)",
				share(e), e.Load.SharePercent) + capNote(e) + unobservedNote(e)
		case e.UnobservedSince != nil:
			return omev1beta1.WeightUnobserved, UnobservedWording(e.UnobservedSince.Time) + "; " + share(e) + capNote(e)
		case capped(e):
			return omev1beta1.WeightCapacityCapped, fmt.Sprintf("capped at %d replica(s) by its capacity report; %s", e.Capacity.Allocated, share(e))
		default:
			return omev1beta1.WeightRouted, share(e) + fallbackNote(e) + shadowNotSentNote(e) + shadowLoadNote(e)
		}
	}
	causes := zeroCauses(e, gate, passive)
	if len(causes) == 0 {
		// Not reachable through Build (a home with capacity never rounds to 0), but a
		// weight is never left without a word.
		return omev1beta1.WeightNoCapacity, "no servable capacity"
	}
	first := causes[0]
	message := first.message
	if (first.reason == omev1beta1.WeightGated || first.reason == omev1beta1.WeightPassiveGated) && everyOpenGated && policy == omev1beta1.AllFailedDrain {
		message += "; every home is gated, and allFailedPolicy Drain keeps them all at 0"
	}
	for _, c := range causes[1:] {
		message += "; also " + c.message
	}
	return first.reason, message + unobservedNote(e)
}

// zeroCauses are the causes that each alone would hold the entry at 0, in the order in
// which they win.
func zeroCauses(e omev1beta1.TrafficMapEntry, gate, passive string) []cause {
	var causes []cause
	if len(e.DrainRefs) > 0 {
		causes = append(causes, cause{omev1beta1.WeightDrained,
			"held at weight 0 by traffic-drain override(s) " + strings.Join(e.DrainRefs, ", ")})
	}
	if e.Refused != "" {
		if notSent, ok := probe.Refusal(e.Probe); ok && notSent == e.Refused {
			causes = append(causes, cause{omev1beta1.WeightProbeNotSent, e.Refused})
		} else {
			causes = append(causes, cause{omev1beta1.WeightRefused, "refused by the operator: " + e.Refused})
		}
	}
	c := e.Capacity
	switch {
	case c.Ready <= 0:
		causes = append(causes, cause{omev1beta1.WeightNoReadyReplicas, fmt.Sprintf(
			"no ready replica: its copy reports 0 ready of %d allocated (a copy that is not IngressReady counts none)", c.Allocated)})
	case c.Allocated <= 0 && c.Source == omev1beta1.CapacitySourceEndpoint:
		causes = append(causes, cause{omev1beta1.WeightCapacityCapped, "capped at 0 replicas by its capacity report"})
	case c.Allocated <= 0:
		causes = append(causes, cause{omev1beta1.WeightNoCapacity, fmt.Sprintf(
			"no allocated replica: its copy admits 0 (%d ready)", c.Ready)})
	}
	if gate != "" {
		causes = append(causes, cause{omev1beta1.WeightGated, gate})
	}
	if passive != "" {
		causes = append(causes, cause{omev1beta1.WeightPassiveGated, passive})
	}
	return causes
}

// gateCause says what the probe record of a gated home says.
func gateCause(p *omev1beta1.TrafficMapProbe) string {
	s := "gated by the routing probe" + failures(p)
	if p.Result == omev1beta1.ProbePassing {
		s += "; it passes again, and the gate lifts after successThreshold passes in a row"
	}
	return s + lastProbe(p)
}

func failures(p *omev1beta1.TrafficMapProbe) string {
	if p.ConsecutiveFailures <= 0 {
		return ""
	}
	return fmt.Sprintf(" after %d failure(s) in a row", p.ConsecutiveFailures)
}

func lastProbe(p *omev1beta1.TrafficMapProbe) string {
	s := "; last probe " + string(p.Result)
	if p.Message != "" {
		s += ": " + p.Message
	}
	return s
}

// capNote says that a capacity report lowers a positive weight whose reason is another.
func capNote(e omev1beta1.TrafficMapEntry) string {
	if !capped(e) {
		return ""
	}
	return fmt.Sprintf("; capped at %d replica(s) by its capacity report", e.Capacity.Allocated)
}

// shadowNotSentNote says that a Shadow probe's probe is not sent, which under Enforce would
// hold the home at 0 (ProbeNotSent) and under Shadow moves nothing.
func shadowNotSentNote(e omev1beta1.TrafficMapEntry) string {
	if notSent, ok := probe.Refusal(e.Probe); ok && e.Refused == "" {
		return "; its last probe was not sent (" + strings.TrimPrefix(notSent, probe.NotSentPrefix) +
			"), which a Shadow probe records without moving traffic"
	}
	return ""
}

// capped says whether a capacity report lowered the entry's allocated replicas.
func capped(e omev1beta1.TrafficMapEntry) bool {
	return e.Capacity.Source == omev1beta1.CapacitySourceEndpoint
}

// share says what a positive weight is in proportion to.
func share(e omev1beta1.TrafficMapEntry) string {
	s := fmt.Sprintf("takes traffic in proportion to min(allocated %d, ready %d)", e.Capacity.Allocated, e.Capacity.Ready)
	if e.Capacity.Factor != nil {
		s += " x capacity factor " + e.Capacity.Factor.String()
	}
	return s
}

// loadShifted says whether an enforcing load share lowers the entry's weight.
func loadShifted(e omev1beta1.TrafficMapEntry) bool {
	return e.Load != nil && e.Load.Mode == omev1beta1.LoadBalancingEnforce && e.Load.SharePercent >= 1 && e.Load.SharePercent < 100
}

// shadowLoadNote says what Shadow load balancing would make of the weight, when its share
// is below 100%.
func shadowLoadNote(e omev1beta1.TrafficMapEntry) string {
	l := e.Load
	if l == nil || l.Mode != omev1beta1.LoadBalancingShadow || l.ShadowWeight == nil || l.SharePercent >= 100 {
		return ""
	}
	return fmt.Sprintf("; Shadow load balancing would give it %d%% of that, weight %d, and moves nothing", l.SharePercent, *l.ShadowWeight)
}

// fallbackNote says that a configured capacity poll gives the home no ceiling.
func fallbackNote(e omev1beta1.TrafficMapEntry) string {
	if e.Capacity.FallbackReason == "" {
		return ""
	}
	return "; its capacity poll gives no ceiling (" + e.Capacity.FallbackReason + "), so the admitted replicas count"
}

// entriesAllGated is allGated over finished entries: some entry the operator does not
// refuse, and the probe gates every one of them.
func entriesAllGated(entries []omev1beta1.TrafficMapEntry) bool {
	open := 0
	for _, e := range entries {
		if e.Refused != "" {
			continue
		}
		if !EntryGated(e) {
			return false
		}
		open++
	}
	return open > 0
}

// rampingGate names the gate whose lift sets a ramping home's share: its probe's, unless
// its passive gate's ramp is the lower.
func rampingGate(p *omev1beta1.TrafficMapProbe, pg *omev1beta1.TrafficMapPassiveGate) string {
	if rampOf(nil, pg) < rampOf(p, nil) {
		return "its passive gate"
	}
	return "its gate"
}
