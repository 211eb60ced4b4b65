package publisher

// publishing.go is the last part of the reconcile, once the plan is to be published as
// it is: claim the plan's names, journal the claim, apply the objects, drain stale routes,
// prune what the plan no longer has, and record the outcome. Each phase may end the
// reconcile with a failure, written by fail (status.go).

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/mapstatus"
	"github.com/ome-routing/operator/controllers/internal/phase"
	"github.com/ome-routing/operator/pkg/publish"
)

// claimNames puts the finalizer on the map, checks every object of the plan against
// what stands at its name (preflight) and claims the names two maps could both want.
func (r *Reconciler) claimNames(ctx context.Context, s *publishScope) phase.Outcome {
	if err := r.ensureFinalizer(ctx, s.tm); err != nil {
		if apierrors.IsConflict(err) {
			// A new map is written by the routing reconciler again and again while its
			// homes get their first probes: the finalizer goes on the next version, which
			// brings its own event. Nothing failed.
			return phase.Finish(ctrl.Result{RequeueAfter: mapstatus.ConflictRetry}, nil)
		}
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonApplyFailed, err, true))
	}
	objects, err := s.plan.Objects()
	if err != nil {
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonInvalidPlan, err, false))
	}
	live, err := r.preflight(ctx, s.plan, objects)
	if err == nil {
		err = r.claim(ctx, s.key, s.plan)
	}
	var waiting *annotatedHolder
	if errors.As(err, &waiting) {
		// Not a rejection: the annotated route gives way (globalhost.go) within moments.
		ctrl.LoggerFrom(ctx).Info("Waiting for an annotated route to give up the template hostname", "trafficMap", klog.KObj(s.tm), "reason", err.Error())
		return phase.Finish(ctrl.Result{RequeueAfter: annotatedHolderRetry}, r.record(ctx, s.tm, omev1beta1.TrafficMapReasonTransitioning, s.tm.Status.GatewayRef))
	}
	if err != nil {
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonClaimRejected, err, !isClaimRejected(err)))
	}
	s.objects, s.live = objects, live
	return phase.Proceed
}

// journalPlan writes the claim into the map's publisher journal (journal.go), and says
// Transitioning before the first write of a route, because the gateway may take a while
// to program it.
func (r *Reconciler) journalPlan(ctx context.Context, s *publishScope) phase.Outcome {
	claimed, err := r.journalClaim(ctx, s.tm, s.plan)
	var changed *publisherChanged
	var unread *claimUnread
	switch {
	case errors.As(err, &changed):
		// Another publisher's claims wait for a change, as a refused claim does; a failed
		// read or write is retried.
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonPublisherChanged, err, false))
	case isClaimRejected(err):
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonClaimRejected, err, false))
	case errors.As(err, &unread):
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonClaimRejected, err, true))
	case err != nil:
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonApplyFailed, err, true))
	}
	s.tm = claimed
	if s.live[len(s.objects)-1] == nil {
		if err := r.record(ctx, s.tm, omev1beta1.TrafficMapReasonTransitioning, nil); err != nil {
			return phase.Finish(ctrl.Result{}, err)
		}
	}
	return phase.Proceed
}

// applyObjects writes the backends and the route where they differ from the plan.
func (r *Reconciler) applyObjects(ctx context.Context, s *publishScope) phase.Outcome {
	standing, err := r.apply(ctx, s.objects, s.live)
	if err != nil {
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonApplyFailed, err, true))
	}
	s.standing = standing
	r.noticeDroppedRetry(ctx, s.tm, s.plan, standing[len(standing)-1])
	return phase.Proceed
}

// drainStaleRoutes removes the routes the journal says the map published before under
// another name, now that the plan's route stands (journal.go).
func (r *Reconciler) drainStaleRoutes(ctx context.Context, s *publishScope) phase.Outcome {
	if err := r.drainStale(ctx, s.tm, publish.RouteClaim(client.ObjectKeyFromObject(s.plan.Route))); err != nil {
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonDrainFailed, err, true))
	}
	return phase.Proceed
}

// prune takes the plan into the journal and, when due (memory.go), removes the objects
// of the map the plan no longer has.
func (r *Reconciler) prune(ctx context.Context, s *publishScope) phase.Outcome {
	// A shallow copy: only the journal pointer is replaced, and the cached map is not
	// copied whole on every round.
	withJournal := *s.tm
	withJournal.Status.Publisher = r.published(s.tm, s.plan, r.Publisher.Options)
	s.tm = &withJournal
	keep := refsOf(s.objects)
	if r.memory.pruneDue(s.key, keep, r.clock(), r.Publisher.Resync()) {
		if err := r.removeAll(ctx, r.cached(), s.key, keep); err != nil {
			return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonApplyFailed, err, true))
		}
		r.memory.pruned(s.key, keep, r.clock())
	}
	return phase.Proceed
}

// recordPublished ends a hold the plan replaced and records the route: Published, or
// NoBackends for a route that sends nowhere; either way the map is looked at again at the
// resync.
func (r *Reconciler) recordPublished(ctx context.Context, s *publishScope) phase.Outcome {
	r.announceHoldEnded(ctx, s.tm, s.plan)
	ref := &omev1beta1.TrafficMapGatewayRef{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Name: s.plan.Route.Name, Namespace: s.plan.Route.Namespace}
	parents := routeParents(ctx, s.standing[len(s.standing)-1])
	if len(s.plan.Backends) == 0 {
		// A route with no backend sends the service's requests nowhere: it is written (it
		// holds the hostname, and says so to the gateway), but it is not published.
		conditions := publish.NoBackendsConditions(len(s.tm.Spec.Entries), len(r.guard.leftOut(s.key)), s.tm.Generation)
		return phase.Finish(r.resync(r.recordConditions(ctx, s.tm, omev1beta1.TrafficMapReasonNoBackends, ref, conditions, parents)))
	}
	return phase.Finish(r.resync(r.recordConditions(ctx, s.tm, omev1beta1.TrafficMapReasonPublished, ref,
		publish.Conditions(omev1beta1.TrafficMapReasonPublished, s.tm.Generation), parents)))
}
