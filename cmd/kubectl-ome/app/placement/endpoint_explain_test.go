package placement

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// -o wide prints each cause on one line, whole.
func TestEndpointWideShowsCausesWhole(t *testing.T) {
	wide := rowsText(endpointRows(buildReport(source(), drainedAndGated(), nil, now), true))
	for _, line := range []string{
		"Weight reason        Gated: gated by the routing probe after 3 failure(s) in a row; last probe Failing: HTTP 503\n",
		"Exclusion            ClusterUnreachable: WorkloadCluster Ready is False (ConnectionFailed): dial tcp 10.0.0.9:6443: connect: connection refused\n",
	} {
		if !strings.Contains(wide, line) {
			t.Errorf("wide output lacks %q:\n%s", line, wide)
		}
	}
}

// A map written by a manager that records no reasons still prints, with NotRecorded.
func TestEndpointWithoutReasons(t *testing.T) {
	tm := drainedAndGated()
	for i := range tm.Spec.Entries {
		tm.Spec.Entries[i].WeightReason, tm.Spec.Entries[i].WeightMessage = "", ""
	}
	tm.Status.ExcludedClusters = nil
	got := rowsText(endpointRows(buildReport(source(), tm, nil, now), false))
	if strings.Count(got, "Weight reason        NotRecorded\n") != 2 || strings.Contains(got, "Excluded cluster") {
		t.Errorf("got:\n%s", got)
	}
}

// The narrow table lists four excluded clusters and points at -o wide for the rest.
func TestEndpointManyExcluded(t *testing.T) {
	tm := drainedAndGated()
	tm.Status.ExcludedClusters = nil
	for i := range 6 {
		tm.Status.ExcludedClusters = append(tm.Status.ExcludedClusters, omev1beta1.ExcludedCluster{
			Cluster: fmt.Sprintf("w-%d", i), Reason: omev1beta1.ExcludedNoCopy, Message: "m"})
	}
	narrow := rowsText(endpointRows(buildReport(source(), tm, nil, now), false))
	if !strings.Contains(narrow, "Excluded clusters    4/6; use -o wide or json\nExcluded cluster     w-0\n") || strings.Contains(narrow, "w-4") {
		t.Errorf("narrow:\n%s", narrow)
	}
	if wide := rowsText(endpointRows(buildReport(source(), tm, nil, now), true)); !strings.Contains(wide, "Excluded cluster     w-5\nExclusion            NoCopy: m\n") {
		t.Errorf("wide:\n%s", wide)
	}
}

func TestEndpointObjectCarriesReasons(t *testing.T) {
	var b bytes.Buffer
	if err := util.PrintObject("json", buildReport(source(), drainedAndGated(), nil, now), &b); err != nil {
		t.Fatal(err)
	}
	var got EndpointReport
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if h := got.Content.RouteHomes[1]; h.WeightReason != "Gated" || !strings.HasSuffix(h.WeightMessage, "last probe Failing: HTTP 503") {
		t.Errorf("worker-b: %+v", h)
	}
	if x := got.Content.ExcludedClusters; len(x) != 1 || x[0].Cluster != "worker-c" || x[0].Reason != "ClusterUnreachable" {
		t.Errorf("excluded: %+v", x)
	}
	var empty bytes.Buffer
	notFound := buildReport(source(), nil, nil, now)
	if err := util.PrintObject("json", notFound, &empty); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(empty.String(), `"excludedClusters": []`) {
		t.Errorf("a report without a map has an empty list, not null:\n%s", empty.String())
	}
}
