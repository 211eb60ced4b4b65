package publisher

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// frozen says whether the routing reconciler has frozen the map because it refuses the
// service's routing settings (its SettingsAccepted condition is False). Such a map stays
// behind its service's generation on purpose, until the settings are fixed: that is not a
// broken owner, and the route keeps what it carries, which is the frozen map as it is.
func frozen(tm *omev1beta1.TrafficMap) bool {
	c := meta.FindStatusCondition(tm.Status.Conditions, omev1beta1.TrafficMapSettingsAccepted)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == string(omev1beta1.TrafficMapReasonRoutingPolicyRefused)
}
