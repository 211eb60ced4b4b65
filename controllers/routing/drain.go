package routing

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/drain"
)

// parseDrains reads the service's manual drains. Its error carries the prefix users grep
// for; the caller freezes the map on it, so a half-read annotation never releases a
// drained cluster or drains the wrong one.
func parseDrains(isvc *omev1beta1.InferenceService) ([]drain.Override, error) {
	value, present := isvc.Annotations[drain.Annotation]
	overrides, err := drain.Parse(value, present)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", drain.Annotation, err)
	}
	return overrides, nil
}

// drainAnnotationChanged lets through an update of a source service whose drain annotation
// was added, changed or removed. Annotations do not move the generation, so without it a
// drain would wait for the next unrelated change.
func drainAnnotationChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		if e.ObjectOld == nil || e.ObjectNew == nil {
			return false
		}
		oldValue, oldPresent := e.ObjectOld.GetAnnotations()[drain.Annotation]
		newValue, newPresent := e.ObjectNew.GetAnnotations()[drain.Annotation]
		return oldPresent != newPresent || oldValue != newValue
	}}
}
