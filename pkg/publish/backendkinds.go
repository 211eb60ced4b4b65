package publish

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ome-routing/operator/pkg/config"
)

// BackendKindSpec is everything the publisher knows about one kind of backend object
// (endpoint.gatewayBackend.kind): planning, applying, reading, listing, holding and the
// publisher's caches and watches all look the kind up here, so that a new kind is one
// entry of BackendKinds (plus the chart's enum and the publisher's RBAC markers).
type BackendKindSpec struct {
	// Setting is the kind's value of endpoint.gatewayBackend.kind.
	Setting config.BackendKind
	// GVK is the object's group, version and kind; a backendRef names the group and kind.
	GVK schema.GroupVersionKind
	// Noun names the object in messages ("backend Service"), as OME's do.
	Noun string
	// NameRule checks a backend's name against the kind's naming rule; "" when it holds.
	NameRule func(string) string
	// EndpointSlices says the kind takes the EndpointSlice fallback: slices belong to
	// Services, so only a Service kind does.
	EndpointSlices bool
	// Optional says a control plane may not serve the kind (a CRD): the publisher reads it
	// through a cache of its own, made only when the kind is served.
	Optional bool
	// RetryBudgetPolicy says the gateway that reads the kind (Envoy Gateway) takes a
	// route's retry budget from a BackendTrafficPolicy targeting the route, which the plan
	// then has (see Plan.RetryBudget).
	RetryBudgetPolicy bool
	// New is an empty object of the kind, to read into and to watch; NewList an empty list
	// of it. Kinds the manager's scheme knows are typed, so that the manager's cache
	// (which keeps typed and unstructured objects apart) serves them.
	New     func() runtime.Object
	NewList func() ObjectList
	// Build is the backend as the kind's object.
	Build func(Backend) runtime.Object
}

// ObjectList is a list of objects, as a client lists them (controller-runtime's
// client.ObjectList has the same methods).
type ObjectList interface {
	metav1.ListInterface
	runtime.Object
}

// BackendKinds are the backend kinds, the default (ExternalName Services) first.
var BackendKinds = []BackendKindSpec{
	{
		Setting:        config.BackendExternalNameService,
		GVK:            corev1.SchemeGroupVersion.WithKind("Service"),
		Noun:           "backend Service",
		NameRule:       dns1035Label,
		EndpointSlices: true,
		New:            func() runtime.Object { return &corev1.Service{} },
		NewList:        func() ObjectList { return &corev1.ServiceList{} },
		Build:          func(b Backend) runtime.Object { return b.Service() },
	},
	{
		Setting:           config.BackendEnvoyGateway,
		GVK:               schema.GroupVersionKind{Group: EnvoyGatewayGroup, Version: EnvoyGatewayVersion, Kind: "Backend"},
		Noun:              "Envoy Gateway Backend",
		NameRule:          dns1123Subdomain,
		Optional:          true,
		RetryBudgetPolicy: true,
		New:               func() runtime.Object { return unstructuredOf(EnvoyGatewayGroup, EnvoyGatewayVersion, "Backend") },
		NewList: func() ObjectList {
			return unstructuredListOf(EnvoyGatewayGroup, EnvoyGatewayVersion, "BackendList")
		},
		Build: func(b Backend) runtime.Object { return b.EnvoyBackend() },
	},
}

// BackendKindOf is the spec of a backend kind setting; an unknown or empty setting is the
// default kind, as config.Endpoint.Backend reads it (the configuration refuses unknown
// kinds before a plan is made).
func BackendKindOf(kind config.BackendKind) BackendKindSpec {
	for _, k := range BackendKinds {
		if k.Setting == kind {
			return k
		}
	}
	return BackendKinds[0]
}

// BackendKindByGroupKind is the backend kind whose objects have group and kind, as a
// backendRef or a read names them; false when no backend kind does.
func BackendKindByGroupKind(gk schema.GroupKind) (BackendKindSpec, bool) {
	for _, k := range BackendKinds {
		if k.GVK.GroupKind() == gk {
			return k, true
		}
	}
	return BackendKindSpec{}, false
}

func unstructuredOf(group, version, kind string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: version, Kind: kind})
	return u
}

func unstructuredListOf(group, version, kind string) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: version, Kind: kind})
	return l
}
