package probing

import "testing"

func TestProbeURL(t *testing.T) {
	cases := []struct{ endpoint, path, want string }{
		{"http://127.0.0.1:8080", "/v1/models", "http://127.0.0.1:8080/v1/models"},
		{"http://127.0.0.1:8080/", "/v1/models", "http://127.0.0.1:8080/v1/models"},
		{"https://gw.example.com/serving/qwen/", "/v1/models", "https://gw.example.com/serving/qwen/v1/models"},
		// The path stays a path: no query, no fragment, no escape from the endpoint's host.
		{"https://gw.example.com", "/health?x=1#f", "https://gw.example.com/health%3Fx=1%23f"},
		{"https://gw.example.com", "/@evil.test/", "https://gw.example.com/@evil.test/"},
		{"https://gw.example.com/base", "/../../admin", "https://gw.example.com/admin"},
		// Not a URL: handed on as it is, for the observer to refuse as not a valid URL.
		{"https://gw.example.com/%zz", "/v1/models", "https://gw.example.com/%zz"},
	}
	for _, tc := range cases {
		if got := probeURL(tc.endpoint, tc.path); got != tc.want {
			t.Errorf("probeURL(%q, %q) = %q, want %q", tc.endpoint, tc.path, got, tc.want)
		}
		// What a home keeps: the same endpoint and URL, whether or not they share bytes.
		if endpoint, u := endpointAndURL(tc.endpoint, tc.path); endpoint != tc.endpoint || u != tc.want {
			t.Errorf("endpointAndURL(%q, %q) = %q, %q, want %q, %q", tc.endpoint, tc.path, endpoint, u, tc.endpoint, tc.want)
		}
	}
}
