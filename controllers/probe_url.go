package controllers

import "net/url"

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
