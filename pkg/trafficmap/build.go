package trafficmap

import (
	"cmp"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/failover"
	"github.com/ome-routing/operator/pkg/text"
)

// Home is one workload cluster that holds an addressable copy of the service.
type Home struct {
	// Cluster is the WorkloadCluster's name. Names are unique within one Input.
	Cluster string
	// Endpoint is the copy's status.url.
	Endpoint string
	// Allocated is the number of admitted replicas; with a decoder, the lower of the
	// engine's and the decoder's.
	Allocated int32
	// Ready is the number of ready replicas, 0 when the copy is not IngressReady.
	Ready int32
	// Probe is the home's probe record, nil until a configured probe has run for it.
	// Probe.Gated is the gate.
	Probe *omev1beta1.TrafficMapProbe
	// Ceiling is the capacity poll's verdict, nil when the service is not polled. Build
	// lowers Allocated to it, never raises it, and records it in the entry.
	Ceiling *capacity.Ceiling
	// Refused says why the operator itself sends the home no traffic (its endpoint is
	// outside the cluster's allowedEndpointDomains, or the operator will not send its
	// probe); empty when it does not. A refused home gets weight 0, which no
	// allFailedPolicy lifts.
	Refused string
	// UnobservedSince is set while the manager cannot read the home's cluster: since when.
	// The home then carries its last known endpoint and capacity (see RetainUnobserved);
	// it is weighed like any other, and its probe record decides its gate.
	UnobservedSince time.Time
	// PassiveGate is the home's passive-gate record, nil when the service's probe sets no
	// passiveGate. Its Gated holds the home out as a probe gate does.
	PassiveGate *omev1beta1.TrafficMapPassiveGate
	// Load is the home's load record, nil when the service does not balance by load
	// (pkg/loadbalance). Under Enforce its share scales the home's servable capacity, as a
	// ramp does; under Shadow the entry records the weight it would set.
	Load *omev1beta1.TrafficMapLoad
}

// Input is everything the routing table of one service is computed from.
type Input struct {
	// Candidates is the number of clusters placement selected. It only tells NotPlaced
	// from NoAddressableHome when there are no homes.
	Candidates int
	// Homes are the candidates that hold a copy with an endpoint, in any order.
	Homes []Home
	// CapacityFactors is spec.routing.capacityFactors as ParseCapacityFactors returns it.
	CapacityFactors map[string]resource.Quantity
	// AllFailedPolicy is the resolved probe's policy, "" when no probe applies.
	AllFailedPolicy omev1beta1.AllFailedPolicy
	// Failover is the homes' failover tiers, nil when the service has none; every home
	// must be in TierOf. Without it the weights are as they always were.
	Failover *failover.Assignment
	// Drained are the clusters an ome.io/traffic-drain override holds at 0. Only failover
	// reads them here, to count a drained home out of its tier's health; drain.Apply sets
	// their weights and refs after Build.
	Drained []string
}

// Result is the computed routing table and its Routable condition.
type Result struct {
	// Entries has one entry per home, sorted by cluster name, nil when there are no homes.
	Entries []omev1beta1.TrafficMapEntry
	// Routable is the Routable condition without its type, generation and time, which the
	// writer sets.
	Routable Condition
	// Failover is the split over the failover tiers, nil without failover.
	Failover *omev1beta1.TrafficMapFailover
}

// Condition is the part of a metav1.Condition that Build decides.
type Condition struct {
	Status  metav1.ConditionStatus
	Reason  omev1beta1.TrafficMapConditionReason
	Message string
}

// Build computes a service's TrafficMap entries and its Routable condition. It does not
// modify its input, and the same input always gives the same result.
func Build(in Input) Result {
	if len(in.Homes) == 0 {
		return Result{Routable: routableCondition(in.Candidates, in.AllFailedPolicy, nil)}
	}
	// Sorting first makes the output independent of the order the caller listed homes in;
	// the stable sort keeps even a duplicated name deterministic.
	homes := slices.Clone(in.Homes)
	slices.SortStableFunc(homes, func(a, b Home) int { return cmp.Compare(a.Cluster, b.Cluster) })
	// The ceiling applies before anything else reads Allocated. Negative counts are not
	// valid in the API and count as none.
	effects := make([]capacity.Effect, len(homes))
	admitted := make([]int32, len(homes))
	for i := range homes {
		admitted[i] = max(homes[i].Allocated, 0)
		effects[i] = capacity.Apply(admitted[i], homes[i].Ceiling)
		homes[i].Allocated = effects[i].Allocated
	}

	ignoreGates := allGated(homes) && in.AllFailedPolicy == omev1beta1.AllFailedPreserveTraffic
	weights, split := tableWeights(homes, admitted, in, ignoreGates, false)
	var shadowWeights []int32
	if shadowLoad(homes) {
		shadowWeights, _ = tableWeights(homes, admitted, in, ignoreGates, true)
	}

	entries := make([]omev1beta1.TrafficMapEntry, len(homes))
	for i, h := range homes {
		entries[i] = omev1beta1.TrafficMapEntry{
			Cluster:  h.Cluster,
			Endpoint: h.Endpoint,
			Weight:   weights[i],
			// Health reports what the home is, not what the all-failed policy makes of it,
			// so a preserved home still shows its gate.
			Healthy: h.Ready > 0 && !gated(h) && h.Refused == "",
			Refused: capRefusal(h.Refused),
			Capacity: omev1beta1.TrafficMapCapacity{
				Allocated:      h.Allocated,
				Ready:          max(h.Ready, 0),
				Factor:         factorOf(in.CapacityFactors, h.Cluster),
				Source:         effects[i].Source,
				Reported:       effects[i].Reported,
				FallbackReason: effects[i].FallbackReason,
			},
			// A copy, so the caller's probe state and the written entry never alias.
			Probe:           h.Probe.DeepCopy(),
			PassiveGate:     h.PassiveGate.DeepCopy(),
			Load:            h.Load.DeepCopy(),
			UnobservedSince: unobservedSince(h),
			Tier:            tierOf(in.Failover, h.Cluster),
		}
	}
	for i := range entries {
		if l := entries[i].Load; l != nil && l.Mode == omev1beta1.LoadBalancingShadow && shadowWeights != nil {
			l.ShadowWeight = ptr.To(shadowWeights[i])
		}
	}
	return Result{
		Entries:  entries,
		Routable: routableCondition(in.Candidates, in.AllFailedPolicy, entries),
		Failover: split,
	}
}

// tableWeights are the homes' weights, and the failover split when the service has tiers;
// shadow applies the shares of Shadow load records too (servableCapacity).
func tableWeights(homes []Home, admitted []int32, in Input, ignoreGates, shadow bool) ([]int32, *omev1beta1.TrafficMapFailover) {
	servable := servableCapacity(homes, in.CapacityFactors, ignoreGates, shadow)
	if in.Failover != nil {
		return failoverWeights(homes, admitted, servable, in)
	}
	return reduceWeights(servable), nil
}

// shadowLoad says whether a home's load record is in Shadow mode: its entry then records
// the weight the share would set.
func shadowLoad(homes []Home) bool {
	for _, h := range homes {
		if h.Load != nil && h.Load.Mode == omev1beta1.LoadBalancingShadow {
			return true
		}
	}
	return false
}

// factorOf returns the cluster's factor in its canonical form, nil when none is set, so
// that the capacity block names a factor only when the user set one.
func factorOf(factors map[string]resource.Quantity, cluster string) *omev1beta1.CapacityFactor {
	q, ok := factors[cluster]
	if !ok {
		return nil
	}
	f := omev1beta1.CapacityFactor(q.String())
	return &f
}

// gated says whether a gate holds the home out, the probe's or the passive gate's.
func gated(h Home) bool {
	return (h.Probe != nil && h.Probe.Gated) || passiveGated(h.PassiveGate)
}

// allGated reports whether the all-failed policy applies: there is at least one home the
// operator does not refuse, and the probe gates every one of them. A refused home is left
// out of the question: the policy weighs gated homes, and a refusal is not the probe's.
func allGated(homes []Home) bool {
	open := 0
	for _, h := range homes {
		if h.Refused != "" {
			continue
		}
		if !gated(h) {
			return false
		}
		open++
	}
	return open > 0
}

// MaxRefusedBytes is the longest refusal an entry carries: the CRD's maxLength for
// refused. The CRD counts characters, so a byte cap is always within it.
const MaxRefusedBytes = 1024

// capRefusal cuts a refusal to MaxRefusedBytes on a character boundary: a long
// allowedEndpointDomains list, quoted in full, could pass the limit and make every write
// of the map fail.
func capRefusal(reason string) string {
	return text.Cap(reason, MaxRefusedBytes)
}
