package workloadcluster

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/text"
)

// This file connects the WorkloadClusters that name a ClusterProfile; profile.go turns a
// profile into a client configuration.

// IndexWorkloadClusterProfile indexes WorkloadClusters by the name of the ClusterProfile
// they connect through, so a profile's change finds the clusters to reconnect.
const IndexWorkloadClusterProfile = "spec.clusterSource.clusterProfileRef.name"

// maxProfileMessageBytes caps what a fleet manager's ControlPlaneHealthy message adds to
// a WorkloadCluster's status.
const maxProfileMessageBytes = 512

// ClusterProfiles only in the one namespace the installation names: a Role there, which the
// chart renders in that namespace whatever the marker's placeholder says.
// +kubebuilder:rbac:groups=multicluster.x-k8s.io,namespace=cluster-inventory,resources=clusterprofiles,verbs=get;list;watch

// connectProfile connects through the named ClusterProfile. A profile the fleet manager
// reports ControlPlaneHealthy=False is a member that does not answer, under the same grace
// as one whose /version fails; a profile that is gone or offers nothing this installation
// can use is a setting to fix, and leaves at once.
func (r *Reconciler) connectProfile(ctx context.Context, wc *omev1beta1.WorkloadCluster, ref *omev1beta1.ClusterProfileReference) metav1.Condition {
	if !r.Profiles.Enabled() {
		return r.notReady(wc.Name, omev1beta1.WorkloadClusterReasonClusterProfileUnsupported, fmt.Sprintf(
			"clusterProfileRef %q is not resolved: this installation reads no ClusterProfiles; set %s", ref.Name, profileNamespaceSetting))
	}
	cp := &v1alpha1.ClusterProfile{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: r.Profiles.Namespace, Name: ref.Name}, cp)
	if apierrors.IsNotFound(err) {
		return r.notReady(wc.Name, omev1beta1.WorkloadClusterReasonClusterProfileNotFound, fmt.Sprintf(
			"ClusterProfile %s/%s not found", r.Profiles.Namespace, ref.Name))
	}
	if err != nil {
		return r.failure(ctx, wc, fmt.Sprintf("read ClusterProfile %s/%s: %v", r.Profiles.Namespace, ref.Name, err))
	}
	if c := meta.FindStatusCondition(cp.Status.Conditions, v1alpha1.ClusterConditionControlPlaneHealthy); c != nil && c.Status == metav1.ConditionFalse {
		return r.failure(ctx, wc, text.Cap(fmt.Sprintf("ClusterProfile %s/%s reports ControlPlaneHealthy False (%s): %s",
			cp.Namespace, cp.Name, c.Reason, c.Message), maxProfileMessageBytes))
	}
	cfg, identity, err := profileConfig(cp, r.Profiles, r.Exec)
	if err != nil {
		return r.notReady(wc.Name, omev1beta1.WorkloadClusterReasonBadClusterProfile, err.Error())
	}
	return r.reach(ctx, wc, identity, cfg)
}

// watchProfiles indexes WorkloadClusters by profile and reconciles them when their
// profile changes. The manager's cache holds ClusterProfiles of the installation's
// namespace only (see controllers.CacheOptions).
func (r *Reconciler) watchProfiles(mgr ctrl.Manager, b *builder.TypedBuilder[ctrl.Request]) error {
	gvk := v1alpha1.GroupVersion.WithKind("ClusterProfile")
	if _, err := mgr.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
		return fmt.Errorf("%s is %q, but the API server does not serve %s: install the Cluster Inventory API's ClusterProfile CRD: %w",
			profileNamespaceSetting, r.Profiles.Namespace, gvk, err)
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &omev1beta1.WorkloadCluster{}, IndexWorkloadClusterProfile,
		func(obj client.Object) []string {
			if ref := obj.(*omev1beta1.WorkloadCluster).Spec.ClusterSource.ClusterProfileRef; ref != nil {
				return []string{ref.Name}
			}
			return nil
		}); err != nil {
		return err
	}
	b.Watches(&v1alpha1.ClusterProfile{}, handler.EnqueueRequestsFromMapFunc(r.clustersForProfile))
	return nil
}

func (r *Reconciler) clustersForProfile(ctx context.Context, obj client.Object) []ctrl.Request {
	if obj.GetNamespace() != r.Profiles.Namespace {
		return nil
	}
	list := &omev1beta1.WorkloadClusterList{}
	if err := r.Client.List(ctx, list, client.MatchingFields{IndexWorkloadClusterProfile: obj.GetName()}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "List WorkloadClusters for ClusterProfile", "ClusterProfile", klog.KObj(obj))
		return nil
	}
	return requestsFor(list)
}
