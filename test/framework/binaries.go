package framework

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ome-routing/operator/internal/envfleet"
)

// The manager's and the plugin's binaries, which the suites, cmd/manager's and cmd/demo's
// tests and the soak run as child processes. make test builds each once, before any suite,
// and names it in these variables; a test process started without them (a single suite
// run with go test) builds each once for itself, and Main removes them at its end.
const (
	// ManagerBinaryEnv names the manager's binary (./cmd/manager).
	ManagerBinaryEnv = "OME_MANAGER_BIN"
	// PluginBinaryEnv names the kubectl-ome plugin's binary (./cmd/kubectl-ome).
	PluginBinaryEnv = "OME_PLUGIN_BIN"
)

// The build a binary built here is stamped with, as the Makefile stamps a release, with
// values of the tests' own: what --version, the manager's startup log and ome_build_info
// report. The Makefile's test target stamps its binaries with the same two values
// (TEST_LDFLAGS).
const (
	TestVersion  = "v9.9.9-test"
	TestRevision = "0123456789abcdef"
)

// testLDFlags stamp TestVersion and TestRevision into a binary.
const testLDFlags = "-X github.com/ome-routing/operator/pkg/version.version=" + TestVersion +
	" -X github.com/ome-routing/operator/pkg/version.revision=" + TestRevision

// binary is one of the binaries, found or built at most once per process.
type binary struct {
	env, pkg, name string
	once           sync.Once
	path           string
	err            error
}

var (
	managerBinary = &binary{env: ManagerBinaryEnv, pkg: "./cmd/manager", name: "manager"}
	pluginBinary  = &binary{env: PluginBinaryEnv, pkg: "./cmd/kubectl-ome", name: "kubectl-ome"}

	// built is the folder this process built binaries into, "" while it built none.
	built   string
	builtMu sync.Mutex
	// mainRunning says Main runs the tests, and so removes what is built.
	mainRunning atomic.Bool
)

// ManagerBinary is the manager's binary: $OME_MANAGER_BIN when set, else one built from
// this checkout the first time it is asked for, stamped with TestVersion and TestRevision.
func ManagerBinary() (string, error) { return managerBinary.get() }

// PluginBinary is the kubectl-ome plugin's binary: $OME_PLUGIN_BIN when set, else one
// built from this checkout the first time it is asked for, stamped like ManagerBinary's.
func PluginBinary() (string, error) { return pluginBinary.get() }

// Main runs a test binary's tests (m.Run) and then removes the binaries it built, and
// exits. Every package whose tests ask for ManagerBinary or PluginBinary calls it from its
// TestMain, so that a built binary lives as long as the process: no test's or suite's
// clean-up removes it from under a test that runs after.
func Main(m *testing.M) {
	mainRunning.Store(true)
	code := m.Run()
	builtMu.Lock()
	if built != "" {
		_ = os.RemoveAll(built)
	}
	builtMu.Unlock()
	os.Exit(code)
}

func (b *binary) get() (string, error) {
	b.once.Do(func() {
		if !mainRunning.Load() {
			b.err = fmt.Errorf("%s: the test binary's TestMain must call framework.Main, which removes built binaries when every test is done", b.name)
			return
		}
		if p := os.Getenv(b.env); p != "" {
			if !filepath.IsAbs(p) {
				b.err = fmt.Errorf("%s=%q: want an absolute path (tests run in their package's folder)", b.env, p)
			} else if _, err := os.Stat(p); err != nil {
				b.err = fmt.Errorf("%s: %w", b.env, err)
			} else {
				b.path = p
			}
			return
		}
		b.path, b.err = b.build()
	})
	return b.path, b.err
}

// build builds the binary into the process's folder for built binaries.
func (b *binary) build() (string, error) {
	builtMu.Lock()
	if built == "" {
		dir, err := os.MkdirTemp("", "ome-test-binaries-")
		if err != nil {
			builtMu.Unlock()
			return "", err
		}
		built = dir
	}
	out := filepath.Join(built, b.name)
	builtMu.Unlock()
	cmd := exec.Command("go", "build", "-ldflags", testLDFlags, "-o", out, b.pkg)
	cmd.Dir = envfleet.RepoRoot()
	if o, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s (set %s to use a built one): %w\n%s", b.pkg, b.env, err, o)
	}
	return out, nil
}
