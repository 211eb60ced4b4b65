package controllers

import "net/url"

// probeURL is where a home's probe goes: the policy's path joined to the copy's endpoint.
// url.JoinPath escapes the path and keeps exactly one slash between the two, where string
// concatenation could turn a path into a query or a fragment, or a host into a user name.
// The endpoint has passed placement.CheckEndpoint, so it parses; were it not to, the empty
// URL makes the observer fail the probe without quoting anything.
func probeURL(endpoint, path string) string {
	u, err := url.JoinPath(endpoint, path)
	if err != nil {
		return ""
	}
	return u
}
