package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ome-routing/operator/test/framework"
)

// step1Config is the user guide's Step 1 with the chart's observer defaults.
const step1Config = `{"routing": {"enabled": true,
  "probe": {"path": "/v1/models", "method": "GET", "acceptStatuses": [200], "gateStatuses": [404,500,502,503,504],
    "period": "10s", "timeout": "3s", "failureThreshold": 3, "successThreshold": 2, "allFailedPolicy": "PreserveTraffic"},
  "observer": {"maxConcurrentReconciles": 8, "maxConcurrentRequests": 16, "maxResponseBytes": 65536, "minPeriod": "1s",
    "maxSamples": 10, "allowLoopback": false, "allowPrivateNetworks": true}}}`

// The log line and error that show the manager got past its settings and tried to find an
// API server.
const (
	settingsLoaded = "Routing settings loaded"
	noAPIServer    = "Unable to find the API server"
)

// The build the test binary is stamped with (framework.ManagerBinary's).
const (
	testVersion  = framework.TestVersion
	testRevision = framework.TestRevision
)

// managerBinary is the manager's binary: make test's, or one built once per test run.
func managerBinary(t *testing.T) string {
	t.Helper()
	bin, err := framework.ManagerBinary()
	if err != nil {
		t.Fatalf("the manager's binary: %v", err)
	}
	return bin
}

// TestMain removes the binaries the tests built, once every test is done (framework.Main).
func TestMain(m *testing.M) { framework.Main(m) }

// runManager runs the binary with no way to reach an API server: KUBECONFIG names a file
// that does not exist, there is no in-cluster service address and HOME is empty, so a
// manager that tried to connect would fail with an error of its own.
func runManager(t *testing.T, args ...string) (exitCode int, stderr string) {
	t.Helper()
	bin := managerBinary(t)
	home := t.TempDir()
	// A guard against a manager that hangs, not a timing claim.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--metrics-bind-address=0", "--health-probe-bind-address=0")...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBERNETES_SERVICE_") && !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "KUBECONFIG="+filepath.Join(home, "no-such-kubeconfig"), "HOME="+home)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	start := time.Now()
	err := cmd.Run()
	t.Logf("manager exited after %v", time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil {
		t.Fatalf("manager still running after a minute; stderr:\n%s", errOut.String())
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, errOut.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), errOut.String()
	}
	t.Fatalf("run the manager: %v", err)
	return 0, ""
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "multicluster")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestManagerRefusesBadSettings: for each kind of bad setting, the manager exits non-zero
// with the exact message on stderr, before it logs its settings or looks for an API server.
func TestManagerRefusesBadSettings(t *testing.T) {
	// step1 returns step1Config with each old, new pair of strings replaced.
	step1 := func(pairs ...string) string {
		out := step1Config
		for i := 0; i+1 < len(pairs); i += 2 {
			if !strings.Contains(out, pairs[i]) {
				t.Fatalf("step1Config has no %q", pairs[i])
			}
			out = strings.Replace(out, pairs[i], pairs[i+1], 1)
		}
		return out
	}
	topology := []string{"--enable-multicluster", "--multicluster-role=control-plane"}
	for _, tc := range []struct {
		name   string
		config string
		flags  []string
		want   []string // lines of stderr
	}{
		{"period not a duration", step1(`"period": "10s"`, `"period": "10"`), topology,
			[]string{`invalid multi-cluster configuration: routing.probe.period: "10" is not a duration (use forms like "30s", "5m")`}},
		{"minPeriod not a duration", step1(`"minPeriod": "1s"`, `"minPeriod": "1"`), topology,
			[]string{`invalid multi-cluster configuration: routing.observer.minPeriod: "1" is not a duration (use forms like "30s", "5m")`}},
		{"timeout not shorter than period", step1(`"timeout": "3s"`, `"timeout": "10s"`), topology,
			[]string{"invalid multi-cluster configuration: routing.probe.timeout (10s) must be shorter than routing.probe.period (10s)"}},
		{"period under the floor", step1(`"period": "10s", "timeout": "3s"`, `"period": "500ms", "timeout": "100ms"`), topology,
			[]string{"invalid multi-cluster configuration: routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)"}},
		{"observer limit zero", step1(`"maxConcurrentRequests": 16`, `"maxConcurrentRequests": 0`), topology,
			[]string{"invalid multi-cluster configuration: routing.observer.maxConcurrentRequests must be positive, got 0"}},
		{"capacity timeout not shorter than period", step1(`"observer": {`, `"capacity": {"path": "/capacity", "method": "GET", "format": "Report",
    "samples": 10, "quorum": 2, "period": "10s", "timeout": "10s", "maxAge": "30s"},
  "observer": {`), topology,
			[]string{"invalid multi-cluster configuration: routing.capacity.timeout (10s) must be shorter than routing.capacity.period (10s)"}},
		{"maxSamples missing", step1(`"maxSamples": 10, `, ``), topology,
			[]string{"invalid multi-cluster configuration: routing.observer.maxSamples is required"}},
		{"probe without path", step1(`"path": "/v1/models", `, ``), topology,
			[]string{"load multi-cluster configuration: unable to parse multicluster config json: routing.probe.path is required"}},
		{"misspelt key", step1(`"maxConcurrentRequests"`, `"maxConcurentRequests"`), topology,
			[]string{`load multi-cluster configuration: unable to parse multicluster config json: unknown field "routing.observer.maxConcurentRequests"`}},
		{"several problems, one line each", step1(`"maxConcurrentRequests": 16`, `"maxConcurrentRequests": 0`, `"timeout": "3s"`, `"timeout": "10s"`), topology,
			[]string{
				"invalid multi-cluster configuration: routing.observer.maxConcurrentRequests must be positive, got 0",
				"invalid multi-cluster configuration: routing.probe.timeout (10s) must be shorter than routing.probe.period (10s)",
			}},
		{"routing on without the flags", step1Config, nil,
			[]string{"invalid multi-cluster configuration: routing.enabled=true requires --enable-multicluster and --multicluster-role=control-plane"}},
		{"routing on without the role", step1Config, []string{"--enable-multicluster"},
			[]string{"invalid multi-cluster configuration: routing.enabled=true requires --enable-multicluster and --multicluster-role=control-plane"}},
		{"unknown role", step1Config, []string{"--enable-multicluster", "--multicluster-role=worker"},
			[]string{`invalid multi-cluster configuration: --multicluster-role "worker" is not supported: use "control-plane" or leave it empty`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--multicluster-config=" + writeFile(t, tc.config)}, tc.flags...)
			code, stderr := runManager(t, args...)
			if code == 0 {
				t.Errorf("exit code 0, want non-zero")
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if strings.Join(lines, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, strings.Join(tc.want, "\n"))
			}
			if strings.Contains(stderr, settingsLoaded) || strings.Contains(stderr, noAPIServer) {
				t.Errorf("the manager went on past its settings:\n%s", stderr)
			}
		})
	}
}

// TestManagerChecksSettingsFirst: with good settings and no API server, the manager gets
// past its settings and then fails for want of an API server, which shows the order.
func TestManagerChecksSettingsFirst(t *testing.T) {
	code, stderr := runManager(t, "--multicluster-config="+writeFile(t, step1Config),
		"--enable-multicluster", "--multicluster-role=control-plane")
	if code == 0 {
		t.Errorf("exit code 0, want non-zero")
	}
	for _, want := range []string{
		`"msg":"Starting the OME routing operator's manager","version":"` + testVersion + `","revision":"` + testRevision + `"`,
		settingsLoaded, `"probe":"GET /v1/models every 10s, timeout 3s"`, noAPIServer, "no configuration has been provided",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not contain %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "multi-cluster configuration:") {
		t.Errorf("stderr reports a settings problem:\n%s", stderr)
	}
}

// TestManagerVersion: --version prints the stamped build on stdout and exits 0, before it
// checks anything else (here, an unknown role that would be refused).
func TestManagerVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"--version", "--multicluster-role=worker"}} {
		cmd := exec.Command(managerBinary(t), args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("manager %q: %v\n%s", args, err, stderr.String())
		}
		want := "manager " + testVersion + " (revision " + testRevision + ", " + runtime.Version() + ")\n"
		if stdout.String() != want || stderr.Len() != 0 {
			t.Errorf("manager %q printed %q on stdout and %q on stderr, want %q and nothing", args, stdout.String(), stderr.String(), want)
		}
	}
}
