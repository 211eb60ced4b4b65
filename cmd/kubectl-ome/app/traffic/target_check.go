package traffic

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// errUnknownCluster refuses a drain of a cluster the routing knows nothing about: a
// misspelt name would otherwise be accepted, hold nothing at weight 0, and look like a
// drain that worked.
var errUnknownCluster = errors.New("traffic drain refused: unknown workload cluster")

// checkTarget accepts a drain of a cluster that the service's TrafficMap routes to, or that
// a WorkloadCluster of that name registers (a cluster can be drained before it joins the
// map). Anything else is refused, unless --force, which drains it all the same with a
// warning: the annotation may name a cluster that is registered later.
func (o *options) checkTarget(ctx context.Context, target util.Target, isvc *omev1beta1.InferenceService) error {
	known, err := o.knownCluster(ctx, target, isvc)
	switch {
	case err == nil && known:
		return nil
	case o.force:
		why := fmt.Sprintf("workload cluster %q is neither a WorkloadCluster nor in TrafficMap %s/%s", o.cluster, isvc.Namespace, isvc.Name)
		if err != nil {
			why = fmt.Sprintf("workload cluster %q could not be checked: %v", o.cluster, err)
		}
		fmt.Fprintf(o.streams.ErrOut, "Warning: %s; draining it anyway (--force)\n", why)
		return nil
	case errors.Is(err, errReadFailed):
		return fmt.Errorf("%w; or pass --force to drain without checking the cluster", err)
	case err != nil:
		return err
	}
	return util.Explain(errUnknownCluster, "%q is neither an entry of TrafficMap %s/%s nor a WorkloadCluster; "+
		"check the name with kubectl get workloadclusters, or pass --force to drain it anyway", o.cluster, isvc.Namespace, isvc.Name)
}

// knownCluster reads the map, then, if the cluster is not in it, the WorkloadCluster. A
// missing map or WorkloadCluster is an answer; any other failure is an error naming the
// request.
func (o *options) knownCluster(ctx context.Context, target util.Target, isvc *omev1beta1.InferenceService) (bool, error) {
	tm := &omev1beta1.TrafficMap{}
	mapReq := util.Request{Verb: "get", Resource: "trafficmaps", Group: omev1beta1.GroupVersion.Group, Namespace: isvc.Namespace, Name: isvc.Name}
	if err := get(ctx, target.Client, client.ObjectKey{Namespace: isvc.Namespace, Name: isvc.Name}, tm); err == nil {
		for _, e := range tm.Spec.Entries {
			if e.Cluster == o.cluster {
				return true, nil
			}
		}
	} else if !apierrors.IsNotFound(err) {
		return false, requestError(ctx, mapReq, err)
	}
	wlcReq := util.Request{Verb: "get", Resource: "workloadclusters", Group: omev1beta1.GroupVersion.Group, Name: o.cluster}
	err := get(ctx, target.Client, client.ObjectKey{Name: o.cluster}, &omev1beta1.WorkloadCluster{})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	}
	return false, requestError(ctx, wlcReq, err)
}

func get(ctx context.Context, c client.Client, key client.ObjectKey, obj client.Object) error {
	ctx, cancel := context.WithTimeout(ctx, requestBudget)
	defer cancel()
	return c.Get(ctx, key, obj)
}
