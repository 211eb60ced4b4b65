package probing

import (
	"net/url"
	"strings"
)

// probeURL is where a home's probe goes: the policy's path joined to the copy's endpoint.
// url.JoinPath escapes the path and keeps exactly one slash between the two, where string
// concatenation could turn a path into a query or a fragment, or a host into a user name.
// The endpoint has passed placement.CheckEndpoint, so it parses; were it not to, the
// endpoint goes to the observer as it is, which refuses to send it as "not a valid URL"
// without quoting it (the operator's own trouble, never a failure of the cluster).
func probeURL(endpoint, path string) string {
	u, err := url.JoinPath(endpoint, path)
	if err != nil {
		return endpoint
	}
	return u
}

// endpointAndURL returns the endpoint and its probe URL for a home to keep. When the URL
// starts with the endpoint, as it does unless JoinPath had to clean the endpoint's path,
// the endpoint returned is that prefix of the URL, so a home keeps one copy of the bytes,
// not two: at 50,000 homes the endpoints are a few megabytes.
func endpointAndURL(endpoint, path string) (string, string) {
	u := probeURL(endpoint, path)
	if strings.HasPrefix(u, endpoint) {
		return u[:len(endpoint)], u
	}
	return endpoint, u
}
