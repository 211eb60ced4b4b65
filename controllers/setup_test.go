package controllers

import "testing"

// Setup refuses to run without the namespace it may read kubeconfig Secrets from, rather
// than fall back to reading them anywhere.
func TestSetupNeedsASecretNamespace(t *testing.T) {
	err := Setup(nil, Options{})
	if err == nil || err.Error() != "controllers: SecretNamespace must be set" {
		t.Fatalf("Setup without SecretNamespace = %v, want the refusal", err)
	}
}
