package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/test/framework"
	"github.com/ome-routing/operator/test/suite"
)

const (
	// timeout bounds a map the in-process manager writes and the plugin's reading it back.
	timeout  = framework.APIWriteTimeout
	interval = framework.PollInterval
	// contextName is the kubeconfig context the plugin runs with.
	contextName = "hub"
)

var (
	// fleet is the control plane the plugin reads, with one workload cluster (liveWorker)
	// that the specs with a running manager place their services on.
	testEnv    *framework.Environment
	fleet      *envfleet.Fleet
	cp         *envfleet.Cluster
	k8s        client.Client
	workDir    string
	plugin     string
	kubeconfig string
	// env keeps the plugin's (and kubectl's) caches out of the user's home.
	env []string
)

func TestCLI(t *testing.T) {
	suite.Run(t, "kubectl-ome suite")
}

// TestMain removes the plugin's binary when the suite built one (framework.Main).
func TestMain(m *testing.M) { framework.Main(m) }

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	workDir, err = os.MkdirTemp("", "kubectl-ome-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, workDir)

	// The binary as `make build` installs it: stamped with a version (values of the test's
	// own), and with the completion helper next to it, in a folder of the suite's own (a
	// link to the one binary of the test run).
	built, err := framework.PluginBinary()
	Expect(err).NotTo(HaveOccurred())
	plugin = filepath.Join(workDir, "bin", "kubectl-ome")
	Expect(os.MkdirAll(filepath.Dir(plugin), 0o755)).To(Succeed())
	Expect(os.Symlink(built, plugin)).To(Succeed())
	helper, err := os.ReadFile(filepath.Join(envfleet.RepoRoot(), "cmd", "kubectl-ome", "kubectl_complete-ome"))
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(filepath.Join(workDir, "bin", "kubectl_complete-ome"), helper, 0o755)).To(Succeed())

	testEnv, err = framework.StartEnvironment(ctx, liveWorker)
	Expect(err).NotTo(HaveOccurred())
	// Stops a running manager, checking its log, then the API servers.
	DeferCleanup(testEnv.Stop)
	fleet = testEnv.Fleet
	cp = fleet.ControlPlane
	k8s = cp.Client
	// For the publisher of the specs with a running manager (manager_test.go).
	Expect(cp.InstallGatewayCRDs()).To(Succeed())

	// The envtest kubeconfig, with its one context renamed so that the preview's Context row
	// and follow-up command can be checked.
	cfg, err := clientcmd.Load(cp.KubeConfig)
	Expect(err).NotTo(HaveOccurred())
	kctx := cfg.Contexts[cfg.CurrentContext]
	Expect(kctx).NotTo(BeNil())
	cfg.Contexts = map[string]*clientcmdapi.Context{contextName: kctx}
	cfg.CurrentContext = contextName
	kubeconfig = filepath.Join(workDir, "kubeconfig")
	Expect(clientcmd.WriteToFile(*cfg, kubeconfig)).To(Succeed())
	env = append(os.Environ(), "HOME="+workDir, "KUBECONFIG="+kubeconfig, "KUBECACHEDIR="+filepath.Join(workDir, "cache"))

	// The clusters the specs drain are registered, as a drain of an unknown one is refused.
	for _, name := range []string{"worker-a", "worker-b"} {
		wlc := &omev1beta1.WorkloadCluster{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: omev1beta1.ClusterSource{KubeConfig: &omev1beta1.KubeConfigSource{
				SecretRef: omev1beta1.SecretReference{Name: name, Namespace: "ome"}}}}}
		Expect(k8s.Create(ctx, wlc)).To(Succeed())
	}
}, NodeTimeout(framework.SuiteSetupTimeout))

// The build the test binary is stamped with (framework.PluginBinary's).
const (
	testVersion  = framework.TestVersion
	testRevision = framework.TestRevision
)

// result is one run of the plugin.
type result struct {
	stdout, stderr string
	code           int
}

// run runs the plugin with no terminal (stdin is /dev/null) and returns its output and exit
// code.
func run(ctx context.Context, args ...string) result {
	cmd := exec.CommandContext(ctx, plugin, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		Expect(err).NotTo(HaveOccurred())
	}
	return result{stdout.String(), stderr.String(), code}
}
