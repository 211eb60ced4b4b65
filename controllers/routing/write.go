package routing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/mapstatus"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/text"
	"github.com/ome-routing/operator/pkg/trafficmap"
	"github.com/ome-routing/operator/pkg/version"
)

// errNotControlled marks a TrafficMap with the service's name that the service does not
// control.
var errNotControlled = errors.New("not controlled by the service")

// currentMap is the service's TrafficMap, nil when there is none. A map of that name that
// the service does not control is an errNotControlled error.
func (r *Reconciler) currentMap(ctx context.Context, reader client.Reader, isvc *omev1beta1.InferenceService) (*omev1beta1.TrafficMap, error) {
	tm := &omev1beta1.TrafficMap{}
	if err := reader.Get(ctx, client.ObjectKeyFromObject(isvc), tm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	if ref := metav1.GetControllerOf(tm); ref == nil || ref.UID != isvc.UID {
		return nil, fmt.Errorf("TrafficMap %s/%s exists but is not controlled by InferenceService UID %s: %w",
			tm.Namespace, tm.Name, isvc.UID, errNotControlled)
	}
	return tm, nil
}

func (r *Reconciler) deleteMap(ctx context.Context, tm *omev1beta1.TrafficMap) error {
	if tm == nil {
		return nil
	}
	// Only the very object read is deleted: a map written since (or created again) is
	// the API server's Conflict, never lost.
	return client.IgnoreNotFound(r.Client.Delete(ctx, tm, client.Preconditions{UID: &tm.UID, ResourceVersion: &tm.ResourceVersion}))
}

// writePlacement records on the source service where it is placed, when that changed.
func (r *Reconciler) writePlacement(ctx context.Context, isvc *omev1beta1.InferenceService, placed omev1beta1.PlacementStatus) error {
	if isvc.Status.Placement != nil && equality.Semantic.DeepEqual(*isvc.Status.Placement, placed) {
		return nil
	}
	before := isvc.DeepCopy()
	isvc.Status.Placement = &placed
	return r.Client.Status().Patch(ctx, isvc, client.MergeFrom(before), r.owner())
}

// writeMap creates or updates the service's TrafficMap spec from the built result and
// returns the map as written. The spec is written only when it differs, so a steady
// service costs no spec write and a hand edit is put back.
func (r *Reconciler) writeMap(ctx context.Context, isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap,
	result trafficmap.Result, policy omev1beta1.AllFailedPolicy) (*omev1beta1.TrafficMap, error) {
	spec := omev1beta1.TrafficMapSpec{
		Service:                isvc.Name,
		PlacementPlanID:        trafficmap.PlanID(result.Entries),
		Mode:                   isvc.Spec.Placement.Mode,
		ObservedISVCGeneration: isvc.Generation,
		// The publisher reads the policy here rather than resolving the service's probe
		// again: the map says which policy its entries were built under.
		AllFailedPolicy: policy,
		Failover:        result.Failover,
		Entries:         result.Entries,
	}
	tm := current
	switch {
	case tm == nil:
		tm = &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Name: isvc.Name, Namespace: isvc.Namespace,
			Annotations: map[string]string{version.Annotation: version.Stamp()}}, Spec: spec}
		if err := controllerutil.SetControllerReference(isvc, tm, r.Client.Scheme()); err != nil {
			return nil, err
		}
		if err := r.ownWrite(tm, func() error { return r.Client.Create(ctx, tm, r.owner()) }); err != nil {
			return nil, err
		}
	case r.quietRound(tm, spec):
		// Only lastProbeTime moved, and it was recorded less than recordInterval ago.
	case !equality.Semantic.DeepEqual(tm.Spec, spec) || tm.Annotations[version.Annotation] != version.Stamp():
		// A map last written by another release is written once more, so that its
		// annotation names the release whose decisions it holds.
		before := tm
		tm = tm.DeepCopy()
		tm.Spec = spec
		metav1.SetMetaDataAnnotation(&tm.ObjectMeta, version.Annotation, version.Stamp())
		// Homes that leave keep their records in the map; homes that are back drop them.
		withDepartedAnnotation(tm, departedAnnotation(before, spec.Entries, time.Now()))
		// A merge patch of what changed (in practice the entries) sends about half the bytes
		// of a whole-object update; the resourceVersion it carries makes a stale copy a
		// Conflict all the same.
		patch := client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})
		if err := r.ownWrite(tm, func() error { return r.Client.Patch(ctx, tm, patch, r.owner()) }); err != nil {
			return nil, err
		}
	}
	r.bindMap(isvc, tm)
	return tm, nil
}

// setMapGauges sets the map's gated, refused, would-gate, unobserved and capacity-fallback
// gauges, and its settings-refused gauge to 0: the settings were accepted.
func (r *Reconciler) setMapGauges(key types.NamespacedName, entries []omev1beta1.TrafficMapEntry, shadow, polled, passive bool) {
	setGatedHomes(key, countGated(entries))
	setPassiveGateHomes(key, passive, entries)
	setRefusedHomes(key, countRefused(entries))
	setShadowGatedHomes(key, shadow, countWouldGate(entries))
	setUnobservedHomes(key, trafficmap.UnobservedEntries(entries))
	setSettingsRefused(key, false)
	if polled {
		setCapacityFallbackHomes(key, capacity.FallbackHomes(entries))
	}
}

// quietRound says whether the new spec may go unwritten under routing.observer.recordInterval:
// it differs from the map's only in lastProbeTime, recorded recently enough.
func (r *Reconciler) quietRound(tm *omev1beta1.TrafficMap, spec omev1beta1.TrafficMapSpec) bool {
	return r.RecordInterval > 0 && tm.Annotations[version.Annotation] == version.Stamp() && tm.Spec.Service == spec.Service && tm.Spec.Mode == spec.Mode &&
		tm.Spec.PlacementPlanID == spec.PlacementPlanID &&
		tm.Spec.ObservedISVCGeneration == spec.ObservedISVCGeneration && tm.Spec.AllFailedPolicy == spec.AllFailedPolicy &&
		equality.Semantic.DeepEqual(tm.Spec.Failover, spec.Failover) &&
		trafficmap.Deferrable(tm.Spec.Entries, spec.Entries, r.RecordInterval, time.Now())
}

// writeMapStatus applies the routing reconciler's share of the map's status: the source
// UID, its own conditions (Routable, CapacityFallback, OverrideActive) and the counts and
// explanations kubectl shows, under its own field manager, only when it changed. The
// publisher's fields and conditions are left to the publisher.
func (r *Reconciler) writeMapStatus(ctx context.Context, isvc *omev1beta1.InferenceService, tm *omev1beta1.TrafficMap,
	result trafficmap.Result, polled bool, override trafficmap.Condition, excluded []omev1beta1.ExcludedCluster, view mapView,
	trafficApplied metav1.Condition) error {
	fallback := capacity.FallbackCondition(polled, result.Entries)
	fallback.ObservedGeneration = tm.Generation
	conditions := []metav1.Condition{mapCondition(tm, omev1beta1.TrafficMapRoutable, result.Routable), fallback,
		mapCondition(tm, omev1beta1.TrafficMapOverrideActive, override), settingsAccepted(tm, nil), trafficApplied}
	return r.applyMapStatus(ctx, tm, mapstatus.Share{
		Manager:    r.statusManager(),
		Owned:      mapstatus.RoutingConditionTypes,
		Conditions: conditions,
		Fields:     routingStatusFields(isvc, result, excluded, view),
		// The VERDICT column: the serving states were judged now, and are recorded with
		// this write.
		Stamp: "verdictTime",
	})
}

// writeFrozenStatus says on the map that the service's routing settings are refused, and
// leaves the rest of the routing reconciler's share as the map carries it: the frozen map
// keeps its weights, gates and counts as last written.
func (r *Reconciler) writeFrozenStatus(ctx context.Context, tm *omev1beta1.TrafficMap, refusal error) error {
	share, err := mapstatus.Kept(tm, r.statusManager(), mapstatus.RoutingConditionTypes, mapstatus.RoutingFields, settingsAccepted(tm, refusal))
	if err != nil {
		return err
	}
	return r.applyMapStatus(ctx, tm, share)
}

func (r *Reconciler) applyMapStatus(ctx context.Context, tm *omev1beta1.TrafficMap, share mapstatus.Share) error {
	return r.written.do(client.ObjectKeyFromObject(tm), func() (string, error) {
		return mapstatus.Apply(ctx, r.Client, tm, share, time.Now())
	})
}

// routingStatusFields are the routing reconciler's status fields for the built result,
// by JSON name (the names are mapstatus.RoutingFields).
func routingStatusFields(isvc *omev1beta1.InferenceService, result trafficmap.Result, excluded []omev1beta1.ExcludedCluster, view mapView) map[string]any {
	fields := withExplanations(map[string]any{"homes": int64(len(result.Entries)), "gatedHomes": int64(countGated(result.Entries)),
		"refusedHomes": int64(countRefused(result.Entries))}, result.Entries, excluded, view.leftOutOfRoute)
	fields = withViews(fields, result.Entries, view)
	fields = servingFields(fields, result.Entries, view.leftOutOfRoute)
	fields["sourceUID"] = string(isvc.UID)
	return fields
}

// settingsAccepted is the map's SettingsAccepted condition: True with no message while the
// settings are in force (so that the FROZEN column stays empty), False with the refusal's
// exact text, which names the setting and the rule, while they are refused.
func settingsAccepted(tm *omev1beta1.TrafficMap, refusal error) metav1.Condition {
	c := metav1.Condition{Type: omev1beta1.TrafficMapSettingsAccepted, Status: metav1.ConditionTrue,
		Reason: string(omev1beta1.TrafficMapReasonSettingsAccepted), ObservedGeneration: tm.Generation}
	if refusal != nil {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, string(omev1beta1.TrafficMapReasonRoutingPolicyRefused), text.ConditionMessage(refusal.Error())
	}
	return c
}

// ownWrite sends one write of tm, which leaves the written version in tm, so that the
// reconciler's watch of the maps skips that version's event (see ownWrites).
func (r *Reconciler) ownWrite(tm *omev1beta1.TrafficMap, write func() error) error {
	return r.written.do(client.ObjectKeyFromObject(tm), func() (string, error) {
		err := write()
		return tm.ResourceVersion, err
	})
}

// mapCondition is one of the map's conditions of type t, as the routing reconciler
// decided it (Routable for the built result, OverrideActive for the drains applied).
func mapCondition(tm *omev1beta1.TrafficMap, t string, c trafficmap.Condition) metav1.Condition {
	return metav1.Condition{Type: t, Status: c.Status, Reason: string(c.Reason), Message: c.Message, ObservedGeneration: tm.Generation}
}

// owner is the field manager of the reconciler's writes: FieldManager unless set.
// statusManager names the routing reconciler's status applies: mapstatus.RoutingStatusManager, or
// FieldManager when one is set (a test that tells two managers' writes apart).
func (r *Reconciler) statusManager() string {
	if r.FieldManager != "" {
		return r.FieldManager
	}
	return mapstatus.RoutingStatusManager
}

func (r *Reconciler) owner() client.FieldOwner {
	if r.FieldManager != "" {
		return client.FieldOwner(r.FieldManager)
	}
	return client.FieldOwner(FieldManager)
}
