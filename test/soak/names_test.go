package soak

import "fmt"

// workers are the workload clusters; the last is the one the run cuts off.
var workers = []string{"worker-a", "worker-b", "worker-c"}

// cutOff is the member whose API server the managers reach through the proxy that cuts it
// off.
var cutOff = workers[len(workers)-1]

// namespace holds the services on every cluster.
const namespace = "soak"

func serviceName(i int) string { return fmt.Sprintf("svc-%03d", i) }
