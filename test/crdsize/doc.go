// Package crdsize checks that a TrafficMap at its CRD's maxima still fits in one etcd write.
//
// The manager writes every TrafficMap, and a map that grows past etcd's request limit
// (1.5 MiB by default) can no longer be written at all: its gates, lifts and drains stop
// reaching the gateway. The CRD's maxLength, maxItems and CEL bounds are what keeps that from
// happening, so the test here walks the generated schema, takes every field at its largest
// value, adds a budget for metadata and managed fields, and fails when the sum is over the
// limit, or when a field has no bound at all.
//
// It also runs the API server's own checks on every generated CRD, the CEL rules' estimated
// cost among them, so that a CRD the API server would refuse fails here rather than when an
// envtest suite starts.
package crdsize
