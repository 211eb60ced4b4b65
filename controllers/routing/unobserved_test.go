package routing

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/placement"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// An unreadable member's home stays at its entry's endpoint and capacity, as a candidate and
// not excluded; past the grace, beside a home that serves, it leaves with a note saying why.
func TestKeepUnobserved(t *testing.T) {
	down := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	const grace = time.Minute
	current := &omev1beta1.TrafficMap{Spec: omev1beta1.TrafficMapSpec{Entries: []omev1beta1.TrafficMapEntry{
		{Cluster: "worker-a", Endpoint: "http://a.test", Capacity: omev1beta1.TrafficMapCapacity{Allocated: 1, Ready: 1}},
		{Cluster: "worker-b", Endpoint: "http://b.test", Capacity: omev1beta1.TrafficMapCapacity{Allocated: 2, Ready: 2}},
	}}}
	gather := func() gathered {
		return gathered{
			homes: []trafficmap.Home{{Cluster: "worker-a", Endpoint: "http://a.test", Allocated: 1, Ready: 1}},
			placement: omev1beta1.PlacementStatus{Candidates: []omev1beta1.PlacementCandidate{
				{Cluster: "worker-a", Endpoint: "http://a.test", AdmittedReplicas: 1, ReadyReplicas: 1}}},
			excluded: []omev1beta1.ExcludedCluster{{Cluster: "worker-b", Reason: omev1beta1.ExcludedClusterUnreachable,
				Message: "WorkloadCluster Ready is False (ConnectionFailed): connection refused"}},
			unobserved: []placement.Unobserved{{Cluster: "worker-b", Since: down}},
		}
	}

	within := gather()
	within.keepUnobserved(current, down.Add(grace/2), grace)
	if len(within.homes) != 2 || within.homes[1].Cluster != "worker-b" || within.homes[1].Endpoint != "http://b.test" ||
		within.homes[1].Allocated != 2 || !within.homes[1].UnobservedSince.Equal(down) {
		t.Fatalf("within the grace: homes = %+v", within.homes)
	}
	if len(within.excluded) != 0 || len(within.placement.Candidates) != 2 || within.placement.Phase != placement.Phase(2) {
		t.Errorf("within the grace: excluded %+v, placement %+v", within.excluded, within.placement)
	}
	if !within.unobservedUntil.Equal(down.Add(grace)) {
		t.Errorf("unobservedUntil = %v, want %v", within.unobservedUntil, down.Add(grace))
	}

	// A time the map recorded wins over the Ready condition's.
	marked := current.DeepCopy()
	earlier := metav1.NewTime(down.Add(-time.Hour))
	marked.Spec.Entries[1].UnobservedSince = &earlier
	past := gather()
	past.keepUnobserved(marked, down.Add(grace/2), grace)
	if len(past.homes) != 1 || past.homes[0].Cluster != "worker-a" {
		t.Fatalf("past the grace, beside a home that serves: homes = %+v", past.homes)
	}
	if len(past.excluded) != 1 || !strings.HasSuffix(past.excluded[0].Message,
		"connection refused; not observed since 2026-12-01T11:00:00Z, longer than placement.observationGrace (1m0s), while another home takes traffic") {
		t.Errorf("past the grace: excluded = %+v", past.excluded)
	}

	// A member the map holds no entry of is not made up.
	fresh := gather()
	fresh.keepUnobserved(&omev1beta1.TrafficMap{}, down, grace)
	if len(fresh.homes) != 1 || len(fresh.excluded) != 1 {
		t.Errorf("no entry to keep: homes %+v, excluded %+v", fresh.homes, fresh.excluded)
	}
}
