package envfleet

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/internal/poll"
)

// ModuleDir is where the Go module path is in the module cache, as the module in dir
// (relative to the repository) requires it: the CRDs are read from the very module
// version the code is built with, never from a copy.
func ModuleDir(dir, path string) (string, error) {
	// go mod download prints where the module is, fetching it first if it is missing.
	cmd := exec.Command("go", "mod", "download", "-json", path)
	cmd.Dir = filepath.Join(RepoRoot(), dir)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s in %s: %w: %s", path, cmd.Dir, err, out)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download %s in %s: no module directory (%s): %s", path, cmd.Dir, mod.Error, out)
	}
	return mod.Dir, nil
}

// GatewayCRDPaths are the Gateway API standard-channel CRDs of sigs.k8s.io/gateway-api,
// at the version the operator's go.mod requires, but for HTTPRoute's, which is the same
// version's experimental-channel CRD: at v1.6 a route rule's retry is experimental, and the
// standard CRD drops it, which would leave nothing of a published retry to check. With
// them come Envoy Gateway's Backend and BackendTrafficPolicy CRDs, from the
// github.com/envoyproxy/gateway version hack/egctl pins.
func GatewayCRDPaths() ([]string, error) {
	gw, err := ModuleDir(".", "sigs.k8s.io/gateway-api")
	if err != nil {
		return nil, err
	}
	eg, err := ModuleDir("hack/egctl", "github.com/envoyproxy/gateway")
	if err != nil {
		return nil, err
	}
	standard := filepath.Join(gw, "config", "crd", "standard")
	entries, err := os.ReadDir(standard)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") && e.Name() != httpRouteCRDFile {
			out = append(out, filepath.Join(standard, e.Name()))
		}
	}
	return append(out,
		filepath.Join(gw, "config", "crd", "experimental", httpRouteCRDFile),
		filepath.Join(eg, "charts", "gateway-helm", "charts", "crds", "crds", "generated", "gateway.envoyproxy.io_backends.yaml"),
		filepath.Join(eg, "charts", "gateway-helm", "charts", "crds", "crds", "generated", "gateway.envoyproxy.io_backendtrafficpolicies.yaml"),
	), nil
}

// httpRouteCRDFile is the HTTPRoute CRD's file in either channel's directory.
const httpRouteCRDFile = "gateway.networking.k8s.io_httproutes.yaml"

// InstallGatewayCRDs installs GatewayCRDPaths into the cluster and waits until they are
// served.
func (c *Cluster) InstallGatewayCRDs() error {
	paths, err := GatewayCRDPaths()
	if err != nil {
		return err
	}
	_, err = envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{Paths: paths, ErrorIfPathMissing: true})
	return err
}

// InstallClusterProfileCRD installs the Cluster Inventory API's ClusterProfile CRD, from
// the sigs.k8s.io/cluster-inventory-api version the operator's go.mod requires.
func (c *Cluster) InstallClusterProfileCRD() error {
	dir, err := ModuleDir(".", "sigs.k8s.io/cluster-inventory-api")
	if err != nil {
		return err
	}
	_, err = envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{ErrorIfPathMissing: true,
		Paths: []string{filepath.Join(dir, "config", "crd", "bases", "multicluster.x-k8s.io_clusterprofiles.yaml")}})
	return err
}

// v1alpha2Kinds are the Gateway API resources HAProxy Ingress reads, and only at v1alpha2.
var v1alpha2Kinds = []string{"gatewayclasses", "gateways", "httproutes"}

// ServeGatewayV1alpha2 adds to the GatewayClass, Gateway and HTTPRoute CRDs a version
// v1alpha2 that is a copy of v1: served, not stored. HAProxy Ingress v0.14.0 reads Gateway
// API at v1alpha2 only, which the standard channel no longer serves; with the copy, the
// objects the tests and the publisher write at v1 are visible to it. The schemas are the
// same, so the API server converts by changing the apiVersion alone.
func (c *Cluster) ServeGatewayV1alpha2(ctx context.Context) error {
	for _, plural := range v1alpha2Kinds {
		name := plural + "." + gatewayv1.GroupName
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Client.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
				return err
			}
			var v1 *apiextensionsv1.CustomResourceDefinitionVersion
			for i, v := range crd.Spec.Versions {
				if v.Name == "v1alpha2" {
					return nil
				}
				if v.Name == "v1" {
					v1 = &crd.Spec.Versions[i]
				}
			}
			if v1 == nil {
				return fmt.Errorf("CRD %s has no v1 version to copy", name)
			}
			copied := *v1.DeepCopy()
			copied.Name, copied.Served, copied.Storage = "v1alpha2", true, false
			crd.Spec.Versions = append(crd.Spec.Versions, copied)
			return c.Client.Update(ctx, crd)
		})
		if err != nil {
			return fmt.Errorf("serve %s at v1alpha2: %w", name, err)
		}
	}
	// Served once discovery lists them, which is what the controller checks at start.
	dc, err := discovery.NewDiscoveryClientForConfig(c.Config)
	if err != nil {
		return err
	}
	return poll.Until(ctx, 100*time.Millisecond, 30*time.Second, func(context.Context) error {
		list, err := dc.ServerResourcesForGroupVersion(gatewayv1.GroupName + "/v1alpha2")
		if err != nil {
			return err // not served yet: poll again
		}
		found := 0
		for _, r := range list.APIResources {
			if slices.Contains(v1alpha2Kinds, r.Name) {
				found++
			}
		}
		if found != len(v1alpha2Kinds) {
			return fmt.Errorf("%d of the %d v1alpha2 kinds served", found, len(v1alpha2Kinds))
		}
		return nil
	})
}
