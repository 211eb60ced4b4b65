// Package envfleet starts envtest API servers (each with its etcd) with this project's
// CRDs installed, alone (StartCluster) or as a fleet: a control plane with workload clusters
// registered on it through kubeconfig Secrets (StartFleet). It also installs what those
// servers lack: the Gateway API CRDs, the chart's RBAC for the manager, and copies of a
// service with the status a member's own controllers would report. The integration suites
// (through test/framework) and the demo (cmd/demo) start their clusters with it.
package envfleet
