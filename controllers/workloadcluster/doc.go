// Package workloadcluster connects the operator to its workload clusters: the WorkloadCluster
// reconciler (Reconciler) reads each cluster's kubeconfig Secret from the operator's
// namespace, checks it (kubeconfig.go), and keeps a connection and a cache per member in
// Members, which the routing reconciler reads the members' InferenceService copies from.
//
// What it writes, as the only writer of each:
//   - a WorkloadCluster's Ready condition;
//   - the ome_workloadcluster_ready metric (Collectors).
//
// It writes nothing on the members: a member's API server is only read.
package workloadcluster
