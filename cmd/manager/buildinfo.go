package main

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ome-routing/operator/pkg/version"
)

// buildInfo is ome_build_info: one series, always 1, whose labels say which build is
// running, so that a dashboard or an alert can tell the versions apart during a rollout
// (join on it, or count by version).
var buildInfo = newBuildInfo(version.Get())

func newBuildInfo(i version.Info) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "ome_build_info",
		Help: "The running manager's build: its version, Go version and VCS revision as labels; the value is always 1.",
		ConstLabels: prometheus.Labels{
			"version":   i.Version,
			"goversion": i.GoVersion,
			"revision":  i.Revision,
		},
	})
	g.Set(1)
	return g
}

// registerBuildInfo registers ome_build_info with reg. Registering it again is not an
// error: tests build several managers in one process, all on controller-runtime's registry.
func registerBuildInfo(reg prometheus.Registerer) error {
	err := reg.Register(buildInfo)
	if already, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok && already.ExistingCollector == buildInfo {
		return nil
	}
	return err
}
