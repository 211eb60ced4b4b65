package publish

import (
	"fmt"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestConditions(t *testing.T) {
	cases := []struct {
		reason            omev1beta1.TrafficMapConditionReason
		published         string
		fallbackStatus    string
		fallbackReasonMsg string
	}{
		{"Published", `True Published: TrafficMap is published by publisher "gatewayapi"`,
			"False", "Unsupported: The selected publisher does not retain publication plans"},
		{"Withdrawn", `False Withdrawn: TrafficMap publication is withdrawn by publisher "gatewayapi"`,
			"False", "Withdrawn: TrafficMap publication is withdrawn"},
		{"Transitioning", "False Transitioning: TrafficMap publisher is applying the current plan",
			"Unknown", "Transitioning: TrafficMap publisher is applying the current plan"},
		{"Finalizing", "False Finalizing: TrafficMap publisher is removing external state",
			"False", "Finalizing: TrafficMap publisher is removing external state"},
		{"Unpublished", "False Unpublished: TrafficMap source is deleting or has opted out of publication",
			"False", "Unpublished: TrafficMap publication fallback is inactive"},
		{"InvalidOwner", "False InvalidOwner: TrafficMap owner identity is invalid or stale",
			"Unknown", "InvalidOwner: TrafficMap owner identity is invalid or stale"},
		{"InvalidOptions", "False InvalidOptions: Publisher options are invalid",
			"Unknown", "InvalidOptions: Publisher options are invalid"},
		{"InvalidPlan", "False InvalidPlan: Publisher plan is invalid",
			"Unknown", "InvalidPlan: Publisher plan is invalid"},
		{"ClaimRejected", "False ClaimRejected: Publisher claims could not be acquired",
			"Unknown", "ClaimRejected: Publisher claims could not be acquired"},
		{"ApplyFailed", "False ApplyFailed: Publisher could not apply the TrafficMap",
			"Unknown", "ApplyFailed: Publisher could not apply the TrafficMap"},
		{"Other", "False Other: TrafficMap publisher reconciliation failed",
			"Unknown", "Other: TrafficMap publisher reconciliation failed"},
	}
	for _, c := range cases {
		t.Run(string(c.reason), func(t *testing.T) {
			got := Conditions(c.reason, 7)
			p, f := got[0], got[1]
			if p.Type != omev1beta1.TrafficMapPublished || f.Type != omev1beta1.TrafficMapPublicationFallback {
				t.Fatalf("types %s, %s", p.Type, f.Type)
			}
			if s := fmt.Sprintf("%s %s: %s", p.Status, p.Reason, p.Message); s != c.published {
				t.Errorf("Published = %s, want %s", s, c.published)
			}
			if s := fmt.Sprintf("%s: %s", f.Reason, f.Message); string(f.Status) != c.fallbackStatus || s != c.fallbackReasonMsg {
				t.Errorf("PublicationFallback = %s %s, want %s %s", f.Status, s, c.fallbackStatus, c.fallbackReasonMsg)
			}
			if p.ObservedGeneration != 7 || f.ObservedGeneration != 7 {
				t.Errorf("observedGeneration %d, %d, want 7", p.ObservedGeneration, f.ObservedGeneration)
			}
		})
	}
}
