package observer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
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

// Ranges that are never a destination, whatever the options say.
var (
	// thisNetwork is 0.0.0.0/8 (RFC 1122): a source-only range. Linux connects 0.0.0.0
	// to the local host, so it is loopback in disguise as well.
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	// reservedClassE is 240.0.0.0/4, with the broadcast address 255.255.255.255 in it.
	reservedClassE = netip.MustParsePrefix("240.0.0.0/4")
)

// metadataAddresses are cloud metadata services that answer outside 169.254.0.0/16: AWS
// over IPv6 and Alibaba Cloud. They sit inside ranges that an option may open (fc00::/7,
// 100.64.0.0/10), so they are refused by name before those ranges are looked at.
var metadataAddresses = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("100.100.100.200"),
}

// IPv6 ranges that carry an IPv4 address, which a translator or relay on the path may
// turn into a connection to that IPv4 address. The embedded address gets the same rules,
// or 64:ff9b::a9fe:a9fe would reach 169.254.169.254 through a NAT64 gateway.
var (
	// nat64 is the well-known NAT64 prefix (RFC 6052): the IPv4 address is the last 32 bits.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
	// sixToFour is 6to4 (RFC 3056): the IPv4 address is bits 16 to 47.
	sixToFour = netip.MustParsePrefix("2002::/16")
	// ipv4Compatible is the deprecated ::a.b.c.d form (RFC 4291): the last 32 bits. :: and
	// ::1 are in it too; they are handled as themselves first.
	ipv4Compatible = netip.MustParsePrefix("::/96")
)

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
	// predicates already look through the mapping, but the prefixes below do not.
	a := addr.Unmap()
	if embedded, via, ok := embeddedIPv4(a); ok {
		if err := g.check(embedded); err != nil {
			var r *refusedError
			if !errors.As(err, &r) {
				return err
			}
			return &refusedError{addr: addr, kind: fmt.Sprintf("%s embedding %s, which is %s", via, embedded, r.kind), option: r.option}
		}
		return nil
	}
	switch {
	case !a.IsValid():
		return &refusedError{addr: addr, kind: "not a valid address"}
	case slices.Contains(metadataAddresses, a.WithZone("")):
		return &refusedError{addr: addr, kind: "a cloud metadata address"}
	case a.IsLinkLocalUnicast():
		// 169.254.0.0/16 and fe80::/10: where the cloud metadata service answers. No
		// option allows it; no model endpoint lives there.
		return &refusedError{addr: addr, kind: "link-local"}
	case a.IsMulticast():
		return &refusedError{addr: addr, kind: "multicast"}
	case thisNetwork.Contains(a):
		return &refusedError{addr: addr, kind: "in 0.0.0.0/8 (this network)"}
	case a.IsUnspecified():
		// ::, like 0.0.0.0, names no destination; a connection to it reaches the host.
		return &refusedError{addr: addr, kind: "unspecified"}
	case reservedClassE.Contains(a):
		return &refusedError{addr: addr, kind: "in the reserved 240.0.0.0/4"}
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

// embeddedIPv4 returns the IPv4 address that an IPv6 address carries, and the form it is
// carried in, for the forms a network may translate into IPv4.
func embeddedIPv4(a netip.Addr) (netip.Addr, string, bool) {
	if !a.Is6() {
		return netip.Addr{}, "", false
	}
	b := a.As16()
	switch {
	case nat64.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), "NAT64", true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), "6to4", true
	case ipv4Compatible.Contains(a) && !a.IsUnspecified() && !a.IsLoopback():
		return netip.AddrFrom4([4]byte(b[12:16])), "IPv4-compatible", true
	}
	return netip.Addr{}, "", false
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
