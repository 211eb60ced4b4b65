package v1beta1

import (
	"encoding/json"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The API server checks a condition's lastTransitionTime only against the OpenAPI
// date-time format, which takes a lower-case "t" and "z" ("2026-01-01t00:00:00z");
// metav1.Time does not, and a typed list fails on the first object that holds one. A
// member cluster's copy is written by that member, so one such time would stop the
// manager's cache of everything on the member. The statuses here decode their
// conditions through lenientCondition instead: a time in either case reads as that time,
// and one that does not parse reads as zero, so the condition still counts by its type and
// status and nothing else is lost.

// lenientCondition is metav1.Condition with its time kept as text.
type lenientCondition struct {
	Type               string                 `json:"type"`
	Status             metav1.ConditionStatus `json:"status"`
	ObservedGeneration int64                  `json:"observedGeneration,omitempty"`
	LastTransitionTime string                 `json:"lastTransitionTime"`
	Reason             string                 `json:"reason"`
	Message            string                 `json:"message"`
}

// conditionTime reads an RFC 3339 time in either case; anything else is the zero time.
func conditionTime(s string) metav1.Time {
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
	if err != nil {
		return metav1.Time{}
	}
	return metav1.NewTime(t)
}

func conditionsFrom(in []lenientCondition) []metav1.Condition {
	if in == nil {
		return nil
	}
	out := make([]metav1.Condition, len(in))
	for i, c := range in {
		out[i] = metav1.Condition{Type: c.Type, Status: c.Status, ObservedGeneration: c.ObservedGeneration,
			LastTransitionTime: conditionTime(c.LastTransitionTime), Reason: c.Reason, Message: c.Message}
	}
	return out
}

// decodeStatus decodes b into raw, a struct that embeds the status under its own type
// (so that its UnmarshalJSON is not called again) beside a lenient conditions field, and
// sets the status's conditions from that field.
func decodeStatus(b []byte, raw any, lenient *[]lenientCondition, conditions *[]metav1.Condition) error {
	if err := json.Unmarshal(b, raw); err != nil {
		return err
	}
	*conditions = conditionsFrom(*lenient)
	return nil
}

// UnmarshalJSON decodes the status with its conditions read leniently (see above).
func (s *InferenceServiceStatus) UnmarshalJSON(b []byte) error {
	type plain InferenceServiceStatus
	raw := struct {
		*plain
		Conditions []lenientCondition `json:"conditions,omitempty"`
	}{plain: (*plain)(s)}
	return decodeStatus(b, &raw, &raw.Conditions, &s.Conditions)
}

// UnmarshalJSON decodes the status with its conditions read leniently (see above).
func (s *WorkloadClusterStatus) UnmarshalJSON(b []byte) error {
	type plain WorkloadClusterStatus
	raw := struct {
		*plain
		Conditions []lenientCondition `json:"conditions,omitempty"`
	}{plain: (*plain)(s)}
	return decodeStatus(b, &raw, &raw.Conditions, &s.Conditions)
}

// UnmarshalJSON decodes the status with its conditions read leniently (see above).
func (s *TrafficMapStatus) UnmarshalJSON(b []byte) error {
	type plain TrafficMapStatus
	raw := struct {
		*plain
		Conditions []lenientCondition `json:"conditions,omitempty"`
	}{plain: (*plain)(s)}
	return decodeStatus(b, &raw, &raw.Conditions, &s.Conditions)
}
