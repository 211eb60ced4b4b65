// Package haproxyingress starts HAProxy Ingress, a Gateway API controller, with the real
// haproxy it configures, against an envtest control plane, every listener on loopback and
// an /etc/hosts of its own in a private mount namespace. DataPlaneMissing says why it cannot
// run on a machine. The data-plane suite, the failover bench and the demo send their
// requests through it.
package haproxyingress
