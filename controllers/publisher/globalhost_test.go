package publisher

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

// The phase that claims a hostname, on a fake client: a template hostname that another
// service's annotated route still holds is waited for (that route is being removed), never
// rejected; anything else that holds a hostname rejects the claim, as before.
func TestTemplateHostnameWaitsForAnAnnotatedHolder(t *testing.T) {
	const host = "chat.prod.global.example.com"
	ep := config.Endpoint{GlobalGateway: "gateway-system/global", BackendPort: 80, GlobalHostTemplate: "{{ .Name }}.{{ .Namespace }}.global.example.com"}
	squatter := types.NamespacedName{Namespace: "evil", Name: "squatter"}
	route := &gatewayv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: squatter.Namespace, Name: "squatter-global", Labels: publish.Labels(squatter.Namespace, squatter.Name)},
		Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{
				Name: "global", Namespace: ptr.To(gatewayv1.Namespace("gateway-system"))}}},
			Hostnames: []gatewayv1.Hostname{host},
		},
	}
	cases := []struct {
		name       string
		annotation string // the squatter's ome.io/global-host
		annotated  bool   // the claiming plan's hostname is annotated
		wait       bool   // else rejected
	}{
		{name: "the template's hostname, held by an annotation", annotation: host, wait: true},
		{name: "an annotated hostname, held by an annotation", annotation: host, annotated: true},
		{name: "the template's hostname, held by the holder's template", annotation: ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			scheme := runtime.NewScheme()
			for _, add := range []func(*runtime.Scheme) error{omev1beta1.AddToScheme, gatewayv1.Install} {
				if err := add(scheme); err != nil {
					t.Fatal(err)
				}
			}
			isvc := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: squatter.Namespace, Name: squatter.Name}}
			if c.annotation != "" {
				isvc.Annotations = map[string]string{publish.GlobalHostAnnotation: c.annotation}
			}
			r := &Reconciler{Endpoint: ep}
			r.Client = fake.NewClientBuilder().WithScheme(scheme).WithObjects(isvc, route.DeepCopy()).
				WithIndex(&gatewayv1.HTTPRoute{}, routeHostnameIndex, routeHostnames).
				WithIndex(&omev1beta1.InferenceService{}, templateHostIndex, r.templateHosts).Build()
			plan := publish.Plan{Namespace: "prod", Labels: publish.Labels("prod", "chat"), Hostname: host, Annotated: c.annotated,
				Gateway: gatewayv1.ParentReference{Name: "global", Namespace: ptr.To(gatewayv1.Namespace("gateway-system"))}}

			// Read from the cluster (the route) and from the publisher's memory (a claim
			// another worker holds), the same answer.
			for _, check := range []func() error{
				func() error { return r.hostnameFree(context.Background(), plan) },
				func() error {
					r.memory = publications{}
					r.memory.claim(squatter, types.NamespacedName{Namespace: "evil", Name: "squatter-global"},
						[]string{"hostname gateway-system/global " + host})
					plan.Route = &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "chat-global"}}
					return r.claim(context.Background(), types.NamespacedName{Namespace: "prod", Name: "chat"}, plan)
				},
			} {
				err := check()
				var waiting *annotatedHolder
				if errors.As(err, &waiting) != c.wait || !c.wait && !isClaimRejected(err) {
					t.Errorf("error %v (%T): want a wait %v, else a rejected claim", err, err, c.wait)
				}
			}
		})
	}
}
