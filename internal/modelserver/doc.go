// Package modelserver starts real HTTP servers on loopback that stand in for model
// servers: an Endpoint answers the probe path (and, once told to, capacity polls) the way a
// test switches it to, and Servers are one named Endpoint per workload cluster, each on a
// loopback address of its own and all on one port, as a gateway reaches them. The suites
// (through test/framework) and the demo (cmd/demo) count the requests they answer.
//
// An Endpoint can also be loaded as a model server is. With a Queue set, its traffic (the
// requests marked with TrafficHeader) is served a few at a time: each request waits its
// turn for one of the queue's slots, first come first served, holds the slot for its
// service time and then gets its answer, which says how long it waited. Probes never wait,
// so a loaded server still passes its probe. Every Endpoint answers MetricsPath with
// vLLM's metrics of that queue (requests waiting and running, cache use, queue time), so a
// real Prometheus can scrape a stand-in as it would scrape vLLM.
package modelserver
