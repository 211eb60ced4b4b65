package observer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
)

// Probe URLs come from a workload cluster's status, which the control plane does not
// control. The guard keeps a compromised cluster from pointing the prober at the
// control plane's own surroundings: the cloud metadata service above all, and loopback
// and private networks unless the installation says they are where its endpoints live.
//
// The check runs in the dialer, on each address a name resolved to, just before that
// address is dialled. Checking the URL's host instead would miss names that resolve to
// a forbidden address, and resolving once to check and again to dial would let the name
// change its answer in between (DNS rebinding).

// sharedAddressSpace is 100.64.0.0/10 (RFC 6598, carrier-grade NAT). netip's IsPrivate
// leaves it out, but clusters use it for pod and service networks.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

type guard struct {
	allowLoopback bool
	allowPrivate  bool
}

// refusedError is the guard's verdict on one address.
type refusedError struct {
	addr netip.Addr
	// what the address is, in words: "link-local", "loopback", ...
	kind string
	// option names the Options field that would permit the address; empty when none can.
	option string
}

func (e *refusedError) Error() string {
	msg := fmt.Sprintf("destination %s is %s and refused by the observer's network guard", e.addr, e.kind)
	if e.option != "" {
		msg += " (" + e.option + " is off)"
	}
	return msg
}

// check returns nil when addr may be dialled, and a *refusedError otherwise.
func (g guard) check(addr netip.Addr) error {
	// ::ffff:169.254.169.254 reaches the same host as 169.254.169.254. netip's IsX
	// predicates already look through the mapping, but the unspecified comparison and
	// the 100.64.0.0/10 prefix do not.
	a := addr.Unmap()
	switch {
	case !a.IsValid():
		return &refusedError{addr: addr, kind: "not a valid address"}
	case a.IsLinkLocalUnicast():
		// 169.254.0.0/16 and fe80::/10: where the cloud metadata service answers. No
		// option allows it; no model endpoint lives there.
		return &refusedError{addr: addr, kind: "link-local"}
	case a.IsMulticast():
		return &refusedError{addr: addr, kind: "multicast"}
	case a.IsUnspecified():
		// Connecting to 0.0.0.0 or :: reaches a listener on the host itself, so it is
		// loopback in disguise.
		if g.allowLoopback {
			return nil
		}
		return &refusedError{addr: addr, kind: "unspecified (it reaches the local host)", option: "AllowLoopback"}
	case a.IsLoopback():
		if g.allowLoopback {
			return nil
		}
		return &refusedError{addr: addr, kind: "loopback", option: "AllowLoopback"}
	case a.IsPrivate() || sharedAddressSpace.Contains(a):
		if g.allowPrivate {
			return nil
		}
		return &refusedError{addr: addr, kind: "in a private network", option: "AllowPrivateNetworks"}
	}
	return nil
}

// lookupIP is the resolver the dialer uses outside tests.
func lookupIP(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// dialContext is the transport's only way to open a connection. It resolves the host
// itself and dials the resulting addresses as literals, so the address the guard checks
// is the address connected to.
func (o *Observer) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("invalid port %q", portText)}
	}

	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		addrs, err = o.lookupIP(ctx, host)
		if err != nil {
			return nil, &net.OpError{Op: "dial", Net: network, Err: err}
		}
		if len(addrs) == 0 {
			return nil, &net.OpError{Op: "dial", Net: network,
				Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
		}
	}

	// Refused addresses are skipped, not fatal: a name that also resolves to an allowed
	// address is dialled there, which gives the name's owner nothing it could not get by
	// publishing that address alone. The first error is kept because it is the one a
	// person reading the probe message needs, whether it is the guard's or the network's.
	var firstErr error
	for _, ip := range addrs {
		target := netip.AddrPortFrom(ip, uint16(port))
		if err := o.guard.check(ip); err != nil {
			if firstErr == nil {
				firstErr = &net.OpError{Op: "dial", Net: network, Addr: net.TCPAddrFromAddrPort(target), Err: err}
			}
			continue
		}
		conn, err := o.dialer.DialContext(ctx, network, target.String())
		if err == nil {
			return conn, nil
		}
		// A failed dial outranks a refusal: the endpoint was tried and did not answer,
		// which is about its health (see NotSent).
		var refused *refusedError
		if firstErr == nil || errors.As(firstErr, &refused) {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}
