package envfleet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Cluster is one running API server (with its etcd) and the ways to talk to it.
type Cluster struct {
	// Name is how tests refer to the cluster, such as "control-plane" or "worker-a".
	Name string
	// Env is the envtest environment that owns the processes.
	Env *envtest.Environment
	// Config is an admin client configuration for the server.
	Config *rest.Config
	// Client is a controller-runtime client built from Config with Scheme.
	Client client.Client
	// KubeConfig is a kubeconfig for an admin user that this server issued a client
	// certificate to. Its server, CA, certificate and key are all inline, the form a
	// WorkloadCluster Secret must hold.
	KubeConfig []byte
	// MemberKubeConfig, on a Fleet's workers, is a kubeconfig in the same form for a user
	// with only MemberRules: what a WorkloadCluster's Secret holds.
	MemberKubeConfig []byte

	// certDir holds the API server's certificates. The cluster owns it, rather than
	// envtest, so that a restarted API server serves the same certificate.
	certDir string
	stopped bool
}

// RepoRoot is the repository's top folder, found from this file's location so that the
// suites work from any package directory and the demo from any working directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// CRDDir is the folder of the generated CRDs.
func CRDDir() string {
	return filepath.Join(RepoRoot(), "config", "crd", "bases")
}

// StartCluster starts an API server and etcd from KUBEBUILDER_ASSETS with the project's
// CRDs installed. Call Stop when done.
func StartCluster(name string) (*Cluster, error) {
	env := NewEnvironment()
	env.CRDDirectoryPaths = []string{CRDDir()}
	env.ErrorIfCRDPathMissing = true
	certDir, err := os.MkdirTemp("", "ome-apiserver-"+name+"-")
	if err != nil {
		return nil, err
	}
	env.ControlPlane.GetAPIServer().CertDir = certDir
	cfg, err := env.Start()
	if err != nil {
		// Start can fail after the processes are up (installing the CRDs, say): stop them,
		// or they outlive the test.
		_ = env.Stop()
		_ = os.RemoveAll(certDir)
		return nil, fmt.Errorf("start API server for %s: %w", name, err)
	}
	c := &Cluster{Name: name, Env: env, Config: cfg, certDir: certDir}
	if err := c.init(); err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("set up API server for %s: %w", name, err)
	}
	return c, nil
}

// RestartAPIServer stops the API server process and starts it again on the same address
// with the same certificates, as a control plane's API server restarts. etcd keeps
// running, so every object is still there, and existing clients work again once it is up.
func (c *Cluster) RestartAPIServer() error {
	if err := c.StopAPIServer(); err != nil {
		return err
	}
	return c.StartAPIServer()
}

// StopAPIServer stops the API server process alone, as a cluster's API server goes down
// for an upgrade or behind a firewall: etcd, and whatever serves on the cluster's behalf
// (its endpoints), keep running. StartAPIServer brings it back.
func (c *Cluster) StopAPIServer() error {
	if err := c.Env.ControlPlane.GetAPIServer().Stop(); err != nil && !strings.Contains(err.Error(), "timeout waiting for process") {
		return fmt.Errorf("stop API server of %s: %w", c.Name, err)
	}
	return nil
}

// StopAPIServers stops the clusters' API servers all at once, so that their members turn
// unreachable within moments of each other (each takes up to stopTimeout to stop).
func StopAPIServers(clusters ...*Cluster) error {
	errs := make([]error, len(clusters))
	var wg sync.WaitGroup
	for i, c := range clusters {
		wg.Go(func() { errs[i] = c.StopAPIServer() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// StartAPIServer starts a stopped API server again on the same address with the same
// certificates.
func (c *Cluster) StartAPIServer() error {
	if err := c.Env.ControlPlane.GetAPIServer().Start(); err != nil {
		return fmt.Errorf("start API server of %s again: %w", c.Name, err)
	}
	return nil
}

func (c *Cluster) init() error {
	var err error
	if c.Client, err = client.New(c.Config, client.Options{Scheme: Scheme}); err != nil {
		return err
	}
	user, err := c.Env.AddUser(envtest.User{Name: "ome-admin-" + c.Name, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return err
	}
	c.KubeConfig, err = user.KubeConfig()
	return err
}

// How long an API server and its etcd may take to start and to stop. envtest's default
// start timeout (20 s) failed suites when several API servers started side by side beside a
// build (a load average of 20 on two cores); the start timeout is far above what a start
// takes on an idle machine (2-4 s), so that only a server that cannot start fails. An API
// server with clients still watching it can take longer than a test wants to shut down
// gracefully: past stopTimeout it is killed, which is a stop all the same (Stop), so a
// short one costs nothing on a loaded machine.
const (
	StartTimeout = 3 * time.Minute
	stopTimeout  = 5 * time.Second
)

// NewEnvironment is an envtest environment with the project's start and stop timeouts:
// every API server the tests and the demo start is built here. Set on the Environment,
// they apply to the API server and etcd both (Start copies them to the processes, and a
// restarted API server keeps them).
func NewEnvironment() *envtest.Environment {
	return &envtest.Environment{ControlPlaneStartTimeout: StartTimeout, ControlPlaneStopTimeout: stopTimeout}
}

// Stop stops the API server and etcd. Stopping a stopped cluster does nothing, so a test
// may stop a member early and the suite's cleanup still works.
func (c *Cluster) Stop() error {
	if c.stopped {
		return nil
	}
	c.stopped = true
	defer os.RemoveAll(c.certDir)
	err := c.Env.Stop()
	if err != nil && strings.Contains(err.Error(), "timeout waiting for process") {
		// envtest killed the process after the timeout: it is stopped all the same.
		return nil
	}
	return err
}
