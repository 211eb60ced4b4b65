//go:build tools

// Package tools records the Prometheus Operator's API types as a dependency, so that go mod
// tidy keeps them and controller-gen can load them.
package tools

import _ "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
