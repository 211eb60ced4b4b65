package publisher

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/publish"
)

// The hold's reads, on a fake client: the standing route and its backends decide what is
// kept, and the publish guard's verdict on their hosts can refuse the hold.
func TestHoldBecause(t *testing.T) {
	scheme := testScheme(t)
	labels := publish.Labels("prod", "chat")
	backend := func(cluster, host string) *corev1.Service {
		l := publish.Labels("prod", "chat")
		l[publish.LabelCluster] = cluster
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: publish.BackendName("prod", "chat", cluster), Labels: l},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: host}}
	}
	ref := func(cluster string, weight int32) gatewayv1.HTTPBackendRef {
		return gatewayv1.HTTPBackendRef{BackendRef: gatewayv1.BackendRef{Weight: ptr.To(weight), BackendObjectReference: gatewayv1.BackendObjectReference{
			Group: ptr.To(gatewayv1.Group("")), Kind: ptr.To(gatewayv1.Kind("Service")),
			Name: gatewayv1.ObjectName(publish.BackendName("prod", "chat", cluster)), Port: ptr.To(gatewayv1.PortNumber(80))}}}
	}
	route := func(refs ...gatewayv1.HTTPBackendRef) *gatewayv1.HTTPRoute {
		return &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "chat-global", Labels: labels},
			Spec: gatewayv1.HTTPRouteSpec{Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: refs}}}}
	}
	plan := publish.Plan{Namespace: "prod", Labels: labels,
		Route: &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "chat-global"}}}
	emptyMap := func(policy omev1beta1.AllFailedPolicy) *omev1beta1.TrafficMap {
		return &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "chat"},
			Spec: omev1beta1.TrafficMapSpec{Service: "chat", AllFailedPolicy: policy}}
	}
	setup := func(objects ...client.Object) (*Reconciler, *guardFixture) {
		f := newGuardFixture()
		f.zone.set("a.example.com", "203.0.113.1")
		f.zone.set("b.example.com", "203.0.113.2")
		r := &Reconciler{Client: fake.NewClientBuilder().WithScheme(scheme).WithObjects(objects...).Build(), guard: f.publishGuard}
		return r, f
	}
	hold := func(t *testing.T, r *Reconciler, tm *omev1beta1.TrafficMap) (string, int) {
		t.Helper()
		because, standing, err := r.holdBecause(context.Background(), tm, plan)
		if err != nil {
			t.Fatal(err)
		}
		return because, standing
	}
	standing := []client.Object{route(ref("worker-a", 1), ref("worker-b", 1)), backend("worker-a", "a.example.com"), backend("worker-b", "b.example.com")}

	t.Run("an empty map under PreserveTraffic keeps a route that sends traffic", func(t *testing.T) {
		r, _ := setup(standing...)
		if because, n := hold(t, r, emptyMap(omev1beta1.AllFailedPreserveTraffic)); because != "the TrafficMap has no entries" || n != 2 {
			t.Errorf("hold %q with %d backend(s), want the map's emptiness with 2", because, n)
		}
	})
	t.Run("a backendRef at weight 0, or to a backend that is gone, is nothing to keep", func(t *testing.T) {
		r, _ := setup(route(ref("worker-a", 0), ref("worker-b", 1)), backend("worker-a", "a.example.com"))
		if because, n := hold(t, r, emptyMap("")); because != "" || n != 0 {
			t.Errorf("hold %q with %d backend(s), want none", because, n)
		}
	})
	t.Run("no route stands", func(t *testing.T) {
		r, _ := setup()
		if because, _ := hold(t, r, emptyMap("")); because != "" {
			t.Errorf("hold %q, want none", because)
		}
	})
	t.Run("a route of someone else's is not kept", func(t *testing.T) {
		foreign := route(ref("worker-a", 1))
		foreign.Labels = publish.Labels("other", "chat")
		r, _ := setup(foreign, backend("worker-a", "a.example.com"))
		if because, _ := hold(t, r, emptyMap("")); because != "" {
			t.Errorf("hold %q, want none", because)
		}
	})
	t.Run("a failed read of the standing route is an error naming it", func(t *testing.T) {
		r := &Reconciler{Client: fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
			Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
				return errors.New("connection refused")
			}}).Build()}
		_, _, err := r.holdBecause(context.Background(), emptyMap(omev1beta1.AllFailedPreserveTraffic), plan)
		if want := "read global HTTPRoute prod/chat-global: connection refused"; err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	})
	t.Run("Drain lets the route go", func(t *testing.T) {
		r, _ := setup(standing...)
		if because, _ := hold(t, r, emptyMap(omev1beta1.AllFailedDrain)); because != "" {
			t.Errorf("hold %q, want none", because)
		}
	})
	t.Run("a standing host the guard now refuses ends the hold; a resolver outage does not", func(t *testing.T) {
		r, f := setup(standing...)
		tm := emptyMap(omev1beta1.AllFailedPreserveTraffic)
		if because, _ := hold(t, r, tm); because == "" {
			t.Fatal("no hold while every standing host passes")
		}
		// The resolver fails: the guard keeps its last verdicts, and the hold stays.
		f.zone.fail(true)
		f.at = f.at.Add(2 * time.Minute)
		if because, _ := hold(t, r, tm); because == "" {
			t.Error("no hold while the resolver fails")
		}
		// worker-b's name now points at the metadata service: the route is not kept for it.
		f.zone.fail(false)
		f.zone.set("b.example.com", "169.254.169.254")
		f.at = f.at.Add(2 * time.Minute)
		if because, _ := hold(t, r, tm); because != "" {
			t.Errorf("hold %q over a host that resolves to the metadata service", because)
		}
	})
}
