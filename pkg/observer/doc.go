// Package observer is the one HTTP client that every routing probe goes through. It caps
// the requests in flight across every service and cluster (a golang.org/x/sync semaphore,
// its slots shared fairly between services), starts each timeout only when a request gets
// its slot, reads at most maxResponseBytes of a body, ends every read at the request's
// deadline (a 101 Switching Protocols is taken as the answer, and what follows it is not
// read), never follows a redirect, refuses link-local destinations at dial time, and
// measures every request.
//
// Do reports what happened as an Outcome rather than an error, because the caller has to
// tell three things apart: an endpoint that answered (whatever its status), an endpoint
// that did not answer properly (a transport or body error, which may gate it), and a
// probe that was abandoned by its caller (Cancelled, which says nothing about the
// endpoint and is thrown away).
//
// The package knows nothing about Kubernetes; the prober owns one Observer built from the
// routing.observer settings and shares it among all homes. Metrics are created with
// NewMetrics and registered by the manager into whatever registry it exports.
package observer
