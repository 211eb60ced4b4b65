//go:build tools

// Package haproxyingress pins HAProxy Ingress, a Gateway API controller that drives a real
// haproxy. The data-plane suite, the demo and the failover bench start it against the control
// plane's API server so that requests really travel along the HTTPRoutes the publisher writes.
// It is a module of its own because its dependencies are older than the operator's.
package haproxyingress

import (
	_ "github.com/jcmoraisjr/haproxy-ingress/pkg"
)
