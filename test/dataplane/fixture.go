package dataplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/internal/proc"
	"github.com/ome-routing/operator/internal/promserver"
	"github.com/ome-routing/operator/internal/traffic"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/pkg/trafficsignal"
	"github.com/ome-routing/operator/test/framework"
)

// Where the fixture puts things.
const (
	// GatewayNamespace and GatewayName are the global Gateway's, which HAProxy Ingress runs.
	GatewayNamespace = "gateway-system"
	GatewayName      = "global"
	// GatewayClass is HAProxy Ingress's GatewayClass.
	GatewayClass = "haproxy"
	// hostDomain names the clusters' model servers: worker-a.dataplane.test, ...
	hostDomain = "dataplane.test"
	// haproxyNamespace holds HAProxy Ingress's ConfigMap.
	haproxyNamespace = "haproxy-ingress"
)

// Options say what to start.
type Options struct {
	// Workers are the workload clusters, and Ready each one's ready replicas: the
	// service's weights follow them.
	Workers []string
	Ready   map[string]int32
	// Service is the routed InferenceService; Probe its own probe (nil uses the
	// installation's).
	Service client.ObjectKey
	Probe   *omev1beta1.RoutingProbe
	// Timing is the installation's probe and capacity poll.
	Timing Timing
	// Dir receives the logs and the processes' files.
	Dir string
	// TrafficSignal starts a Prometheus scraping haproxy's exporter, and gives the manager
	// a routing.trafficSignal on it with the shipped HAProxy queries (see signal.go).
	TrafficSignal bool
	// Signal is the traffic signal's timing and Prometheus's scrape interval; nil is
	// SignalTiming.
	Signal *Signal
}

// Env is a running data plane.
type Env struct {
	// Environment holds the fleet and the manager, and stops both (test/framework).
	Environment *framework.Environment
	Fleet       *envfleet.Fleet
	Servers     *modelserver.Servers
	Gateway     *haproxyingress.HAProxyIngress
	// Manager is the manager's binary, its log manager.log in Options.Dir.
	Manager *framework.Manager
	// Prometheus scrapes haproxy's exporter when Options.TrafficSignal is set.
	Prometheus *promserver.Server
	// Traffic sends requests through haproxy to the service's route.
	Traffic *traffic.Traffic
	// Plugin is the kubectl-ome binary, and KubeConfig an admin kubeconfig file for the
	// control plane.
	Plugin, KubeConfig string
	opts               Options
	stops              []func() error
}

// Start starts the data plane. On error everything started is stopped again.
func Start(ctx context.Context, opts Options) (_ *Env, err error) {
	e := &Env{opts: opts}
	defer func() {
		if err != nil {
			err = errors.Join(err, e.Stop())
		}
	}()
	if e.Plugin, err = framework.PluginBinary(); err != nil {
		return nil, err
	}
	if e.Servers, err = modelserver.StartServers(hostDomain, opts.Workers); err != nil {
		return nil, err
	}
	e.onStop(func() error { e.Servers.Close(); return nil })
	for _, w := range opts.Workers {
		// The capacity reporter beside each server says what its copy says.
		e.Servers.Endpoints[w].SetServable(opts.Ready[w])
	}
	if e.Environment, err = framework.StartEnvironment(ctx, opts.Workers...); err != nil {
		return nil, err
	}
	e.onStop(e.Environment.Stop)
	e.Fleet = e.Environment.Fleet
	cp := e.Fleet.ControlPlane
	e.KubeConfig = filepath.Join(opts.Dir, "kubeconfig")
	if err := os.WriteFile(e.KubeConfig, cp.KubeConfig, 0o600); err != nil {
		return nil, err
	}
	if err := cp.InstallGatewayCRDs(); err != nil {
		return nil, fmt.Errorf("install the Gateway API CRDs: %w", err)
	}
	// HAProxy Ingress v0.14.0 reads Gateway API at v1alpha2 only, which gateway-api's
	// current CRDs no longer serve: copies of v1 named v1alpha2 make the objects the
	// publisher writes at v1 visible to it.
	if err := cp.ServeGatewayV1alpha2(ctx); err != nil {
		return nil, err
	}
	if err := haproxyingress.InstallHAProxyGateway(ctx, cp.Client, GatewayClass, GatewayNamespace, GatewayName); err != nil {
		return nil, err
	}
	if err := e.startGateway(ctx); err != nil {
		return nil, err
	}
	if opts.TrafficSignal {
		if err := e.startPrometheus(ctx); err != nil {
			return nil, err
		}
	}
	if err := e.startManager(ctx); err != nil {
		return nil, err
	}
	if err := e.createService(ctx); err != nil {
		return nil, err
	}
	host, err := e.Host()
	if err != nil {
		return nil, err
	}
	e.Traffic = traffic.NewTraffic(e.Gateway.HTTPAddr, host)
	e.onStop(func() error { e.Traffic.Close(); return nil })
	return e, nil
}

func (e *Env) startGateway(ctx context.Context) error {
	hosts := map[string]string{}
	for h, a := range e.Servers.Hosts() {
		hosts[h] = a.String()
	}
	log, err := os.Create(filepath.Join(e.opts.Dir, "haproxy-ingress.log"))
	if err != nil {
		return err
	}
	e.onStop(log.Close)
	gw, err := haproxyingress.StartHAProxyIngress(ctx, e.Fleet.ControlPlane, haproxyingress.HAProxyOptions{Namespace: haproxyNamespace, Hosts: hosts, Log: log})
	if err != nil {
		return fmt.Errorf("start HAProxy Ingress: %w\n%s", err, proc.Tail(log.Name(), 20))
	}
	e.Gateway = gw
	e.onStop(gw.Stop)
	return nil
}

// startManager runs the manager's binary with the rights the chart gives it, and
// --observer-host for every server's name.
func (e *Env) startManager(ctx context.Context) error {
	asManager, err := e.Fleet.ControlPlane.InstallChartRBAC(ctx, envfleet.SecretNamespace)
	if err != nil {
		return err
	}
	var signal *trafficsignal.Settings
	if e.Prometheus != nil {
		if signal, err = signalSettings(e.Prometheus.URL, e.signal()); err != nil {
			return err
		}
	}
	settings, err := settings(e.opts.Timing, GatewayNamespace+"/"+GatewayName, e.Servers.Port, signal)
	if err != nil {
		return err
	}
	m, err := e.Environment.StartManager(settings, framework.AsBinary(e.opts.Dir), framework.WithConfig(asManager),
		framework.WithHosts(e.Servers.Hosts()))
	if err != nil {
		return err
	}
	e.Manager = m
	e.onStop(m.Stop)
	return nil
}

// createService places the service's copies on the workers, each reporting its server's
// URL and its ready replicas, and creates the routed service on the control plane.
func (e *Env) createService(ctx context.Context) error {
	key := e.opts.Service
	for _, w := range e.opts.Workers {
		n := e.opts.Ready[w]
		if err := envfleet.PlaceCopy(ctx, e.Fleet.Workers[w].Client, key, e.Servers.URL(w), n, n); err != nil {
			return fmt.Errorf("place the copy on %s: %w", w, err)
		}
	}
	cp := e.Fleet.ControlPlane.Client
	if err := cp.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: key.Namespace}}); err != nil {
		return err
	}
	var routing *omev1beta1.Routing
	if e.opts.Probe != nil {
		routing = &omev1beta1.Routing{Probe: e.opts.Probe}
	}
	return cp.Create(ctx, envfleet.SourceService(key, e.opts.Workers, routing))
}

// Host is the service's global hostname, as the publisher renders it from HostTemplate.
func (e *Env) Host() (string, error) {
	tmpl, err := template.New("host").Parse(HostTemplate)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	err = tmpl.Execute(&b, map[string]string{"Name": e.opts.Service.Name, "Namespace": e.opts.Service.Namespace})
	return b.String(), err
}

// RouteWeights are the weights of the published route's backendRefs by cluster; nil when
// there is no route yet.
func (e *Env) RouteWeights(ctx context.Context) (map[string]int32, error) {
	key := e.opts.Service
	route := &gatewayv1.HTTPRoute{}
	err := e.Fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: publish.RouteName(key.Namespace, key.Name, "")}, route)
	if err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if len(route.Spec.Rules) == 0 {
		return nil, nil
	}
	clusters := map[string]string{}
	for _, w := range e.opts.Workers {
		clusters[publish.BackendName(key.Namespace, key.Name, w)] = w
	}
	out := map[string]int32{}
	for _, ref := range route.Spec.Rules[0].BackendRefs {
		out[clusters[string(ref.Name)]] = ptr.Deref(ref.Weight, 1)
	}
	return out, nil
}

// TrafficMap is the service's map.
func (e *Env) TrafficMap(ctx context.Context) (*omev1beta1.TrafficMap, error) {
	tm := &omev1beta1.TrafficMap{}
	return tm, e.Fleet.ControlPlane.Client.Get(ctx, e.opts.Service, tm)
}

// UpdateService reads the service, edits it and writes it back once; a caller retries on
// a conflict. A service without a routing block gets an empty one to edit.
func (e *Env) UpdateService(ctx context.Context, edit func(*omev1beta1.InferenceService)) error {
	isvc := &omev1beta1.InferenceService{}
	if err := e.Fleet.ControlPlane.Client.Get(ctx, e.opts.Service, isvc); err != nil {
		return err
	}
	if isvc.Spec.Routing == nil {
		isvc.Spec.Routing = &omev1beta1.Routing{}
	}
	edit(isvc)
	return e.Fleet.ControlPlane.Client.Update(ctx, isvc)
}

// Logs are the ends of the manager's and HAProxy Ingress's logs, for a failure message.
func (e *Env) Logs() string {
	var b strings.Builder
	for _, name := range []string{"manager.log", "haproxy-ingress.log"} {
		fmt.Fprintf(&b, "the end of %s:\n%s\n", name, proc.Tail(filepath.Join(e.opts.Dir, name), 25))
	}
	return b.String()
}

func (e *Env) onStop(fn func() error) { e.stops = append(e.stops, fn) }

// Stop stops everything, newest first: the manager and the gateway before the API servers
// they watch.
func (e *Env) Stop() error {
	var errs []error
	for i := len(e.stops) - 1; i >= 0; i-- {
		errs = append(errs, e.stops[i]())
	}
	e.stops = nil
	return errors.Join(errs...)
}
