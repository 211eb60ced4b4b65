package dataplane

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/pkg/retry"
)

// TestHAProxyAcceptsEveryRetryConfig checks the backend lines the publisher writes for each
// kind of retry with haproxy itself (haproxy -c): a line haproxy refuses fails its reload,
// which leaves haproxy on its previous configuration for every route, so that later weights
// are lost too.
func TestHAProxyAcceptsEveryRetryConfig(t *testing.T) {
	if _, err := exec.LookPath("haproxy"); err != nil {
		if os.Getenv(haproxyingress.RequireDataPlaneEnv) != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	cases := map[string]retry.Retry{
		"connection failures":     {Attempts: 1, ConnectionFailures: true},
		"statuses":                {Attempts: 2, Codes: []int32{500, 502, 503, 504}},
		"statuses under a budget": {Attempts: 2, Codes: []int32{503}, ConnectionFailures: true, BudgetPercent: 20},
		"codes haproxy lacks":     {Attempts: 1, Codes: []int32{507}},
		"a per-try timeout":       {Attempts: 1, Codes: []int32{503}, PerTryTimeout: 90 * time.Second},
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) {
			a := publish.HAProxyAnnotations(retry.Policy{Retry: &r})
			cfg := "defaults\n  mode http\n  timeout connect 1s\n  timeout client 5s\n  timeout server 5s\n" +
				"frontend f\n  bind 127.0.0.1:8080\n  default_backend b\n" +
				"backend b\n" + a[publish.HAProxyConfigBackend] +
				"  server s1 127.0.0.1:1\n"
			if ts := a[publish.HAProxyTimeoutServer]; ts != "" {
				cfg += "  timeout server " + ts + "\n"
			}
			path := filepath.Join(t.TempDir(), "haproxy.cfg")
			if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("haproxy", "-c", "-f", path).CombinedOutput(); err != nil {
				t.Errorf("haproxy refuses the lines:\n%s\n%s", cfg, out)
			}
		})
	}
}
