package publish

import (
	"fmt"
	"net/netip"

	"github.com/ome-routing/operator/pkg/observer"
)

// A backend host comes from a workload cluster's status, and the global gateway sends
// real user requests to whatever it names. The publish guard lets a host into a route only
// if every address it resolves to at publish time passes the observer's network guard
// (the same code the probes dial through), with loopback closed whatever the probe's
// setting says. Which classes a route refuses:
//
//	class                                             probe                  route
//	metadata (169.254.169.254, fd00:ec2::254, ...)    never                  never
//	link-local, multicast, 0.0.0.0/8, ::, 240.0.0.0/4 never                  never
//	loopback (127.0.0.0/8, ::1)                       allowLoopback          never
//	private (10/8, 172.16/12, 192.168/16, 100.64/10,  allowPrivateNetworks   allowPrivateNetworks
//	  fc00::/7)
//	IP literals, numeric forms (127.1, 0x7f.1, 0),    the addresses decide   never (by form)
//	  localhost
//	public                                            yes                    yes
//
// Loopback differs because a route's backend is reached by the gateway, not by the
// control plane: the gateway's own loopback is the gateway itself, with its admin port.
// A private network is where an installation's ingresses may live, which
// allowPrivateNetworks says for both.

// RouteGuard is the guard a route's backends pass: the probes' guard with loopback
// closed, naming no setting that could open it.
func RouteGuard(probes observer.Guard) observer.Guard {
	return observer.Guard{Private: probes.Private}
}

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
