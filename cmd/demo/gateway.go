package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/config/samples"
	"github.com/ome-routing/operator/internal/egtranslate"
	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/internal/poll"
	"github.com/ome-routing/operator/internal/promserver"
	"github.com/ome-routing/operator/internal/traffic"
	"github.com/ome-routing/operator/pkg/publish"
)

// The global gateway of the demo: the Gateway the publisher attaches routes to, run by
// HAProxy Ingress (real requests) and, in the translator's view, by Envoy Gateway.
const (
	gatewayNS   = "gateway-system"
	gatewayName = "global"
	gatewayPort = 80
	// hostDomain names each worker's model server, worker-a.demo.test and so on: a gateway
	// needs a two-label name; the manager and HAProxy Ingress resolve them themselves.
	hostDomain = "demo.test"
	// haproxyClass and envoyClass are the Gateway's class, and the one the translator is
	// told it has.
	haproxyClass = "haproxy"
	envoyClass   = "envoy"
)

// setupGateway installs the Gateway API CRDs on the control plane, with the v1alpha2 copies
// HAProxy Ingress reads, creates the global Gateway, and starts HAProxy Ingress for it when
// it can run here.
func (d *Demo) setupGateway(ctx context.Context) error {
	d.out.Heading("Installing the Gateway API CRDs and the global Gateway on the control plane")
	cp := d.fleet.ControlPlane
	if err := cp.InstallGatewayCRDs(); err != nil {
		return fmt.Errorf("install the Gateway API CRDs: %w", err)
	}
	// HAProxy Ingress v0.14.0 reads Gateway API at v1alpha2 only: copies of v1 named
	// v1alpha2 make the objects written at v1 visible to it.
	if err := cp.ServeGatewayV1alpha2(ctx); err != nil {
		return err
	}
	if err := haproxyingress.InstallHAProxyGateway(ctx, cp.Client, haproxyClass, gatewayNS, gatewayName); err != nil {
		return err
	}
	d.out.Event("Gateway %s/%s (class %s, controller %s)", gatewayNS, gatewayName, haproxyClass, haproxyingress.HAProxyController)
	if err := d.startHAProxy(ctx); err != nil {
		return err
	}
	if d.cfg.Egctl == "" {
		d.out.Say("No --egctl given: the story leaves out Envoy Gateway's view of the route.")
	} else {
		d.out.Say("Envoy Gateway's translator (egctl) also reads each route, as Envoy Gateway would program")
		d.out.Say("Envoy: it is given the same route and Gateway, with each ExternalName Service as the")
		d.out.Say("equivalent Envoy Gateway Backend, since Envoy Gateway refuses ExternalName Services.")
	}
	return nil
}

// startHAProxy starts HAProxy Ingress and haproxy, on 127.0.0.1, or says why it cannot.
func (d *Demo) startHAProxy(ctx context.Context) error {
	if err := haproxyingress.DataPlaneMissing(); err != nil {
		d.out.Say("No real gateway here, so no request is sent: %v", err)
		return nil
	}
	log, err := os.Create(d.path("haproxy-ingress.log"))
	if err != nil {
		return err
	}
	hosts := map[string]string{}
	for name, addr := range d.servers.Hosts() {
		hosts[name] = addr.String()
	}
	gw, err := haproxyingress.StartHAProxyIngress(ctx, d.fleet.ControlPlane, haproxyingress.HAProxyOptions{Namespace: "haproxy-ingress", Hosts: hosts, Log: log})
	if err != nil {
		log.Close()
		return fmt.Errorf("start HAProxy Ingress (its log is %s): %w", rel(log.Name()), err)
	}
	d.gateway = gw
	// A controller the reader stopped with a handle gets SIGTERM only once it runs again.
	d.onClose("HAProxy Ingress and haproxy", func() error { defer log.Close(); _ = gw.Resume(); return gw.Stop() })
	host := serviceName + "." + serviceNS + ".global.example.com"
	d.traffic = traffic.NewTraffic(gw.HTTPAddr, host)
	d.gatewayAddr, d.globalHost = gw.HTTPAddr, host
	d.onClose("the requests' connections to haproxy", func() error { d.traffic.Close(); return nil })
	d.out.Event("HAProxy Ingress runs haproxy on %s; its log is %s", gw.HTTPAddr, rel(log.Name()))
	d.out.Say("It resolves the workers' names itself, through an /etc/hosts of its own. At each step")
	d.out.Say("the story sends %d real requests through haproxy with Host %s and counts", requestBatch, host)
	d.out.Say("which model server answered each.")
	return d.startPrometheus(ctx, gw.MetricsAddr)
}

// startPrometheus starts a Prometheus that scrapes haproxy's own exporter, for the
// manager's traffic signal (TrafficApplied), or says why it cannot.
func (d *Demo) startPrometheus(ctx context.Context, exporter string) error {
	if err := promserver.Missing(); err != nil {
		d.out.Say("No Prometheus here, so the manager has no traffic signal: %v", err)
		return nil
	}
	log, err := os.Create(d.path("prometheus.log"))
	if err != nil {
		return err
	}
	p, err := promserver.Start(ctx, promserver.Options{Targets: []string{exporter}, ScrapeInterval: signalScrape, Log: log})
	if err != nil {
		log.Close()
		return fmt.Errorf("start Prometheus (its log is %s): %w", rel(log.Name()), err)
	}
	d.onClose("Prometheus", func() error { defer log.Close(); return p.Stop() })
	d.signalURL = p.URL
	d.out.Event("Prometheus on %s scrapes haproxy's exporter every %s; its log is %s", p.URL, signalScrape, rel(log.Name()))
	d.out.Say("The manager reads haproxy's own per-server counters from it (routing.trafficSignal, with")
	d.out.Say("the queries of %s), so the map can say whether the gateway follows the route.", samples.HAProxySignalValuesPath)
	return nil
}

// showGateway waits until the published route carries the map's weights, prints them, and
// prints each cluster's share of the traffic in the Envoy configuration that Envoy
// Gateway's own translator makes of the live objects.
func (d *Demo) showGateway(ctx context.Context) error {
	v, err := d.read(ctx)
	if err != nil {
		return err
	}
	key := client.ObjectKey{Namespace: serviceNS, Name: publish.RouteName(serviceNS, serviceName, "")}
	cp := d.fleet.ControlPlane.Client
	route := &gatewayv1.HTTPRoute{}
	var weights map[string]int32
	err = poll.Until(ctx, d.cfg.Timing.Poll, d.cfg.Timing.Step, func(ctx context.Context) error {
		weights = map[string]int32{}
		if err := cp.Get(ctx, key, route); err == nil && len(route.Spec.Rules) > 0 {
			for _, ref := range route.Spec.Rules[0].BackendRefs {
				weights[clusterOfBackend(string(ref.Name))] = ptr.Deref(ref.Weight, 1)
			}
		}
		if !sameWeights(weights, v) {
			return fmt.Errorf("it carries %v", weights)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("the HTTPRoute %s did not carry the TrafficMap's weights: %w", key, err)
	}
	var parts []string
	for _, w := range workers {
		parts = append(parts, fmt.Sprintf("%s weight=%d", w, weights[w]))
	}
	d.out.Say("HTTPRoute %s (the publisher's): %s", key, strings.Join(parts, "  "))
	if d.cfg.Egctl != "" {
		objs, err := d.gatewayObjects(ctx, route)
		if err != nil {
			return err
		}
		view, err := egtranslate.Translate(ctx, d.cfg.Egctl, objs, key)
		if err != nil {
			return err
		}
		d.out.Say("Envoy Gateway's translator (egctl x translate; its view, not measured traffic): %s", shares(view))
	}
	return d.showRequests(ctx, weights)
}

// gatewayObjects are what the translator needs: the class, the Gateway and the route, with
// each ExternalName Service the route names given as the equivalent Envoy Gateway Backend,
// the backend kind Envoy Gateway takes.
func (d *Demo) gatewayObjects(ctx context.Context, route *gatewayv1.HTTPRoute) ([]client.Object, error) {
	cp := d.fleet.ControlPlane.Client
	gw := &gatewayv1.Gateway{}
	if err := cp.Get(ctx, client.ObjectKey{Namespace: gatewayNS, Name: gatewayName}, gw); err != nil {
		return nil, err
	}
	gw.Spec.GatewayClassName = envoyClass
	class := &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: envoyClass},
		Spec: gatewayv1.GatewayClassSpec{ControllerName: egtranslate.GatewayClassController}}
	services := &corev1.ServiceList{}
	if err := cp.List(ctx, services, client.InNamespace(route.Namespace), client.MatchingLabels(publish.Labels(serviceNS, serviceName))); err != nil {
		return nil, err
	}
	route = route.DeepCopy()
	for i := range route.Spec.Rules {
		for j := range route.Spec.Rules[i].BackendRefs {
			ref := &route.Spec.Rules[i].BackendRefs[j].BackendObjectReference
			ref.Group = ptr.To(gatewayv1.Group(publish.EnvoyGatewayGroup))
			ref.Kind = ptr.To(gatewayv1.Kind("Backend"))
		}
	}
	objs := []client.Object{class, gw, route}
	for _, svc := range services.Items {
		if svc.Spec.Type != corev1.ServiceTypeExternalName || len(svc.Spec.Ports) == 0 {
			continue
		}
		b := publish.Backend{Name: svc.Name, Namespace: svc.Namespace, Host: svc.Spec.ExternalName, Port: svc.Spec.Ports[0].Port, Labels: svc.Labels}
		objs = append(objs, b.EnvoyBackend())
	}
	return objs, nil
}

// shares prints each worker's share of the route's traffic in the translator's view.
func shares(view egtranslate.EnvoyView) string {
	if view.DirectStatus != 0 {
		return fmt.Sprintf("no backend left; the route answers %d itself", view.DirectStatus)
	}
	total := uint32(0)
	for _, w := range view.Weights {
		total += w
	}
	var parts []string
	for _, w := range workers {
		pct := 0.0
		if total > 0 {
			pct = 100 * float64(view.Weights[publish.BackendName(serviceNS, serviceName, w)]) / float64(total)
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", w, pct))
	}
	return strings.Join(parts, "  ")
}

func clusterOfBackend(name string) string {
	for _, w := range workers {
		if publish.BackendName(serviceNS, serviceName, w) == name {
			return w
		}
	}
	return name
}

func sameWeights(route map[string]int32, v View) bool {
	if v.Map == nil || len(route) != len(v.Entries) {
		return false
	}
	for w, e := range v.Entries {
		if got, ok := route[w]; !ok || got != e.Weight {
			return false
		}
	}
	return true
}
