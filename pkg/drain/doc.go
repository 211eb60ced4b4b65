// Package drain reads manual traffic drains and applies them to a routing table, as pure
// functions.
//
// A drain is an entry in the ome.io/traffic-drain annotation of a source InferenceService:
// a JSON object keyed by override ID, each value naming a workload cluster and a reason,
// for example {"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}.
// Parse reads it strictly, because a value the controller half understands would either
// drain too little or too much: duplicate IDs or fields, unknown fields, values that are not
// strings, empty or padded names, and anything after the object are all errors. The
// controller freezes the service's map on such an error rather than guess.
//
// Apply runs after the weights are reduced: each entry that a drain names goes to weight 0
// and lists the drains holding it in drainRefs (sorted); every other weight keeps its value,
// so the remaining clusters keep their ratio, and healthy is left alone because a drain says
// nothing about the cluster's health. When the drains zero a table that had traffic, the
// Routable condition becomes False TrafficDrain (trafficmap.AfterDrains). OverrideActive
// reports whether the drains hold anything.
//
// Cluster names match exactly. A drain naming a cluster that has no entry holds nothing
// now and will hold an entry of that name when one appears.
package drain
