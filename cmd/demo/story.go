package main

import (
	"context"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
)

// Step is one scene of the story: a change a user or a failure makes, then the state the
// operator must bring the TrafficMap to.
type Step struct {
	// Title is the step's heading.
	Title string
	// Do makes the change: a model server starts or stops answering, or a kubectl apply.
	Do func(ctx context.Context) error
	// Want names the state, for the progress line and a timeout's message.
	Want string
	// Show, when set, is a kubectl command printed once the state is reached, besides the
	// Routable condition.
	Show func() []string
	// Reached says whether the map shows the state; before is the map as it was before Do,
	// for a state that only counts once the change has been seen.
	Reached func(before, now View) bool
	// After explains what the reader just watched.
	After []string
	// Applied, when set, waits after the state for the gateway's own counters to show that
	// the weight 0 reached the traffic, and prints that evidence (showApplied).
	Applied bool
}

// Steps is the story, in order. Each step starts from the state the one before reached.
func (d *Demo) Steps() []Step {
	a, b := workers[0], workers[1]
	steps := []Step{{
		Title: "Apply isvc.yaml: both clusters pass their probes",
		Do: func(ctx context.Context) error {
			// The workers have the namespace already, with the copies; the control plane
			// needs it for the service.
			if err := d.kubectl.Show(ctx, "create", "namespace", serviceNS); err != nil {
				return err
			}
			return d.applyService(ctx, omev1beta1.AllFailedPreserveTraffic)
		},
		Want: "both clusters passing, Routable True Routable",
		Reached: func(_, v View) bool {
			return passing(v.Entries[a]) && passing(v.Entries[b]) && routable(v, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable))
		},
		After: []string{
			"Both lines end in true Passing HTTP 200: each cluster has one ready replica and",
			"an equal share of the traffic.",
		},
	}, {
		Title: "worker-b's model server starts answering 503",
		Do:    func(context.Context) error { return d.setModelServer(b, modelserver.Unavailable) },
		Want:  "worker-b gated with weight 0, worker-a passing",
		// The gate's evidence: haproxy itself stopped sending worker-b requests.
		Applied: true,
		Reached: func(_, v View) bool {
			eb := v.Entries[b]
			return passing(v.Entries[a]) && gated(eb) && eb.Weight == 0 && routable(v, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable))
		},
		After: []string{
			"worker-b's copy still reports a ready replica: only the probe saw the 503s. After",
			"failureThreshold (3) Failing results in a row, worker-b is gated: weight 0, healthy",
			"false. worker-a takes all the traffic and the service stays Routable.",
		},
	}, {
		Title: "worker-b recovers",
		Do:    func(context.Context) error { return d.setModelServer(b, modelserver.Serve) },
		Want:  "worker-b's gate lifted, both clusters passing",
		Reached: func(_, v View) bool {
			return passing(v.Entries[a]) && passing(v.Entries[b])
		},
		After: []string{
			"The first pass clears consecutiveFailures, but the gate stays until successThreshold",
			"(2) Passing results in a row. Then worker-b gets its weight back.",
		},
	}, {
		Title: "worker-b's capacity reporter says it can serve 0 replicas",
		Do: func(context.Context) error {
			d.setServable(b, 0)
			return nil
		},
		Want: "worker-b capped at 0 by its report, still healthy and passing",
		Reached: func(_, v View) bool {
			eb := v.Entries[b]
			return passing(v.Entries[a]) && probePassing(eb) && eb.Healthy && eb.Weight == 0 &&
				eb.Capacity.Source == omev1beta1.CapacitySourceEndpoint && routable(v, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable))
		},
		Show: capacityArgs,
		After: []string{
			"worker-b's copy still says 1 ready replica and its probe passes, but its endpoint",
			"reports it can serve none (say, its engines lost their decoders in a rollout). Once",
			"quorum (2) polls in a row agree, allocated drops to the reported 0 with source",
			"Endpoint, and so does the weight. healthy stays true: it ignores capacity.",
		},
	}, {
		Title: "Both model servers answer 503, under allFailedPolicy: PreserveTraffic",
		Do: func(context.Context) error {
			// worker-b can serve again; the gates below would otherwise keep its 0.
			d.setServable(b, 1)
			if err := d.setModelServer(a, modelserver.Unavailable); err != nil {
				return err
			}
			return d.setModelServer(b, modelserver.Unavailable)
		},
		Want: "both clusters gated with their weights kept, Routable True AllHomesProbeFailed",
		Reached: func(_, v View) bool {
			ea, eb := v.Entries[a], v.Entries[b]
			return gated(ea) && gated(eb) && ea.Weight > 0 && eb.Weight > 0 &&
				routable(v, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonAllHomesProbeFailed))
		},
		After: []string{
			"Both clusters are gated (healthy false), yet they keep their weights: when every",
			"cluster fails at once, the fault may be the control plane's own egress or DNS, so",
			"PreserveTraffic keeps traffic flowing. Routable stays True, reason AllHomesProbeFailed.",
		},
	}, {
		Title: "Switch the service to allFailedPolicy: Drain",
		Do: func(ctx context.Context) error {
			d.out.Say("Changing any probe setting, allFailedPolicy included, lifts the gates and starts the")
			d.out.Say("counts over: both clusters get their weight back until they fail 3 times in a row again.")
			return d.applyService(ctx, omev1beta1.AllFailedDrain)
		},
		Want: "both clusters gated under the new policy with weight 0, Routable False AllHomesProbeFailed",
		Reached: func(before, v View) bool {
			for _, w := range workers {
				e := v.Entries[w]
				// A gate counts only once it was closed under the new policy, whose digest
				// differs from the one the entries carried before the apply.
				if !gated(e) || e.Weight != 0 || e.Probe.PolicyDigest == digestOf(before, w) {
					return false
				}
			}
			return routable(v, metav1.ConditionFalse, string(omev1beta1.TrafficMapReasonAllHomesProbeFailed))
		},
		After: []string{
			"Under Drain, every weight stays at zero and Routable turns False: no cluster gets",
			"traffic until one passes its probe successThreshold times in a row.",
		},
	}}
	steps = append(steps, d.drainSteps()...)
	return append(steps, d.rampSteps()...)
}

// RunStory runs every step in order and stops at the first that fails.
func (d *Demo) RunStory(ctx context.Context) error {
	steps := d.Steps()
	for i, s := range steps {
		if err := d.RunStep(ctx, i+1, len(steps), s); err != nil {
			return err
		}
	}
	return nil
}

// RunStep plays one step: make the change, watch the map until it shows the step's state,
// then show the Routable condition as the spec's command prints it.
func (d *Demo) RunStep(ctx context.Context, n, total int, s Step) error {
	d.out.Heading("Step %d of %d: %s", n, total, s.Title)
	before, err := d.read(ctx)
	if err != nil {
		return fmt.Errorf("step %d: read the TrafficMap: %w", n, err)
	}
	if err := s.Do(ctx); err != nil {
		return fmt.Errorf("step %d (%s): %w", n, s.Title, err)
	}
	start := time.Now()
	d.out.Say("Watching the TrafficMap; each time an entry changes, the table is printed again by:")
	d.out.Command("kubectl " + shellJoin(tableArgs()))
	if err := d.waitFor(ctx, before, s.Want, func(v View) bool { return s.Reached(before, v) }); err != nil {
		return fmt.Errorf("step %d (%s): %w", n, s.Title, err)
	}
	d.out.Event("reached after %.1fs: %s", time.Since(start).Seconds(), s.Want)
	if s.Show != nil {
		if err := d.kubectl.Show(ctx, s.Show()...); err != nil {
			return fmt.Errorf("step %d: %w", n, err)
		}
	}
	if err := d.kubectl.Show(ctx, routableArgs()...); err != nil {
		return fmt.Errorf("step %d: %w", n, err)
	}
	if err := d.showGateway(ctx); err != nil {
		return fmt.Errorf("step %d: %w", n, err)
	}
	if s.Applied {
		if err := d.showApplied(ctx); err != nil {
			return fmt.Errorf("step %d: %w", n, err)
		}
	}
	for _, line := range s.After {
		d.out.Say("%s", line)
	}
	return nil
}

// applyService writes isvc.yaml with the given allFailedPolicy and applies it with
// kubectl, as a user would.
func (d *Demo) applyService(ctx context.Context, policy omev1beta1.AllFailedPolicy) error {
	path := d.path("isvc.yaml")
	if err := os.WriteFile(path, []byte(isvcManifest(d.cfg.Timing, string(policy))), 0o644); err != nil {
		return err
	}
	d.out.Say("%s is the spec's Step 2 manifest with period %s, timeout %s and allFailedPolicy: %s.",
		rel(path), d.cfg.Timing.Period, d.cfg.Timing.Timeout, policy)
	return d.kubectl.Show(ctx, "apply", "-f", rel(path))
}

// setModelServer switches how a worker's model server answers /v1/models.
func (d *Demo) setModelServer(worker string, mode modelserver.Mode) error {
	what := map[modelserver.Mode]string{modelserver.Serve: "200", modelserver.Unavailable: "503"}[mode]
	d.out.Event("%s's model server now answers %s", worker, what)
	return d.servers.Set(worker, mode)
}

// setServable changes what a worker's capacity reporter answers.
func (d *Demo) setServable(worker string, n int32) {
	d.out.Event("%s's capacity reporter now answers {\"servable\": %d}", worker, n)
	d.servers.Endpoints[worker].SetServable(n)
}

// digestOf is the policy digest of a cluster's probe record, or "" when it has none.
func digestOf(v View, cluster string) string {
	if e, ok := v.Entries[cluster]; ok && e.Probe != nil {
		return e.Probe.PolicyDigest
	}
	return ""
}
