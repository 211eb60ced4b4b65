// Package modelserver starts real HTTP servers on loopback that stand in for model
// servers: an Endpoint answers the probe path (and, once told to, capacity polls) the way a
// test switches it to, and Servers are one named Endpoint per workload cluster, each on a
// loopback address of its own and all on one port, as a gateway reaches them. The suites
// (through test/framework) and the demo (cmd/demo) count the requests they answer.
package modelserver
