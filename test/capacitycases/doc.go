// Package capacitycases holds spec.routing.capacity blocks with the API server's verdict on
// each, shared by pkg/capacity's unit tests (Validate must agree) and the envtest suite
// (the CRD's OpenAPI and CEL rules must give that verdict), as test/probecases does for
// the probe.
package capacitycases
