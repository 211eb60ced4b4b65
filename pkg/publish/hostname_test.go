package publish

import (
	"errors"
	"strings"
	"testing"

	"github.com/ome-routing/operator/pkg/config"
)

// The global hostname refuses what the Gateway API's rule lets through but a gateway would
// misread or over-claim: numeric forms that resolvers take for an IPv4 address, and a
// wildcard over a whole public suffix. (The installer's template may name a wildcard; an
// annotation never does, see TestGlobalHostAnnotationPolicy.)
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
		h, err := GlobalHostname("prod", "chat", nil, config.Endpoint{GlobalHostTemplate: tc.host})
		got := h.Host
		switch {
		case tc.wantErr == "" && (err != nil || got != tc.host):
			t.Errorf("%s: got %q, %v; want it accepted", tc.host, got, err)
		case tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)):
			t.Errorf("%s: got %q, %v; want an error starting %q", tc.host, got, err, tc.wantErr)
		}
	}
}

// Which hostnames a service's ome.io/global-host annotation may name, under each
// endpoint.globalHostAnnotation policy, with the guide's template.
func TestGlobalHostAnnotationPolicy(t *testing.T) {
	const tmpl = "{{ .Name }}.{{ .Namespace }}.global.example.com"
	const refused = `global hostname: the ome.io/global-host annotation `
	cases := []struct {
		name   string
		policy config.GlobalHostAnnotationPolicy
		tmpl   string
		host   string
		want   string // "" accepted, else the whole error
	}{
		{"any, left out", "", tmpl, "chat.example.org", ""},
		{"any", config.GlobalHostAny, tmpl, "chat.other.global.example.com", ""},
		{"any, no template", config.GlobalHostAny, "", "chat.example.org", ""},
		{"any, a wildcard", config.GlobalHostAny, tmpl, "*.other.global.example.com",
			refused + `"*.other.global.example.com" is refused: an annotation never names a wildcard hostname`},
		{"under the namespace", config.GlobalHostUnderNamespace, tmpl, "chat-v2.prod.global.example.com", ""},
		{"deeper under the namespace", config.GlobalHostUnderNamespace, tmpl, "a.b.prod.global.example.com", ""},
		{"another namespace's", config.GlobalHostUnderNamespace, tmpl, "chat.other.global.example.com",
			refused + `"chat.other.global.example.com" is refused: endpoint.globalHostAnnotation is UnderNamespace, and it is not under "prod.global.example.com", the suffix endpoint.globalHostTemplate gives namespace prod`},
		{"the suffix itself", config.GlobalHostUnderNamespace, tmpl, "prod.global.example.com",
			refused + `"prod.global.example.com" is refused: endpoint.globalHostAnnotation is UnderNamespace, and it is not under "prod.global.example.com", the suffix endpoint.globalHostTemplate gives namespace prod`},
		{"a look-alike label", config.GlobalHostUnderNamespace, tmpl, "chat.xprod.global.example.com",
			refused + `"chat.xprod.global.example.com" is refused: endpoint.globalHostAnnotation is UnderNamespace, and it is not under "prod.global.example.com", the suffix endpoint.globalHostTemplate gives namespace prod`},
		{"a wildcard under the namespace", config.GlobalHostUnderNamespace, tmpl, "*.prod.global.example.com",
			refused + `"*.prod.global.example.com" is refused: an annotation never names a wildcard hostname`},
		{"a template without the name first", config.GlobalHostUnderNamespace, "{{ .Namespace }}-{{ .Name }}.global.example.com", "x.prod.global.example.com",
			refused + `"x.prod.global.example.com" is refused: endpoint.globalHostAnnotation is UnderNamespace, and endpoint.globalHostTemplate gives namespace prod no suffix (it must render as {{ .Name }}, a dot, and a suffix with the namespace as one of its labels)`},
		{"a template without the namespace", config.GlobalHostUnderNamespace, "{{ .Name }}.global.example.com", "x.global.example.com",
			refused + `"x.global.example.com" is refused: endpoint.globalHostAnnotation is UnderNamespace, and endpoint.globalHostTemplate gives namespace prod no suffix (it must render as {{ .Name }}, a dot, and a suffix with the namespace as one of its labels)`},
		{"disabled", config.GlobalHostDisabled, tmpl, "chat-v2.prod.global.example.com",
			refused + `"chat-v2.prod.global.example.com" is refused: endpoint.globalHostAnnotation is Disabled`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := GlobalHostname("prod", "chat", map[string]string{GlobalHostAnnotation: c.host},
				config.Endpoint{GlobalHostTemplate: c.tmpl, GlobalHostAnnotation: c.policy})
			if c.want == "" {
				if err != nil || got != (GlobalHost{Host: c.host, Annotated: true}) {
					t.Fatalf("got %+v, %v; want it accepted", got, err)
				}
				return
			}
			var refusal *GlobalHostRefused
			if !errors.As(err, &refusal) || err.Error() != c.want {
				t.Fatalf("error:\n%v\nwant a GlobalHostRefused:\n%s", err, c.want)
			}
		})
	}
	// Without an annotation the template names the hostname, under every policy.
	got, err := GlobalHostname("prod", "chat", nil, config.Endpoint{GlobalHostTemplate: tmpl, GlobalHostAnnotation: config.GlobalHostDisabled})
	if err != nil || got != (GlobalHost{Host: "chat.prod.global.example.com"}) {
		t.Fatalf("template: got %+v, %v", got, err)
	}
}
