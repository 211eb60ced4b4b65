package publisher

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/phase"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/publish"
)

// MemberAccess reaches the workload clusters for the EndpointSlice fallback. The
// WorkloadCluster controller's member connections (workloadcluster.Members) are one.
type MemberAccess interface {
	// Reader reads the InferenceService copies on the cluster, nil when it is not
	// connected.
	Reader(cluster string) client.Reader
	// GatewayReader reads Gateways and HTTPRoutes on the cluster's API server, nil when
	// it is not connected.
	GatewayReader(cluster string) client.Reader
}

// errNotConnected is a cluster this manager has no connection to (yet).
var errNotConnected = errors.New("workload cluster is not connected")

// addressResolver finds the IP addresses of each workload cluster's serving Gateway for a
// service: the service's copy on the cluster, its HTTPRoute there (in the service's
// namespace, named as the service, as OME's and KServe's top-level route is), that route's
// first Gateway parent, and the Gateway's IP status addresses, through the guard.
//
// A resolution is kept for interval (addressRefreshInterval) and then read again, so that
// a Gateway whose addresses change is written into the slices within one interval, while
// a fleet's maps, republished every probe round, cost the members nothing in between.
// Failures are kept as long: a member whose route or Gateway is missing is asked once per
// interval, not once per probe round of every service on it, which at fleet size would
// hold the publisher's workers in the member client's rate limiter.
type addressResolver struct {
	members  MemberAccess
	guard    observer.Guard
	interval time.Duration
	now      func() time.Time

	mu       sync.Mutex
	resolved map[addressKey]resolvedAddresses
	// unreachable holds, per cluster, a read that got no answer from its API server (a
	// timeout, a refused connection), for interval: every service on that cluster fails
	// at once with it instead of waiting out the member timeout in turn, so a member that
	// hangs holds the publisher's workers for one read per interval, not one per service.
	unreachable map[string]resolvedAddresses
	// freeSlices are the slice names found free, and when (see reserveSlices).
	freeSlices map[types.NamespacedName]time.Time
	// swept is when expired resolutions were last dropped: once per interval, so that a
	// fleet's reconciles do not each walk every resolution.
	swept time.Time
}

type addressKey struct {
	cluster string
	service types.NamespacedName
}

type resolvedAddresses struct {
	addrs publish.BackendAddresses
	err   error
	at    time.Time
}

func newAddressResolver(members MemberAccess, guard observer.Guard, interval time.Duration) *addressResolver {
	return &addressResolver{members: members, guard: guard, interval: interval, now: time.Now,
		resolved: map[addressKey]resolvedAddresses{}, unreachable: map[string]resolvedAddresses{},
		freeSlices: map[types.NamespacedName]time.Time{}}
}

// resolve gives the addresses of every cluster of the plan, or the first cluster's
// failure: all are resolved before anything is written, so that one failure leaves the
// route as it was.
func (a *addressResolver) resolve(ctx context.Context, service types.NamespacedName, plan publish.Plan) (map[string]publish.BackendAddresses, error) {
	out := make(map[string]publish.BackendAddresses, len(plan.Backends))
	for _, b := range plan.Backends {
		addrs, err := a.cluster(ctx, b.Cluster, service)
		if err != nil {
			return nil, fmt.Errorf("resolve backend addresses for cluster %q: %w", b.Cluster, err)
		}
		out[b.Cluster] = addrs
	}
	return out, nil
}

// cluster is the cluster's addresses for service, from the last resolution while it is
// younger than the interval.
func (a *addressResolver) cluster(ctx context.Context, cluster string, service types.NamespacedName) (publish.BackendAddresses, error) {
	key := addressKey{cluster: cluster, service: service}
	now := a.now()
	a.mu.Lock()
	last, ok := a.resolved[key]
	if now.Sub(a.swept) >= a.interval {
		// Expired: no map keeps entries of services long gone, nor free names of
		// backends gone.
		for k, v := range a.resolved {
			if now.Sub(v.at) >= a.interval {
				delete(a.resolved, k)
			}
		}
		for k, at := range a.freeSlices {
			if now.Sub(at) >= time.Hour { // far past any resync: asked again anyway
				delete(a.freeSlices, k)
			}
		}
		a.swept = now
	}
	down, isDown := a.unreachable[cluster]
	if isDown && now.Sub(down.at) >= a.interval {
		delete(a.unreachable, cluster)
		isDown = false
	}
	a.mu.Unlock()
	switch {
	case ok && now.Sub(last.at) < a.interval:
		return last.addrs, last.err
	case isDown:
		return publish.BackendAddresses{}, down.err
	}
	addrs, err := a.read(ctx, cluster, service)
	if err != nil && ctx.Err() != nil {
		return addrs, err // this reconcile was cancelled: no verdict on the member
	}
	a.mu.Lock()
	a.resolved[key] = resolvedAddresses{addrs: addrs, err: err, at: now}
	if noAnswer(err) {
		a.unreachable[cluster] = resolvedAddresses{err: err, at: now}
	}
	a.mu.Unlock()
	return addrs, err
}

// unanswered is a read the member's API server did not answer (a timeout, a refused
// connection), as opposed to an answer about one service's objects (not found, forbidden).
type unanswered struct{ err error }

func (e *unanswered) Error() string { return e.err.Error() }
func (e *unanswered) Unwrap() error { return e.err }

// memberGet is a Get on the member's API server, its error marked unanswered when the
// server gave no answer.
func memberGet(ctx context.Context, r client.Reader, key types.NamespacedName, obj client.Object) error {
	err := r.Get(ctx, key, obj)
	var status apierrors.APIStatus
	if err != nil && !errors.As(err, &status) {
		return &unanswered{err}
	}
	return err
}

// noAnswer says whether err is a read the member's API server did not answer.
func noAnswer(err error) bool {
	var u *unanswered
	return errors.As(err, &u)
}

// read follows the service's copy on the cluster to its serving Gateway's addresses. The
// copy comes from the member's cache of copies; the route and the Gateway are read
// straight from the member's API server (see workloadcluster.Members.GatewayReader).
func (a *addressResolver) read(ctx context.Context, cluster string, service types.NamespacedName) (publish.BackendAddresses, error) {
	var none publish.BackendAddresses
	if a.members == nil {
		return none, errNotConnected
	}
	copies, gateways := a.members.Reader(cluster), a.members.GatewayReader(cluster)
	if copies == nil || gateways == nil {
		return none, errNotConnected
	}
	if err := copies.Get(ctx, service, &omev1beta1.InferenceService{}); err != nil {
		if apierrors.IsNotFound(err) {
			return none, fmt.Errorf("read serving HTTPRoute %s: the cluster holds no copy of InferenceService %s", service, service)
		}
		return none, fmt.Errorf("read serving HTTPRoute %s: read the InferenceService copy: %w", service, err)
	}
	route := &gatewayv1.HTTPRoute{}
	if err := memberGet(ctx, gateways, service, route); err != nil {
		return none, fmt.Errorf("read serving HTTPRoute %s: %w", service, err)
	}
	gwKey, ok := servingGateway(route)
	if !ok {
		return none, fmt.Errorf("read serving HTTPRoute %s: it has no Gateway parent", service)
	}
	gw := &gatewayv1.Gateway{}
	if err := memberGet(ctx, gateways, gwKey, gw); err != nil {
		return none, fmt.Errorf("read serving Gateway %s: %w", gwKey, err)
	}
	addrs, err := publish.GatewayAddresses(gw.Status.Addresses, a.guard)
	if err != nil {
		return none, fmt.Errorf("serving Gateway %s has no IP status addresses: %w", gwKey, err)
	}
	return addrs, nil
}

// servingGateway is the route's first parent that is a Gateway: its namespace defaults to
// the route's.
func servingGateway(route *gatewayv1.HTTPRoute) (types.NamespacedName, bool) {
	for _, p := range route.Spec.ParentRefs {
		if (p.Group != nil && *p.Group != gatewayv1.GroupName) || (p.Kind != nil && *p.Kind != "Gateway") {
			continue
		}
		ns := route.Namespace
		if p.Namespace != nil {
			ns = string(*p.Namespace)
		}
		return types.NamespacedName{Namespace: ns, Name: string(p.Name)}, true
	}
	return types.NamespacedName{}, false
}

// endpointSliceGVK is the kind of the slices of the EndpointSlice fallback.
var endpointSliceGVK = discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice")

// resolveAddresses, under the EndpointSlice fallback, resolves every cluster's Gateway
// addresses (a failure is ApplyFailed, before anything is written) and claims both slice
// names of every backend (a name held by another source is ClaimRejected). With the
// fallback on, the map is looked at again within the address refresh interval, whatever
// the reconcile ends with (see refreshAddresses), so that the slices follow the Gateways.
//
// A failed resolution is not retried with backoff: its cause is on a workload cluster,
// which sends the control plane no event when it is fixed, so the map is looked at again
// at the interval, as a published one is.
func (r *Reconciler) resolveAddresses(ctx context.Context, s *publishScope) phase.Outcome {
	if !s.plan.EndpointSlices {
		return phase.Proceed
	}
	s.refreshAddresses = true
	resolver := r.addresses
	if resolver == nil {
		resolver = newAddressResolver(nil, observer.Guard{}, r.Endpoint.AddressRefreshInterval)
	}
	addrs, err := resolver.resolve(ctx, s.key, s.plan)
	if err != nil {
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonApplyFailed, err, false))
	}
	s.plan.Addresses = addrs
	if err := r.reserveSlices(ctx, s.plan); err != nil {
		return phase.Finish(r.fail(ctx, s.tm, omev1beta1.TrafficMapReasonClaimRejected, err, !isClaimRejected(err)))
	}
	return phase.Proceed
}

// reserveSlices checks that both slice names of every backend are free or the plan's,
// including the family the Gateway does not report now. A name found free is not asked
// again until the resync: the cache holds only the publisher's own slices, so a free name
// costs a read of the API server, and a family a Gateway never reports would cost one per
// backend every probe round. A slice the plan does write is checked before it is written
// all the same (preflight), so a foreign one that appears meanwhile is never overwritten.
func (r *Reconciler) reserveSlices(ctx context.Context, plan publish.Plan) error {
	now := r.clock()
	for _, b := range plan.Backends {
		for _, name := range b.SliceKeys() {
			key := types.NamespacedName{Namespace: b.Namespace, Name: name}
			if r.addresses != nil && r.addresses.freeSince(key, now) < r.Publisher.Resync() {
				continue
			}
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(endpointSliceGVK)
			u.SetNamespace(b.Namespace)
			u.SetName(name)
			live, err := r.claimable(ctx, publish.Object{Kind: publish.KindEndpointSlice, Object: u}, plan)
			if err != nil {
				return err
			}
			if live == nil && r.addresses != nil {
				r.addresses.markFree(key, now)
			}
		}
	}
	return nil
}

// freeSince is how long ago the slice name at key was last found free, or a very long
// time when it never was.
func (a *addressResolver) freeSince(key types.NamespacedName, now time.Time) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	at, ok := a.freeSlices[key]
	if !ok {
		return time.Duration(math.MaxInt64)
	}
	return now.Sub(at)
}

// markFree records that the slice name at key was found free at now.
func (a *addressResolver) markFree(key types.NamespacedName, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.freeSlices[key] = now
}

// refreshAddresses brings the next look at the map within the address refresh interval.
func (r *Reconciler) refreshAddresses(out phase.Outcome) phase.Outcome {
	every := r.Endpoint.AddressRefreshInterval
	if out.Err == nil && every > 0 && (out.Result.RequeueAfter == 0 || out.Result.RequeueAfter > every) {
		out.Result.RequeueAfter = every
	}
	return out
}
