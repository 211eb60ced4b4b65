package main

import (
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/probe"
)

// TestPassiveManifest checks the isvc-passive.yaml "Your turn" writes: the guide's
// isvc.yaml with an enforced passive gate the manager's own rules accept.
func TestPassiveManifest(t *testing.T) {
	var isvc omev1beta1.InferenceService
	if err := yaml.UnmarshalStrict([]byte(isvcPassiveManifest(demoTiming)), &isvc); err != nil {
		t.Fatal(err)
	}
	rp := isvc.Spec.Routing.Probe
	if rp == nil || rp.PassiveGate == nil {
		t.Fatalf("no passive gate in the manifest:\n%s", isvcPassiveManifest(demoTiming))
	}
	policy, errs := probe.Validate(probe.SpecFromAPI(rp), probe.ServicePath)
	if len(errs) > 0 {
		t.Fatalf("the manager refuses the manifest's probe: %v", errs)
	}
	g := policy.PassiveGate
	if g == nil || policy.Period != demoTiming.Period || policy.AllFailedPolicy != omev1beta1.AllFailedPreserveTraffic {
		t.Fatalf("policy %+v", policy)
	}
	if g.Mode != omev1beta1.ProbeModeEnforce || g.FailurePercent != 20 || g.MinRequests != 10 || g.BaseEjectionTime != 30*time.Second {
		t.Errorf("passive gate %+v, want Enforce, 20%%, 10 requests, 30s", *g)
	}
}
