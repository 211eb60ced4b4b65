package dataplane

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/internal/modelserver"
)

// Manager is the manager's binary running as a child process, as it runs in a cluster.
type Manager struct {
	// MetricsURL is its metrics endpoint, on loopback over plain HTTP.
	MetricsURL string
	// Log is the file its output goes to.
	Log  string
	cmd  *exec.Cmd
	done chan struct{}
}

// managerStopTimeout is how long the manager may take to stop after SIGTERM.
const managerStopTimeout = 10 * time.Second

// startManager runs bin with the flags the chart gives it on a control plane, the settings
// file, and --observer-host for every server's name, against the kubeconfig. Its metrics
// listen on a free loopback port; its health endpoints are off.
func startManager(bin, dir string, kubeconfig, settingsJSON []byte, servers *modelserver.Servers) (*Manager, error) {
	kc, settingsFile := filepath.Join(dir, "manager.kubeconfig"), filepath.Join(dir, "multicluster.json")
	if err := os.WriteFile(kc, kubeconfig, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(settingsFile, settingsJSON, 0o644); err != nil {
		return nil, err
	}
	port, err := haproxyingress.FreePort()
	if err != nil {
		return nil, err
	}
	args := []string{
		"--multicluster-config=" + settingsFile,
		"--enable-multicluster",
		"--multicluster-role=control-plane",
		"--operator-namespace=" + envfleet.SecretNamespace,
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", port),
		"--metrics-secure=false",
		"--health-probe-bind-address=0",
	}
	for host, addr := range servers.Hosts() {
		args = append(args, "--observer-host="+host+"="+addr.String())
	}
	m := &Manager{MetricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", port), Log: filepath.Join(dir, "manager.log"), done: make(chan struct{})}
	logFile, err := os.Create(m.Log)
	if err != nil {
		return nil, err
	}
	m.cmd = exec.Command(bin, args...)
	m.cmd.Env = append(os.Environ(), "KUBECONFIG="+kc)
	m.cmd.Stdout, m.cmd.Stderr = logFile, logFile
	if err := m.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start the manager: %w", err)
	}
	go func() { _ = m.cmd.Wait(); logFile.Close(); close(m.done) }()
	return m, nil
}

// Exited says whether the manager has exited.
func (m *Manager) Exited() bool {
	select {
	case <-m.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM, as the kubelet does, and kills the manager past a timeout.
func (m *Manager) Stop() error {
	if m == nil || m.Exited() {
		return nil
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
		return nil
	case <-time.After(managerStopTimeout):
		_ = m.cmd.Process.Kill()
		<-m.done
		return fmt.Errorf("the manager did not stop within %s of SIGTERM and was killed", managerStopTimeout)
	}
}
