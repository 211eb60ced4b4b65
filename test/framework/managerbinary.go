package framework

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/proc"
	"github.com/ome-routing/operator/pkg/config"
)

// managerStopTimeout bounds the binary's shutdown after SIGTERM: its controllers finish a
// write and it exits within a few seconds. A guard, not a timing claim.
const managerStopTimeout = 15 * time.Second

type binaryOptions struct {
	dir  string
	args []string
}

// AsBinary runs the manager's binary (ManagerBinary) as a child process, the way it runs in
// a pod: the flags the chart gives it on a control plane, the settings written to a file,
// metrics over plain HTTP on a free loopback port (Manager.MetricsURL), the health
// endpoint off, and the extra args after those. Its settings file, kubeconfig and log
// (manager.log) go in dir, or in a folder of its own removed at Stop when dir is "".
func AsBinary(dir string, args ...string) ManagerOption {
	return func(o *managerOptions) { o.binary = &binaryOptions{dir: dir, args: args} }
}

// startBinary runs the binary against the control plane cp as the user of o.config (the
// administrator when nil).
func startBinary(cp *envfleet.Cluster, settings config.Config, o managerOptions, check *LogCheck) (_ *Manager, err error) {
	bin, err := ManagerBinary()
	if err != nil {
		return nil, err
	}
	dir, removeDir := o.binary.dir, func() {}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "ome-manager-"); err != nil {
			return nil, err
		}
		removeDir = func() { _ = os.RemoveAll(dir) }
	}
	defer func() {
		if err != nil {
			removeDir()
		}
	}()
	kubeconfig := cp.KubeConfig
	if o.config != nil {
		if kubeconfig, err = cp.KubeConfigAs(o.config); err != nil {
			return nil, err
		}
	}
	kc, settingsFile := filepath.Join(dir, "manager.kubeconfig"), filepath.Join(dir, "multicluster.json")
	if err := os.WriteFile(kc, kubeconfig, 0o600); err != nil {
		return nil, err
	}
	data, err := config.Marshal(&settings)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(settingsFile, data, 0o600); err != nil {
		return nil, err
	}
	metricsAddr, err := proc.FreeAddr()
	if err != nil {
		return nil, err
	}
	args := envfleet.ManagerArgs(settingsFile, metricsAddr, o.hosts)
	cmd := exec.Command(bin, append(args, o.binary.args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kc)
	m := &Manager{Check: check, MetricsURL: "http://" + metricsAddr + "/metrics", LogFile: filepath.Join(dir, "manager.log")}
	m.Process, err = proc.Start(cmd, proc.Options{Name: "the manager", LogFile: m.LogFile,
		Log: io.MultiWriter(append([]io.Writer{check}, o.log...)...), DieWithParent: true, StopTimeout: managerStopTimeout})
	if err != nil {
		return nil, err
	}
	m.stop = sync.OnceValue(func() error {
		defer removeDir()
		exitedBefore := m.Process.Exited()
		err := m.Process.Stop()
		if err == nil {
			if werr := m.Process.Wait(); werr != nil || exitedBefore {
				err = fmt.Errorf("the manager exited (%w) before it was stopped", werr)
				if !exitedBefore {
					err = fmt.Errorf("the manager exited with %w after SIGTERM", werr)
				}
			}
		}
		if err != nil {
			err = fmt.Errorf("%w; the end of its log:\n%s", err, proc.Tail(m.LogFile, 20))
		}
		return errors.Join(err, check.Err())
	})
	return m, nil
}
