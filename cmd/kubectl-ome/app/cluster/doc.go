// Package cluster is `kubectl ome cluster status`: the registered workload clusters as the
// control plane records them, read with a bounded list. It reads WorkloadCluster objects
// only: no Secret, no ClusterProfile, and no member's API server.
package cluster
