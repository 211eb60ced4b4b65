package trafficmap

import (
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestPortWarning(t *testing.T) {
	const named8080 = "the probe goes to port 8080 (the port of the copy's status.url), the global route to port 80 (endpoint.backendPort): " +
		"a passing probe does not show that port 80 answers"
	cases := []struct {
		endpoint string
		port     int32
		want     string
	}{
		{"http://llm.worker-a.example.com:8080/qwen", 80, named8080},
		{"http://llm.worker-a.example.com/qwen", 80, ""},
		{"http://llm.worker-a.example.com:80/qwen", 80, ""},
		{"https://llm.worker-a.example.com/qwen", 443, ""},
		{"https://llm.worker-a.example.com/qwen", 80, "the probe goes to port 443 (the default port of the copy's status.url scheme https), " +
			"the global route to port 80 (endpoint.backendPort): a passing probe does not show that port 80 answers"},
		{"http://[2001:db8::1]:8443/", 8443, ""},
		// Nothing to compare: no route port, no endpoint, no host, another scheme.
		{"http://llm.worker-a.example.com:8080/", 0, ""},
		{"", 80, ""},
		{"http://:8080/", 80, ""},
		{"ftp://llm.worker-a.example.com/", 80, ""},
	}
	for _, tc := range cases {
		if got := PortWarning(tc.endpoint, tc.port); got != tc.want {
			t.Errorf("PortWarning(%q, %d) = %q, want %q", tc.endpoint, tc.port, got, tc.want)
		}
	}
}

func TestWithPortWarnings(t *testing.T) {
	entries := func() []omev1beta1.TrafficMapEntry {
		return []omev1beta1.TrafficMapEntry{
			{Cluster: "worker-a", Endpoint: "http://a.example.com:8080"},
			{Cluster: "worker-b", Endpoint: "http://b.example.com", Warning: "stale"},
		}
	}
	got := WithPortWarnings(entries(), true, 80)
	if got[0].Warning == "" || got[1].Warning != "" {
		t.Errorf("probed: warnings %q, %q; want worker-a's only", got[0].Warning, got[1].Warning)
	}
	// Without a probe nothing claims a port: no warning, and an old one goes.
	for _, e := range WithPortWarnings(entries(), false, 80) {
		if e.Warning != "" {
			t.Errorf("unprobed %s: warning %q, want none", e.Cluster, e.Warning)
		}
	}
}
