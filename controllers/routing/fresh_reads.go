package routing

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/mapstatus"
)

// readerFor is where a reconcile of key reads the service and its map: the cache, or the
// API server itself right after a write of key conflicted, since the cache that served
// the stale copy may not have caught up yet.
func (r *Reconciler) readerFor(key types.NamespacedName) client.Reader {
	if _, conflicted := r.fresh.LoadAndDelete(key); conflicted && r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
}

// retryConflict turns a write's Conflict into a retry from a fresh read: the write carried
// the resourceVersion it was built from, so the API server refused it rather than let a
// stale copy overwrite a newer object. Any other error is returned as it is.
func (r *Reconciler) retryConflict(key types.NamespacedName, err error) (ctrl.Result, error) {
	if apierrors.IsConflict(err) {
		r.fresh.Store(key, struct{}{})
		return ctrl.Result{RequeueAfter: mapstatus.ConflictRetry}, nil
	}
	return ctrl.Result{}, err
}

// gone forgets a service's probe state once the API server confirms the service no longer
// exists. The cache can miss an object that exists (a relist after a broken watch, a
// cache not synced yet); forgetting then would drop its gates, so the service is looked
// at again shortly instead.
func (r *Reconciler) gone(ctx context.Context, key types.NamespacedName) (ctrl.Result, error) {
	if r.APIReader != nil {
		err := r.APIReader.Get(ctx, key, &omev1beta1.InferenceService{})
		switch {
		case err == nil:
			ctrl.LoggerFrom(ctx).V(1).Info("The cache does not have a service the API server has; keeping its probe state", "InferenceService", key)
			return ctrl.Result{RequeueAfter: memberPendingRetry}, nil
		case !apierrors.IsNotFound(err):
			return ctrl.Result{}, fmt.Errorf("confirm InferenceService %s is gone: %w", key, err)
		}
	}
	r.forgetService(key)
	return ctrl.Result{}, nil
}
