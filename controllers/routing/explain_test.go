package routing

import (
	"fmt"
	"strings"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// A placement that selects more clusters without a copy than the status lists keeps the
// map writable: the first MaxExcludedClusters by name are listed, and noTraffic counts all.
func TestExcludedClustersAreListedUpToTheCRDsMaximum(t *testing.T) {
	var excluded []omev1beta1.ExcludedCluster
	for i := trafficmap.MaxExcludedClusters + 43; i > 0; i-- {
		excluded = append(excluded, omev1beta1.ExcludedCluster{Cluster: fmt.Sprintf("worker-%04d", i),
			Reason: omev1beta1.ExcludedNoCopy, Message: "no copy"})
	}
	fields := withExplanations(map[string]any{}, nil, excluded, nil)
	list, _ := fields["excludedClusters"].([]any)
	if len(list) != trafficmap.MaxExcludedClusters {
		t.Fatalf("status lists %d excluded clusters, want %d", len(list), trafficmap.MaxExcludedClusters)
	}
	if first := list[0].(map[string]any)["cluster"]; first != "worker-0001" {
		t.Errorf("the list starts with %v, want the first by name, worker-0001", first)
	}
	more := fmt.Sprintf("and %d more", len(excluded)-8)
	if nt, _ := fields["noTraffic"].(string); !strings.Contains(nt, more) {
		t.Errorf("noTraffic = %q, want it to count every excluded cluster (%q)", nt, more)
	}
}
