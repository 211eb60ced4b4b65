package publisher

import (
	"context"
	"testing"

	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

// On a control plane that does not serve BackendTLSPolicy, a plan with TLS is refused as a
// claim, in these words, before anything is read or written: no retry helps until the CRD
// is installed and the manager restarted.
func TestTLSPolicyNotServedIsARefusedClaim(t *testing.T) {
	ep := config.Endpoint{GlobalGateway: "gateway-system/global", BackendPort: 443,
		GlobalHostTemplate: "{{ .Name }}.{{ .Namespace }}.global.example.com", BackendTLS: true}
	plan, err := publish.Build(publish.Input{Map: guardedMap(entryAt("worker-a", "https://chat.worker-a.example.com")), ServiceNamespace: "prod", ServiceName: "chat", Endpoint: ep})
	if err != nil {
		t.Fatal(err)
	}
	objects, err := plan.Objects()
	if err != nil {
		t.Fatal(err)
	}
	var policy *publish.Object
	for i := range objects {
		if objects[i].Kind == publish.KindTLSPolicy {
			policy = &objects[i]
			break
		}
	}
	if policy == nil {
		t.Fatalf("a plan with TLS has no BackendTLSPolicy: %v", objects)
	}
	r := &Reconciler{} // no Policies reader: the kind is not served
	_, err = r.claimable(context.Background(), *policy, plan)
	want := "read global BackendTLSPolicy prod/" + policy.Object.GetName() + ": the control plane does not serve BackendTLSPolicy " +
		"(gateway.networking.k8s.io/v1): install Gateway API v1.4 or later, standard channel, and restart the manager"
	if err == nil || err.Error() != want || !isClaimRejected(err) {
		t.Fatalf("claimable = %v (claim rejected %v), want the refused claim %q", err, isClaimRejected(err), want)
	}
}
