package envfleet

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// PlaceCopy creates (or updates) a service's copy on a workload cluster, with its namespace,
// and gives it the status the cluster's own controllers would report: its URL, Ready and
// IngressReady, and the engine's allocated and ready replicas. An empty url leaves the copy
// without an endpoint.
func PlaceCopy(ctx context.Context, c client.Client, key client.ObjectKey, url string, allocated, ready int32) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: key.Namespace}}
	if err := client.IgnoreAlreadyExists(c.Create(ctx, ns)); err != nil {
		return err
	}
	copy := &omev1beta1.InferenceService{}
	if err := c.Get(ctx, key, copy); err != nil {
		if client.IgnoreNotFound(err) != nil {
			return err
		}
		copy = &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}}
		if err := c.Create(ctx, copy); err != nil {
			return err
		}
	}
	copy.Status.URL = url
	copy.Status.Components = &omev1beta1.ComponentsStatus{
		Engine: &omev1beta1.ComponentStatus{DesiredReplicas: allocated, ReadyReplicas: ready},
	}
	for _, t := range []string{omev1beta1.InferenceServiceIngressReady, omev1beta1.InferenceServiceReady} {
		meta.SetStatusCondition(&copy.Status.Conditions, metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: "Ready"})
	}
	return c.Status().Update(ctx, copy)
}

// SourceService is a routed source InferenceService for the control plane, placed with
// mode All on the named workers by metadata.name, with the given routing settings.
func SourceService(key client.ObjectKey, workers []string, routing *omev1beta1.Routing) *omev1beta1.InferenceService {
	return &omev1beta1.InferenceService{
		ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace},
		Spec: omev1beta1.InferenceServiceSpec{
			Model:   &omev1beta1.ModelRef{Name: key.Name},
			Runtime: &omev1beta1.RuntimeRef{Name: "srt-" + key.Name},
			Placement: &omev1beta1.Placement{
				Policy: omev1beta1.PlacementPolicyClusterAffinity,
				Mode:   omev1beta1.PlacementModeAll,
				ClusterAffinity: []omev1beta1.ClusterAffinityTerm{{MatchFields: []omev1beta1.FieldSelectorRequirement{
					{Key: "metadata.name", Operator: omev1beta1.MatchOperatorIn, Values: workers},
				}}},
			},
			Routing: routing,
		},
	}
}
