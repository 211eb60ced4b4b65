package workloadcluster

import "github.com/prometheus/client_golang/prometheus"

// workloadClusterReady is the member metric, registered into controller-runtime's registry
// by the manager (see Collectors).
var workloadClusterReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "ome_workloadcluster_ready",
	Help: "1 when a WorkloadCluster's Ready condition is True, 0 otherwise.",
}, []string{"name"})

// Collectors are the member metrics, for the manager to register.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{workloadClusterReady}
}

// setWorkloadClusterReady records a member's Ready condition.
func setWorkloadClusterReady(name string, ready bool) {
	v := 0.0
	if ready {
		v = 1
	}
	workloadClusterReady.WithLabelValues(name).Set(v)
}

// forgetWorkloadCluster drops the series of a WorkloadCluster that is gone.
func forgetWorkloadCluster(name string) {
	workloadClusterReady.DeleteLabelValues(name)
}
