package envfleet

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// SecretNamespace is where a Fleet keeps its members' kubeconfig Secrets on the control plane.
const SecretNamespace = "ome"

// Fleet is a control plane with workload clusters registered on it, each its own API
// server, as the operator sees them in production.
type Fleet struct {
	ControlPlane *Cluster
	Workers      map[string]*Cluster
}

// StartFleet starts a control plane and one API server per worker name, in parallel, and
// registers each worker as a WorkloadCluster through a kubeconfig Secret.
func StartFleet(ctx context.Context, workers ...string) (*Fleet, error) {
	names := append([]string{"control-plane"}, workers...)
	started := make([]*Cluster, len(names))
	errs := make([]error, len(names))
	done := make(chan int, len(names))
	for i, name := range names {
		go func() {
			started[i], errs[i] = StartCluster(name)
			done <- i
		}()
	}
	for range names {
		<-done
	}
	f := &Fleet{ControlPlane: started[0], Workers: map[string]*Cluster{}}
	for i, name := range workers {
		f.Workers[name] = started[i+1]
	}
	if err := errors.Join(errs...); err != nil {
		_ = f.Stop()
		return nil, err
	}
	if err := f.ControlPlane.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: SecretNamespace}}); err != nil {
		_ = f.Stop()
		return nil, err
	}
	for _, name := range workers {
		w := f.Workers[name]
		var err error
		if w.MemberKubeConfig, err = w.addMember(ctx); err != nil {
			_ = f.Stop()
			return nil, fmt.Errorf("add the member user on %s: %w", name, err)
		}
		if err := f.Register(ctx, name, nil); err != nil {
			_ = f.Stop()
			return nil, err
		}
	}
	return f, nil
}

// Register creates the worker's kubeconfig Secret and its WorkloadCluster with labels.
func (f *Fleet) Register(ctx context.Context, name string, labels map[string]string) error {
	w, ok := f.Workers[name]
	if !ok {
		return fmt.Errorf("no worker %q in the fleet", name)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-kubeconfig", Namespace: SecretNamespace},
		Data:       map[string][]byte{omev1beta1.DefaultKubeConfigKey: w.MemberKubeConfig},
	}
	if err := f.ControlPlane.Client.Create(ctx, secret); err != nil {
		return err
	}
	wc := &omev1beta1.WorkloadCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: omev1beta1.ClusterSource{
			KubeConfig: &omev1beta1.KubeConfigSource{
				SecretRef: omev1beta1.SecretReference{Name: secret.Name, Namespace: secret.Namespace},
			},
		}},
	}
	return f.ControlPlane.Client.Create(ctx, wc)
}

// Stop stops every API server of the fleet that is running.
func (f *Fleet) Stop() error {
	var errs []error
	for _, c := range append([]*Cluster{f.ControlPlane}, mapValues(f.Workers)...) {
		if c != nil {
			errs = append(errs, c.Stop())
		}
	}
	return errors.Join(errs...)
}

func mapValues(m map[string]*Cluster) []*Cluster {
	out := make([]*Cluster, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	return out
}
