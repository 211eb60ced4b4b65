package monitoring

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/test/framework"
	"github.com/ome-routing/operator/test/suite"
)

const (
	// timeout is long enough for the manager to start and gate a cluster with a one-second period.
	timeout = framework.ManagerStartTimeout
	// interval is twice the shared one: a check here often scrapes the manager's whole /metrics.
	interval = 2 * framework.PollInterval
	// stopTimeout bounds the manager's shutdown after SIGTERM: a guard, not a timing claim.
	stopTimeout = 15 * time.Second
)

var (
	fleet    *envfleet.Fleet
	endpoint *modelserver.Endpoint
	// metricsURL is the running manager's /metrics.
	metricsURL string
	// managerLog is what the manager printed.
	managerLog = gbytes.NewBuffer()
)

func TestMonitoring(t *testing.T) {
	for _, env := range []string{"KUBEBUILDER_ASSETS", "HELM", "PROMQL"} {
		if os.Getenv(env) == "" {
			t.Skipf("%s is not set: make test sets it to the binary it builds into bin/", env)
		}
	}
	suite.Run(t, "Monitoring suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	fleet, err = envfleet.StartFleet(ctx, "worker-a")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(fleet.Stop)
	// With the Gateway API served, the publisher runs and writes its share of each map's
	// status, and with it its gauge (withdrawn here: no global gateway is set).
	Expect(fleet.ControlPlane.InstallGatewayCRDs()).To(Succeed())
	endpoint, err = modelserver.StartEndpoint(nil)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(endpoint.Close)

	dir := GinkgoT().TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	Expect(os.WriteFile(kubeconfig, fleet.ControlPlane.KubeConfig, 0o600)).To(Succeed())
	settings := filepath.Join(dir, "multicluster.json")
	Expect(os.WriteFile(settings, managerSettings(), 0o600)).To(Succeed())
	// The manager starts with a service it must refuse already stored, as a restarted
	// manager or a new leader finds one (undecodable_test.go).
	storeHostile(ctx)
	addr := freeLoopbackAddr()
	metricsURL = "http://" + addr + "/metrics"
	// Plain HTTP: this suite reads which metrics exist; cmd/manager's tests cover the
	// authenticated HTTPS endpoint the chart serves by default.
	bin, err := framework.ManagerBinary()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(framework.RemoveBuiltBinaries)
	startManager(bin, kubeconfig,
		"--multicluster-config="+settings, "--enable-multicluster", "--multicluster-role=control-plane",
		"--metrics-bind-address="+addr, "--metrics-secure=false", "--health-probe-bind-address=0")
}, NodeTimeout(3*time.Minute))

// managerSettings is the guide's Step 1 probe with a one-second period, and an observer that
// may dial the loopback endpoint.
func managerSettings() []byte {
	GinkgoHelper()
	probePolicy, errs := probe.Validate(probe.SpecFromAPI(framework.GuideProbe(time.Second, 500*time.Millisecond,
		omev1beta1.AllFailedPreserveTraffic)), probe.InstallationPath)
	Expect(errs).To(BeEmpty())
	data, err := config.Marshal(&config.Config{Routing: config.Routing{
		Enabled: true, Probe: &probePolicy,
		Observer: config.Observer{
			MaxConcurrentReconciles: 2, MaxConcurrentRequests: 4, MaxResponseBytes: 65536, MinPeriod: time.Second,
			MaxSamples: 10, AllowLoopback: true,
		},
	}})
	Expect(err).NotTo(HaveOccurred())
	return data
}

// startManager runs the manager binary against the control plane, the way it runs in a
// pod, and stops it with SIGTERM when the suite ends.
func startManager(bin, kubeconfig string, args ...string) {
	GinkgoHelper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Stdout, cmd.Stderr = managerLog, managerLog
	Expect(cmd.Start()).To(Succeed())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	DeferCleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if _, exited := errors.AsType[*exec.ExitError](err); err != nil && !exited {
				Fail(fmt.Sprintf("manager: %v", err))
			}
		case <-time.After(stopTimeout):
			_ = cmd.Process.Kill()
			err := <-exited
			Fail(fmt.Sprintf("the manager did not stop within %s of SIGTERM (killed: %v); its log:\n%s", stopTimeout, err, managerLog.Contents()))
		}
	})
}

// freeLoopbackAddr is a loopback address with a port that was free a moment ago. Another
// process could take it before the manager binds it; the manager would then exit with the
// bind error in its log, and the suite would fail saying so.
func freeLoopbackAddr() string {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	addr := l.Addr().String()
	Expect(l.Close()).To(Succeed())
	return addr
}

// controlPlane is the control plane's admin client.
func controlPlane() client.Client { return fleet.ControlPlane.Client }
