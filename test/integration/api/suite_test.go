package api

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/test/framework"
	"github.com/ome-routing/operator/test/suite"
)

// How long to wait for what the API server does in the background, such as publishing a
// CRD's OpenAPI schema; admission itself is synchronous and is never waited for.
const (
	eventuallyTimeout  = framework.APIWriteTimeout
	eventuallyInterval = framework.PollInterval
)

var (
	// cp is the one API server of the suite.
	cp *envfleet.Cluster
	// k8s is cp's client.
	k8s client.Client
	// kubectlDir holds the kubeconfig and the kubectl cache, and is the working directory
	// of every kubectl command, so manifests written there apply by file name.
	kubectlDir string
	// kubectlEnv points kubectl at cp, keeps its cache out of the user's home, and puts a
	// "kubectl" on PATH, so the spec's commands run exactly as written.
	kubectlEnv []string
)

func TestAPI(t *testing.T) {
	suite.Run(t, "API admission suite")
}

var _ = BeforeSuite(func() {
	kubectlBin := os.Getenv("KUBECTL")
	if kubectlBin == "" && os.Getenv("KUBEBUILDER_ASSETS") != "" {
		kubectlBin = filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")
	}
	Expect(kubectlBin).NotTo(BeEmpty(), "set KUBECTL to the kubectl binary")
	kubectlBin, err := filepath.Abs(kubectlBin)
	Expect(err).NotTo(HaveOccurred())
	Expect(kubectlBin).To(BeAnExistingFile(), "KUBECTL")

	cp, err = envfleet.StartCluster("api")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(cp.Stop)
	k8s = cp.Client

	kubectlDir, err = os.MkdirTemp("", "api-kubectl-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, kubectlDir)
	binDir := filepath.Join(kubectlDir, "bin")
	Expect(os.Mkdir(binDir, 0o755)).To(Succeed())
	Expect(os.Symlink(kubectlBin, filepath.Join(binDir, "kubectl"))).To(Succeed())
	kubeconfig := filepath.Join(kubectlDir, "kubeconfig")
	Expect(os.WriteFile(kubeconfig, cp.KubeConfig, 0o600)).To(Succeed())

	kubectlEnv = append(os.Environ(),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"KUBECONFIG="+kubeconfig,
		"HOME="+kubectlDir,
		"KUBECACHEDIR="+filepath.Join(kubectlDir, "cache"),
	)
})

// ensureNamespace creates a test group's namespace unless an earlier spec of the group did.
func ensureNamespace(ctx context.Context, name string) {
	GinkgoHelper()
	err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}
}

// shell runs a command line with sh, as a user would type it, with kubectl talking to the
// suite's API server. It returns stdout and stderr, and an error if the command failed.
func shell(ctx context.Context, line string) (string, string, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir = kubectlDir
	cmd.Env = kubectlEnv
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// mustShell runs a command line that must succeed and returns its stdout.
func mustShell(ctx context.Context, line string) string {
	GinkgoHelper()
	stdout, stderr, err := shell(ctx, line)
	Expect(err).NotTo(HaveOccurred(), "%s\nstderr: %s", line, stderr)
	return stdout
}

// fields splits kubectl's table output into lines of whitespace-separated fields.
func fields(out string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		rows = append(rows, strings.Fields(line))
	}
	return rows
}

// table reads kubectl's table output into one map per row, from column title to value.
// Columns are cut where their titles start, so that an empty cell stays an empty value.
func table(out string) []map[string]string {
	GinkgoHelper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	header := lines[0]
	var starts []int
	for i := range header {
		if header[i] != ' ' && (i == 0 || header[i-1] == ' ') {
			starts = append(starts, i)
		}
	}
	Expect(starts).NotTo(BeEmpty(), "no table in %q", out)
	cell := func(line string, c int) string {
		end := len(line)
		if c+1 < len(starts) {
			end = min(starts[c+1], end)
		}
		return strings.TrimSpace(line[min(starts[c], end):end])
	}
	var rows []map[string]string
	for _, line := range lines[1:] {
		row := map[string]string{}
		for c := range starts {
			row[cell(header, c)] = cell(line, c)
		}
		rows = append(rows, row)
	}
	return rows
}
