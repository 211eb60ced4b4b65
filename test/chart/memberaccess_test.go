package chart

import (
	"context"
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/ome-routing/operator/internal/envfleet"
)

// The chart's member access grants what the suites' members grant (envfleet.MemberRules,
// config/samples/member-rbac.yaml), and get on Gateways and HTTPRoutes only with
// gatewayAddresses, for the EndpointSlice fallback: least privilege otherwise.
func TestMemberAccessIsLeastPrivilege(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	plain, err := envfleet.ChartMemberRules(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain, envfleet.MemberRules) {
		t.Errorf("member rules without gatewayAddresses = %+v, want %+v", plain, envfleet.MemberRules)
	}
	withGateways, err := envfleet.ChartMemberRules(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]rbacv1.PolicyRule{}, envfleet.MemberRules...), rbacv1.PolicyRule{
		APIGroups: []string{"gateway.networking.k8s.io"}, Resources: []string{"gateways", "httproutes"}, Verbs: []string{"get"},
	})
	if !reflect.DeepEqual(withGateways, want) {
		t.Errorf("member rules with gatewayAddresses = %+v, want %+v", withGateways, want)
	}
}
