package publish

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Service is the backend as a Service of type ExternalName: the route's gateway resolves
// the workload cluster's hostname and sends to backendPort. This is OME's backend.
func (b Backend) Service() *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: b.Name, Namespace: b.Namespace, Labels: b.Labels, Annotations: maps.Clone(b.Annotations)},
		Spec: corev1.ServiceSpec{
			Type:         corev1.ServiceTypeExternalName,
			ExternalName: b.Host,
			// The target port is what the API server would default it to; set, it is not
			// a zero that differs from the stored Service on every comparison.
			Ports: []corev1.ServicePort{{Port: b.Port, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(b.Port)}},
		},
	}
}

// EnvoyBackend is the backend as an Envoy Gateway Backend with one FQDN endpoint, for
// gateways run by Envoy Gateway, which refuses ExternalName Services. It is unstructured
// because the operator does not depend on Envoy Gateway's module.
func (b Backend) EnvoyBackend() *unstructured.Unstructured {
	labels := make(map[string]any, len(b.Labels))
	for k, v := range b.Labels {
		labels[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": EnvoyGatewayGroup + "/" + EnvoyGatewayVersion,
		"kind":       "Backend",
		"metadata":   map[string]any{"name": b.Name, "namespace": b.Namespace, "labels": labels},
		"spec": map[string]any{
			"endpoints": []any{map[string]any{"fqdn": map[string]any{"hostname": b.Host, "port": int64(b.Port)}}},
		},
	}}
}

// TLSPolicy is the backend's BackendTLSPolicy: it has the backend's name and labels,
// targets the backend (a Service, or an Envoy Gateway Backend), and has the gateway check
// the workload cluster's certificate for the cluster's hostname against the system's
// well-known CAs. OME writes one per backend Service under endpoint.gatewayBackend.tls.
func (b Backend) TLSPolicy() *gatewayv1.BackendTLSPolicy {
	ref := b.objectReference()
	return &gatewayv1.BackendTLSPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: gatewayv1.GroupVersion.String(), Kind: "BackendTLSPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: b.Name, Namespace: b.Namespace, Labels: b.Labels},
		Spec: gatewayv1.BackendTLSPolicySpec{
			TargetRefs: []gatewayv1.LocalPolicyTargetReferenceWithSectionName{{LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{
				Group: ptr.Deref(ref.Group, ""), Kind: ptr.Deref(ref.Kind, "Service"), Name: ref.Name,
			}}},
			Validation: gatewayv1.BackendTLSPolicyValidation{
				WellKnownCACertificates: ptr.To(gatewayv1.WellKnownCACertificatesSystem),
				Hostname:                gatewayv1.PreciseHostname(b.Host),
			},
		},
	}
}
