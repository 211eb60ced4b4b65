package framework

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// moduleDir is where the Go module path is in the module cache, as the module in dir
// (relative to the repository) requires it: the CRDs are read from the very module
// version the code is built with, never from a copy.
func moduleDir(dir, path string) (string, error) {
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
// at the version the operator's go.mod requires, and Envoy Gateway's Backend CRD, from
// the github.com/envoyproxy/gateway version hack/egctl pins.
func GatewayCRDPaths() ([]string, error) {
	gw, err := moduleDir(".", "sigs.k8s.io/gateway-api")
	if err != nil {
		return nil, err
	}
	eg, err := moduleDir("hack/egctl", "github.com/envoyproxy/gateway")
	if err != nil {
		return nil, err
	}
	return []string{
		filepath.Join(gw, "config", "crd", "standard"),
		filepath.Join(eg, "charts", "gateway-helm", "charts", "crds", "crds", "generated", "gateway.envoyproxy.io_backends.yaml"),
	}, nil
}

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
