package main

import (
	"context"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
)

// rampRounds is the story's rampUp in probe periods.
const rampRounds = 5

// rampSteps give the probe rampUp, gate worker-b once more, and watch its weight climb
// back in steps when it recovers (docs/concepts/probe-extensions.md).
func (d *Demo) rampSteps() []Step {
	a, b := workers[0], workers[1]
	rampUp := rampRounds * d.cfg.Timing.Period
	// ramped remembers that the recovery step saw worker-b part way up, so that the step
	// is reached only by a ramp, never by a jump back to the full weight.
	ramped := false
	return []Step{{
		Title: "Add rampUp to the probe; worker-b's model server answers 503 again",
		Do: func(ctx context.Context) error {
			path := d.path("isvc.yaml")
			if err := os.WriteFile(path, []byte(isvcManifestWithRamp(d.cfg.Timing, string(omev1beta1.AllFailedDrain), rampUp)), 0o644); err != nil {
				return err
			}
			d.out.Say("%s now ends in rampUp: %s: a cluster whose gate lifts gets its weight back over that", rel(path), rampUp)
			d.out.Say("long, one step per probe round, instead of all at once. A new setting starts the counts over.")
			if err := d.kubectl.Show(ctx, "apply", "-f", rel(path)); err != nil {
				return err
			}
			return d.setModelServer(b, modelserver.Unavailable)
		},
		Want: "worker-b gated under the probe with rampUp, worker-a passing",
		Reached: func(before, v View) bool {
			eb := v.Entries[b]
			return passing(v.Entries[a]) && gated(eb) && eb.Weight == 0 && eb.Probe.PolicyDigest != digestOf(before, b) &&
				routable(v, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable))
		},
		After: []string{
			"Under the new policy worker-b failed failureThreshold (3) times in a row and is gated.",
		},
	}, {
		Title: "worker-b recovers: its weight climbs back over rampUp",
		Do:    func(context.Context) error { return d.setModelServer(b, modelserver.Serve) },
		Want:  "worker-b back at its full weight after ramping up",
		Reached: func(_, v View) bool {
			ea, eb := v.Entries[a], v.Entries[b]
			if eb.Probe != nil && eb.Probe.RampPercent > 0 && eb.Weight > 0 {
				ramped = true
			}
			return ramped && passing(ea) && passing(eb) && eb.Probe.RampPercent == 0 && eb.Weight == ea.Weight
		},
		After: []string{
			"After successThreshold (2) passes the gate lifted, and worker-b came back at a sixth of its",
			"weight (probe.rampPercent 17: period/(rampUp+period)). Each pass since added as much, until",
			"rampUp after the lift it had its full weight: the weights above are the ramping share",
			"against worker-a's 100, reduced. A gate during the ramp would have ended it at once.",
		},
	}}
}
