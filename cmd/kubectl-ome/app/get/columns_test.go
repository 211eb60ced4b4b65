package get

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

var now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// testMap is a published, routable map at generation 7 whose route last changed at 5, with
// two targets: one active and healthy, one drained at weight 0 and unhealthy.
func testMap() *omev1beta1.TrafficMap {
	return &omev1beta1.TrafficMap{
		ObjectMeta: metav1.ObjectMeta{Name: "checkout", Namespace: "team-a", Generation: 7,
			CreationTimestamp: metav1.NewTime(now.Add(-90 * time.Minute))},
		Spec: omev1beta1.TrafficMapSpec{Service: "checkout", Mode: omev1beta1.PlacementModeSplit, Entries: []omev1beta1.TrafficMapEntry{
			{Cluster: "worker-a", Weight: 3, Healthy: true},
			{Cluster: "worker-b", Weight: 0, Healthy: false},
		}},
		Status: omev1beta1.TrafficMapStatus{
			RouteGeneration:              5,
			ObservedTrafficMapGeneration: 6,
			GatewayRef:                   &omev1beta1.TrafficMapGatewayRef{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "team-a", Name: "checkout"},
			Conditions: []metav1.Condition{
				{Type: "Routable", Status: metav1.ConditionTrue, Reason: "Routable", ObservedGeneration: 7},
				{Type: "Published", Status: metav1.ConditionTrue, Reason: "Published", ObservedGeneration: 6},
				{Type: "OverrideActive", Status: metav1.ConditionFalse, Reason: "NoOverrides", ObservedGeneration: 5},
			},
		},
	}
}

func TestCells(t *testing.T) {
	cases := []struct {
		name   string
		change func(*omev1beta1.TrafficMap)
		want   []string
	}{{
		name: "every condition current since the route's last change",
		want: []string{"checkout", "Split", "2", "True", "True", "90m", "checkout", "1", "1", "False", "NoOverrides", "Routable",
			"gateway.networking.k8s.io/HTTPRoute:team-a/checkout", "Current"},
	}, {
		name: "conditions and acknowledgement from before the route's last change are Unknown and Stale",
		change: func(tm *omev1beta1.TrafficMap) {
			tm.Status.RouteGeneration = 7
		},
		want: []string{"checkout", "Split", "2", "True", "Unknown", "90m", "checkout", "1", "1", "Unknown", "-", "Routable",
			"gateway.networking.k8s.io/HTTPRoute:team-a/checkout", "Stale"},
	}, {
		name: "without routeGeneration only the map's generation is current",
		change: func(tm *omev1beta1.TrafficMap) {
			tm.Status.RouteGeneration = 0
			tm.Status.ObservedTrafficMapGeneration = 7
		},
		want: []string{"checkout", "Split", "2", "True", "Unknown", "90m", "checkout", "1", "1", "Unknown", "-", "Routable",
			"gateway.networking.k8s.io/HTTPRoute:team-a/checkout", "Current"},
	}, {
		name: "a generation the map has not reached is not current",
		change: func(tm *omev1beta1.TrafficMap) {
			tm.Status.Conditions[0].ObservedGeneration = 8
			tm.Status.ObservedTrafficMapGeneration = 8
		},
		want: []string{"checkout", "Split", "2", "Unknown", "True", "90m", "checkout", "1", "1", "False", "NoOverrides", "-",
			"gateway.networking.k8s.io/HTTPRoute:team-a/checkout", "Stale"},
	}, {
		name: "a map nothing has written status for yet",
		change: func(tm *omev1beta1.TrafficMap) {
			tm.Status = omev1beta1.TrafficMapStatus{}
			tm.Spec.Mode = ""
			tm.Spec.Service = ""
			tm.CreationTimestamp = metav1.Time{}
		},
		want: []string{"checkout", "-", "2", "Unknown", "Unknown", "-", "-", "1", "1", "Unknown", "-", "-", "-", "Unobserved"},
	}, {
		name: "a recorded condition without a reason",
		change: func(tm *omev1beta1.TrafficMap) {
			tm.Status.Conditions[0].Reason = ""
		},
		want: []string{"checkout", "Split", "2", "True", "True", "90m", "checkout", "1", "1", "False", "NoOverrides", "-",
			"gateway.networking.k8s.io/HTTPRoute:team-a/checkout", "Current"},
	}, {
		name: "no entries: no targets, none active or healthy",
		change: func(tm *omev1beta1.TrafficMap) {
			tm.Spec.Entries = nil
		},
		want: []string{"checkout", "Split", "0", "True", "True", "90m", "checkout", "0", "0", "False", "NoOverrides", "Routable",
			"gateway.networking.k8s.io/HTTPRoute:team-a/checkout", "Current"},
	}, {
		name: "every target at weight 0 still counts as a target",
		change: func(tm *omev1beta1.TrafficMap) {
			tm.Spec.Entries[0].Weight = 0
			tm.Spec.Entries[1].Healthy = true
		},
		want: []string{"checkout", "Split", "2", "True", "True", "90m", "checkout", "0", "2", "False", "NoOverrides", "Routable",
			"gateway.networking.k8s.io/HTTPRoute:team-a/checkout", "Current"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tm := testMap()
			if c.change != nil {
				c.change(tm)
			}
			got := omeCells(tm, now)
			if len(got) != len(omeColumns) {
				t.Fatalf("%d cells for %d columns", len(got), len(omeColumns))
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("%s = %q, want %q", columns[i].Name, got[i], c.want[i])
				}
			}
		})
	}
}

func TestGateway(t *testing.T) {
	cases := []struct {
		name string
		ref  *omev1beta1.TrafficMapGatewayRef
		want string
	}{
		{"none recorded", nil, "-"},
		{"group, kind, namespace and name", &omev1beta1.TrafficMapGatewayRef{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "gw", Name: "r"},
			"gateway.networking.k8s.io/HTTPRoute:gw/r"},
		{"no namespace: the map's", &omev1beta1.TrafficMapGatewayRef{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "r"},
			"gateway.networking.k8s.io/HTTPRoute:team-a/r"},
		{"core group: no group and no slash", &omev1beta1.TrafficMapGatewayRef{Kind: "Service", Namespace: "gw", Name: "s"}, "Service:gw/s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tm := testMap()
			tm.Status.GatewayRef = c.ref
			if got := gateway(tm); got != c.want {
				t.Errorf("gateway = %q, want %q", got, c.want)
			}
		})
	}
}

func TestPublisherFreshness(t *testing.T) {
	cases := []struct {
		name                  string
		generation, route, ob int64
		want                  string
	}{
		{"nothing published", 3, 3, 0, FreshnessUnobserved},
		{"published the generation", 3, 3, 3, FreshnessCurrent},
		{"published the route's last change, probe rounds since", 9, 4, 4, FreshnessCurrent},
		{"published between the route's change and now", 9, 4, 6, FreshnessCurrent},
		{"published before the route's last change", 9, 4, 3, FreshnessStale},
		{"no routeGeneration: an older generation is stale", 9, 0, 8, FreshnessStale},
		{"a generation the map has not reached", 3, 3, 4, FreshnessStale},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tm := testMap()
			tm.Generation, tm.Status.RouteGeneration, tm.Status.ObservedTrafficMapGeneration = c.generation, c.route, c.ob
			if got := publisherFreshness(tm); got != c.want {
				t.Errorf("freshness = %q, want %q", got, c.want)
			}
		})
	}
}

func TestAge(t *testing.T) {
	cases := []struct {
		ago  time.Duration
		want string
	}{{30 * time.Second, "30s"}, {90 * time.Minute, "90m"}, {26 * time.Hour, "26h"}, {50 * 24 * time.Hour, "50d"}, {-time.Minute, "<invalid>"}}
	for _, c := range cases {
		if got := age(metav1.NewTime(now.Add(-c.ago)), now); got != c.want {
			t.Errorf("age(%s) = %q, want %q", c.ago, got, c.want)
		}
	}
}

// The wide columns after OME's are the CRD's own printer columns after TARGETS: the same
// names in the same order, so that `kubectl ome get trafficmaps -o wide` and `kubectl get
// trafficmap -o wide` are one table where they overlap.
func TestSharedColumnsAreTheCRDsPrinterColumns(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "config", "crd", "bases", "ome.io_trafficmaps.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	var after []string
	seen := false
	for _, c := range crd.Spec.Versions[0].AdditionalPrinterColumns {
		if seen {
			after = append(after, c.Name+"/"+c.Type)
		}
		seen = seen || c.Name == "TARGETS"
	}
	var shared []string
	for _, c := range sharedColumns {
		shared = append(shared, c.Name+"/"+c.Type)
	}
	if !slices.Equal(after, shared) {
		t.Errorf("the CRD's wide columns after TARGETS are\n  %v\nthe plugin's\n  %v", after, shared)
	}
}

func TestSharedCells(t *testing.T) {
	tm := testMap()
	if got, want := sharedCells(tm, now), []string{"<none>", "<none>", "<none>", "<none>", "<none>", "<none>", "<none>", "<none>", "<none>",
		"", "<none>", "<none>", "<none>"}; !slices.Equal(got, want) {
		t.Errorf("a map without the routing's counts: %q, want %q", got, want)
	}
	probed, judged := metav1.NewTime(now.Add(-5*time.Second)), metav1.NewTime(now.Add(-3*time.Minute))
	tm.Status.ServingHomes, tm.Status.GatedHomes = ptr.To[int32](1), ptr.To[int32](1)
	tm.Status.LastProbeTime, tm.Status.VerdictTime = &probed, &judged
	tm.Status.HomeStates = "worker-b StillServedAtZero Gated"
	tm.Status.NoTraffic = ""
	got := sharedCells(tm, now)
	if got[0] != "1" || got[1] != "1" || got[6] != "5s" || got[7] != "3m" || got[8] != "worker-b StillServedAtZero Gated" {
		t.Errorf("cells %q", got)
	}
}
