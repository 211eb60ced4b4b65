package placement

import (
	"fmt"
	"net/netip"
	"net/url"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/ome-routing/operator/pkg/observer"
)

// MaxEndpointLength is the TrafficMap entry's limit on an endpoint, in characters (the
// CRD's maxLength). A longer status.url could never be written into the map.
const MaxEndpointLength = 2048

// CheckEndpoint says why a copy's status.url cannot be routed to, or nil when it can. A
// workload cluster writes that status, so the URL is not trusted: a password or token in
// its user information, query or fragment would be copied into the TrafficMap, the
// placement status and every probe message, and a URL past the map's limit would make
// every write of the map fail. The error never quotes the URL, not even a part of it, so
// it may go into events and logs as it is.
func CheckEndpoint(raw string) error {
	if n := utf8.RuneCountInString(raw); n > MaxEndpointLength {
		return fmt.Errorf("it is %d characters long, over the limit of %d", n, MaxEndpointLength)
	}
	// url.Parse's own error quotes the input, so only the fact is kept.
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("it is not a URL")
	}
	switch {
	case u.User != nil:
		return fmt.Errorf("it carries user information")
	case u.RawQuery != "" || u.ForceQuery:
		return fmt.Errorf("it has a query")
	case u.Fragment != "" || u.RawFragment != "":
		return fmt.Errorf("it has a fragment")
	case u.Opaque != "" || u.Hostname() == "":
		return fmt.Errorf("it has no host")
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("its scheme is not http or https")
	}
	// The route's backend must be able to name the host: a DNS name (in the canonical
	// form the publisher writes, lower case without one trailing dot) or an IP address,
	// which the probe may reach and the publish guard then keeps out of the route alone.
	host := observer.CanonicalHost(u.Hostname())
	if _, err := netip.ParseAddr(host); err != nil && len(validation.IsDNS1123Subdomain(host)) > 0 {
		return fmt.Errorf("its host is neither a DNS name (RFC 1123) nor an IP address")
	}
	return nil
}
