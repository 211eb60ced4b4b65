// Package capacity holds the rules of routing capacity polls: a poll asks each home of a
// service how many replicas it can serve now, and a home's allocated replicas are lowered
// to that ceiling, never raised.
//
// Everything here is pure: the settings and their validation (shared by the installation
// config and a service's spec.routing.capacity), the registry of report formats with the
// Report format's request and decoding, the window of accepted readings that gives a
// ceiling, the effect of a ceiling on an entry's capacity block, and the CapacityFallback
// condition. The controllers send the polls through the shared observer and write the map.
package capacity
