package envfleet

import (
	"maps"
	"net/netip"
	"slices"
)

// ManagerArgs are the flags the chart gives the manager on a control plane, for a manager's
// binary run on this machine by the suites, the demo and the soak: the settings file, the
// operator's namespace (SecretNamespace, where the fleet's Secrets are), metrics over plain
// HTTP on metricsAddr (a loopback address, read without a token), the health endpoint off,
// and an --observer-host for each of hosts, in name order.
func ManagerArgs(settingsFile, metricsAddr string, hosts map[string]netip.Addr) []string {
	args := []string{
		"--multicluster-config=" + settingsFile,
		"--enable-multicluster",
		"--multicluster-role=control-plane",
		"--operator-namespace=" + SecretNamespace,
		"--metrics-bind-address=" + metricsAddr,
		"--metrics-secure=false",
		"--health-probe-bind-address=0",
	}
	for _, name := range slices.Sorted(maps.Keys(hosts)) {
		args = append(args, "--observer-host="+name+"="+hosts[name].String())
	}
	return args
}
