package publisher

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/test/framework"
)

// service is a routed source InferenceService on the control plane and the model servers
// its copies report on each worker.
type service struct {
	key       client.ObjectKey
	endpoints map[string]*modelserver.Endpoint
}

// newService creates a namespace and a service placed on both workers, with a ready
// copy on each whose URL is the worker's two-label name and its model server's port.
func newService(ctx context.Context, name string, routing *omev1beta1.Routing, annotations map[string]string) *service {
	return newServiceAt(ctx, client.ObjectKey{Name: name}, routing, annotations)
}

// newServiceAt is newService in an existing namespace (or a new one when key has none).
func newServiceAt(ctx context.Context, key client.ObjectKey, routing *omev1beta1.Routing, annotations map[string]string) *service {
	return newServiceAtHosts(ctx, key, routing, annotations, func(worker string) string { return worker + ".example.test" })
}

// newServiceAtHosts is newServiceAt with each worker's copy reporting the host given
// (framework.StartRoutedService builds it).
func newServiceAtHosts(ctx context.Context, key client.ObjectKey, routing *omev1beta1.Routing, annotations map[string]string,
	host func(worker string) string) *service {
	homes := map[string]framework.Home{}
	for _, w := range []string{"worker-a", "worker-b"} {
		homes[w] = framework.Home{On: fleet.Workers[w].Client, Allocated: 1, Ready: 1, Host: host(w)}
	}
	rs, err := framework.StartRoutedService(ctx, fleet.ControlPlane.Client, key, homes, routing, annotations)
	Expect(err).NotTo(HaveOccurred())
	for _, ep := range rs.Endpoints {
		DeferCleanup(ep.Close)
	}
	return &service{key: rs.Key, endpoints: rs.Endpoints}
}

func (s *service) trafficMap(g Gomega) *omev1beta1.TrafficMap {
	tm := &omev1beta1.TrafficMap{}
	g.Expect(fleet.ControlPlane.Client.Get(context.Background(), s.key, tm)).To(Succeed())
	return tm
}

// condition is one of the map's conditions, as "Status Reason: Message".
func (s *service) condition(g Gomega, conditionType string) string {
	c := meta.FindStatusCondition(s.trafficMap(g).Status.Conditions, conditionType)
	if c == nil {
		return ""
	}
	return fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
}

// routeKey is where the publisher writes the service's route, with the settings given.
func (s *service) routeKey(routeNamespace string) client.ObjectKey {
	ns := s.key.Namespace
	if routeNamespace != "" {
		ns = routeNamespace
	}
	return client.ObjectKey{Namespace: ns, Name: publish.RouteName(s.key.Namespace, s.key.Name, routeNamespace)}
}

func (s *service) route(g Gomega, routeNamespace string) *gatewayv1.HTTPRoute {
	r := &gatewayv1.HTTPRoute{}
	g.Expect(fleet.ControlPlane.Client.Get(context.Background(), s.routeKey(routeNamespace), r)).To(Succeed())
	return r
}

// weights are the route's backendRefs as "cluster weight", the cluster found from the
// backend's name.
func (s *service) weights(g Gomega) []string {
	clusters := map[string]string{}
	for _, w := range []string{"worker-a", "worker-b"} {
		clusters[publish.BackendName(s.key.Namespace, s.key.Name, w)] = w
	}
	var out []string
	for _, ref := range s.route(g, "").Spec.Rules[0].BackendRefs {
		out = append(out, fmt.Sprintf("%s %d", clusters[string(ref.Name)], *ref.Weight))
	}
	return out
}

// set switches how a worker's model server answers.
func (s *service) set(worker string, mode modelserver.Mode) {
	Expect(s.endpoints[worker].Set(mode)).To(Succeed())
}

func (s *service) update(ctx context.Context, mutate func(*omev1beta1.InferenceService)) {
	Eventually(func(g Gomega) {
		isvc := &omev1beta1.InferenceService{}
		g.Expect(fleet.ControlPlane.Client.Get(ctx, s.key, isvc)).To(Succeed())
		mutate(isvc)
		g.Expect(fleet.ControlPlane.Client.Update(ctx, isvc)).To(Succeed())
	}, timeout, interval).Should(Succeed())
}

// publishedObjects are the names of the Services, Envoy Gateway Backends, HTTPRoutes and
// Envoy Gateway BackendTrafficPolicies labelled as the service's, in any namespace, as
// "Kind namespace/name".
func (s *service) publishedObjects(g Gomega) []string {
	selector := client.MatchingLabels(publish.Labels(s.key.Namespace, s.key.Name))
	var out []string
	services := &corev1.ServiceList{}
	g.Expect(fleet.ControlPlane.Client.List(context.Background(), services, selector)).To(Succeed())
	for _, o := range services.Items {
		out = append(out, "Service "+o.Namespace+"/"+o.Name)
	}
	backends := envoyBackends(g, selector)
	for _, o := range backends {
		out = append(out, "Backend "+o)
	}
	routes := &gatewayv1.HTTPRouteList{}
	g.Expect(fleet.ControlPlane.Client.List(context.Background(), routes, selector)).To(Succeed())
	for _, o := range routes.Items {
		out = append(out, "HTTPRoute "+o.Namespace+"/"+o.Name)
	}
	policies := &unstructured.UnstructuredList{}
	policies.SetGroupVersionKind(trafficPolicyListGVK)
	g.Expect(fleet.ControlPlane.Client.List(context.Background(), policies, selector)).To(Succeed())
	for _, o := range policies.Items {
		out = append(out, "BackendTrafficPolicy "+o.GetNamespace()+"/"+o.GetName())
	}
	return out
}

// managers are the field managers of the map's status conditions, by condition type,
// from its managed fields.
func (s *service) conditionManagers(g Gomega) map[string]string {
	out := map[string]string{}
	for _, mf := range s.trafficMap(g).ManagedFields {
		if mf.Subresource != "status" || mf.FieldsV1 == nil {
			continue
		}
		raw := mf.FieldsV1.GetRawString()
		for _, t := range []string{"Routable", "Published", "PublicationFallback"} {
			// A list item keyed by type, JSON inside the JSON: k:{\"type\":\"Routable\"}.
			if strings.Contains(raw, `k:{\"type\":\"`+t+`\"}`) {
				out[t] += mf.Manager + "/" + string(mf.Operation)
			}
		}
	}
	return out
}

// envoyBackends are the Envoy Gateway Backends the selector picks, as "namespace/name".
func envoyBackends(g Gomega, selector client.MatchingLabels) []string {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(schema.GroupVersionKind{Group: publish.EnvoyGatewayGroup, Version: publish.EnvoyGatewayVersion, Kind: "BackendList"})
	g.Expect(fleet.ControlPlane.Client.List(context.Background(), list, selector)).To(Succeed())
	var out []string
	for _, o := range list.Items {
		out = append(out, o.GetNamespace()+"/"+o.GetName())
	}
	return out
}

// writeKubeconfig writes the control plane's admin kubeconfig to a file for kubectl.
func writeKubeconfig() string {
	path := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(os.WriteFile(path, fleet.ControlPlane.KubeConfig, 0o600)).To(Succeed())
	return path
}
