package publish

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Service is the backend as a Service of type ExternalName: the route's gateway resolves
// the workload cluster's hostname and sends to backendPort. This is OME's backend.
func (b Backend) Service() *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: b.Name, Namespace: b.Namespace, Labels: b.Labels},
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
