package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/internal/envfleet"
)

// With --leader-elect outside a pod, the manager takes its Lease in the operator's
// namespace, where the chart's leader-election Role is, instead of failing to find a pod
// namespace; the Lease carries the lease duration the flags set.
func TestLeaderElectionLeaseInOperatorNamespace(t *testing.T) {
	c := startCluster(t)
	ctx := t.Context()
	if err := c.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ome-system"}}); err != nil {
		t.Fatal(err)
	}
	mgr, err := newManager(c.Config, &options{metricsAddr: "0", probeAddr: "0", leaderElect: true,
		lease: leaseTiming{duration: 7 * time.Second, renewDeadline: 5 * time.Second, retryPeriod: time.Second}, operatorNamespace: "ome-system"})
	if err != nil {
		t.Fatalf("newManager with --leader-elect: %v", err)
	}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(mctx) }()
	t.Cleanup(func() { cancel(); <-done })

	lease := &coordinationv1.Lease{}
	until(t, "the manager holds its Lease in ome-system", func() error {
		if err := c.Client.Get(ctx, types.NamespacedName{Namespace: "ome-system", Name: leaderElectionID}, lease); err != nil {
			return err
		}
		if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
			return statusErr{0, 0}
		}
		return nil
	})
	// The elector writes the Lease first and tells the manager after it.
	select {
	case <-mgr.Elected():
	case <-time.After(30 * time.Second):
		t.Fatalf("the Lease names %q but the manager is not elected", *lease.Spec.HolderIdentity)
	}
	if d := lease.Spec.LeaseDurationSeconds; d == nil || *d != 7 {
		t.Errorf("the Lease's duration is %v seconds, want the 7 that --leader-elect-lease-duration set", d)
	}
	if !strings.Contains(*lease.Spec.HolderIdentity, "_") {
		t.Errorf("holder identity %q is not controller-runtime's host_uuid", *lease.Spec.HolderIdentity)
	}
}

// --field-manager reaches the controllers' options; unset, they use the operator's name.
func TestFieldManagerFlag(t *testing.T) {
	o, err := parseOptions(newFlagSet(), nil)
	if err != nil || o.fieldManager != "" {
		t.Fatalf("default --field-manager = %q (%v), want empty", o.fieldManager, err)
	}
	o, err = parseOptions(newFlagSet(), []string{"--field-manager=replica-b"})
	if err != nil || o.fieldManager != "replica-b" {
		t.Fatalf("--field-manager=replica-b gives %q (%v)", o.fieldManager, err)
	}
}

// startCluster starts an envtest API server for the test, or skips without one.
func startCluster(t *testing.T) *envfleet.Cluster {
	t.Helper()
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Skip("KUBEBUILDER_ASSETS is not set: this test needs an API server; make test sets it")
	}
	c, err := envfleet.StartCluster("leader")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	return c
}
