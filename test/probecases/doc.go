// Package probecases is the table of routing probe blocks that both validators must agree
// on: the API server, through the CRD's OpenAPI and CEL rules on RoutingProbe, and
// pkg/probe.Validate, which applies the same rules to the installation config and again at
// reconcile time. Each side has a test that runs every case.
package probecases
