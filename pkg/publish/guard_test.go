package publish

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/ome-routing/operator/pkg/observer"
)

func addrs(list ...string) Lookup {
	out := make([]netip.Addr, len(list))
	for i, a := range list {
		out[i] = netip.MustParseAddr(a)
	}
	return Lookup{Addrs: out}
}

// TestDecideHostTable has a row for every class of the route guard's table, under the
// probes' strictest guard and under one that opens loopback and private networks.
func TestDecideHostTable(t *testing.T) {
	strict := observer.DefaultGuard()
	open := observer.Guard{
		Loopback: observer.Allowance{Allowed: true, Setting: observer.LoopbackSetting},
		Private:  observer.Allowance{Allowed: true, Setting: observer.PrivateSetting},
	}
	const ok = ""
	cases := []struct {
		name         string
		host         string
		lookup       Lookup
		strict, open string // "" allowed, else a part of the reason
	}{
		{"public", "llm.worker-a.example.com", addrs("203.0.113.10"), ok, ok},
		{"public IPv6", "llm.worker-a.example.com", addrs("2001:db8::10"), ok, ok},
		{"metadata by name (GCP)", "metadata.google.internal", addrs("169.254.169.254"), "link-local", "link-local"},
		{"metadata by name (AWS)", "instance-data.ec2.internal", addrs("169.254.169.254"), "link-local", "link-local"},
		{"AWS IPv6 metadata", "imds.evil.test", addrs("fd00:ec2::254"), "a cloud metadata address", "a cloud metadata address"},
		{"Alibaba metadata", "meta.evil.test", addrs("100.100.100.200"), "a cloud metadata address", "a cloud metadata address"},
		{"zoned metadata in NAT64", "nat64.evil.test", addrs("64:ff9b::a9fe:a9fe%eth0"), "NAT64 embedding 169.254.169.254", "NAT64 embedding 169.254.169.254"},
		{"link-local IPv6", "router.evil.test", addrs("fe80::1"), "link-local", "link-local"},
		{"multicast", "mc.evil.test", addrs("224.0.0.1"), "multicast", "multicast"},
		{"this network", "zero.evil.test", addrs("0.0.0.0"), "0.0.0.0/8", "0.0.0.0/8"},
		{"unspecified IPv6, zoned", "any.evil.test", addrs("::%x"), "unspecified", "unspecified"},
		{"reserved", "e.evil.test", addrs("240.0.0.1"), "240.0.0.0/4", "240.0.0.0/4"},
		// Loopback follows allowLoopback, as for the probes.
		{"loopback", "lo.evil.test", addrs("127.0.0.1"), "loopback and refused by the observer's network guard (routing.observer.allowLoopback is off)", ok},
		{"loopback IPv6", "lo6.evil.test", addrs("::1"), "loopback", ok},
		{"loopback in 6to4", "lo4.evil.test", addrs("2002:7f00:1::"), "loopback", ok},
		// Private networks follow allowPrivateNetworks.
		{"private", "ingress.internal.example", addrs("10.0.0.7"), "in a private network and refused by the observer's network guard (routing.observer.allowPrivateNetworks is off)", ok},
		{"the API server's service", "kubernetes.default.svc.cluster.local", addrs("10.96.0.1"), "allowPrivateNetworks is off", ok},
		{"carrier-grade NAT", "cgn.example", addrs("100.64.0.1"), "private", ok},
		{"unique local", "ula.example", addrs("fd00::1"), "private", ok},
		// Every address must pass.
		{"one refused address among allowed ones", "mixed.evil.test", addrs("203.0.113.10", "169.254.169.254"), "resolves to 169.254.169.254", "resolves to 169.254.169.254"},
		// Refused by form, before any lookup.
		{"localhost", "localhost", addrs("203.0.113.10"), "reserved for loopback", "reserved for loopback"},
		{"under localhost", "api.localhost", addrs("203.0.113.10"), "reserved for loopback", "reserved for loopback"},
		{"127.1", "127.1", addrs("203.0.113.10"), "ends in a number", "ends in a number"},
		{"0x7f.1", "0x7f.1", addrs("203.0.113.10"), "ends in a number", "ends in a number"},
		{"2130706433", "2130706433", addrs("203.0.113.10"), "ends in a number", "ends in a number"},
		{"0177.0.0.1", "0177.0.0.1", addrs("203.0.113.10"), "ends in a number", "ends in a number"},
		{"0251.0376.0251.0376", "0251.0376.0251.0376", addrs("203.0.113.10"), "ends in a number", "ends in a number"},
		{"0", "0", addrs("203.0.113.10"), "ends in a number", "ends in a number"},
		{"an IPv4 literal", "203.0.113.10", addrs("203.0.113.10"), "is an IP address", "is an IP address"},
		{"an IPv6 literal", "2001:db8::10", addrs("2001:db8::10"), "is an IP address", "is an IP address"},
	}
	for _, tc := range cases {
		for _, g := range []struct {
			name  string
			guard observer.Guard
			want  string
		}{{"strict", strict, tc.strict}, {"open", open, tc.open}} {
			t.Run(tc.name+"/"+g.name, func(t *testing.T) {
				d := DecideHost(tc.host, g.guard, tc.lookup, nil)
				if !d.Resolved {
					t.Fatalf("%+v is not resolved", d)
				}
				if g.want == ok {
					if !d.Allowed || d.Reason != "" {
						t.Fatalf("refused: %s", d.Reason)
					}
					return
				}
				if d.Allowed || !strings.Contains(d.Reason, g.want) {
					t.Fatalf("decision %+v, want a refusal containing %q", d, g.want)
				}
			})
		}
	}
}

// A lookup that fails keeps the last decision, accepted or refused; with none, the host
// waits outside the route.
func TestDecideHostKeepsTheLastDecisionWhenTheLookupFails(t *testing.T) {
	guard := observer.DefaultGuard()
	accepted := DecideHost("llm.worker-a.example.com", guard, addrs("203.0.113.10"), nil)
	refused := DecideHost("llm.worker-a.example.com", guard, addrs("169.254.169.254"), nil)
	timeout := Lookup{Err: &net.DNSError{Err: "i/o timeout", Name: "llm.worker-a.example.com", IsTimeout: true}}
	notFound := Lookup{Err: &net.DNSError{Err: "no such host", Name: "llm.worker-a.example.com", IsNotFound: true}}
	empty := Lookup{}
	for _, failed := range []Lookup{timeout, notFound, empty, {Err: errors.New("server misbehaving")}} {
		if got := DecideHost("llm.worker-a.example.com", guard, failed, &accepted); got != accepted {
			t.Errorf("after an accepted decision, lookup %v gives %+v, want it kept", failed.Err, got)
		}
		if got := DecideHost("llm.worker-a.example.com", guard, failed, &refused); got != refused {
			t.Errorf("after a refusal, lookup %v gives %+v, want it kept", failed.Err, got)
		}
		first := DecideHost("llm.worker-a.example.com", guard, failed, nil)
		if first.Allowed || first.Resolved || !strings.Contains(first.Reason, "could not be resolved") {
			t.Errorf("with no last decision, lookup %v gives %+v, want an unresolved refusal", failed.Err, first)
		}
		// Still unresolved the next time: an unresolved refusal is not a decision to keep.
		if again := DecideHost("llm.worker-a.example.com", guard, failed, &first); again.Resolved {
			t.Errorf("an unresolved refusal was kept as resolved: %+v", again)
		}
	}
	// A refusal by form does not wait for the resolver at all.
	if d := DecideHost("127.1", guard, timeout, &accepted); d.Allowed || !d.Resolved {
		t.Errorf("127.1 with a failed lookup: %+v, want refused by form", d)
	}
}
