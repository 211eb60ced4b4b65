package publisher

import (
	"context"
	"os"
	"os/exec"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/publisher"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/pkg/version"
)

const (
	publishedTrue = `True Published: TrafficMap is published by publisher "gatewayapi"`
	fallbackFalse = "False Unsupported: The selected publisher does not retain publication plans"
	claimRejected = "False ClaimRejected: Publisher claims could not be acquired"
	invalidPlan   = "False InvalidPlan: Publisher plan is invalid"
	withdrawn     = `False Withdrawn: TrafficMap publication is withdrawn by publisher "gatewayapi"`
	routableTrue  = "True Routable: "
)

var _ = Describe("Publishing a TrafficMap", func() {
	BeforeEach(func() { useManager(guideEndpoint(), config.Publisher{}) })

	It("writes the route and an ExternalName Service per cluster, and follows a gate", func(ctx context.Context) {
		s := newService(ctx, "chat", nil, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Expect(s.condition(Default, "PublicationFallback")).To(Equal(fallbackFalse))

		r := s.route(Default, "")
		Expect(r.Name).To(Equal("chat-global"))
		Expect(r.Labels).To(Equal(publish.Labels(s.key.Namespace, "chat")))
		Expect(r.Annotations).To(HaveKeyWithValue(version.Annotation, version.Stamp()), "the route names the release that wrote it")
		Expect(r.Spec.Hostnames).To(Equal([]gatewayv1.Hostname{gatewayv1.Hostname("chat." + s.key.Namespace + ".global.example.com")}))
		Expect(r.Spec.ParentRefs).To(HaveLen(1))
		Expect(string(r.Spec.ParentRefs[0].Name)).To(Equal(gatewayName))
		Expect(string(*r.Spec.ParentRefs[0].Namespace)).To(Equal(gatewayNamespace))
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))

		for _, w := range []string{"worker-a", "worker-b"} {
			svc := &corev1.Service{}
			name := publish.BackendName(s.key.Namespace, "chat", w)
			Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Namespace: s.key.Namespace, Name: name}, svc)).To(Succeed())
			Expect(svc.Spec.Type).To(Equal(corev1.ServiceTypeExternalName))
			Expect(svc.Spec.ExternalName).To(Equal(w + ".example.test"))
			Expect(svc.Spec.Ports[0].Port).To(Equal(int32(backendPort)))
			Expect(svc.Labels).To(HaveKeyWithValue(publish.LabelCluster, w))
			Expect(svc.Annotations).To(HaveKeyWithValue(version.Annotation, version.Stamp()))
		}

		// Each probe round writes the map (lastProbeTime), so its generation can be a step
		// ahead of the publisher's for a moment: wait for it to catch up.
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			g.Expect(tm.Finalizers).To(ContainElement(controllersFinalizer))
			g.Expect(tm.Status.Published).To(BeTrue())
			g.Expect(tm.Status.ObservedTrafficMapGeneration).To(Equal(tm.Generation))
			g.Expect(*tm.Status.GatewayRef).To(Equal(omev1beta1.TrafficMapGatewayRef{
				Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "chat-global", Namespace: s.key.Namespace}))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())

		// worker-b fails until it is gated: its backendRef stays, with weight 0.
		s.set("worker-b", modelserver.Unavailable)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 0"}))
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			g.Expect(tm.Status.ObservedTrafficMapGeneration).To(Equal(tm.Generation))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		s.set("worker-b", modelserver.Serve)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
	})

	It("keeps each writer's conditions when the other writes, each under its own field manager", func(ctx context.Context) {
		s := newService(ctx, "both-writers", &omev1beta1.Routing{Probe: probeSpec(omev1beta1.AllFailedDrain)}, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Expect(s.condition(Default, "Routable")).To(HavePrefix(routableTrue))

		// The routing reconciler changes Routable: the publisher's conditions stay.
		s.set("worker-a", modelserver.Unavailable)
		s.set("worker-b", modelserver.Unavailable)
		Eventually(s.condition).WithArguments("Routable").WithTimeout(timeout).WithPolling(interval).Should(HavePrefix("False AllHomesProbeFailed: "))
		Expect(s.condition(Default, "Published")).To(Equal(publishedTrue))
		Expect(s.condition(Default, "PublicationFallback")).To(Equal(fallbackFalse))
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 0", "worker-b 0"}))

		// The publisher changes Published (the hostname turns invalid): Routable stays.
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Annotations = map[string]string{publish.GlobalHostAnnotation: "10.0.0.1"}
		})
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(invalidPlan))
		Expect(s.condition(Default, "Routable")).To(HavePrefix("False AllHomesProbeFailed: "))
		Expect(s.conditionManagers(Default)).To(Equal(map[string]string{
			"Routable":            "ome-trafficmap-routing/Apply",
			"Published":           "ome-trafficmap-publisher/Apply",
			"PublicationFallback": "ome-trafficmap-publisher/Apply",
		}))
		// The failure keeps the last published route, and says why in an event.
		tm := s.trafficMap(Default)
		Expect(tm.Status.Published).To(BeFalse())
		Expect(tm.Status.GatewayRef).NotTo(BeNil())
		Expect(s.weights(Default)).To(Equal([]string{"worker-a 0", "worker-b 0"}))
		Eventually(mapEvents).WithArguments(s.key, "InvalidPlan").WithTimeout(timeout).WithPolling(interval).Should(
			ContainElement(`global hostname: hostname "10.0.0.1" must not be an IP address`))
	})

	It("shows PUBLISHED in kubectl get trafficmap", func(ctx context.Context) {
		kubectl := os.Getenv("KUBECTL")
		if kubectl == "" {
			Skip("KUBECTL is not set")
		}
		s := newService(ctx, "columns", nil, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		kubeconfig := writeKubeconfig()
		out, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "get", "trafficmap", "-n", s.key.Namespace).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		Expect(strings.Fields(lines[0])).To(Equal([]string{"NAME", "MODE", "PUBLISHED", "ROUTABLE", "OVERRIDE", "REASON", "AGE"}))
		Expect(strings.Fields(lines[1])[:4]).To(Equal([]string{"columns", "All", "True", "True"}))
	})
})

var _ = Describe("Ownership", func() {
	BeforeEach(func() { useManager(guideEndpoint(), config.Publisher{}) })

	It("never overwrites a route, a backend Service or a hostname that belongs to someone else", func(ctx context.Context) {
		// A route at the service's route name without the publisher's labels.
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "claims-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		foreign := foreignRoute(ns.Name, "taken-global", "someone.example.com")
		Expect(fleet.ControlPlane.Client.Create(ctx, foreign)).To(Succeed())
		s := newServiceInNamespace(ctx, ns.Name, "taken")
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(claimRejected))
		Eventually(mapEvents).WithArguments(s.key, "ClaimRejected").WithTimeout(timeout).WithPolling(interval).Should(
			ContainElement("global HTTPRoute " + ns.Name + "/taken-global belongs to another source"))
		Expect(s.route(Default, "").Spec.Hostnames).To(Equal([]gatewayv1.Hostname{"someone.example.com"}), "the foreign route is untouched")
		Expect(s.publishedObjects(Default)).To(BeEmpty(), "nothing is written while the claim is refused")

		// Another source's route publishes the service's hostname on the same Gateway.
		other := foreignRoute(ns.Name, "squatter", "host-taken."+ns.Name+".global.example.com")
		Expect(fleet.ControlPlane.Client.Create(ctx, other)).To(Succeed())
		s2 := newServiceInNamespace(ctx, ns.Name, "host-taken")
		Eventually(mapEvents).WithArguments(s2.key, "ClaimRejected").WithTimeout(timeout).WithPolling(interval).Should(ContainElement(
			`Gateway hostname "host-taken.` + ns.Name + `.global.example.com" on gateway-system/global is already published by HTTPRoute ` + ns.Name + "/squatter"))
		Expect(s2.condition(Default, "Published")).To(Equal(claimRejected))

		// A backend Service name taken by someone else's Service.
		svcName := publish.BackendName(ns.Name, "svc-taken", "worker-b")
		Expect(fleet.ControlPlane.Client.Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: svcName, Namespace: ns.Name},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "mine.example.com"},
		})).To(Succeed())
		s3 := newServiceInNamespace(ctx, ns.Name, "svc-taken")
		Eventually(mapEvents).WithArguments(s3.key, "ClaimRejected").WithTimeout(timeout).WithPolling(interval).Should(
			ContainElement("global backend Service " + ns.Name + "/" + svcName + " belongs to another source"))

		// Once the foreign route is gone, the next look (the watch on routes) publishes.
		Expect(fleet.ControlPlane.Client.Delete(ctx, foreign)).To(Succeed())
		s.update(ctx, func(isvc *omev1beta1.InferenceService) { isvc.Annotations = map[string]string{"touch": "1"} })
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Expect(s.route(Default, "").Labels).To(Equal(publish.Labels(ns.Name, "taken")))
	})
})

var _ = Describe("Withdrawal and removal", func() {
	It("withdraws a service without a hostname and removes everything when the service leaves routing", func(ctx context.Context) {
		ep := guideEndpoint()
		ep.GlobalHostTemplate = "" // hostnames come from the annotation only
		useManager(ep, config.Publisher{})
		s := newService(ctx, "leaving", nil, map[string]string{publish.GlobalHostAnnotation: "leaving.example.com"})
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		// Published can come before the second home joins the map.
		Eventually(s.publishedObjects).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(3))

		// No annotation and no template: no hostname, so the route and Services go.
		s.update(ctx, func(isvc *omev1beta1.InferenceService) { delete(isvc.Annotations, publish.GlobalHostAnnotation) })
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(withdrawn))
		Expect(s.condition(Default, "PublicationFallback")).To(Equal("False Withdrawn: TrafficMap publication is withdrawn"))
		Eventually(s.publishedObjects).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
		// The condition keeps OME's words; an event on the map says what is missing.
		Eventually(mapEvents).WithArguments(s.key, publisher.EventPublicationWithdrawn).WithTimeout(timeout).WithPolling(interval).Should(
			Equal([]string{"Nothing is published for this map: no global hostname: neither the " + publish.GlobalHostAnnotation +
				" annotation nor endpoint.globalHostTemplate is set"}))
		tm := s.trafficMap(Default)
		Expect(tm.Status.Published).To(BeFalse())
		Expect(tm.Status.GatewayRef).To(BeNil())

		// Back, then out of routing: the map goes only once the publisher has cleaned up.
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Annotations = map[string]string{publish.GlobalHostAnnotation: "leaving.example.com"}
		})
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing = &omev1beta1.Routing{Enabled: ptr.To(false)}
		})
		Eventually(func() bool {
			err := fleet.ControlPlane.Client.Get(ctx, s.key, &omev1beta1.TrafficMap{})
			return apierrors.IsNotFound(err)
		}).WithTimeout(timeout).WithPolling(interval).Should(BeTrue())
		Expect(s.publishedObjects(Default)).To(BeEmpty())
	})

	It("puts back a route edited by hand, and unpublishes when the service is gone", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		s := newService(ctx, "handedit", nil, nil)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))

		Eventually(func(g Gomega) {
			r := s.route(g, "")
			r.Spec.Rules[0].BackendRefs[1].Weight = ptr.To[int32](7)
			g.Expect(fleet.ControlPlane.Client.Update(ctx, r)).To(Succeed())
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))

		// envtest runs no garbage collector: the map outlives its service, which shows the
		// publisher's own handling of a map whose service is gone.
		Expect(fleet.ControlPlane.Client.Delete(ctx, &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{
			Name: s.key.Name, Namespace: s.key.Namespace}})).To(Succeed())
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(
			Equal("False Unpublished: TrafficMap source is deleting or has opted out of publication"))
		Expect(s.condition(Default, "PublicationFallback")).To(Equal("False Unpublished: TrafficMap publication fallback is inactive"))
		Eventually(s.publishedObjects).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
	})

	It("moves the route and its backends to routeNamespace, and writes Envoy Gateway Backends when asked", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		s := newService(ctx, "moving", nil, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))

		ep := guideEndpoint()
		ep.RouteNamespace, ep.BackendKind = gatewayNamespace, config.BackendEnvoyGateway
		useManager(ep, config.Publisher{})
		route := s.routeKey(gatewayNamespace)
		a := publish.BackendName(s.key.Namespace, "moving", "worker-a")
		b := publish.BackendName(s.key.Namespace, "moving", "worker-b")
		Eventually(s.publishedObjects).WithTimeout(timeout).WithPolling(interval).Should(ConsistOf(
			"Backend "+gatewayNamespace+"/"+a, "Backend "+gatewayNamespace+"/"+b, "HTTPRoute "+route.String()))
		r := s.route(Default, gatewayNamespace)
		Expect(string(*r.Spec.Rules[0].BackendRefs[0].Group)).To(Equal("gateway.envoyproxy.io"))
		Expect(string(*r.Spec.Rules[0].BackendRefs[0].Kind)).To(Equal("Backend"))
		Eventually(func(g Gomega) {
			// gatewayRef is cleared while a move is in progress: a nil one is "not yet".
			g.Expect(s.trafficMap(g).Status.GatewayRef).To(HaveField("Namespace", gatewayNamespace))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
	})

	It("marks every map InvalidOptions while publisher options are set", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{Options: map[string]string{"weightScale": "2"}})
		s := newService(ctx, "options", nil, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(
			Equal("False InvalidOptions: Publisher options are invalid"))
		Expect(s.condition(Default, "PublicationFallback")).To(Equal("Unknown InvalidOptions: Publisher options are invalid"))
		Eventually(mapEvents).WithArguments(s.key, "InvalidOptions").WithTimeout(timeout).WithPolling(interval).Should(
			ContainElement("Gateway API publisher does not accept global options: weightScale"))
		Expect(s.publishedObjects(Default)).To(BeEmpty())
	})

	It("marks a service's map InvalidOptions while it sets its own publisher options, and publishes it again once they are gone", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		s := newService(ctx, "own-options", &omev1beta1.Routing{Publisher: &omev1beta1.RoutingPublisherSpec{
			Options: map[string]string{"weightScale": "2", "mode": "x"}}}, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(
			Equal("False InvalidOptions: Publisher options are invalid"))
		Eventually(mapEvents).WithArguments(s.key, "InvalidOptions").WithTimeout(timeout).WithPolling(interval).Should(
			ContainElement("Gateway API publisher does not accept per-InferenceService options: mode, weightScale"))
		Expect(s.publishedObjects(Default)).To(BeEmpty())
		other := newService(ctx, "no-options", nil, nil)
		Eventually(other.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue),
			"one service's options touch no other")

		s.update(ctx, func(isvc *omev1beta1.InferenceService) { isvc.Spec.Routing.Publisher = nil })
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
	})
})

const controllersFinalizer = "ome.io/trafficmap-publisher"

// newServiceInNamespace is a service with the suite's defaults in an existing namespace.
func newServiceInNamespace(ctx context.Context, namespace, name string) *service {
	return newServiceAt(ctx, client.ObjectKey{Namespace: namespace, Name: name}, nil, nil)
}

// foreignRoute is an HTTPRoute that another source wrote, attached to the global Gateway.
func foreignRoute(namespace, name, host string) *gatewayv1.HTTPRoute {
	return &gatewayv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{
				Name: gatewayName, Namespace: ptr.To(gatewayv1.Namespace(gatewayNamespace)),
			}}},
			Hostnames: []gatewayv1.Hostname{gatewayv1.Hostname(host)},
		},
	}
}

// mapEvents are the notes of the map's events with the given reason.
func mapEvents(key client.ObjectKey, reason string) []string {
	return objectEvents("TrafficMap", key, reason)
}

// objectEvents are the notes of the events with the given reason on the object of kind
// at key.
func objectEvents(kind string, key client.ObjectKey, reason string) []string {
	list := &corev1.EventList{}
	Expect(fleet.ControlPlane.Client.List(context.Background(), list, client.InNamespace(key.Namespace))).To(Succeed())
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == key.Name && e.Reason == reason {
			out = append(out, e.Message)
		}
	}
	return out
}
