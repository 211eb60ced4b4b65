package publish

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// PublisherName is the name the built-in publisher gives itself in its messages.
const PublisherName = "gatewayapi"

// publishedMessages are the Published condition's message for each reason. Failures carry
// a generic message; the error itself goes to the log and to an event on the map.
var publishedMessages = map[omev1beta1.TrafficMapConditionReason]string{
	omev1beta1.TrafficMapReasonPublished:      fmt.Sprintf("TrafficMap is published by publisher %q", PublisherName),
	omev1beta1.TrafficMapReasonWithdrawn:      fmt.Sprintf("TrafficMap publication is withdrawn by publisher %q", PublisherName),
	omev1beta1.TrafficMapReasonTransitioning:  "TrafficMap publisher is applying the current plan",
	omev1beta1.TrafficMapReasonFinalizing:     "TrafficMap publisher is removing external state",
	omev1beta1.TrafficMapReasonUnpublished:    "TrafficMap source is deleting or has opted out of publication",
	omev1beta1.TrafficMapReasonInvalidOwner:   "TrafficMap owner identity is invalid or stale",
	omev1beta1.TrafficMapReasonInvalidOptions: "Publisher options are invalid",
	omev1beta1.TrafficMapReasonInvalidPlan:    "Publisher plan is invalid",
	omev1beta1.TrafficMapReasonClaimRejected:  "Publisher claims could not be acquired",
	omev1beta1.TrafficMapReasonGlobalHostRefused: "Publisher refuses the " + GlobalHostAnnotation +
		" annotation of the TrafficMap source; nothing is published",
	omev1beta1.TrafficMapReasonApplyFailed:      "Publisher could not apply the TrafficMap",
	omev1beta1.TrafficMapReasonDrainFailed:      "Publisher could not drain stale targets",
	omev1beta1.TrafficMapReasonPublisherChanged: "Publisher journal does not match the selected publisher",
}

// defaultFailureMessage is the message of a reason without one of its own.
const defaultFailureMessage = "TrafficMap publisher reconciliation failed"

// Conditions are the Published and PublicationFallback conditions for the outcome reason
// of a publication of the map generation.
func Conditions(reason omev1beta1.TrafficMapConditionReason, generation int64) []metav1.Condition {
	msg, ok := publishedMessages[reason]
	if !ok {
		msg = defaultFailureMessage
	}
	published := metav1.Condition{Type: omev1beta1.TrafficMapPublished, Status: metav1.ConditionFalse,
		Reason: string(reason), Message: msg, ObservedGeneration: generation}
	// The built-in publisher retains no plan to fall back on: the fallback is Unsupported
	// once published, off while nothing is, and Unknown while publishing is underway or
	// failing.
	fallback := metav1.Condition{Type: omev1beta1.TrafficMapPublicationFallback, Status: metav1.ConditionUnknown,
		Reason: string(reason), Message: msg, ObservedGeneration: generation}
	switch reason {
	case omev1beta1.TrafficMapReasonPublished:
		published.Status = metav1.ConditionTrue
		fallback.Status, fallback.Reason, fallback.Message = metav1.ConditionFalse, string(omev1beta1.TrafficMapReasonUnsupported),
			"The selected publisher does not retain publication plans"
	case omev1beta1.TrafficMapReasonWithdrawn:
		fallback.Status, fallback.Message = metav1.ConditionFalse, "TrafficMap publication is withdrawn"
	case omev1beta1.TrafficMapReasonUnpublished, omev1beta1.TrafficMapReasonGlobalHostRefused:
		fallback.Status, fallback.Message = metav1.ConditionFalse, "TrafficMap publication fallback is inactive"
	case omev1beta1.TrafficMapReasonFinalizing:
		fallback.Status = metav1.ConditionFalse
	}
	return []metav1.Condition{published, fallback}
}
