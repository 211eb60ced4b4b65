package failover_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/failover"
)

func region(r string) map[string]string { return map[string]string{"topology.kubernetes.io/region": r} }

func byRegion(name, r string) omev1beta1.FailoverTier {
	return omev1beta1.FailoverTier{Name: name, ClusterSelector: &metav1.LabelSelector{MatchLabels: region(r)}}
}

func TestAssign(t *testing.T) {
	pct := int32(200)
	f := &omev1beta1.RoutingFailover{
		Tiers: []omev1beta1.FailoverTier{
			{Name: "onprem", Clusters: []string{"dc-1"}},
			byRegion("east", "us-east-1"),
		},
		OverprovisioningPercent: &pct,
	}
	got, err := failover.Assign(f, failover.ServicePath, []failover.Cluster{
		{Name: "far", Labels: region("eu-west-1")},
		{Name: "e1", Labels: region("us-east-1")},
		{Name: "dc-1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"onprem", "east", omev1beta1.UnlistedTier}; !slices.Equal(got.Names, want) {
		t.Errorf("Names = %v, want %v", got.Names, want)
	}
	if want := map[string]int{"dc-1": 0, "e1": 1, "far": 2}; !maps.Equal(got.TierOf, want) {
		t.Errorf("TierOf = %v, want %v", got.TierOf, want)
	}
	if got.OverprovisioningPercent != 200 {
		t.Errorf("OverprovisioningPercent = %d, want 200", got.OverprovisioningPercent)
	}
}

func TestAssignWithoutUnlistedHomesHasNoUnlistedTier(t *testing.T) {
	f := &omev1beta1.RoutingFailover{Tiers: []omev1beta1.FailoverTier{{Name: "a", Clusters: []string{"x"}}, {Name: "b", Clusters: []string{"y"}}}}
	got, err := failover.Assign(f, failover.ServicePath, []failover.Cluster{{Name: "x"}, {Name: "y"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b"}; !slices.Equal(got.Names, want) {
		t.Errorf("Names = %v, want %v", got.Names, want)
	}
	if got.OverprovisioningPercent != omev1beta1.DefaultOverprovisioningPercent {
		t.Errorf("OverprovisioningPercent = %d, want Envoy's default", got.OverprovisioningPercent)
	}
}

func TestAssignRefusesAClusterTwoTiersClaim(t *testing.T) {
	for name, tiers := range map[string][]omev1beta1.FailoverTier{
		"a name and a selector": {{Name: "a", Clusters: []string{"x"}}, byRegion("b", "r1")},
		"two selectors":         {byRegion("a", "r1"), {Name: "b", ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "topology.kubernetes.io/region", Operator: metav1.LabelSelectorOpExists}}}}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := failover.Assign(&omev1beta1.RoutingFailover{Tiers: tiers}, failover.InstallationPath, []failover.Cluster{{Name: "x", Labels: region("r1")}})
			want := "routing.failover: cluster x is in tiers a and b"
			if err == nil || err.Error() != want {
				t.Fatalf("Assign error = %v, want %q", err, want)
			}
		})
	}
}

func TestAssignRefusesABadSelector(t *testing.T) {
	f := &omev1beta1.RoutingFailover{Tiers: []omev1beta1.FailoverTier{{Name: "a", ClusterSelector: &metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "zone", Operator: "Near"}}}}}}
	_, err := failover.Assign(f, failover.ServicePath, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "spec.routing.failover.tiers[0].clusterSelector is not a valid label selector: ") {
		t.Fatalf("Assign error = %v", err)
	}
}

func TestResolve(t *testing.T) {
	svc := &omev1beta1.RoutingFailover{Tiers: []omev1beta1.FailoverTier{{Name: "s", Clusters: []string{"x"}}}}
	inst := &omev1beta1.RoutingFailover{Tiers: []omev1beta1.FailoverTier{{Name: "i", Clusters: []string{"x"}}}}
	off := &omev1beta1.RoutingFailover{Disabled: true}
	for _, c := range []struct {
		name          string
		service, inst *omev1beta1.RoutingFailover
		want          *omev1beta1.RoutingFailover
		path          string
	}{
		{"neither", nil, nil, nil, ""},
		{"the installation's", nil, inst, inst, failover.InstallationPath},
		{"the service's replaces it", svc, inst, svc, failover.ServicePath},
		{"the service turns it off", off, inst, nil, ""},
		{"the installation's is off", nil, off, nil, ""},
	} {
		got, path := failover.Resolve(c.service, c.inst)
		if got != c.want || path != c.path {
			t.Errorf("%s: Resolve = %v, %q; want %v, %q", c.name, got, path, c.want, c.path)
		}
	}
}
