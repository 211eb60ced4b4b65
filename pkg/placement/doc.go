// Package placement decides, as pure functions, which registered workload clusters a
// source InferenceService is placed on (its clusterAffinity against the Ready
// WorkloadClusters) and what each cluster's copy of the service contributes as a home:
// its endpoint and its allocated and ready replicas.
package placement
