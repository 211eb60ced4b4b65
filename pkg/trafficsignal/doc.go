// Package trafficsignal reads what the global gateway saw of each workload cluster's real
// requests: the installation's routing.trafficSignal names a Prometheus-compatible query
// API and two PromQL templates, requests and failures, which give one number each for one
// cluster of one service over a window.
//
// The package is pure. It checks the setting (Validate), fills a template with one
// cluster's names (Render) and reads an answer of the API's /api/v1/query (ParseAnswer).
// Sending the queries, through the shared observer and its cap, is the signal poller's
// (controllers/probing).
//
// # Trust
//
// The URL and the templates are the installer's; the values filled into a template come
// from tenants (namespaces, service names) and members (cluster names). Each such value is
// escaped for a PromQL double-quoted string, and Validate refuses a template that uses one
// anywhere else, so no name can change what a query asks.
//
// # Unknown
//
// An answer that cannot be read, an error, a truncated body, no sample, more than one
// series, a value that is not a count, or a sample older than the window gives a reading
// that is not Known. Such a reading moves no weight, as a probe's Unknown result counts
// for nothing.
package trafficsignal
