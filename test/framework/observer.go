package framework

import "github.com/ome-routing/operator/config/samples"

// ObserverSettings is samples.LocalObserver: the routing.observer settings every manager of
// the suites, the benches and the soak starts from (the chart's defaults with four
// reconcile workers and loopback open). A test changes the fields its specs are about (a
// lower request cap, shorter maxima, a record interval) on the copy it gets.
var ObserverSettings = samples.LocalObserver
