package trafficmap

import (
	"fmt"
	"strings"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestNoTraffic(t *testing.T) {
	gated := omev1beta1.TrafficMapEntry{Cluster: "worker-b", WeightReason: omev1beta1.WeightGated, WeightMessage: "gated by the routing probe"}
	routed := omev1beta1.TrafficMapEntry{Cluster: "worker-a", Weight: 1, WeightReason: omev1beta1.WeightRouted, WeightMessage: "takes traffic"}
	unreachable := omev1beta1.ExcludedCluster{Cluster: "worker-c", Reason: omev1beta1.ExcludedClusterUnreachable,
		Message: "WorkloadCluster Ready is False (ConnectionFailed): connection refused"}
	noCopy := omev1beta1.ExcludedCluster{Cluster: "worker-0", Reason: omev1beta1.ExcludedNoCopy, Message: "holds no copy"}
	cases := []struct {
		name     string
		entries  []omev1beta1.TrafficMapEntry
		excluded []omev1beta1.ExcludedCluster
		leftOut  []omev1beta1.LeftOutCluster
		want     string
	}{
		{"nothing", nil, nil, nil, ""},
		{"everyone takes traffic", []omev1beta1.TrafficMapEntry{routed}, nil, nil, ""},
		{"one gated", []omev1beta1.TrafficMapEntry{routed, gated}, nil, nil, "worker-b Gated: gated by the routing probe"},
		{
			"entries and excluded clusters, sorted by name",
			[]omev1beta1.TrafficMapEntry{routed, gated}, []omev1beta1.ExcludedCluster{unreachable, noCopy}, nil,
			"worker-0 NoCopy: holds no copy | worker-b Gated: gated by the routing probe | " +
				"worker-c ClusterUnreachable: WorkloadCluster Ready is False (ConnectionFailed): connection refused",
		},
		{"an entry from an older manager, without a reason", []omev1beta1.TrafficMapEntry{{Cluster: "x"}}, nil, nil, "x weight 0"},
		{
			"an entry with weight that the route leaves out",
			[]omev1beta1.TrafficMapEntry{routed, gated}, nil,
			[]omev1beta1.LeftOutCluster{{Cluster: "worker-a", Reason: omev1beta1.LeftOutHostRefused, Message: `host "localhost" is reserved for loopback`}},
			`worker-a LeftOutOfRoute: HostRefused: host "localhost" is reserved for loopback | worker-b Gated: gated by the routing probe`,
		},
		{
			"a gated entry the route leaves out says its gate",
			[]omev1beta1.TrafficMapEntry{routed, gated}, nil,
			[]omev1beta1.LeftOutCluster{{Cluster: "worker-b", Reason: omev1beta1.LeftOutHostUnresolved, Message: "not resolved"}},
			"worker-b Gated: gated by the routing probe",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := NoTraffic(tc.entries, tc.excluded, tc.leftOut); got != tc.want {
				t.Errorf("NoTraffic() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNoTrafficIsBounded(t *testing.T) {
	var entries []omev1beta1.TrafficMapEntry
	for i := range 20 {
		entries = append(entries, omev1beta1.TrafficMapEntry{Cluster: fmt.Sprintf("c%02d", i), WeightReason: omev1beta1.WeightGated,
			WeightMessage: strings.Repeat("x", 1000)})
	}
	got := NoTraffic(entries, nil, nil)
	if len(got) > MaxNoTrafficBytes {
		t.Fatalf("%d bytes", len(got))
	}
	if !strings.HasPrefix(got, "c00 Gated: x") {
		t.Fatalf("got %.40q", got)
	}
	short := entries[:10]
	for i := range short {
		short[i].WeightMessage = "m"
	}
	if got := NoTraffic(short, nil, nil); !strings.HasSuffix(got, "c07 Gated: m | and 2 more: see spec.entries[].weightReason and status.excludedClusters") {
		t.Fatalf("got %q", got)
	}
}

func TestLiftCause(t *testing.T) {
	const other = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	gatedAt := func(endpoint, digest string) omev1beta1.TrafficMapEntry {
		return omev1beta1.TrafficMapEntry{Cluster: "b", Endpoint: endpoint,
			Probe: &omev1beta1.TrafficMapProbe{PolicyDigest: digest, Result: omev1beta1.ProbeFailing, Message: "HTTP 503", Gated: true}}
	}
	passing := func(endpoint, digest string) omev1beta1.TrafficMapEntry {
		return omev1beta1.TrafficMapEntry{Cluster: "b", Endpoint: endpoint,
			Probe: &omev1beta1.TrafficMapProbe{PolicyDigest: digest, Result: omev1beta1.ProbePassing, Message: "HTTP 200"}}
	}
	unprobed := func(endpoint string) omev1beta1.TrafficMapEntry {
		return omev1beta1.TrafficMapEntry{Cluster: "b", Endpoint: endpoint}
	}
	refused := unprobed("http://b")
	refused.Refused = "outside the domains"
	cases := []struct {
		name    string
		after   omev1beta1.TrafficMapEntry
		probing bool
		want    string
	}{
		{"passes in a row", passing("http://b", testDigest), true, "it passed successThreshold probes in a row; last probe Passing: HTTP 200"},
		{"a new status.url, not probed yet", unprobed("http://b2"), true, "its endpoint (the status.url of its copy) changed, so its probe record starts over"},
		{"a new status.url, probed already", passing("http://b2", testDigest), true, "its endpoint (the status.url of its copy) changed, so its probe record starts over"},
		{"a new policy, not probed yet", unprobed("http://b"), true, "the probe policy changed, so the counts start over"},
		{"a new policy, probed already", passing("http://b", other), true, "the probe policy changed, so the counts start over"},
		{"the probe turned off", unprobed("http://b"), false, "the probe was turned off"},
		{"refused now", refused, true, "the operator refuses it now and does not probe it: outside the domains"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := LiftCause(gatedAt("http://b", testDigest), tc.after, tc.probing); got != tc.want {
				t.Errorf("LiftCause() = %q, want %q", got, tc.want)
			}
		})
	}
}
