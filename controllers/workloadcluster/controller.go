package workloadcluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/text"
)

// maxConditionMessageBytes is the API's limit on a condition's message.
const maxConditionMessageBytes = 32768

// IndexWorkloadClusterSecret indexes WorkloadClusters by the "namespace/name" of their
// kubeconfig Secret, so a Secret change finds the clusters to reconnect.
const IndexWorkloadClusterSecret = "spec.clusterSource.kubeConfig.secretRef"

// Reconciler connects to each registered member cluster with the kubeconfig
// in its Secret and reports whether the member answers in the Ready condition.
type Reconciler struct {
	Client  client.Client
	Members *Members
	// SecretNamespace is the operator's own namespace, the only one kubeconfig Secrets
	// are read from (and cached in).
	SecretNamespace string
	// HealthInterval is how often a member's /version is checked.
	HealthInterval time.Duration
	// Grace is how long a member that was Reachable may fail its checks before it is
	// reported ConnectionFailed (until then: True, ProbeFailedRetrying).
	Grace time.Duration
	// Exec says which exec credential plugins a kubeconfig or a ClusterProfile's access
	// provider may run; the zero value, none.
	Exec ExecPolicy
	// Profiles is where ClusterProfiles are read from and the access providers they may
	// name; the zero value reads none.
	Profiles ClusterProfiles

	mu           sync.Mutex
	failingSince map[string]time.Time
}

// +kubebuilder:rbac:groups=ome.io,resources=workloadclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=ome.io,resources=workloadclusters/status,verbs=get;update;patch
// Secrets only in the operator's namespace: a Role there, not a ClusterRole rule. The chart
// puts the Role in its release namespace, whatever the marker's default says.
// +kubebuilder:rbac:groups="",namespace=ome,resources=secrets,verbs=get;list;watch

// Reconcile connects to one member and sets its Ready condition.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	wc := &omev1beta1.WorkloadCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, wc); err != nil {
		if apierrors.IsNotFound(err) {
			r.Members.Disconnect(req.Name)
			r.clearFailure(req.Name)
			forgetWorkloadCluster(req.Name)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cond := r.connect(ctx, wc)
	if err := r.writeCondition(ctx, wc, cond); err != nil {
		return ctrl.Result{}, err
	}
	setWorkloadClusterReady(wc.Name, cond.Status == metav1.ConditionTrue)
	// Time-driven on purpose: a member's API server can stop answering without any
	// event on the control plane.
	return ctrl.Result{RequeueAfter: r.HealthInterval}, nil
}

// connect returns the Ready condition for the member as it stands now.
func (r *Reconciler) connect(ctx context.Context, wc *omev1beta1.WorkloadCluster) metav1.Condition {
	src := wc.Spec.ClusterSource
	switch {
	case src.KubeConfig != nil:
		return r.connectKubeConfig(ctx, wc, src.KubeConfig)
	case src.ClusterProfileRef != nil:
		return r.connectProfile(ctx, wc, src.ClusterProfileRef)
	}
	// The CRD admits neither; an object stored before that rule is told so.
	return r.notReady(wc.Name, omev1beta1.WorkloadClusterReasonBadKubeConfig, "exactly one of kubeConfig or clusterProfileRef must be set.")
}

// connectKubeConfig connects with the kubeconfig in the cluster's Secret.
func (r *Reconciler) connectKubeConfig(ctx context.Context, wc *omev1beta1.WorkloadCluster, ref *omev1beta1.KubeConfigSource) metav1.Condition {
	key := ref.Key
	if key == "" {
		key = omev1beta1.DefaultKubeConfigKey
	}
	if ref.SecretRef.Namespace != r.SecretNamespace {
		// Not read at all, so nothing about a Secret elsewhere, not even whether it
		// exists, can reach the status.
		return r.notReady(wc.Name, omev1beta1.WorkloadClusterReasonSecretNamespaceRefused, fmt.Sprintf(
			"kubeconfig Secrets are read only from the operator's namespace %q; secretRef.namespace %q is refused",
			r.SecretNamespace, ref.SecretRef.Namespace))
	}
	secret := &corev1.Secret{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: ref.SecretRef.Namespace, Name: ref.SecretRef.Name}, secret)
	if apierrors.IsNotFound(err) {
		return r.notReady(wc.Name, omev1beta1.WorkloadClusterReasonSecretNotFound, fmt.Sprintf("Secret %s/%s not found", ref.SecretRef.Namespace, ref.SecretRef.Name))
	}
	if err != nil {
		return r.failure(ctx, wc, fmt.Sprintf("read Secret %s/%s: %v", ref.SecretRef.Namespace, ref.SecretRef.Name, err))
	}
	data, ok := secret.Data[key]
	if !ok {
		return r.notReady(wc.Name, omev1beta1.WorkloadClusterReasonSecretNotFound, fmt.Sprintf("Secret %s/%s has no key %q", ref.SecretRef.Namespace, ref.SecretRef.Name, key))
	}
	cfg, err := memberConfig(data, r.Exec)
	if err != nil {
		return r.notReady(wc.Name, omev1beta1.WorkloadClusterReasonBadKubeConfig, err.Error())
	}
	return r.reach(ctx, wc, data, cfg)
}

// reach connects the member with cfg (identity tells a new connection from the current
// one) and reports whether its API server answered.
func (r *Reconciler) reach(ctx context.Context, wc *omev1beta1.WorkloadCluster, identity []byte, cfg *rest.Config) metav1.Condition {
	if err := r.Members.Connect(ctx, wc.Name, identity, cfg); err != nil {
		// An address the network guard refuses stays refused until a setting or the
		// source changes: no grace, no retry as if the member were slow.
		var refused *observer.RefusedError
		if errors.As(err, &refused) {
			reason := omev1beta1.WorkloadClusterReasonBadKubeConfig
			if wc.Spec.ClusterSource.ClusterProfileRef != nil {
				reason = omev1beta1.WorkloadClusterReasonBadClusterProfile
			}
			return r.notReady(wc.Name, reason, "the server's address is refused: "+refused.Error())
		}
		return r.failure(ctx, wc, err.Error())
	}
	r.clearFailure(wc.Name)
	return metav1.Condition{Type: omev1beta1.WorkloadClusterReady, Status: metav1.ConditionTrue,
		Reason: string(omev1beta1.WorkloadClusterReasonReachable), Message: fmt.Sprintf("API server at %s answered /version", cfg.Host)}
}

// notReady disconnects the member for a problem no retry can fix until something changes.
func (r *Reconciler) notReady(name string, reason omev1beta1.WorkloadClusterConditionReason, message string) metav1.Condition {
	r.Members.Disconnect(name)
	r.clearFailure(name)
	return metav1.Condition{Type: omev1beta1.WorkloadClusterReady, Status: metav1.ConditionFalse, Reason: string(reason), Message: message}
}

// failure reports a connection that fails: still True while a member that was Reachable
// is inside its grace period, so one slow answer does not move traffic, then False.
func (r *Reconciler) failure(ctx context.Context, wc *omev1beta1.WorkloadCluster, message string) metav1.Condition {
	ctrl.LoggerFrom(ctx).V(1).Info("Member connection failed", "WorkloadCluster", klog.KObj(wc), "error", text.Inert(message))
	// An error from a member's API server or a Secret's kubeconfig can be any length.
	message = text.ConditionMessage(message)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failingSince == nil {
		r.failingSince = map[string]time.Time{}
	}
	since, failing := r.failingSince[wc.Name]
	if !failing {
		since = time.Now()
		r.failingSince[wc.Name] = since
	}
	wasReady := meta.IsStatusConditionTrue(wc.Status.Conditions, omev1beta1.WorkloadClusterReady)
	if wasReady && time.Since(since) < r.Grace {
		return metav1.Condition{Type: omev1beta1.WorkloadClusterReady, Status: metav1.ConditionTrue,
			Reason: string(omev1beta1.WorkloadClusterReasonProbeFailedRetrying), Message: message}
	}
	return metav1.Condition{Type: omev1beta1.WorkloadClusterReady, Status: metav1.ConditionFalse,
		Reason: string(omev1beta1.WorkloadClusterReasonConnectionFailed), Message: message}
}

func (r *Reconciler) clearFailure(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failingSince, name)
}

func (r *Reconciler) writeCondition(ctx context.Context, wc *omev1beta1.WorkloadCluster, cond metav1.Condition) error {
	before := wc.DeepCopy()
	// A connection's error quotes what the member sent (its certificate's names, its
	// answer), so the message enters the API through the one rule for untrusted text.
	cond.Message = text.Cap(cond.Message, maxConditionMessageBytes)
	cond.ObservedGeneration = wc.Generation
	changed := meta.SetStatusCondition(&wc.Status.Conditions, cond)
	if !changed && wc.Status.ObservedGeneration == wc.Generation {
		return nil
	}
	wc.Status.ObservedGeneration = wc.Generation
	return r.Client.Status().Patch(ctx, wc, client.MergeFrom(before))
}

// SetupWithManager registers the reconciler, the Secret index and its watches.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &omev1beta1.WorkloadCluster{}, IndexWorkloadClusterSecret,
		func(obj client.Object) []string {
			kc := obj.(*omev1beta1.WorkloadCluster).Spec.ClusterSource.KubeConfig
			if kc == nil {
				return nil
			}
			return []string{kc.SecretRef.Namespace + "/" + kc.SecretRef.Name}
		}); err != nil {
		return err
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named("workloadcluster").
		For(&omev1beta1.WorkloadCluster{}).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.clustersForSecret)).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers})
	if r.Profiles.Enabled() {
		if err := r.watchProfiles(mgr, b); err != nil {
			return err
		}
	}
	return b.Complete(r)
}

func (r *Reconciler) clustersForSecret(ctx context.Context, obj client.Object) []ctrl.Request {
	list := &omev1beta1.WorkloadClusterList{}
	if err := r.Client.List(ctx, list, client.MatchingFields{IndexWorkloadClusterSecret: obj.GetNamespace() + "/" + obj.GetName()}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "List WorkloadClusters for Secret", "Secret", klog.KObj(obj))
		return nil
	}
	return requestsFor(list)
}

// requestsFor are the reconcile requests of the listed clusters.
func requestsFor(list *omev1beta1.WorkloadClusterList) []ctrl.Request {
	reqs := make([]ctrl.Request, 0, len(list.Items))
	for i := range list.Items {
		reqs = append(reqs, ctrl.Request{NamespacedName: types.NamespacedName{Name: list.Items[i].Name}})
	}
	return reqs
}
