// Package traffic sends requests through a gateway to one route, as a user of the global
// endpoint does, and tallies who answered: batches of requests, or a steady stream at a
// fixed rate. It starts no process; the gateway is HAProxy Ingress (internal/haproxyingress)
// and the servers are internal/modelserver's.
package traffic
