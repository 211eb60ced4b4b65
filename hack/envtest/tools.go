//go:build tools

// Package envtest pins the packages whose commands the Makefile builds. A main package
// cannot be imported, so these blank imports of their libraries keep go.sum complete for
// `go build k8s.io/kubernetes/cmd/kube-apiserver` and `.../cmd/kubectl`.
package envtest

import (
	_ "k8s.io/kubectl/pkg/cmd"
	_ "k8s.io/kubernetes/cmd/kube-apiserver/app"
)
