// Package failover decides which failover tier each of a service's homes is in: it checks
// a failover setting by the same rules the API server's CEL applies (and the ones CEL
// cannot, such as a label selector's syntax), resolves the service's setting against the
// installation's, and assigns WorkloadClusters to tiers by name and by labels. It does no
// I/O; pkg/trafficmap turns the assignment into weights.
package failover
