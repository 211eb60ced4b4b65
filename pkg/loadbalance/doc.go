// Package loadbalance decides how the model servers' load moves a service's weights
// (spec.routing.loadBalancing): for each cluster, from what the load signal reads of its
// servers' waiting requests and KV-cache use, the share of its capacity weight it keeps.
// A saturated cluster gives up a step of its share while another is below its target, and
// takes it back in half steps once no cluster is saturated; a minimum interval, a band
// around the target, a hold while a change still takes effect and a floor keep the shares
// from swinging with the load they move or starving a cluster.
// Everything here is a pure function of its inputs: the routing reconciler reads the
// signal, calls Decide and writes the record (Record) on the TrafficMap entry, and
// pkg/trafficmap applies the share to the weight.
package loadbalance
