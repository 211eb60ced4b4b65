package install

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/test/framework"
	"github.com/ome-routing/operator/test/suite"
)

const (
	releaseName      = "ome"
	releaseNamespace = "ome"
	// helmTimeout bounds one helm command: a guard against a hang, not a timing claim.
	helmTimeout = 3 * time.Minute
)

var (
	// restConfig is an admin configuration for the API server.
	restConfig *rest.Config
	// k8s is an admin client of the API server the chart is installed into.
	k8s client.Client
	// kubeconfig is the path of an admin kubeconfig for the same server, for helm.
	kubeconfig string
	// helmHome holds helm's cache, config and data, away from the user's.
	helmHome string
)

func TestInstall(t *testing.T) {
	if os.Getenv("HELM") == "" {
		t.Skip("HELM is not set: this suite runs helm; make test sets HELM to the helm it builds into bin/")
	}
	suite.Run(t, "Chart install suite")
}

var _ = BeforeSuite(func(_ context.Context) {
	// No CRDs: the chart installs its own.
	env := envfleet.NewEnvironment()
	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop()
	}
	Expect(err).NotTo(HaveOccurred())
	restConfig = cfg
	DeferCleanup(env.Stop)

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
	k8s, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	user, err := env.AddUser(envtest.User{Name: "chart-installer", Groups: []string{"system:masters"}}, nil)
	Expect(err).NotTo(HaveOccurred())
	kc, err := user.KubeConfig()
	Expect(err).NotTo(HaveOccurred())
	dir := GinkgoT().TempDir()
	kubeconfig = filepath.Join(dir, "kubeconfig")
	Expect(os.WriteFile(kubeconfig, kc, 0o600)).To(Succeed())
	helmHome = filepath.Join(dir, "helm")
}, NodeTimeout(framework.SuiteSetupTimeout))

// helm runs helm against the suite's API server and returns its stdout, its stderr and how
// it exited.
func helm(ctx context.Context, args ...string) (string, string, error) {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(ctx, helmTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Getenv("HELM"), args...)
	cmd.Env = append(os.Environ(),
		"KUBECONFIG="+kubeconfig,
		"HELM_CACHE_HOME="+filepath.Join(helmHome, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(helmHome, "config"),
		"HELM_DATA_HOME="+filepath.Join(helmHome, "data"),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, exited := errors.AsType[*exec.ExitError](err); err != nil && !exited {
		Fail("run helm: " + err.Error())
	}
	return stdout.String(), stderr.String(), err
}

// mustHelm runs helm and fails the spec when it does not succeed.
func mustHelm(ctx context.Context, args ...string) string {
	GinkgoHelper()
	stdout, stderr, err := helm(ctx, args...)
	Expect(err).NotTo(HaveOccurred(), "helm %v\nstderr: %s", args, stderr)
	return stdout
}
