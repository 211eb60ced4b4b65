// Package promserver starts a real Prometheus (Debian's 2.42 from `make prometheus`) on a
// free loopback port, with a configuration and a data directory of its own in a temporary
// directory, scraping the targets a test names. It waits until the server is ready and
// every target has been scraped successfully, and Query runs an instant query over the
// HTTP API. The data-plane suite scrapes haproxy's own exporter with it, so that the
// traffic signal's query templates are proven against the counters haproxy really keeps.
// Missing says why it cannot run on a machine.
package promserver
