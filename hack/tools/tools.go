//go:build tools

// Package tools records the commands this module exists to build, so that go mod tidy
// keeps their dependencies.
package tools

import (
	_ "helm.sh/helm/v3/cmd/helm"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
