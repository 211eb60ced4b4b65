package mapstatus

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestWithTransitionTimes(t *testing.T) {
	then := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := time.Date(2026, 2, 1, 0, 0, 0, 500, time.UTC)
	current := []metav1.Condition{{Type: "Routable", Status: metav1.ConditionTrue, Reason: "Routable", LastTransitionTime: then}}
	cases := []struct {
		name   string
		status metav1.ConditionStatus
		want   metav1.Time
	}{
		{"same status keeps the time, even with a new message", metav1.ConditionTrue, then},
		{"a new status is a transition now", metav1.ConditionFalse, metav1.NewTime(now.Truncate(time.Second))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := withTransitionTimes(current, []metav1.Condition{{Type: "Routable", Status: c.status, Reason: "Other", Message: "new"}}, now)
			if !got[0].LastTransitionTime.Equal(&c.want) {
				t.Fatalf("LastTransitionTime = %v, want %v", got[0].LastTransitionTime, c.want)
			}
		})
	}
}

func TestConditionsChanged(t *testing.T) {
	then := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	routable := metav1.Condition{Type: omev1beta1.TrafficMapRoutable, Status: metav1.ConditionTrue, Reason: "Routable", Message: "m", ObservedGeneration: 2, LastTransitionTime: then}
	published := metav1.Condition{Type: omev1beta1.TrafficMapPublished, Status: metav1.ConditionTrue, Reason: "Published", LastTransitionTime: then}
	override := metav1.Condition{Type: omev1beta1.TrafficMapOverrideActive, Status: metav1.ConditionFalse, Reason: "None", LastTransitionTime: then}
	with := func(f func(*metav1.Condition)) metav1.Condition { c := routable; f(&c); return c }
	cases := []struct {
		name    string
		current []metav1.Condition
		desired []metav1.Condition
		want    bool
	}{
		{"another writer's condition is not ours to drop", []metav1.Condition{routable, published}, []metav1.Condition{routable}, false},
		{"missing", []metav1.Condition{published}, []metav1.Condition{routable}, true},
		{"message", []metav1.Condition{routable}, []metav1.Condition{with(func(c *metav1.Condition) { c.Message = "x" })}, true},
		{"reason", []metav1.Condition{routable}, []metav1.Condition{with(func(c *metav1.Condition) { c.Reason = "x" })}, true},
		{"generation", []metav1.Condition{routable}, []metav1.Condition{with(func(c *metav1.Condition) { c.ObservedGeneration = 3 })}, true},
		{"an owned type no longer wanted", []metav1.Condition{routable, override}, []metav1.Condition{routable}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := conditionsChanged(c.current, c.desired, RoutingConditionTypes); got != c.want {
				t.Fatalf("conditionsChanged = %v, want %v", got, c.want)
			}
		})
	}
}

func TestFieldsChanged(t *testing.T) {
	cases := []struct {
		name    string
		current map[string]any
		fields  map[string]any
		want    bool
	}{
		{"equal string", map[string]any{"sourceUID": "u"}, map[string]any{"sourceUID": "u"}, false},
		{"other string", map[string]any{"sourceUID": "u"}, map[string]any{"sourceUID": "v"}, true},
		{"absent equals false", map[string]any{}, map[string]any{"published": false}, false},
		{"absent differs from true", map[string]any{}, map[string]any{"published": true}, true},
		{"absent equals zero", map[string]any{}, map[string]any{"observedTrafficMapGeneration": int64(0)}, false},
		{"nil releases a present field", map[string]any{"gatewayRef": map[string]any{"kind": "HTTPRoute"}}, map[string]any{"gatewayRef": nil}, true},
		{"nil and absent", map[string]any{}, map[string]any{"gatewayRef": nil}, false},
		{"equal map", map[string]any{"gatewayRef": map[string]any{"kind": "HTTPRoute"}}, map[string]any{"gatewayRef": map[string]any{"kind": "HTTPRoute"}}, false},
		{"other writer's field is ignored", map[string]any{"published": true}, map[string]any{"sourceUID": ""}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := fieldsChanged(c.current, c.fields); got != c.want {
				t.Fatalf("fieldsChanged = %v, want %v", got, c.want)
			}
		})
	}
}

func TestKeptChangesOnlyTheReplacingConditions(t *testing.T) {
	then := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	routable := metav1.Condition{Type: omev1beta1.TrafficMapRoutable, Status: metav1.ConditionTrue, Reason: "Routable", Message: "2 of 2", ObservedGeneration: 2, LastTransitionTime: then}
	published := metav1.Condition{Type: omev1beta1.TrafficMapPublished, Status: metav1.ConditionTrue, Reason: "Published", LastTransitionTime: then}
	accepted := metav1.Condition{Type: omev1beta1.TrafficMapSettingsAccepted, Status: metav1.ConditionTrue, Reason: string(omev1beta1.TrafficMapReasonSettingsAccepted), LastTransitionTime: then}
	refused := metav1.Condition{Type: omev1beta1.TrafficMapSettingsAccepted, Status: metav1.ConditionFalse, Reason: string(omev1beta1.TrafficMapReasonRoutingPolicyRefused), Message: "bad"}
	homes := int32(2)
	tm := &omev1beta1.TrafficMap{Status: omev1beta1.TrafficMapStatus{
		Conditions: []metav1.Condition{routable, published, accepted}, Homes: &homes, SourceUID: "uid", NoTraffic: "worker-b gated",
		LastProbeTime: &then, ProbePeriod: &metav1.Duration{Duration: 10 * time.Second}, RouteGeneration: 2, VerdictTime: &then,
	}}
	share, err := Kept(tm, RoutingStatusManager, RoutingConditionTypes, RoutingFields, refused)
	if err != nil {
		t.Fatal(err)
	}
	if len(share.Conditions) != 2 || share.Conditions[0] != routable || share.Conditions[1] != refused {
		t.Fatalf("conditions = %+v, want Routable as it was, then the refusal (and not the publisher's)", share.Conditions)
	}
	want := map[string]any{"sourceUID": "uid", "homes": int64(2), "noTraffic": "worker-b gated",
		"gatedHomes": nil, "refusedHomes": nil, "excludedClusters": nil, "wouldGateHomes": nil, "rampingHomes": nil, "warnedHomes": nil,
		// A frozen map keeps its last probe time: its PROBED column ages while nothing probes.
		"lastProbeTime": "2026-01-01T00:00:00Z", "probePeriod": "10s", "probeRecordInterval": nil, "routeGeneration": int64(2),
		// ... and so does the verdict's time (VERDICT): nothing judges the homes now.
		"verdictTime": "2026-01-01T00:00:00Z", "servingHomes": nil, "homeStates": nil}
	if len(share.Fields) != len(want) {
		t.Fatalf("fields = %v, want %v", share.Fields, want)
	}
	for k, v := range want {
		if share.Fields[k] != v {
			t.Fatalf("field %s = %#v, want %#v", k, share.Fields[k], v)
		}
	}
}
