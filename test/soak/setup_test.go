package soak

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/test/framework"
)

// managerSettings is the installation's multi-cluster settings: the chart's observer
// defaults (loopback allowed, for the endpoints here), the user guide's Step 1 probe with
// the run's period, and the publisher writing ExternalName Services for a global Gateway.
func managerSettings(t testing.TB) []byte {
	spec := framework.GuideProbe(period, probeTimeout, omev1beta1.AllFailedPreserveTraffic)
	spec.FailureThreshold, spec.SuccessThreshold = new(int32(failureThreshold)), new(int32(successThreshold))
	probePolicy, errs := probe.Validate(probe.SpecFromAPI(spec), probe.InstallationPath)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	data, err := config.Marshal(&config.Config{
		Routing: config.Routing{
			Enabled: true, Probe: &probePolicy,
			Observer: soakObserver(),
		},
		Endpoint: config.Endpoint{
			GlobalGateway: "gateway-system/global", BackendPort: 80,
			GlobalHostTemplate: "{{ .Name }}.{{ .Namespace }}.global.example.com",
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// managerKubeConfig writes a kubeconfig that reaches the control plane at server (the
// proxy) with the admin's client certificate, impersonating the chart's ServiceAccount,
// so that the managers run with exactly the chart's rights.
func managerKubeConfig(cp *envfleet.Cluster, server, path string) error {
	cfg, err := clientcmd.Load(cp.KubeConfig)
	if err != nil {
		return err
	}
	for _, c := range cfg.Clusters {
		c.Server = server
	}
	for _, a := range cfg.AuthInfos {
		a.Impersonate = "system:serviceaccount:" + envfleet.SecretNamespace + ":" + envfleet.ManagerServiceAccount
		a.ImpersonateGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + envfleet.SecretNamespace, "system:authenticated"}
	}
	return clientcmd.WriteToFile(*cfg, path)
}

// routeMemberThrough points the member's kubeconfig Secret at server (its proxy): the
// managers reach that member only through it.
func routeMemberThrough(ctx context.Context, fleet *envfleet.Fleet, member, server string) error {
	cfg, err := clientcmd.Load(fleet.Workers[member].MemberKubeConfig)
	if err != nil {
		return err
	}
	for _, c := range cfg.Clusters {
		c.Server = server
	}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	secret := &corev1.Secret{}
	key := client.ObjectKey{Namespace: envfleet.SecretNamespace, Name: member + "-kubeconfig"}
	if err := fleet.ControlPlane.Client.Get(ctx, key, secret); err != nil {
		return err
	}
	secret.Data[omev1beta1.DefaultKubeConfigKey] = data
	return fleet.ControlPlane.Client.Update(ctx, secret)
}

// createServices creates the namespace everywhere, then per service a ready copy on every
// worker (status.url on that worker's home server) and the routed source on the control
// plane, eight services at a time.
func createServices(ctx context.Context, fleet *envfleet.Fleet, servers map[string]*homeServer, services int) error {
	for _, c := range append([]*envfleet.Cluster{fleet.ControlPlane}, workerClusters(fleet)...) {
		if err := c.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i := range services {
		name := serviceName(i)
		g.Go(func() error {
			key := client.ObjectKey{Namespace: namespace, Name: name}
			for _, w := range workers {
				if err := envfleet.PlaceCopy(gctx, fleet.Workers[w].Client, key, servers[w].url(name), 1, 1); err != nil {
					return fmt.Errorf("copy of %s on %s: %w", name, w, err)
				}
			}
			return fleet.ControlPlane.Client.Create(gctx, envfleet.SourceService(key, workers, nil))
		})
	}
	return g.Wait()
}

func workerClusters(fleet *envfleet.Fleet) []*envfleet.Cluster {
	var out []*envfleet.Cluster
	for _, w := range workers {
		out = append(out, fleet.Workers[w])
	}
	return out
}

// outDir is where the run keeps the managers' logs: OME_SOAK_OUT, or a folder of the test's.
func outDir(t *testing.T) string {
	dir := os.Getenv("OME_SOAK_OUT")
	if dir == "" {
		return t.TempDir()
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// soakObserver is the chart's observer settings, with its eight reconcile workers, and
// private networks open, as the soak has always run it (its homes are on loopback).
func soakObserver() config.Observer {
	o := framework.ObserverSettings()
	o.MaxConcurrentReconciles, o.AllowPrivateNetworks = 8, true
	return o
}
