package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/internal/traffic"
)

// Config is what a run of the demo needs from its caller: main fills it from the command
// line, the test from its temporary folder.
type Config struct {
	// Dir receives the kubeconfig, the settings file, isvc.yaml and the manager's log.
	Dir string
	// Kubectl is the kubectl binary the story runs.
	Kubectl string
	// Manager is the manager binary. Empty runs the controllers in this process instead.
	Manager string
	// Plugin is the kubectl-ome binary; kubectl finds it as `kubectl ome` because the story
	// puts its folder first on PATH.
	Plugin string
	// Timing sets the probe period and the story's waits.
	Timing Timing
	// Egctl is Envoy Gateway's egctl, for the translator's view of the published route;
	// empty leaves that view out.
	Egctl string
}

// Demo is one run: the fleet and the model servers it started, the files it wrote, and
// what to stop when it ends.
type Demo struct {
	cfg   Config
	out   *Printer
	fleet *envfleet.Fleet
	// servers are the model servers, one per worker on its own loopback address.
	servers *modelserver.Servers
	// traffic sends real requests through haproxy; nil when the data plane cannot run here.
	traffic *traffic.Traffic
	// gatewayAddr and globalHost are haproxy's address and the service's global hostname,
	// for the reader's own requests; empty without a gateway.
	gatewayAddr, globalHost string
	kubectl                 *Kubectl
	// handles switch the model servers and the workers' API servers for "Your turn".
	handles *handles
	// gateway is HAProxy Ingress, whose controller a handle stops and resumes; nil when
	// the data plane cannot run here.
	gateway *haproxyingress.HAProxyIngress
	// signalURL is the Prometheus that scrapes haproxy's exporter, the manager's traffic
	// signal; empty when Prometheus or the data plane cannot run here.
	signalURL string
	// metricsAddr is where the manager binary serves its metrics, over plain HTTP on
	// loopback; empty when the controllers run in this process.
	metricsAddr string
	// stops are undone in reverse by Close: the manager before the API servers it
	// watches, so that it does not log a storm of connection errors on the way out.
	stops []stop
}

type stop struct {
	what string
	fn   func() error
}

// New prepares a run that narrates to out. Nothing starts until Setup.
func New(cfg Config, out *Printer) *Demo {
	return &Demo{cfg: cfg, out: out}
}

func (d *Demo) onClose(what string, fn func() error) {
	d.stops = append(d.stops, stop{what, fn})
}

// Close stops everything the run started, newest first, and keeps going past a failure
// so that no process is left behind.
func (d *Demo) Close() error {
	var errs []error
	for i := len(d.stops) - 1; i >= 0; i-- {
		s := d.stops[i]
		d.out.Say("stopping %s", s.what)
		if err := s.fn(); err != nil {
			errs = append(errs, fmt.Errorf("stop %s: %w", s.what, err))
		}
	}
	d.stops = nil
	return errors.Join(errs...)
}

// workerKubeConfig is the worker's kubeconfig file, whose context has the worker's name.
func (d *Demo) workerKubeConfig(worker string) string { return d.path(worker + ".kubeconfig") }

// path is a file in the output folder.
func (d *Demo) path(name string) string { return filepath.Join(d.cfg.Dir, name) }

// Setup starts the fleet and the model servers, places the service's copies on the
// workers, and writes the kubeconfig that kubectl and the manager use.
func (d *Demo) Setup(ctx context.Context) error {
	if err := os.MkdirAll(d.cfg.Dir, 0o755); err != nil {
		return err
	}
	if err := d.startFleet(ctx); err != nil {
		return err
	}
	// The gateway resolves the model servers' names, so they come first.
	if err := d.startModelServers(); err != nil {
		return err
	}
	if err := d.setupGateway(ctx); err != nil {
		return err
	}
	h, err := d.startHandles()
	if err != nil {
		return err
	}
	d.handles = h
	return d.placeCopies(ctx)
}

func (d *Demo) startFleet(ctx context.Context) error {
	d.out.Heading("Starting three Kubernetes API servers: a control plane, worker-a and worker-b")
	d.out.Say("Each is a real kube-apiserver with its own etcd (from %s),", rel(os.Getenv("KUBEBUILDER_ASSETS")))
	d.out.Say("started in parallel, with this repository's CRDs installed. This takes 10-30s.")
	fleet, err := envfleet.StartFleet(ctx, workers...)
	if err != nil {
		return fmt.Errorf("start the API servers: %w", err)
	}
	d.fleet = fleet
	d.onClose("the API servers and their etcds", fleet.Stop)
	d.out.Event("control-plane API server at %s", fleet.ControlPlane.Config.Host)
	for _, w := range workers {
		d.out.Event("%s API server at %s", w, fleet.Workers[w].Config.Host)
	}
	d.out.Say("worker-a and worker-b are registered on the control plane as WorkloadClusters,")
	d.out.Say("each through a kubeconfig Secret in namespace %s.", envfleet.SecretNamespace)

	// The control plane's kubeconfig has its CA, client certificate and key inline, so the
	// file works from any folder, for kubectl and for the manager alike.
	kc := d.path("kubeconfig")
	if err := writeKubeConfig(kc, fleet.ControlPlane.KubeConfig, "control-plane"); err != nil {
		return err
	}
	d.kubectl = &Kubectl{Path: d.cfg.Kubectl, KubeConfig: kc, Plugin: d.cfg.Plugin, out: d.out}
	d.out.Say("Wrote the control plane's kubeconfig to %s (context control-plane),", rel(kc))
	for _, w := range workers {
		if err := writeKubeConfig(d.workerKubeConfig(w), fleet.Workers[w].KubeConfig, w); err != nil {
			return err
		}
	}
	d.out.Say("and each worker's to %s (context %s) and %s.", rel(d.workerKubeConfig(workers[0])), workers[0], rel(d.workerKubeConfig(workers[1])))
	return nil
}

func (d *Demo) startModelServers() error {
	d.out.Heading("Starting two stand-ins for the model servers, one per workload cluster")
	servers, err := modelserver.StartServers(hostDomain, workers)
	if err != nil {
		return fmt.Errorf("start the model servers: %w", err)
	}
	d.servers = servers
	d.onClose("the model servers", func() error { servers.Close(); return nil })
	for _, w := range workers {
		// A reporter beside the model server, as an operator adds with its own route.
		servers.Endpoints[w].SetServable(1)
		d.out.Event("%s's model server at %s:%d (%s) answers 200 on /v1/models, and {\"servable\": 1} on %s",
			w, servers.Addrs[w], servers.Port, servers.Host(w), modelserver.ReportPath)
	}
	d.out.Say("Each listens on a loopback address of its own, all on port %d: the publisher's backendPort,", servers.Port)
	d.out.Say("which every backend of a route shares, so the names must lead to different addresses.")
	return nil
}

// placeCopies creates the service's copy on each worker with the status that worker's
// own controllers would report once the model is up: its URL, its ingress ready, and one
// ready replica. The control plane reads these to build the TrafficMap.
func (d *Demo) placeCopies(ctx context.Context) error {
	d.out.Heading("Placing the copies of %s on the workers (namespace %s)", serviceName, serviceNS)
	for _, w := range workers {
		// The URL names the worker's host, which the manager and the gateway resolve to
		// its server's loopback address.
		url := d.servers.URL(w)
		if err := envfleet.PlaceCopy(ctx, d.fleet.Workers[w].Client, client.ObjectKey{Namespace: serviceNS, Name: serviceName}, url, 1, 1); err != nil {
			return fmt.Errorf("place the copy on %s: %w", w, err)
		}
		d.out.Event("%s: status.url %s, IngressReady, 1 of 1 replica ready", w, url)
	}
	return nil
}

// rel shows a path relative to the working folder when it is under it, so that the
// commands the demo prints are short and can be pasted from the repository's top folder.
func rel(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	r, err := filepath.Rel(wd, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return abs
	}
	return r
}
