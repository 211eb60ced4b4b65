package publisher

// journal.go keeps the map's journal (status.publisher, decided in pkg/publish): it
// records a route's claim before the route is written, refuses a claim another map or
// another publisher holds, and drains a claimed route the map no longer needs (weight 0,
// then deleted). Every status write of the publisher carries the journal as it stands
// (journalField), since a server-side apply drops what it leaves out.

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/publish"
)

// claimedTargetIndex indexes TrafficMaps by the targets their journals claim, so that a
// claim is checked against every other map's without listing them all.
const claimedTargetIndex = "status.publisher.claimedTargets"

// indexClaimedTargets adds claimedTargetIndex to the manager's cache of TrafficMaps.
func indexClaimedTargets(indexer client.FieldIndexer) error {
	if err := indexer.IndexField(context.Background(), &omev1beta1.TrafficMap{}, claimedTargetIndex, claimedTargets); err != nil {
		return fmt.Errorf("index TrafficMaps by claimed target: %w", err)
	}
	return nil
}

func claimedTargets(obj client.Object) []string {
	tm, ok := obj.(*omev1beta1.TrafficMap)
	if !ok {
		return nil
	}
	return publish.Claims(tm.Status.Publisher)
}

// drainFailed is a claimed route that could not be drained or deleted: DrainFailed.
type drainFailed struct{ err error }

func (e *drainFailed) Error() string { return e.err.Error() }
func (e *drainFailed) Unwrap() error { return e.err }

// journalClaim checks that the map may claim the plan's route and records the claim
// before anything is written: another publisher's claims (a *publisherChanged) and another
// map's claim on the same route, or too many claims (a *claimRejected), stop it; a failed
// list is a *claimUnread, a failed status write itself. It returns the map as it now
// stands: with the claim recorded (and Published Transitioning) when the journal lacked
// it, unchanged otherwise.
func (r *Reconciler) journalClaim(ctx context.Context, tm *omev1beta1.TrafficMap, plan publish.Plan) (*omev1beta1.TrafficMap, error) {
	key := client.ObjectKeyFromObject(tm)
	if err := publish.CheckPublisher(key, tm.Status.Publisher, publish.PublisherName); err != nil {
		return nil, &publisherChanged{err}
	}
	want := publish.RouteClaim(client.ObjectKeyFromObject(plan.Route))
	holders := &omev1beta1.TrafficMapList{}
	if err := r.Client.List(ctx, holders, client.MatchingFields{claimedTargetIndex: want}); err != nil {
		return nil, &claimUnread{fmt.Errorf("list TrafficMaps for publisher claim ownership: %w", err)}
	}
	for i := range holders.Items {
		if other := client.ObjectKeyFromObject(&holders.Items[i]); other != key {
			return nil, rejectClaim("%s", publish.ClaimCollision(want, other))
		}
	}
	claims := publish.Claims(tm.Status.Publisher)
	union, err := publish.ClaimUnion(claims, want)
	if err != nil {
		return nil, rejectClaim("%s", err)
	}
	if slices.Equal(union, claims) && tm.Status.Publisher.PublisherName == publish.PublisherName {
		return tm, nil
	}
	claimed := tm.DeepCopy()
	claimed.Status.Publisher = journalWith(tm.Status.Publisher, union)
	if err := r.record(ctx, claimed, omev1beta1.TrafficMapReasonTransitioning, tm.Status.GatewayRef); err != nil {
		return nil, err
	}
	return claimed, nil
}

// publisherChanged is a journal with another publisher's claims: PublisherChanged.
type publisherChanged struct{ err error }

func (e *publisherChanged) Error() string { return e.err.Error() }

// claimUnread is a claim that could not be checked against the other maps' journals: a
// ClaimRejected that is retried with backoff.
type claimUnread struct{ err error }

func (e *claimUnread) Error() string { return e.err.Error() }
func (e *claimUnread) Unwrap() error { return e.err }

// journalWith is the journal j with claims, under the built-in publisher's name.
func journalWith(j *omev1beta1.TrafficMapPublisherStatus, claims []string) *omev1beta1.TrafficMapPublisherStatus {
	out := &omev1beta1.TrafficMapPublisherStatus{}
	if j != nil {
		out = j.DeepCopy()
	}
	out.PublisherName = publish.PublisherName
	out.ClaimedTargets = claims
	return out
}

// published is the journal after plan was published at the map's generation: the plan's
// route is the one claim left, the options' digest and the map's placement plan are
// recorded, and lastPositive moves when the route sends traffic.
func (r *Reconciler) published(tm *omev1beta1.TrafficMap, plan publish.Plan, options map[string]string) *omev1beta1.TrafficMapPublisherStatus {
	j := journalWith(tm.Status.Publisher, []string{publish.RouteClaim(client.ObjectKeyFromObject(plan.Route))})
	j.ObservedOptionsDigest = publish.OptionsDigest(publish.PublisherName, options)
	// The route now carries this generation's entries: the placement behind them is
	// acknowledged, and a home it no longer has gets nothing through the route.
	j.AcknowledgedPlacementPlanID = tm.Spec.PlacementPlanID
	if last := publish.LastPositive(plan, tm.Generation, tm.Spec.ObservedISVCGeneration); last != nil {
		j.LastPositive = last
	}
	return j
}

// drainStale drains and deletes every route the journal claims but the plan no longer
// has (keep; empty drains every claim): each is set to weight 0, then deleted, so that a
// deletion a foreign finalizer holds up leaves no stale weights serving. A claim whose
// route is gone, or no longer the map's (its labels changed hands), is let go.
func (r *Reconciler) drainStale(ctx context.Context, tm *omev1beta1.TrafficMap, keep string) error {
	key := client.ObjectKeyFromObject(tm)
	for _, claim := range publish.StaleClaims(publish.Claims(tm.Status.Publisher), keep) {
		routeKey, ok := publish.ClaimedRoute(claim)
		if !ok {
			continue
		}
		route := &gatewayv1.HTTPRoute{}
		if err := r.Reader.Get(ctx, routeKey, route); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return &drainFailed{fmt.Errorf("read claimed HTTPRoute %s: %w", routeKey, err)}
		}
		if !publish.OwnedBy(route.Labels, key.Namespace, key.Name) {
			ctrl.LoggerFrom(ctx).Info("Letting go of a claimed route that no longer carries the TrafficMap's labels",
				"trafficMap", klog.KObj(tm), "route", routeKey)
			continue
		}
		if err := r.drainRoute(ctx, route); err != nil {
			return &drainFailed{err}
		}
	}
	return nil
}

// drainRoute sets every backendRef of one of the publisher's routes to weight 0, then
// deletes it. A route already at 0 (or already deleting) is not written again.
func (r *Reconciler) drainRoute(ctx context.Context, route *gatewayv1.HTTPRoute) error {
	key := client.ObjectKeyFromObject(route)
	if route.DeletionTimestamp.IsZero() && sendsTraffic(route) {
		before := route.DeepCopy()
		for i := range route.Spec.Rules {
			for j := range route.Spec.Rules[i].BackendRefs {
				route.Spec.Rules[i].BackendRefs[j].Weight = ptr.To[int32](0)
			}
		}
		if err := r.Client.Patch(ctx, route, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("set HTTPRoute %s to weight 0: %w", key, err)
		}
	}
	uid := route.UID
	if err := r.Client.Delete(ctx, route, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("delete drained HTTPRoute %s: %w", key, err)
	}
	return nil
}

// sendsTraffic says whether some backendRef of route has a weight other than 0 (an unset
// weight is 1).
func sendsTraffic(route *gatewayv1.HTTPRoute) bool {
	for _, rule := range route.Spec.Rules {
		for _, ref := range rule.BackendRefs {
			if ref.Weight == nil || *ref.Weight != 0 {
				return true
			}
		}
	}
	return false
}

// journalField is the journal as the publisher's status apply writes it, nil without one.
func journalField(tm *omev1beta1.TrafficMap) (any, error) {
	if tm.Status.Publisher == nil {
		return nil, nil
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(tm.Status.Publisher)
}
