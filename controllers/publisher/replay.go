package publisher

// replay.go puts back a held route that went missing (see publish.Replay): the hold keeps
// the route that stands, and when none stands any more, the journal's lastPositive says
// what it was.

import (
	"context"

	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/publish"
)

// replayedMessage is the Published message while a route is put back from the journal.
const replayedMessage = "TrafficMap publisher is transitioning to a retained positive plan"

// replayedBecause ends a hold's reason when the route it keeps was put back from the journal.
const replayedBecause = "; the route that sent traffic was gone and is put back as status.publisher.lastPositive records it"

// replay puts back, from the journal, the route a hold would keep had it not gone: for a
// plan that sends nothing under a policy that holds, when no route of the map's that sends
// traffic stands at the plan's name. It returns the hold's reason and the number of
// backendRefs that take traffic once the route is back, with the map as it then stands, or
// "" when there is nothing to put back (no lastPositive, other settings since, a backend
// gone, a host the guard now refuses, or a map the hold would not keep anyway); then the
// plan is published as it is.
func (r *Reconciler) replay(ctx context.Context, tm *omev1beta1.TrafficMap, plan publish.Plan) (string, int, *omev1beta1.TrafficMap, error) {
	if !publish.HoldCandidate(tm, plan) || tm.Status.Publisher == nil || tm.Status.Publisher.LastPositive == nil {
		return "", 0, tm, nil
	}
	key := client.ObjectKeyFromObject(tm)
	last := tm.Status.Publisher.LastPositive
	// Only a route that is gone is put back: one that stands at weight 0, or someone
	// else's, is the normal publication's business.
	routeKey := client.ObjectKeyFromObject(plan.Route)
	standing, err := r.read(ctx, r.cached(), httpRouteGVK, routeKey)
	if err == nil && standing == nil {
		// The cache may be behind a route just written: only the API server says it is gone.
		standing, err = r.read(ctx, r.live(), httpRouteGVK, routeKey)
	}
	if err != nil || standing != nil {
		return "", 0, tm, err
	}
	hosts, err := r.publishedHosts(key)(ctx, publish.ReplayClusters(last))
	if err != nil {
		return "", 0, tm, err
	}
	replayed, err := publish.Replay(plan, last, tm.Namespace, tm.Name, hosts)
	if err != nil {
		ctrl.LoggerFrom(ctx).V(1).Info("Not putting back the last route that sent traffic", "trafficMap", klog.KObj(tm), "reason", err.Error())
		return "", 0, tm, nil
	}
	var sending []string
	for _, b := range replayed.Backends {
		if b.Weight > 0 {
			sending = append(sending, b.Host)
		}
	}
	refused := r.refusedStanding(ctx, tm, sending)
	because := publish.HoldBecause(publish.HoldInput{Map: tm, Plan: plan, Standing: len(sending), StandingRefused: refused})
	if because == "" {
		return "", 0, tm, nil
	}
	claimed, err := r.journalClaim(ctx, tm, plan)
	if err != nil {
		return "", 0, tm, err
	}
	tm = claimed
	objects, err := replayed.Objects()
	if err != nil {
		return "", 0, tm, err
	}
	route := objects[len(objects)-1]
	live, err := r.claimable(ctx, route, plan)
	if err != nil {
		return "", 0, tm, err
	}
	conditions := publish.Conditions(omev1beta1.TrafficMapReasonTransitioning, tm.Generation)
	for i := range conditions {
		conditions[i].Message = replayedMessage
	}
	if err := r.recordConditions(ctx, tm, omev1beta1.TrafficMapReasonTransitioning, tm.Status.GatewayRef, conditions, nil); err != nil {
		return "", 0, tm, err
	}
	ctrl.LoggerFrom(ctx).Info("Putting back the last route that sent traffic: the current plan sends nothing, and the route was gone",
		"trafficMap", klog.KObj(tm), "because", because)
	if _, err := r.apply(ctx, []publish.Object{route}, []map[string]any{live}); err != nil {
		return "", 0, tm, err
	}
	return because + replayedBecause, len(sending), tm, nil
}
