package publisher

// phases.go is the publisher's reconcile, phase by phase: what each phase decides and
// where each ends the reconcile. The publishing phases are in publishing.go; the writes
// themselves live in objects.go (backends and the route), hold.go (a route kept as last
// published), withdrawn.go, finalize in controller.go, and the status in status.go.

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/phase"
	"github.com/ome-routing/operator/controllers/internal/priority"
	"github.com/ome-routing/operator/pkg/publish"
)

// publishScope is what one reconcile of a map learns, phase by phase.
type publishScope struct {
	key types.NamespacedName
	// readMap
	tm *omev1beta1.TrafficMap
	// checkOwner
	isvc *omev1beta1.InferenceService
	// planRoute (resolveAddresses adds the Gateway addresses)
	plan publish.Plan
	// resolveAddresses: the plan writes EndpointSlices, which follow the Gateways
	refreshAddresses bool
	// claimNames
	objects []publish.Object
	live    []map[string]any // what stands at each object's name, nil where nothing does
	// applyObjects
	standing []map[string]any
}

// phases are the steps of a reconcile, in order: read the map (or clean up after a gone
// one), check its owner, plan the route, withdraw or hold it when the plan says to,
// resolve the Gateway addresses the EndpointSlice fallback needs, and publish it
// (publishing.go): claim its names, journal the claim, apply the objects, drain stale
// routes, prune what the plan no longer has, and record the outcome.
func (r *Reconciler) phases() []phase.Phase[publishScope] {
	return []phase.Phase[publishScope]{
		r.readMap, r.checkOwner, r.planRoute, r.withdrawOrHold, r.resolveAddresses,
		r.claimNames, r.journalPlan, r.applyObjects, r.drainStaleRoutes, r.prune, r.recordPublished,
	}
}

// Reconcile publishes one TrafficMap, withdraws it, or removes what was published for it.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	release, yield := r.lane.Enter(ctx, req)
	if yield {
		return ctrl.Result{RequeueAfter: priority.YieldDelay}, nil
	}
	defer release()
	s := &publishScope{key: req.NamespacedName}
	out := phase.Run(ctx, s, r.phases())
	if s.refreshAddresses {
		out = r.refreshAddresses(out)
	}
	return out.Result, out.Err
}

// readMap gets the map. A map gone has what it left removed (one deleted before it carried
// the finalizer can still have left objects); one being deleted is finalized; with
// routing off nothing more happens.
func (r *Reconciler) readMap(ctx context.Context, s *publishScope) phase.Outcome {
	tm := &omev1beta1.TrafficMap{}
	if err := r.Client.Get(ctx, s.key, tm); err != nil {
		if !apierrors.IsNotFound(err) {
			return phase.Finish(ctrl.Result{}, err)
		}
		r.memory.forget(s.key)
		r.guard.forget(s.key)
		forgetPublicationFallback(s.key)
		return phase.Finish(ctrl.Result{}, r.removeAll(ctx, r.cached(), s.key, nil))
	}
	if !tm.DeletionTimestamp.IsZero() {
		return phase.Finish(ctrl.Result{}, r.finalize(ctx, tm))
	}
	if !r.RoutingEnabled {
		return phase.Finish(ctrl.Result{}, nil)
	}
	s.tm = tm
	return phase.Proceed
}

// checkOwner reads the map's InferenceService and checks that the map is its current one.
// A map behind its service waits a moment for the routing reconciler, and a frozen one
// keeps its route; a service going or out of routing has nothing published.
func (r *Reconciler) checkOwner(ctx context.Context, s *publishScope) phase.Outcome {
	isvc, err := r.owner(ctx, s.tm)
	var behind *ownerBehind
	if errors.As(err, &behind) {
		if wait := r.memory.behind(s.key, behind.generation, r.clock()); wait > 0 {
			// The routing reconciler has not written the service's new generation yet: the
			// last publication stands until it has, and the map's write brings it here.
			ctrl.LoggerFrom(ctx).V(1).Info("Waiting for the TrafficMap to catch up with its InferenceService",
				"trafficMap", klog.KObj(s.tm), "mapBuiltFrom", s.tm.Spec.ObservedISVCGeneration, "serviceGeneration", behind.generation)
			return phase.Finish(ctrl.Result{RequeueAfter: wait}, nil)
		}
		if frozen(s.tm) {
			// Published stays as it was: the route carries the frozen map, and the map's
			// SettingsAccepted says why it does not move. The fix writes the map again,
			// which brings it here.
			ctrl.LoggerFrom(ctx).V(1).Info("Keeping the last published route: the TrafficMap is frozen by refused routing settings",
				"trafficMap", klog.KObj(s.tm))
			return phase.Finish(ctrl.Result{}, nil)
		}
		err = &behind.invalidOwner
	}
	if err != nil {
		var invalid *invalidOwner
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonInvalidOwner, err, !errors.As(err, &invalid)))
	}
	r.memory.caughtUp(s.key)
	if isvc == nil || !publishable(isvc) {
		// The service is going or left routing: the routing reconciler deletes the map,
		// and until then nothing is published for it.
		return phase.Finish(r.unpublish(ctx, s.tm, omev1beta1.TrafficMapReasonUnpublished))
	}
	s.isvc = isvc
	return phase.Proceed
}

// planRoute builds the route and backends from the map as the publish guard admits it.
// An annotated hostname another service's template owns is refused, and a plan that
// breaks a rule is InvalidPlan.
func (r *Reconciler) planRoute(ctx context.Context, s *publishScope) phase.Outcome {
	if err := publish.CheckOptions("global", r.Publisher.Options); err != nil {
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonInvalidOptions, err, false))
	}
	if p := s.isvc.Spec.Routing; p != nil && p.Publisher != nil {
		if err := publish.CheckOptions("per-InferenceService", p.Publisher.Options); err != nil {
			return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonInvalidOptions, err, false))
		}
	}
	plan, err := publish.Build(publish.Input{
		Map: r.guard.admit(ctx, s.tm, r.publishedHosts(s.key), r.Recorder), ServiceNamespace: s.isvc.Namespace, ServiceName: s.isvc.Name,
		ServiceAnnotations: s.isvc.Annotations, Endpoint: r.Endpoint,
	})
	if err == nil && plan.Annotated {
		err = r.templateHostFree(ctx, s.key, plan.Hostname)
	}
	var refusedHost *publish.GlobalHostRefused
	if errors.As(err, &refusedHost) {
		return phase.Finish(r.refuseHost(ctx, s.tm, err))
	}
	if err != nil {
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonInvalidPlan, err, false))
	}
	s.plan = r.withRetry(plan, s.isvc)
	return phase.Proceed
}

// withdrawOrHold ends the reconcile when the plan is not to be published as it is: a
// plan withdrawn for lack of settings removes the route; one that sends nothing where
// the route sends traffic, under a policy other than Drain, leaves the route as it is
// (hold.go).
func (r *Reconciler) withdrawOrHold(ctx context.Context, s *publishScope) phase.Outcome {
	if s.plan.Withdraw {
		r.announceWithdrawn(ctx, s.tm, s.plan.WithdrawnBecause)
		return phase.Finish(r.unpublish(ctx, s.tm, omev1beta1.TrafficMapReasonWithdrawn))
	}
	because, standing, err := r.holdBecause(ctx, s.tm, s.plan)
	if err != nil {
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonApplyFailed, err, true))
	}
	if because == "" && standing == 0 {
		// No route of the map's that sends traffic stands: one the hold kept may have
		// gone, and the journal can put it back (replay.go).
		if because, standing, s.tm, err = r.replay(ctx, s.tm, s.plan); err != nil {
			return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonApplyFailed, err, true))
		}
	}
	if because != "" {
		return phase.Finish(r.hold(ctx, s.tm, s.plan, standing, because))
	}
	return phase.Proceed
}
