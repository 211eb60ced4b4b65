package publisher

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestFrozen(t *testing.T) {
	with := func(status metav1.ConditionStatus, reason string) *omev1beta1.TrafficMap {
		return &omev1beta1.TrafficMap{Status: omev1beta1.TrafficMapStatus{Conditions: []metav1.Condition{
			{Type: omev1beta1.TrafficMapSettingsAccepted, Status: status, Reason: reason},
		}}}
	}
	cases := []struct {
		name string
		tm   *omev1beta1.TrafficMap
		want bool
	}{
		{"refused settings", with(metav1.ConditionFalse, string(omev1beta1.TrafficMapReasonRoutingPolicyRefused)), true},
		{"accepted settings", with(metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonSettingsAccepted)), false},
		{"no condition yet (a map from an older release)", &omev1beta1.TrafficMap{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := frozen(c.tm); got != c.want {
				t.Fatalf("frozen = %v, want %v", got, c.want)
			}
		})
	}
}
