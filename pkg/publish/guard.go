package publish

import (
	"fmt"
	"net/netip"

	"github.com/ome-routing/operator/pkg/observer"
)

// A backend host comes from a workload cluster's status, and the global gateway sends
// real user requests to whatever it names. The publish guard lets a host into a route only
// if every address it resolves to at publish time passes the observer's network guard,
// the same code and settings the probes dial through. Which classes a route refuses:
//
//	class                                             probe and route
//	metadata (169.254.169.254, fd00:ec2::254, ...)    never
//	link-local, multicast, 0.0.0.0/8, ::, 240.0.0.0/4 never
//	loopback (127.0.0.0/8, ::1)                       allowLoopback (tests and demos only)
//	private (10/8, 172.16/12, 192.168/16, 100.64/10,  allowPrivateNetworks
//	  fc00::/7)
//	public                                            yes
//
// Beyond the probe, a route refuses a host by its form alone (IP literals, numeric forms
// such as 127.1, 0x7f.1 or 0, and localhost: see observer.CheckHostForm), since a gateway
// may read those without asking DNS, and it wants every address to pass where the probe
// dials the first one that does, since the gateway may pick any.
//
// Loopback follows allowLoopback rather than being closed for routes: the setting exists
// for tests and demos whose gateway and model servers share one host, where a route to
// loopback is the point; an installation that leaves it off (the default) never publishes
// a host that resolves to loopback, so no member can aim the gateway at itself.

// HostDecision is the publish guard's verdict on one backend host.
type HostDecision struct {
	// Allowed says the host may go into a route.
	Allowed bool
	// Reason says why not, naming the rule; empty when allowed.
	Reason string
	// Resolved says the verdict rests on a lookup (or on the host's form), as opposed to
	// a lookup that failed with no verdict to fall back on.
	Resolved bool
}

// Lookup is the answer to resolving a host: its addresses, or why there are none.
type Lookup struct {
	Addrs []netip.Addr
	Err   error
}

// DecideHost decides whether host may be published under guard, from the answer to
// resolving it now and the last decision made for it (nil when none was).
//
// A host refused by its form is refused without looking at the lookup. A lookup that
// failed, or gave no address, keeps the last decision: a resolver that fails for a moment
// must not take a healthy cluster out of the route, nor let a refused one in. With no
// last decision the host is not published until it resolves (Resolved is false, so the
// caller tries again soon). Otherwise every address must pass: a name with one allowed
// and one refused address is refused, since the gateway may pick either.
func DecideHost(host string, guard observer.Guard, lookup Lookup, last *HostDecision) HostDecision {
	if err := observer.CheckHostForm(host); err != nil {
		return HostDecision{Reason: err.Error(), Resolved: true}
	}
	if lookup.Err != nil || len(lookup.Addrs) == 0 {
		if last != nil && last.Resolved {
			return *last
		}
		why := "it resolves to no address"
		if lookup.Err != nil {
			why = lookup.Err.Error()
		}
		return HostDecision{Reason: fmt.Sprintf("host %q could not be resolved to check its addresses (%s); it is published once it resolves to addresses the guard accepts", host, why)}
	}
	for _, a := range lookup.Addrs {
		if err := guard.Check(a); err != nil {
			return HostDecision{Reason: fmt.Sprintf("host %q resolves to %s: %v", host, a, err), Resolved: true}
		}
	}
	return HostDecision{Allowed: true, Resolved: true}
}
