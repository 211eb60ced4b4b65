package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/proc"
)

// managerStopTimeout is how long the manager may take to shut down after SIGTERM before
// it is killed: long enough for its controllers to finish a write, short enough that an
// interrupted demo does not seem to hang.
const managerStopTimeout = 10 * time.Second

// StartManager writes the manager's settings file and runs the manager against the control
// plane, then waits until it has connected to both workload clusters: until then the story
// would only show an empty TrafficMap.
func (d *Demo) StartManager(ctx context.Context) error {
	d.out.Heading("Starting the routing operator against the control plane")
	settings := d.path("multicluster.json")
	signal, err := signalSettings(d.signalURL)
	if err != nil {
		return err
	}
	data, err := managerSettings(d.cfg.Timing, d.servers.Port, signal)
	if err != nil {
		return err
	}
	if err := os.WriteFile(settings, data, 0o644); err != nil {
		return err
	}
	d.out.Say("Settings: %s, the spec's Step 1 probe with period %s and timeout %s,", rel(settings), d.cfg.Timing.Period, d.cfg.Timing.Timeout)
	d.out.Say("and an observer that may dial loopback, where the model servers listen.")
	logPath := d.path("manager.log")
	var exited <-chan error
	if d.cfg.Manager == "" {
		exited, err = d.startInProcess(settings, logPath)
	} else {
		exited, err = d.startBinary(settings, logPath)
	}
	if err != nil {
		return err
	}
	d.out.Say("Its log goes to %s. Waiting for it to connect to worker-a and worker-b...", rel(logPath))
	if err := d.waitReady(ctx, exited, logPath); err != nil {
		return err
	}
	return d.kubectl.Show(ctx, "get", "workloadclusters")
}

// startBinary runs the manager binary as a child process, the way it runs in a cluster,
// so the demo shows (and its test checks) the real command line and settings loading. The
// returned channel receives the process's exit error, once.
func (d *Demo) startBinary(settings, logPath string) (<-chan error, error) {
	// Metrics on a loopback port, over plain HTTP so that curl reads them without a token.
	metricsAddr, err := proc.FreeAddr()
	if err != nil {
		return nil, err
	}
	d.metricsAddr = metricsAddr
	args := envfleet.ManagerArgs(settings, metricsAddr, d.servers.Hosts())
	cmd := exec.Command(d.cfg.Manager, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+d.kubectl.KubeConfig)
	// A group of its own, so that a Ctrl-C in the terminal reaches only the demo, which then
	// stops the manager before the API servers it watches; and stopped with the demo should
	// the demo die without cleaning up (kill -9), so that no orphan keeps probing.
	p, err := proc.Start(cmd, proc.Options{Name: "the manager " + d.cfg.Manager, LogFile: logPath,
		Group: true, DieWithParent: true, StopTimeout: managerStopTimeout})
	if err != nil {
		return nil, err
	}
	d.out.Command(fmt.Sprintf("KUBECONFIG=%s %s %s", rel(d.kubectl.KubeConfig), rel(d.cfg.Manager), strings.Join(args, " ")))
	d.out.Event("manager running, pid %d", p.Pid())

	exited := make(chan error, 1)
	go func() { exited <- p.Wait() }()
	// SIGTERM is what the kubelet sends: the manager stops its controllers and exits. One
	// that already exited was reported by waitReady or the story.
	d.onClose(fmt.Sprintf("the manager (pid %d)", p.Pid()), p.Stop)
	return exited, nil
}

// waitReady waits until every worker's WorkloadCluster is Ready, which the manager sets once
// it has reached that worker's API server with the kubeconfig from its Secret.
func (d *Demo) waitReady(ctx context.Context, exited <-chan error, logPath string) error {
	deadline := time.NewTimer(d.cfg.Timing.Ready)
	defer deadline.Stop()
	tick := time.NewTicker(d.cfg.Timing.Poll)
	defer tick.Stop()
	state := ""
	for {
		var ready bool
		ready, state = d.workersReady(ctx)
		if ready {
			d.out.Event("the manager reached both workers: %s", state)
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("the manager exited (%w) before it reached the workers; the end of %s:\n%s",
				err, rel(logPath), tail(logPath, 15))
		case <-deadline.C:
			return fmt.Errorf("the manager did not mark the WorkloadClusters Ready within %s (%s).\n"+
				"Does cmd/manager set up the controllers, and is the binary fresh (make build)? The end of %s:\n%s",
				d.cfg.Timing.Ready, state, rel(logPath), tail(logPath, 15))
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// workersReady says whether every worker's WorkloadCluster is Ready, and describes each.
func (d *Demo) workersReady(ctx context.Context) (bool, string) {
	var parts []string
	all := true
	for _, w := range workers {
		wc := &omev1beta1.WorkloadCluster{}
		if err := d.fleet.ControlPlane.Client.Get(ctx, keyOf(w), wc); err != nil {
			all = false
			parts = append(parts, fmt.Sprintf("%s: %v", w, err))
			continue
		}
		c := meta.FindStatusCondition(wc.Status.Conditions, omev1beta1.WorkloadClusterReady)
		switch {
		case c == nil:
			all = false
			parts = append(parts, w+": no Ready condition yet")
		case c.Status != metav1.ConditionTrue:
			all = false
			parts = append(parts, fmt.Sprintf("%s: Ready %s %s", w, c.Status, c.Reason))
		default:
			parts = append(parts, fmt.Sprintf("%s Ready %s", w, c.Reason))
		}
	}
	return all, strings.Join(parts, ", ")
}

// tail is the last n lines of a file, indented, for an error message: the manager's own
// words are the quickest way to see why it did not come up.
func tail(path string, n int) string {
	return "    " + strings.ReplaceAll(proc.Tail(path, n), "\n", "\n    ")
}
