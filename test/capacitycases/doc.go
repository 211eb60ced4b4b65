// Package capacitycases holds spec.routing.capacity blocks with the API server's verdict on
// each, shared by pkg/capacity's unit tests (Validate must agree) and the envtest suite
// (the CRD's OpenAPI and CEL rules must give that verdict), as test/probecases does for
// the probe; and capacity factors with both verdicts, shared by pkg/trafficmap's parser
// and the same suite (FactorCases).
package capacitycases
