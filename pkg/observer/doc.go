// Package observer is the one HTTP client that every routing probe goes through. It caps
// the requests in flight across every service and cluster, starts each timeout only when
// a request gets its slot, reads at most maxResponseBytes of a body, never follows a
// redirect, refuses link-local destinations at dial time, and measures every request.
package observer
