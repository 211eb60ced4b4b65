package controllers

import (
	"net"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// Setup refuses to run without the namespace it may read kubeconfig Secrets from, rather
// than fall back to reading them anywhere.
func TestSetupNeedsASecretNamespace(t *testing.T) {
	err := Setup(nil, Options{})
	if err == nil || err.Error() != "controllers: SecretNamespace must be set" {
		t.Fatalf("Setup without SecretNamespace = %v, want the refusal", err)
	}
}

// A control plane that does not answer discovery while the publisher is being set up is an
// error that says what was being looked up, not a silent "no HTTPRoutes here".
func TestSetupPublisherReportsAFailedLookup(t *testing.T) {
	// A loopback port nobody listens on: discovery is refused at once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	mgr, err := ctrl.NewManager(&rest.Config{Host: "http://" + addr}, ctrl.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	err = SetupPublisher(mgr, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "look up Gateway API HTTPRoutes: ") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("SetupPublisher against an API server that does not answer = %v, want the lookup error", err)
	}
}
