package trafficmap

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/verdict"
)

// CountServing makes the count of a Routable True Routable condition ("<n> of <m> home(s)
// take traffic") count the homes whose serving state takes traffic, once the states are
// judged: a home the route leaves out has a weight but takes none, and one the gateway
// still serves at 0 takes some. Entries without a state (none judged yet) keep the count
// of positive weights, and so does a map with a home in state Unknown: no route is known
// to carry it (no publisher runs, or it has not published yet), so the map's weights are
// the only word on who takes traffic. Any other condition is returned as it is.
func CountServing(c Condition, entries []omev1beta1.TrafficMapEntry) Condition {
	if c.Status != metav1.ConditionTrue || c.Reason != omev1beta1.TrafficMapReasonRoutable {
		return c
	}
	serving := 0
	for _, e := range entries {
		if e.Serving == "" || e.Serving == omev1beta1.ServingStateUnknown {
			return c
		}
		if verdict.TakesTraffic(e.Serving) {
			serving++
		}
	}
	prefix := ""
	if i := strings.Index(c.Message, " home(s) take traffic"); i >= 0 {
		prefix = c.Message[i:]
	} else {
		return c
	}
	c.Message = fmt.Sprintf("%d of %d", serving, len(entries)) + prefix
	return c
}
