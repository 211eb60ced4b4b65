package publisher

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/publish"
)

// holdBecause says why the route is to stay as last published rather than become plan,
// which sends nothing (see publish.HoldBecause), or "" when plan is to be written. tm is
// the map as written, before the publish guard. It reads the standing route and its
// backends only for a plan that sends nothing under a policy other than Drain, so a
// steady map costs nothing more.
func (r *Reconciler) holdBecause(ctx context.Context, tm *omev1beta1.TrafficMap, plan publish.Plan) (string, int, error) {
	if !publish.HoldCandidate(tm, plan) {
		return "", 0, nil
	}
	hosts, err := r.standingHosts(ctx, plan)
	if err != nil {
		return "", 0, err
	}
	refused := r.refusedStanding(ctx, tm, hosts)
	because := publish.HoldBecause(publish.HoldInput{Map: tm, Plan: plan, Standing: len(hosts), StandingRefused: refused})
	return because, len(hosts), nil
}

// standingHosts are the hosts of the standing route's backendRefs that send traffic: a
// positive weight to a backend of the publisher's for this map that exists, one host per
// such backendRef. None when no route of the map's stands at the plan's name.
func (r *Reconciler) standingHosts(ctx context.Context, plan publish.Plan) ([]string, error) {
	route := &gatewayv1.HTTPRoute{}
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(plan.Route), route); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read global HTTPRoute %s: %w", client.ObjectKeyFromObject(plan.Route), err)
	}
	service, namespace := plan.Labels[publish.LabelService], plan.Labels[publish.LabelServiceNamespace]
	if !publish.OwnedBy(route.Labels, namespace, service) || !route.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	mapKey := types.NamespacedName{Namespace: namespace, Name: service}
	var hosts []string
	for _, rule := range route.Spec.Rules {
		for _, ref := range rule.BackendRefs {
			if ref.Weight != nil && *ref.Weight <= 0 {
				continue
			}
			host, err := r.standingHost(ctx, mapKey, route.Namespace, ref.BackendObjectReference)
			if err != nil {
				return nil, err
			}
			if host != "" {
				hosts = append(hosts, host)
			}
		}
	}
	return hosts, nil
}

// standingHost is the host of the publisher's backend that ref names, "" when there is
// no such backend of the map's.
func (r *Reconciler) standingHost(ctx context.Context, mapKey types.NamespacedName, routeNamespace string, ref gatewayv1.BackendObjectReference) (string, error) {
	// A backendRef's group and kind default to a core Service.
	kind, ok := publish.BackendKindByGroupKind(schema.GroupKind{Group: string(ptr.Deref(ref.Group, "")), Kind: string(ptr.Deref(ref.Kind, "Service"))})
	if !ok {
		return "", nil // Not a kind of backend the publisher writes.
	}
	gvk := kind.GVK
	key := types.NamespacedName{Namespace: routeNamespace, Name: string(ref.Name)}
	if ref.Namespace != nil {
		key.Namespace = string(*ref.Namespace)
	}
	obj, err := r.read(ctx, r.cached(), gvk, key)
	if err != nil {
		return "", fmt.Errorf("read global backend %s: %w", key, err)
	}
	if obj == nil || !publish.OwnedBy(obj.GetLabels(), mapKey.Namespace, mapKey.Name) {
		return "", nil
	}
	if h := backendHosts(obj); len(h) == 1 {
		return observer.CanonicalHost(h[0]), nil
	}
	return "", nil
}

// refusedStanding says why the publish guard refuses one of hosts on an answer, "" when it
// refuses none. A host whose lookups fail keeps the guard's last verdict, as it would in a
// publication (see publish.DecideHost), so a resolver outage does not undo the hold.
func (r *Reconciler) refusedStanding(ctx context.Context, tm *omev1beta1.TrafficMap, hosts []string) string {
	for i, d := range r.guard.decide(ctx, hosts) {
		if !d.Allowed && d.Resolved {
			ctrl.LoggerFrom(ctx).Info("Not keeping the last published route: the publish guard refuses a host it sends to",
				"trafficMap", klog.KObj(tm), "host", hosts[i], "reason", d.Reason)
			return d.Reason
		}
	}
	return ""
}

// hold leaves the route as last published, and says so on the map: Published False and
// PublicationFallback True, LastPositiveRetained, with why, and a Warning event when the
// hold starts or its cause changes.
func (r *Reconciler) hold(ctx context.Context, tm *omev1beta1.TrafficMap, plan publish.Plan, standing int, because string) (ctrl.Result, error) {
	message := publish.HoldMessage(tm, standing, because)
	key := client.ObjectKeyFromObject(tm)
	if r.memory.holding(key, message) && publishedMessage(tm, omev1beta1.TrafficMapReasonLastPositiveRetained) != message {
		ctrl.LoggerFrom(ctx).Info("Keeping the last published route: the current plan sends nothing", "trafficMap", klog.KObj(tm), "because", because)
		r.Recorder.Eventf(tm, plan.Route, corev1.EventTypeWarning, string(omev1beta1.TrafficMapReasonLastPositiveRetained), actionPublish, "%s", message)
	}
	ref := &omev1beta1.TrafficMapGatewayRef{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Name: plan.Route.Name, Namespace: plan.Route.Namespace}
	return r.resync(r.recordConditions(ctx, tm, omev1beta1.TrafficMapReasonLastPositiveRetained, ref, publish.HeldConditions(message, tm.Generation), keptParents(tm, omev1beta1.TrafficMapReasonLastPositiveRetained, ref)))
}

// EventCurrentPlanApplied is the reason of the event the publisher records when a hold
// ends: the route carries the map's current plan again. OME names the reason for a
// publisher that leaves a retained plan.
const EventCurrentPlanApplied = "CurrentPlanApplied"

// announceHoldEnded says on the map, once, that the route it kept as last published now
// carries the current plan. tm is the map as read, before Published is recorded: its
// condition says whether a hold stood, so the event survives a restart or a new leader,
// and this process's memory keeps a second reconcile that reads the same condition from
// a cache not yet caught up (as announceWithdrawn does) from saying it again.
func (r *Reconciler) announceHoldEnded(ctx context.Context, tm *omev1beta1.TrafficMap, plan publish.Plan) {
	if publishedMessage(tm, omev1beta1.TrafficMapReasonLastPositiveRetained) == "" || !r.memory.endingHold(client.ObjectKeyFromObject(tm)) {
		return
	}
	ctrl.LoggerFrom(ctx).Info("The route carries the current plan again", "trafficMap", klog.KObj(tm))
	r.Recorder.Eventf(tm, plan.Route, corev1.EventTypeNormal, EventCurrentPlanApplied, actionPublish,
		"The route carries the map's current plan again, with %d backend(s); it was kept as last published while that plan sent nothing", plan.Sending())
}

// publishedMessage is the map's Published message while its reason is reason, "" otherwise.
func publishedMessage(tm *omev1beta1.TrafficMap, reason omev1beta1.TrafficMapConditionReason) string {
	for _, c := range tm.Status.Conditions {
		if c.Type == omev1beta1.TrafficMapPublished && c.Reason == string(reason) {
			return c.Message
		}
	}
	return ""
}
