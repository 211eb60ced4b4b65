package samples

import (
	"os"
	"testing"

	"sigs.k8s.io/yaml"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/failover"
	"github.com/ome-routing/operator/pkg/probe"
)

// The getting-started guide's service with a passive gate and failover tiers passes the
// manager's own rules for a service's probe and failover (test/integration/api applies it
// to an API server with the CRDs).
func TestFailoverSample(t *testing.T) {
	raw, err := os.ReadFile("inferenceservice-failover.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var isvc omev1beta1.InferenceService
	if err := yaml.UnmarshalStrict(raw, &isvc); err != nil {
		t.Fatal(err)
	}
	r := isvc.Spec.Routing
	if r == nil || r.Probe == nil || r.Probe.PassiveGate == nil || r.Failover == nil {
		t.Fatalf("the sample lacks its probe, passive gate or failover: %+v", r)
	}
	policy, errs := probe.Validate(probe.SpecFromAPI(r.Probe), probe.ServicePath)
	if len(errs) > 0 {
		t.Fatalf("the manager refuses the sample's probe: %v", errs)
	}
	if g := policy.PassiveGate; g == nil || g.Mode != omev1beta1.ProbeModeEnforce || g.FailurePercent != 10 {
		t.Errorf("passive gate %+v, want Enforce at 10%%", g)
	}
	if errs := failover.Validate(r.Failover, "spec.routing.failover"); len(errs) > 0 {
		t.Fatalf("the manager refuses the sample's failover: %v", errs)
	}
	if tiers := r.Failover.Tiers; len(tiers) != 2 || tiers[0].Clusters[0] != "worker-a" || tiers[1].Clusters[0] != "worker-b" {
		t.Errorf("tiers %+v", tiers)
	}
}
