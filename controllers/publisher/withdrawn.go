package publisher

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// EventPublicationWithdrawn is the reason of the event the publisher records when it
// withdraws a map's publication (Published False, Withdrawn); the note says which endpoint
// setting or annotation is missing, which the condition's message, OME's, does not.
const EventPublicationWithdrawn = "PublicationWithdrawn"

// announceWithdrawn says on the map, once per withdrawal, why nothing is published for it.
// tm is the map as read, before the Withdrawn condition is recorded: a map that already
// carries it was announced (by this process or the one before), and so was one this
// process withdrew for the same reason since it last published it, whose condition the
// cache may not show yet.
func (r *Reconciler) announceWithdrawn(ctx context.Context, tm *omev1beta1.TrafficMap, because string) {
	news := r.memory.withdrawing(client.ObjectKeyFromObject(tm), because)
	if publishedReason(tm) == omev1beta1.TrafficMapReasonWithdrawn || !news {
		ctrl.LoggerFrom(ctx).V(1).Info("TrafficMap publication withdrawn", "TrafficMap", klog.KObj(tm), "because", because)
		return
	}
	ctrl.LoggerFrom(ctx).Info("Withdrawing the TrafficMap's publication", "TrafficMap", klog.KObj(tm), "because", because)
	r.Recorder.Eventf(tm, nil, corev1.EventTypeNormal, EventPublicationWithdrawn, actionPublish,
		"Nothing is published for this map: %s", because)
}
