package trafficmap

import (
	"fmt"
	"net/url"
	"strconv"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/text"
)

// The probe goes to the copy's status.url, on the port that URL names (or its scheme's,
// 80 or 443), while the global route sends users' requests to the same host on
// endpoint.backendPort. When the two differ, a passing probe proves the wrong port: the
// gateway's port may be closed while every probe passes. The operator cannot tell which
// port is meant, so it changes no weight and says so on the entry instead.

// PortWarning is the warning for an entry whose probe goes to endpoint while the route
// sends to backendPort, "" when the ports are the same or there is nothing to compare
// (no route port, or an endpoint that is no URL with a host).
func PortWarning(endpoint string, backendPort int32) string {
	if backendPort <= 0 || endpoint == "" {
		return ""
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	port, named := u.Port(), "the port of the copy's status.url"
	if port == "" {
		switch u.Scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		default:
			return ""
		}
		named = "the default port of the copy's status.url scheme " + u.Scheme
	}
	if n, err := strconv.Atoi(port); err == nil && n == int(backendPort) {
		return ""
	}
	return fmt.Sprintf("the probe goes to port %s (%s), the global route to port %d (endpoint.backendPort): "+
		"a passing probe does not show that port %d answers", port, named, backendPort, backendPort)
}

// MaxWarningBytes is the longest warning an entry carries: the CRD's maxLength. A port
// of many leading zeros is the only way to reach it.
const MaxWarningBytes = 256

// WithPortWarnings sets each entry's warning for the route's backendPort: entries a probe
// runs for get PortWarning's, the others none (no probe claims anything about a port).
func WithPortWarnings(entries []omev1beta1.TrafficMapEntry, probed bool, backendPort int32) []omev1beta1.TrafficMapEntry {
	for i := range entries {
		entries[i].Warning = ""
		if probed {
			entries[i].Warning = text.Cap(PortWarning(entries[i].Endpoint, backendPort), MaxWarningBytes)
		}
	}
	return entries
}
