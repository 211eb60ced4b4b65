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

// Guard decides which destination addresses may be used. The observer checks every
// address it dials with one; the publisher checks every address a backend host resolves
// to with another, so both refuse with the same code. The zero value allows only public
// unicast addresses.
type Guard struct {
	// Loopback is what becomes of 127.0.0.0/8 and ::1.
	Loopback Allowance
	// Private is what becomes of 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16,
	// 100.64.0.0/10 and fc00::/7.
	Private Allowance
}

// Allowance is a guard's rule for one class of addresses that a setting can open.
type Allowance struct {
	// Allowed permits the class.
	Allowed bool
	// Setting names what a person changes to permit the class, for a refusal to quote.
	// Empty means that nothing can: the refusal names no setting.
	Setting string
}

// The observer settings that open loopback and private networks, as the chart and the
// configuration file name them.
const (
	LoopbackSetting = "routing.observer.allowLoopback"
	PrivateSetting  = "routing.observer.allowPrivateNetworks"
)

// RefusedError is the guard's verdict on one address.
type RefusedError struct {
	// Addr is the address as it was given, zone included.
	Addr netip.Addr
	// Kind is what the address is, in words: "link-local", "loopback", ...
	Kind string
	// Setting names the setting that would permit the address; empty when none can.
	Setting string
}

func (e *RefusedError) Error() string {
	msg := fmt.Sprintf("destination %s is %s and refused by the observer's network guard", e.Addr, e.Kind)
	if e.Setting != "" {
		msg += " (" + e.Setting + " is off)"
	}
	return msg
}

// Check returns nil when addr may be used, and a *RefusedError otherwise.
func (g Guard) Check(addr netip.Addr) error {
	// A zone says which interface to use and nothing about the destination; Linux ignores
	// it except on link-local addresses. Every rule below judges the address without it,
	// since netip compares zones too: [::%eth0] is not the unspecified address to it, and
	// no prefix contains a zoned address, yet the kernel connects both as if unzoned.
	// ::ffff:169.254.169.254 reaches the same host as 169.254.169.254. netip's IsX
	// predicates already look through the mapping, but the prefixes below do not.
	a := addr.WithZone("").Unmap()
	if embedded, via, ok := embeddedIPv4(a); ok {
		if err := g.Check(embedded); err != nil {
			var r *RefusedError
			if !errors.As(err, &r) {
				return err
			}
			return &RefusedError{Addr: addr, Kind: fmt.Sprintf("%s embedding %s, which is %s", via, embedded, r.Kind), Setting: r.Setting}
		}
		return nil
	}
	switch {
	case !a.IsValid():
		return &RefusedError{Addr: addr, Kind: "not a valid address"}
	case slices.Contains(metadataAddresses, a):
		return &RefusedError{Addr: addr, Kind: "a cloud metadata address"}
	case a.IsLinkLocalUnicast():
		// 169.254.0.0/16 and fe80::/10: where the cloud metadata service answers. No
		// option allows it; no model endpoint lives there.
		return &RefusedError{Addr: addr, Kind: "link-local"}
	case a.IsMulticast():
		return &RefusedError{Addr: addr, Kind: "multicast"}
	case thisNetwork.Contains(a):
		return &RefusedError{Addr: addr, Kind: "in 0.0.0.0/8 (this network)"}
	case a.IsUnspecified():
		// ::, like 0.0.0.0, names no destination; a connection to it reaches the host.
		return &RefusedError{Addr: addr, Kind: "unspecified"}
	case reservedClassE.Contains(a):
		return &RefusedError{Addr: addr, Kind: "in the reserved 240.0.0.0/4"}
	case a.IsLoopback():
		return g.Loopback.verdict(addr, "loopback")
	case a.IsPrivate() || sharedAddressSpace.Contains(a):
		return g.Private.verdict(addr, "in a private network")
	}
	return nil
}

func (al Allowance) verdict(addr netip.Addr, kind string) error {
	if al.Allowed {
		return nil
	}
	return &RefusedError{Addr: addr, Kind: kind, Setting: al.Setting}
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

// dialThrough returns a transport's only way to open a connection, checking every
// address with guard (see dialContext).
func (o *Observer) dialThrough(guard Guard) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		return o.dialContext(ctx, guard, network, address)
	}
}

// dialContext resolves the host itself and dials the resulting addresses as literals, so
// the address the guard checks is the address connected to.
func (o *Observer) dialContext(ctx context.Context, guard Guard, network, address string) (net.Conn, error) {
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
		if err := guard.Check(ip); err != nil {
			if firstErr == nil {
				firstErr = &net.OpError{Op: "dial", Net: network, Addr: net.TCPAddrFromAddrPort(target), Err: err}
			}
			continue
		}
		// The guard judged the address without its zone, so it is dialled without it.
		conn, err := o.dialer.DialContext(ctx, network, netip.AddrPortFrom(ip.WithZone(""), uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		// A failed dial outranks a refusal: the endpoint was tried and did not answer,
		// which is about its health (see NotSent).
		var refused *RefusedError
		if firstErr == nil || errors.As(firstErr, &refused) {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}
