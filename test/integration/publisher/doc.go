// Package publisher holds the publisher's integration suite: a control plane with the
// Gateway API standard CRDs and Envoy Gateway's Backend CRD, two workload clusters, the
// controllers in a real manager, and loopback model servers behind two-label host names.
// It checks the routes and backends the publisher writes, its conditions beside the
// routing reconciler's, ownership, withdrawal and clean-up, and, with Envoy Gateway's own
// translator (egctl), that the weights reach the Envoy clusters it would program.
package publisher
