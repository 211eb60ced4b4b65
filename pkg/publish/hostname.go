package publish

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
	"text/template"

	"golang.org/x/net/publicsuffix"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/ome-routing/operator/pkg/observer"
)

// hostTemplateData is all a globalHostTemplate can read.
type hostTemplateData struct {
	Name      string
	Namespace string
}

// GlobalHostname is the service's global hostname: its ome.io/global-host annotation,
// else the installation's template rendered with its name and namespace, else "" (the
// route is withdrawn). Errors start with "parse globalHostTemplate", "render
// globalHostTemplate" or "global hostname:".
func GlobalHostname(namespace, name string, annotations map[string]string, tmpl string) (string, error) {
	host := annotations[GlobalHostAnnotation]
	if host == "" && tmpl != "" {
		t, err := template.New("globalHostTemplate").Option("missingkey=error").Parse(tmpl)
		if err != nil {
			return "", fmt.Errorf("parse globalHostTemplate: %w", err)
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, hostTemplateData{Name: name, Namespace: namespace}); err != nil {
			return "", fmt.Errorf("render globalHostTemplate: %w", err)
		}
		host = buf.String()
	}
	if host == "" {
		return "", nil
	}
	if err := checkHostname(host, true); err != nil {
		return "", fmt.Errorf("global hostname: %w", err)
	}
	return host, nil
}

// checkHostname checks a hostname the way a Gateway API Hostname is: a lowercase DNS-1123
// subdomain, not an IP address; the route's own hostname may start with "*.". Beyond the
// Gateway API's rule, it refuses the forms that resolvers read as an IPv4 address
// (01.2.3.4, 127.1: see observer.CheckHostForm), which the DNS-1123 rule lets through,
// and a wildcard that covers a whole public suffix (*.com, *.co.uk), which would claim
// every name under it on the gateway.
func checkHostname(host string, allowWildcard bool) error {
	if _, err := netip.ParseAddr(host); err == nil {
		return fmt.Errorf("hostname %q must not be an IP address", host)
	}
	check := host
	if allowWildcard {
		check = strings.TrimPrefix(host, "*.")
	}
	if errs := dns1123Subdomain(check); errs != "" {
		return fmt.Errorf("hostname %q is invalid: %s", host, errs)
	}
	if err := observer.CheckHostForm(check); err != nil {
		return fmt.Errorf("hostname %q is invalid: %w", host, err)
	}
	if check != host {
		if suffix, _ := publicsuffix.PublicSuffix(check); suffix == check {
			return fmt.Errorf("hostname %q is invalid: a wildcard must not cover the public suffix %q", host, check)
		}
	}
	return nil
}

func dns1123Subdomain(s string) string { return strings.Join(validation.IsDNS1123Subdomain(s), "; ") }
func dns1123Label(s string) string     { return strings.Join(validation.IsDNS1123Label(s), "; ") }
func dns1035Label(s string) string     { return strings.Join(validation.IsDNS1035Label(s), "; ") }
func labelValue(s string) string       { return strings.Join(validation.IsValidLabelValue(s), "; ") }
func validationPortNum(p int32) string { return strings.Join(validation.IsValidPortNum(int(p)), "; ") }
