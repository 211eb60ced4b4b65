package publish

import (
	"strings"
	"testing"
)

// The global hostname refuses what the Gateway API's rule lets through but a gateway would
// misread or over-claim: numeric forms that resolvers take for an IPv4 address, and a
// wildcard over a whole public suffix.
func TestGlobalHostnameRefusesNumericFormsAndPublicSuffixWildcards(t *testing.T) {
	cases := []struct{ host, wantErr string }{
		{"chat.prod.global.example.com", ""},
		{"*.global.example.com", ""},
		{"*.example.com", ""},
		{"*.worker-a.github.io", ""},
		{"1.2.3.4.example.com", ""},
		{"*.com", `global hostname: hostname "*.com" is invalid: a wildcard must not cover the public suffix "com"`},
		{"*.co.uk", `global hostname: hostname "*.co.uk" is invalid: a wildcard must not cover the public suffix "co.uk"`},
		{"*.github.io", `global hostname: hostname "*.github.io" is invalid: a wildcard must not cover the public suffix "github.io"`},
		{"*.internal", `global hostname: hostname "*.internal" is invalid: a wildcard must not cover the public suffix "internal"`},
		{"01.2.3.4", `global hostname: hostname "01.2.3.4" is invalid: host "01.2.3.4" ends in a number`},
		{"127.1", `global hostname: hostname "127.1" is invalid: host`},
		{"2130706433", `global hostname: hostname "2130706433" is invalid: host`},
		{"0x7f.1", `global hostname: hostname "0x7f.1" is invalid: host`},
		{"*.10.0.0", `global hostname: hostname "*.10.0.0" is invalid: host`},
		{"1.2.3.4", `global hostname: hostname "1.2.3.4" must not be an IP address`},
		{"localhost", `global hostname: hostname "localhost" is invalid: host "localhost" is reserved for loopback`},
	}
	for _, tc := range cases {
		got, err := GlobalHostname("prod", "chat", map[string]string{GlobalHostAnnotation: tc.host}, "")
		switch {
		case tc.wantErr == "" && (err != nil || got != tc.host):
			t.Errorf("%s: got %q, %v; want it accepted", tc.host, got, err)
		case tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)):
			t.Errorf("%s: got %q, %v; want an error starting %q", tc.host, got, err, tc.wantErr)
		}
	}
}
