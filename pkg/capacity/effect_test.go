package capacity

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ome-routing/operator/api/v1beta1"
)

func TestApply(t *testing.T) {
	cases := []struct {
		name     string
		admitted int32
		ceiling  *Ceiling
		want     Effect
	}{
		{"not polled", 3, nil, Effect{Allocated: 3, Source: v1beta1.CapacitySourceControlPlane}},
		{"no ceiling: admitted, with the reason", 3, &Ceiling{Reason: ReasonNoReport},
			Effect{Allocated: 3, Source: v1beta1.CapacitySourceControlPlane, FallbackReason: "no capacity report yet"}},
		{"a lower ceiling binds", 3, &Ceiling{OK: true, Value: 1},
			Effect{Allocated: 1, Source: v1beta1.CapacitySourceEndpoint, Reported: ptr.To[int32](1)}},
		{"zero binds", 1, &Ceiling{OK: true, Value: 0},
			Effect{Allocated: 0, Source: v1beta1.CapacitySourceEndpoint, Reported: ptr.To[int32](0)}},
		{"an equal ceiling is recorded but does not bind", 2, &Ceiling{OK: true, Value: 2},
			Effect{Allocated: 2, Source: v1beta1.CapacitySourceControlPlane, Reported: ptr.To[int32](2)}},
		{"a higher ceiling never raises", 2, &Ceiling{OK: true, Value: 5},
			Effect{Allocated: 2, Source: v1beta1.CapacitySourceControlPlane, Reported: ptr.To[int32](5)}},
		{"a negative ceiling caps nothing", 2, &Ceiling{OK: true, Value: -1},
			Effect{Allocated: 2, Source: v1beta1.CapacitySourceControlPlane}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Apply(tc.admitted, tc.ceiling)
			if got.Allocated != tc.want.Allocated || got.Source != tc.want.Source || got.FallbackReason != tc.want.FallbackReason ||
				!ptrEqual(got.Reported, tc.want.Reported) {
				t.Errorf("Apply(%d, %+v) = %+v, want %+v", tc.admitted, tc.ceiling, got, tc.want)
			}
		})
	}
}

func ptrEqual(a, b *int32) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func TestFallbackCondition(t *testing.T) {
	entry := func(reason string) v1beta1.TrafficMapEntry {
		return v1beta1.TrafficMapEntry{Capacity: v1beta1.TrafficMapCapacity{FallbackReason: reason}}
	}
	cases := []struct {
		name    string
		enabled bool
		entries []v1beta1.TrafficMapEntry
		status  metav1.ConditionStatus
		reason  string
		message string
	}{
		{"disabled wins over everything", false, []v1beta1.TrafficMapEntry{entry("no capacity report yet")},
			metav1.ConditionFalse, "CapacityPollingDisabled", "endpoint capacity polling is disabled"},
		{"no homes", true, nil,
			metav1.ConditionFalse, "NoCapacityTargets", "no addressable homes require endpoint capacity"},
		{"every home has a ceiling", true, []v1beta1.TrafficMapEntry{entry(""), entry("")},
			metav1.ConditionFalse, "EndpointCapacityAvailable", "endpoint capacity is available for all 2 home(s)"},
		{"one home falls back", true, []v1beta1.TrafficMapEntry{entry(""), entry("capacity endpoint returned HTTP 404")},
			metav1.ConditionTrue, "EndpointCapacityUnavailable",
			"1 of 2 home(s) are using control-plane capacity; inspect spec.entries[].capacity.fallbackReason"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := FallbackCondition(tc.enabled, tc.entries)
			if c.Type != "CapacityFallback" || c.Status != tc.status || c.Reason != tc.reason || c.Message != tc.message {
				t.Errorf("FallbackCondition() = %+v, want %s/%s/%q", c, tc.status, tc.reason, tc.message)
			}
		})
	}
	if n := FallbackHomes([]v1beta1.TrafficMapEntry{entry("x"), entry(""), entry("y")}); n != 2 {
		t.Errorf("FallbackHomes() = %d, want 2", n)
	}
}
