package mapstatus

import (
	"context"
	"maps"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Two controllers write a TrafficMap's status: the routing reconciler and the publisher.
// Each applies only its own fields and conditions with server-side apply under its own
// constant field manager, so neither can drop what the other wrote (a merge patch of the
// whole conditions list from a cached copy would).
const (
	// RoutingStatusManager owns status.sourceUID and the routing conditions.
	RoutingStatusManager = "ome-trafficmap-routing"
	// PublisherStatusManager owns the publication fields and conditions.
	PublisherStatusManager = "ome-trafficmap-publisher"
)

// ConflictRetry is how soon a map whose write lost a race with the writer's own previous
// write is built again, once the cache has caught up.
const ConflictRetry = 100 * time.Millisecond

// RoutingConditionTypes are the condition types the routing reconciler owns. One it owns
// but no longer applies is removed by the apiserver when the next apply leaves it out.
var RoutingConditionTypes = []string{
	omev1beta1.TrafficMapRoutable,
	omev1beta1.TrafficMapCapacityFallback,
	omev1beta1.TrafficMapOverrideActive,
	omev1beta1.TrafficMapSettingsAccepted,
	omev1beta1.TrafficMapTrafficApplied,
}

// RoutingFields are the status fields, by JSON name, the routing reconciler owns.
var RoutingFields = []string{"sourceUID", "homes", "gatedHomes", "refusedHomes", "wouldGateHomes", "rampingHomes", "warnedHomes",
	"lastProbeTime", "probePeriod", "probeRecordInterval", "routeGeneration", "excludedClusters", "noTraffic", "servingHomes", "homeStates",
	"verdictTime"}

// Kept is a writer's share as tm carries it now, with the replacing conditions in place of
// those of their types. It changes only those conditions: an apply removes every field
// and condition of the manager that it leaves out, so the rest is applied as it stands.
func Kept(tm *omev1beta1.TrafficMap, manager string, owned, fields []string, replacing ...metav1.Condition) (Share, error) {
	current, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&tm.Status)
	if err != nil {
		return Share{}, err
	}
	share := Share{Manager: manager, Owned: owned, Fields: map[string]any{}}
	for _, f := range fields {
		share.Fields[f] = current[f]
	}
	replaced := map[string]bool{}
	for _, c := range replacing {
		replaced[c.Type] = true
	}
	for _, t := range owned {
		if c := meta.FindStatusCondition(tm.Status.Conditions, t); c != nil && !replaced[t] {
			share.Conditions = append(share.Conditions, *c)
		}
	}
	share.Conditions = append(share.Conditions, replacing...)
	return share, nil
}

// Share is one writer's share of a TrafficMap's status.
type Share struct {
	// Manager is the field manager the share is applied under.
	Manager string
	// Owned are the condition types the writer owns.
	Owned []string
	// Conditions are the writer's conditions as they should be. Their LastTransitionTime
	// is filled in from the current map.
	Conditions []metav1.Condition
	// Fields are the writer's other status fields, by JSON name, with their values as
	// they would appear in the map's status (nil removes the writer's claim on a field).
	Fields map[string]any
	// Stamp, when set, names a time field of the writer's that Apply sets to now whenever
	// it writes, and to nothing else: when the writer last recorded its share. It is not
	// compared, so that it alone never causes a write.
	Stamp string
}

// Apply applies the writer's share of tm's status when it differs from what tm
// carries, and returns the resourceVersion the apply made ("" when nothing was applied).
// tm is the writer's current view of the map.
func Apply(ctx context.Context, c client.Client, tm *omev1beta1.TrafficMap, share Share, now time.Time) (string, error) {
	conditions := withTransitionTimes(tm.Status.Conditions, share.Conditions, now)
	current, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&tm.Status)
	if err != nil {
		return "", err
	}
	compared := share.Fields
	if share.Stamp != "" {
		compared = maps.Clone(share.Fields)
		delete(compared, share.Stamp)
	}
	if !conditionsChanged(tm.Status.Conditions, conditions, share.Owned) && !fieldsChanged(current, compared) {
		return "", nil
	}
	status := map[string]any{}
	for k, v := range share.Fields {
		if v != nil && k != share.Stamp {
			status[k] = v
		}
	}
	if share.Stamp != "" {
		status[share.Stamp] = metav1.NewTime(now).ToUnstructured()
	}
	list := make([]any, 0, len(conditions))
	for i := range conditions {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&conditions[i])
		if err != nil {
			return "", err
		}
		list = append(list, u)
	}
	status["conditions"] = list
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": omev1beta1.GroupVersion.String(),
		"kind":       "TrafficMap",
		"metadata":   map[string]any{"name": tm.Name, "namespace": tm.Namespace},
		"status":     status,
	}}
	// The API server's answer is decoded into u.
	if err := c.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
		client.FieldOwner(share.Manager), client.ForceOwnership); err != nil {
		return "", err
	}
	return u.GetResourceVersion(), nil
}

// withTransitionTimes keeps a condition's transition time while its status stays, so a
// message change is not a transition.
func withTransitionTimes(current, desired []metav1.Condition, now time.Time) []metav1.Condition {
	out := make([]metav1.Condition, len(desired))
	for i, d := range desired {
		d.LastTransitionTime = metav1.NewTime(now.Truncate(time.Second))
		if c := meta.FindStatusCondition(current, d.Type); c != nil && c.Status == d.Status {
			d.LastTransitionTime = c.LastTransitionTime
		}
		out[i] = d
	}
	return out
}

// conditionsChanged says whether the desired conditions differ from the current ones, or
// a type the writer owns is present but no longer desired.
func conditionsChanged(current, desired []metav1.Condition, owned []string) bool {
	want := map[string]bool{}
	for _, d := range desired {
		want[d.Type] = true
		c := meta.FindStatusCondition(current, d.Type)
		if c == nil || c.Status != d.Status || c.Reason != d.Reason || c.Message != d.Message ||
			c.ObservedGeneration != d.ObservedGeneration || !c.LastTransitionTime.Equal(&d.LastTransitionTime) {
			return true
		}
	}
	for _, t := range owned {
		if !want[t] && meta.FindStatusCondition(current, t) != nil {
			return true
		}
	}
	return false
}

// fieldsChanged compares the writer's fields with the unstructured current status. An
// absent field equals its zero value, as the API's omitempty fields read back.
func fieldsChanged(current map[string]any, fields map[string]any) bool {
	for k, v := range fields {
		cur, present := current[k]
		switch {
		case v == nil && present:
			return true
		case v == nil:
		case !present && !isZeroJSON(v):
			return true
		case present && !reflect.DeepEqual(cur, v):
			return true
		}
	}
	return false
}

func isZeroJSON(v any) bool {
	switch x := v.(type) {
	case bool:
		return !x
	case int64:
		return x == 0
	case string:
		return x == ""
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// ListField is items as a status apply writes a list field: each item converted to its
// unstructured form, and nil (which drops the field) when there is none. The status's
// list items are structs of strings, numbers and bools, which always convert; one that
// did not would be left out rather than fail the whole status.
func ListField[T any](items []T) any {
	if len(items) == 0 {
		return nil
	}
	list := make([]any, 0, len(items))
	for i := range items {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&items[i])
		if err != nil {
			continue
		}
		list = append(list, u)
	}
	return list
}
