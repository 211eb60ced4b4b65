package main

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/test/framework"
)

// The global gateway of the demo: the Gateway the publisher attaches routes to, run (in
// the translator's view) by Envoy Gateway.
const (
	gatewayNS   = "gateway-system"
	gatewayName = "global"
	gatewayPort = 80
	// hostDomain names each worker's model server, worker-a.demo.test and so on: a gateway
	// needs a two-label name, and the manager resolves them to loopback itself.
	hostDomain = "demo.test"
)

// workerHost is a worker's host name for its model server.
func workerHost(worker string) string { return worker + "." + hostDomain }

// demoHosts map each worker's host name to loopback, where its model server listens.
func demoHosts() map[string]netip.Addr {
	hosts := map[string]netip.Addr{}
	for _, w := range workers {
		hosts[workerHost(w)] = netip.MustParseAddr("127.0.0.1")
	}
	return hosts
}

// setupGateway installs the Gateway API and Envoy Gateway Backend CRDs on the control
// plane and creates an Envoy Gateway GatewayClass and the global Gateway.
func (d *Demo) setupGateway(ctx context.Context) error {
	d.out.Heading("Installing the Gateway API CRDs and the global Gateway on the control plane")
	cp := d.fleet.ControlPlane
	if err := cp.InstallGatewayCRDs(); err != nil {
		return fmt.Errorf("install the Gateway API CRDs: %w", err)
	}
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: gatewayNS}},
		&gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "envoy"},
			Spec: gatewayv1.GatewayClassSpec{ControllerName: framework.GatewayClassController}},
		&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: gatewayName, Namespace: gatewayNS},
			Spec: gatewayv1.GatewaySpec{GatewayClassName: "envoy", Listeners: []gatewayv1.Listener{{
				Name: "http", Protocol: gatewayv1.HTTPProtocolType, Port: gatewayPort,
				AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: ptr.To(gatewayv1.NamespacesFromAll)}},
			}}}},
	}
	for _, obj := range objs {
		if err := cp.Client.Create(ctx, obj); err != nil {
			return err
		}
	}
	d.out.Event("Gateway %s/%s (class envoy, controller %s), port %d", gatewayNS, gatewayName, framework.GatewayClassController, gatewayPort)
	if d.cfg.Egctl == "" {
		d.out.Say("No --egctl given: the story shows the route's weights but not Envoy Gateway's view of them.")
	}
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
	deadline := time.Now().Add(d.cfg.Timing.Step)
	for {
		weights = map[string]int32{}
		if err := cp.Get(ctx, key, route); err == nil && len(route.Spec.Rules) > 0 {
			for _, ref := range route.Spec.Rules[0].BackendRefs {
				weights[clusterOfBackend(string(ref.Name))] = ptr.Deref(ref.Weight, 1)
			}
		}
		if sameWeights(weights, v) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the HTTPRoute %s did not carry the TrafficMap's weights within %s", key, d.cfg.Timing.Step)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d.cfg.Timing.Poll):
		}
	}
	var parts []string
	for _, w := range workers {
		parts = append(parts, fmt.Sprintf("%s weight=%d", w, weights[w]))
	}
	d.out.Say("HTTPRoute %s (the publisher's): %s", key, strings.Join(parts, "  "))
	if d.cfg.Egctl == "" {
		return nil
	}
	objs, err := d.gatewayObjects(ctx, route)
	if err != nil {
		return err
	}
	view, err := framework.Translate(ctx, d.cfg.Egctl, objs, key)
	if err != nil {
		return err
	}
	d.out.Say("Envoy Gateway's translator (egctl x translate; its view, not measured traffic): %s", shares(view))
	return nil
}

// gatewayObjects are the live objects the translator needs: the class, the Gateway, the
// route and its backends.
func (d *Demo) gatewayObjects(ctx context.Context, route *gatewayv1.HTTPRoute) ([]client.Object, error) {
	cp := d.fleet.ControlPlane.Client
	class := &gatewayv1.GatewayClass{}
	gw := &gatewayv1.Gateway{}
	if err := cp.Get(ctx, client.ObjectKey{Name: "envoy"}, class); err != nil {
		return nil, err
	}
	if err := cp.Get(ctx, client.ObjectKey{Namespace: gatewayNS, Name: gatewayName}, gw); err != nil {
		return nil, err
	}
	backends := &unstructured.UnstructuredList{}
	backends.SetGroupVersionKind(schema.GroupVersionKind{Group: publish.EnvoyGatewayGroup, Version: publish.EnvoyGatewayVersion, Kind: "BackendList"})
	if err := cp.List(ctx, backends, client.MatchingLabels(publish.Labels(serviceNS, serviceName))); err != nil {
		return nil, err
	}
	objs := []client.Object{class, gw, route}
	for i := range backends.Items {
		objs = append(objs, &backends.Items[i])
	}
	return objs, nil
}

// shares prints each worker's share of the route's traffic in the translator's view.
func shares(view framework.EnvoyView) string {
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
