package publish

import (
	"fmt"
	"net/url"

	"github.com/ome-routing/operator/pkg/observer"
)

// InvalidEndpoint is an entry's endpoint that names no backend at all: not an http or
// https URL with a host.
type InvalidEndpoint struct{ why string }

func (e *InvalidEndpoint) Error() string { return "the endpoint " + e.why }

// BackendHost is the host a map entry's backend sends to, from the entry's endpoint, in
// its canonical form (observer.CanonicalHost: lower case, one trailing dot removed), or
// why the entry cannot have a backend: an *InvalidEndpoint (and no host), or a host that
// is no valid backend hostname (returned with the error). The publish guard leaves such an entry out of the route on its own,
// and the plan refuses it with the rest of the map, so the two read endpoints alike.
func BackendHost(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	switch {
	case err != nil:
		return "", &InvalidEndpoint{why: "is not a URL"}
	case u.Scheme != "http" && u.Scheme != "https":
		return "", &InvalidEndpoint{why: fmt.Sprintf("has the scheme %q, not http or https", u.Scheme)}
	case u.Hostname() == "":
		return "", &InvalidEndpoint{why: "has no host"}
	}
	host := observer.CanonicalHost(u.Hostname())
	if err := checkHostname(host, false); err != nil {
		return host, fmt.Errorf("backend hostname: %w", err)
	}
	return host, nil
}
