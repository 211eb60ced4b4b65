// Package v1beta1 holds the ome.io/v1beta1 API types that the routing operator reads and
// writes: InferenceService (the routed service), WorkloadCluster (a registered member
// cluster) and TrafficMap (the per-service routing table the operator keeps). Validation
// that the API server can do lives here as OpenAPI bounds and CEL rules; condition types
// and reasons are exported constants so that code and tests match on one spelling.
//
// +kubebuilder:object:generate=true
// +groupName=ome.io
package v1beta1
