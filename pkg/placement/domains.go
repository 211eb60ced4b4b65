package placement

import (
	"fmt"
	"net/url"
	"strings"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// CheckEndpointDomain says why an endpoint is outside a WorkloadCluster's
// spec.allowedEndpointDomains, or nil when it is inside them or the list is empty. A host
// is inside a domain when it is the domain or ends in "." and the domain, so the match is
// on whole labels: worker-a.example.com covers llm.worker-a.example.com and not
// llm.evilworker-a.example.com. Case and a trailing dot do not matter. The endpoint is one
// CheckEndpoint accepted, so the host it quotes carries no credential.
func CheckEndpointDomain(endpoint string, domains []omev1beta1.EndpointDomain) error {
	if len(domains) == 0 {
		return nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Hostname() == "" {
		return fmt.Errorf("the endpoint has no host to match spec.allowedEndpointDomains")
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	for _, d := range domains {
		domain := strings.TrimSuffix(strings.ToLower(string(d)), ".")
		if domain != "" && (host == domain || strings.HasSuffix(host, "."+domain)) {
			return nil
		}
	}
	listed := make([]string, len(domains))
	for i, d := range domains {
		listed[i] = string(d)
	}
	return fmt.Errorf("host %q is outside the WorkloadCluster's spec.allowedEndpointDomains [%s]; add its domain there if the cluster serves under it",
		host, strings.Join(listed, " "))
}
