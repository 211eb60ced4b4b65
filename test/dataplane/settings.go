package dataplane

import (
	"fmt"
	"time"
)

// Timing is the probe and capacity poll of the installation.
type Timing struct {
	// Period and Timeout are the probe's, and the capacity poll's.
	Period, Timeout time.Duration
	// FailureThreshold and SuccessThreshold are the probe's.
	FailureThreshold, SuccessThreshold int
}

// DefaultTiming probes every second: a gate closes three seconds after a cluster starts
// failing, and lifts two seconds after it recovers.
var DefaultTiming = Timing{Period: time.Second, Timeout: 500 * time.Millisecond, FailureThreshold: 3, SuccessThreshold: 2}

// settings is the manager's multi-cluster settings file: the routing guide's Step 1 probe
// with t's timing, a capacity poll on the servers' report path, an observer that may dial
// loopback (the model servers listen there; production keeps allowLoopback false), and
// the publisher's endpoint: the Gateway HAProxy Ingress runs, with the default backends,
// ExternalName Services, which HAProxy Ingress resolves itself. signal, when not empty, is
// the routing.trafficSignal block.
func settings(t Timing, gateway string, backendPort int, signal string) string {
	if signal != "" {
		signal = `"trafficSignal": ` + signal + ","
	}
	return fmt.Sprintf(`{
  "routing": {%[9]s
    "enabled": true,
    "probe": {
      "path": "/v1/models",
      "method": "GET",
      "acceptStatuses": [200],
      "gateStatuses": [404, 500, 502, 503, 504],
      "period": %[1]q,
      "timeout": %[2]q,
      "failureThreshold": %[3]d,
      "successThreshold": %[4]d,
      "allFailedPolicy": "PreserveTraffic"
    },
    "capacity": {
      "path": "/capacity",
      "method": "GET",
      "format": "Report",
      "samples": 3,
      "quorum": 2,
      "period": %[1]q,
      "timeout": %[2]q,
      "maxAge": %[5]q
    },
    "observer": {
      "maxConcurrentReconciles": 4,
      "maxConcurrentRequests": 16,
      "maxResponseBytes": 65536,
      "minPeriod": "1s",
      "maxSamples": 10,
      "allowLoopback": true
    }
  },
  "endpoint": {
    "globalGateway": %[6]q,
    "backendPort": %[7]d,
    "globalHostTemplate": %[8]q
  }
}
`, t.Period, t.Timeout, t.FailureThreshold, t.SuccessThreshold, 3*t.Period, gateway, backendPort, HostTemplate, signal)
}

// HostTemplate names each service's global host: what a client sends as Host.
const HostTemplate = "{{ .Name }}.{{ .Namespace }}.global.test"
