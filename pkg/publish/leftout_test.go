package publish

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestRouteCompleteCondition(t *testing.T) {
	c := RouteCompleteCondition(nil, 3)
	if c.Status != metav1.ConditionTrue || c.Reason != "AllClustersInRoute" || c.ObservedGeneration != 3 {
		t.Fatalf("nothing left out: %+v", c)
	}
	leftOut := []omev1beta1.LeftOutCluster{
		{Cluster: "worker-b", Reason: omev1beta1.LeftOutHostUnresolved, Message: `host "b.example.test" could not be resolved`},
		{Cluster: "worker-a", Reason: omev1beta1.LeftOutHostRefused, Message: `host "localhost" is reserved for loopback`},
	}
	c = RouteCompleteCondition(leftOut, 3)
	want := `The route leaves out 2 cluster(s), which get no traffic through it: worker-a HostRefused: host "localhost" is reserved for loopback | ` +
		`worker-b HostUnresolved: host "b.example.test" could not be resolved`
	if c.Status != metav1.ConditionFalse || c.Reason != "ClustersLeftOut" || c.Message != want {
		t.Fatalf("two left out:\n got %s %s: %s\nwant False ClustersLeftOut: %s", c.Status, c.Reason, c.Message, want)
	}
	if leftOut[0].Cluster != "worker-b" {
		t.Fatal("the caller's list was sorted in place")
	}
}

func TestRouteCompleteConditionNamesEightThenCounts(t *testing.T) {
	var leftOut []omev1beta1.LeftOutCluster
	for i := range 11 {
		leftOut = append(leftOut, omev1beta1.LeftOutCluster{Cluster: fmt.Sprintf("c%02d", i), Reason: omev1beta1.LeftOutHostRefused,
			Message: strings.Repeat("x", 2000)})
	}
	c := RouteCompleteCondition(leftOut, 1)
	if !strings.HasSuffix(c.Message, "| and 3 more (status.leftOutOfRoute)") || strings.Contains(c.Message, "c08") {
		t.Fatalf("message %q", c.Message)
	}
	for _, x := range SortedLeftOut(leftOut) {
		if len(x.Message) > maxLeftOutMessage {
			t.Fatalf("message of %d bytes", len(x.Message))
		}
	}
}

func TestNoBackendsConditions(t *testing.T) {
	cases := []struct {
		entries, leftOut int
		why              string
	}{
		{0, 0, "the TrafficMap has no entry to publish"},
		{2, 2, "the publisher leaves out every cluster of the TrafficMap (see RouteComplete)"},
		{3, 1, "the publisher leaves out every cluster it could publish (see RouteComplete); the others are refused by the operator"},
		{2, 0, "the operator refuses every cluster of the TrafficMap (see each entry's refused)"},
	}
	for _, tc := range cases {
		c := NoBackendsConditions(tc.entries, tc.leftOut, 4)
		published, fallback := c[0], c[1]
		if published.Type != omev1beta1.TrafficMapPublished || published.Status != metav1.ConditionFalse || published.Reason != "NoBackends" ||
			published.Message != `TrafficMap publisher "gatewayapi" wrote a route with no backend: `+tc.why || published.ObservedGeneration != 4 {
			t.Errorf("%d entries, %d left out: Published %+v", tc.entries, tc.leftOut, published)
		}
		if fallback.Type != omev1beta1.TrafficMapPublicationFallback || fallback.Status != metav1.ConditionFalse || fallback.Reason != "Unsupported" {
			t.Errorf("PublicationFallback %+v", fallback)
		}
	}
}
