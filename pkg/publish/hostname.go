package publish

import (
	"bytes"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"text/template"

	"golang.org/x/net/publicsuffix"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/observer"
)

// hostTemplateData is all a globalHostTemplate can read.
type hostTemplateData struct {
	Name      string
	Namespace string
}

// GlobalHost is a service's global hostname and where it comes from.
type GlobalHost struct {
	// Host is the hostname, "" when there is none (the route is withdrawn).
	Host string
	// Annotated says the service's ome.io/global-host annotation named it.
	Annotated bool
}

// GlobalHostRefused is an ome.io/global-host annotation that the installation's
// endpoint.globalHostAnnotation policy, or another service's template hostname, refuses.
// The publisher withdraws the service's route and reports it as GlobalHostRefused.
type GlobalHostRefused struct{ Msg string }

func (e *GlobalHostRefused) Error() string { return e.Msg }

func refuseAnnotation(host, format string, args ...any) error {
	return &GlobalHostRefused{Msg: fmt.Sprintf("global hostname: the "+GlobalHostAnnotation+" annotation %q is refused: ", host) +
		fmt.Sprintf(format, args...)}
}

// GlobalHostname is the service's global hostname: its ome.io/global-host annotation as
// ep.HostAnnotation() allows, else ep's template rendered with its name and namespace,
// else none (the route is withdrawn). Errors start with "parse globalHostTemplate",
// "render globalHostTemplate" or "global hostname:"; a refused annotation is a
// *GlobalHostRefused.
func GlobalHostname(namespace, name string, annotations map[string]string, ep config.Endpoint) (GlobalHost, error) {
	if host := annotations[GlobalHostAnnotation]; host != "" {
		if err := checkAnnotated(host, namespace, ep); err != nil {
			return GlobalHost{}, err
		}
		if err := checkHostname(host, false); err != nil {
			return GlobalHost{}, fmt.Errorf("global hostname: %w", err)
		}
		return GlobalHost{Host: host, Annotated: true}, nil
	}
	host, err := TemplateHostname(namespace, name, ep.GlobalHostTemplate)
	if err != nil || host == "" {
		return GlobalHost{}, err
	}
	if err := checkHostname(host, true); err != nil {
		return GlobalHost{}, fmt.Errorf("global hostname: %w", err)
	}
	return GlobalHost{Host: host}, nil
}

// TemplateHostname is the hostname tmpl gives the service namespace/name, "" without a
// template. It is unchecked: GlobalHostname checks the one it uses.
func TemplateHostname(namespace, name, tmpl string) (string, error) {
	if tmpl == "" {
		return "", nil
	}
	t, err := template.New("globalHostTemplate").Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return "", fmt.Errorf("parse globalHostTemplate: %w", err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, hostTemplateData{Name: name, Namespace: namespace}); err != nil {
		return "", fmt.Errorf("render globalHostTemplate: %w", err)
	}
	return buf.String(), nil
}

// checkAnnotated applies the installation's policy to an annotated hostname. A wildcard
// is never accepted from an annotation: it would take every hostname under it that no
// other route holds at the moment, other namespaces' included.
func checkAnnotated(host, namespace string, ep config.Endpoint) error {
	policy := ep.HostAnnotation()
	switch {
	case policy == config.GlobalHostDisabled:
		return refuseAnnotation(host, "endpoint.globalHostAnnotation is %s", policy)
	case strings.HasPrefix(host, "*"):
		return refuseAnnotation(host, "an annotation never names a wildcard hostname")
	case policy != config.GlobalHostUnderNamespace:
		return nil
	}
	suffix, ok := NamespaceSuffix(namespace, ep.GlobalHostTemplate)
	if !ok {
		return refuseAnnotation(host, "endpoint.globalHostAnnotation is %s, and endpoint.globalHostTemplate gives namespace %s no suffix "+
			"(it must render as {{ .Name }}, a dot, and a suffix with the namespace as one of its labels)", policy, namespace)
	}
	if !strings.HasSuffix(host, "."+suffix) {
		return refuseAnnotation(host, "endpoint.globalHostAnnotation is %s, and it is not under %q, the suffix endpoint.globalHostTemplate gives namespace %s",
			policy, suffix, namespace)
	}
	return nil
}

// NamespaceSuffix is the suffix tmpl gives every service of namespace: what follows the
// service's name and a dot, when the template renders every name so and the namespace is
// one of the suffix's labels (so no namespace's suffix is under another's); false when it
// does not.
func NamespaceSuffix(namespace, tmpl string) (string, bool) {
	var suffix string
	for i, name := range []string{"ome-name-a", "ome-name-b"} {
		host, err := TemplateHostname(namespace, name, tmpl)
		rest, found := strings.CutPrefix(host, name+".")
		if err != nil || !found || i > 0 && rest != suffix {
			return "", false
		}
		suffix = rest
	}
	return suffix, slices.Contains(strings.Split(suffix, "."), namespace)
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
