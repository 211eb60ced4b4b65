// Package get is `kubectl ome get trafficmaps`: the TrafficMaps of a namespace (or of all
// of them) as one table row each, in kubectl's own table layout, or as a List in JSON or
// YAML. The cells are worked out from the map alone; the command reads nothing else.
package get
