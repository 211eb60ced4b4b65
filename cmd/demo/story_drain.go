package main

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
)

// drainID and drainReason are the maintenance drain the story sets with kubectl ome.
const (
	drainID     = "maintenance-a"
	drainReason = "planned maintenance"
)

// drainSteps hold worker-a at weight 0 for maintenance with `kubectl ome traffic drain`,
// show it with `kubectl ome placement endpoint`, and release it.
func (d *Demo) drainSteps() []Step {
	a, b := workers[0], workers[1]
	return []Step{{
		Title: "Both model servers are fixed; drain worker-a for maintenance with kubectl ome",
		Do: func(ctx context.Context) error {
			for _, w := range workers {
				if err := d.setModelServer(w, modelserver.Serve); err != nil {
					return err
				}
			}
			d.out.Say("kubectl ome shows its preview on stderr, then patches the service's ome.io/traffic-drain")
			d.out.Say("annotation, testing the UID and resourceVersion it previewed (--yes skips the prompt).")
			err := d.kubectl.Show(ctx, "ome", "traffic", "drain", serviceName, "--workload-cluster", a,
				"--id", drainID, "--reason", drainReason, "--yes")
			return err
		},
		Want: "worker-a held at weight 0 by maintenance-a while passing, worker-b passing",
		Reached: func(_, v View) bool {
			ea := v.Entries[a]
			return drained(ea) && ea.Healthy && ea.Probe != nil && !ea.Probe.Gated && passing(v.Entries[b]) &&
				routable(v, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable)) && overrideApplied(v)
		},
		After: []string{
			"worker-a passes its probe and stays healthy, but the drain holds it at weight 0 and",
			"names itself in drainRefs; worker-b takes all the traffic. A drain stays until it is",
			"removed: the operator never lifts it on its own.",
		},
	}, {
		Title: "Read the routing with kubectl ome placement endpoint, then undrain worker-a",
		Do: func(ctx context.Context) error {
			if err := d.kubectl.Show(ctx, "ome", "placement", "endpoint", serviceName); err != nil {
				return err
			}
			err := d.kubectl.Show(ctx, "ome", "traffic", "undrain", serviceName, "--id", drainID, "--yes")
			return err
		},
		Want: "both clusters passing with their weights back, no drain",
		Reached: func(_, v View) bool {
			return passing(v.Entries[a]) && passing(v.Entries[b]) && len(v.Entries[a].DrainRefs) == 0
		},
		After: []string{
			"With its last drain removed, worker-a gets its weight back at once: its probe record",
			"was kept all along.",
		},
	}}
}

// overrideApplied: OverrideActive is True and written for the map's current generation.
// Each probe round moves the map's generation a moment before its conditions, so waiting
// for this keeps the endpoint view that follows from catching that moment.
func overrideApplied(v View) bool {
	c := meta.FindStatusCondition(v.Map.Status.Conditions, omev1beta1.TrafficMapOverrideActive)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == v.Map.Generation &&
		v.Routable != nil && v.Routable.ObservedGeneration == v.Map.Generation
}

// drained: the story's drain holds the entry at weight 0.
func drained(e omev1beta1.TrafficMapEntry) bool {
	return e.Weight == 0 && slices.Equal(e.DrainRefs, []string{drainID})
}
