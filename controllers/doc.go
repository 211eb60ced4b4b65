// Package controllers wires the operator's controllers into a controller-runtime manager:
// the options from the installation's settings (OptionsFor, ObserverOptions), the cache
// limits (CacheOptions), the metrics (RegisterMetrics) and Setup. The controllers live in
// its subpackages, one for each thing they control: workloadcluster (the member
// connections), routing (the TrafficMaps, with the prober and the capacity poller that
// observe the homes) and publisher (the Gateway API objects of each map). They are the only
// code that talks to API servers or sends probes; each gathers its inputs, calls the pure
// decisions in pkg/*, and writes the result.
package controllers
