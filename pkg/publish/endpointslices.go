package publish

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/pkg/observer"
)

// The EndpointSlice fallback (endpoint.gatewayBackend.endpointSlices): next to each
// cluster's ExternalName Service the publisher writes EndpointSlices that hold the IP
// addresses the cluster's serving Gateway reports in its status, for global gateways that
// send to a Service's endpoints rather than resolving its externalName. The Service stays
// ExternalName; the slices are attached to it by the kubernetes.io/service-name label.

// KindEndpointSlice is how messages name a backend's EndpointSlice, as OME's do.
const KindEndpointSlice = "backend EndpointSlice"

// SliceManagedBy is the endpointslice.kubernetes.io/managed-by value of the publisher's
// slices: it tells Kubernetes' EndpointSlice controllers, and people, that these slices
// are not theirs to reconcile.
const SliceManagedBy = "placement-endpoint.ome.io"

// maxSliceAddresses bounds the addresses of one family taken from a Gateway: Gateway
// API allows a Gateway at most 16 status addresses.
const maxSliceAddresses = 16

// BackendAddresses are the IP addresses a workload cluster's serving Gateway reports, by
// family, each list sorted and without duplicates.
type BackendAddresses struct {
	IPv4, IPv6 []netip.Addr
}

// Empty says whether there is no address of either family.
func (a BackendAddresses) Empty() bool { return len(a.IPv4) == 0 && len(a.IPv6) == 0 }

// SliceName is the name of the backend's EndpointSlice of a family: the backend Service's
// name and "-ipv4" or "-ipv6", bounded like the route's name (backend names are 56
// characters, so the bound never cuts them today).
func SliceName(backendName string, family discoveryv1.AddressType) string {
	return boundName(backendName + "-" + strings.ToLower(string(family)))
}

// SliceKeys are both names a backend's slices may have, whichever families its Gateway
// reports now: the publisher claims both, so that an address family that appears later
// never finds its name taken.
func (b Backend) SliceKeys() []string {
	return []string{SliceName(b.Name, discoveryv1.AddressTypeIPv4), SliceName(b.Name, discoveryv1.AddressTypeIPv6)}
}

// EndpointSlices are the backend's slices for addrs: one per family with an address,
// IPv4 first, each with the backend's labels, the Service's name and one ready endpoint
// per address on the backend port.
func (b Backend) EndpointSlices(addrs BackendAddresses) []*discoveryv1.EndpointSlice {
	var out []*discoveryv1.EndpointSlice
	for _, f := range []struct {
		family discoveryv1.AddressType
		addrs  []netip.Addr
	}{{discoveryv1.AddressTypeIPv4, addrs.IPv4}, {discoveryv1.AddressTypeIPv6, addrs.IPv6}} {
		if len(f.addrs) == 0 {
			continue
		}
		labels := make(map[string]string, len(b.Labels)+2)
		for k, v := range b.Labels {
			labels[k] = v
		}
		labels[discoveryv1.LabelServiceName] = b.Name
		labels[discoveryv1.LabelManagedBy] = SliceManagedBy
		endpoints := make([]discoveryv1.Endpoint, 0, len(f.addrs))
		for _, a := range f.addrs {
			endpoints = append(endpoints, discoveryv1.Endpoint{
				Addresses:  []string{a.String()},
				Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
			})
		}
		out = append(out, &discoveryv1.EndpointSlice{
			TypeMeta:    metav1.TypeMeta{APIVersion: discoveryv1.SchemeGroupVersion.String(), Kind: "EndpointSlice"},
			ObjectMeta:  metav1.ObjectMeta{Name: SliceName(b.Name, f.family), Namespace: b.Namespace, Labels: labels},
			AddressType: f.family,
			Endpoints:   endpoints,
			// The Service's one port has no name, so the slice's port has none either: a
			// consumer matches the two by name.
			Ports: []discoveryv1.EndpointPort{{Name: ptr.To(""), Port: ptr.To(b.Port), Protocol: ptr.To(corev1.ProtocolTCP)}},
		})
	}
	return out
}

// GatewayAddresses picks, from a workload cluster's Gateway's status.addresses, the IP
// addresses the publisher may write into a slice. Hostname addresses are skipped: a slice
// holds IPs, and the ExternalName Service already names a host.
//
// Every address goes through guard, the observer's network guard, as a backend host's
// resolved addresses do (guard.go): the addresses come from a member's API server, and a
// member that reported 169.254.169.254 would otherwise have the global gateway send user
// requests to the cloud metadata service. An address the guard refuses is left out;
// when none is left the cluster has no address, and the error says why each was refused
// (the caller reports it as "has no IP status addresses").
func GatewayAddresses(status []gatewayv1.GatewayStatusAddress, guard observer.Guard) (BackendAddresses, error) {
	var out BackendAddresses
	var refused []string
	for _, a := range status {
		if a.Type != nil && *a.Type != gatewayv1.IPAddressType {
			continue
		}
		ip, err := netip.ParseAddr(a.Value)
		if err != nil {
			// Without a type an address may be a hostname (Gateway API defaults the type to
			// IPAddress, so a typed one is not): neither goes into a slice.
			if a.Type != nil {
				refused = append(refused, fmt.Sprintf("%q is not an IP address", a.Value))
			}
			continue
		}
		if ip.Zone() != "" {
			refused = append(refused, fmt.Sprintf("%q has a zone, which an EndpointSlice cannot hold", a.Value))
			continue
		}
		if ip.IsLoopback() {
			// The API server refuses a loopback endpoint address whatever the guard says
			// (allowLoopback is for probes and routes of one-host tests).
			refused = append(refused, fmt.Sprintf("%s is loopback, which an EndpointSlice cannot hold", ip))
			continue
		}
		if err := guard.Check(ip); err != nil {
			refused = append(refused, err.Error())
			continue
		}
		if ip.Unmap().Is4() {
			out.IPv4 = append(out.IPv4, ip.Unmap())
		} else {
			out.IPv6 = append(out.IPv6, ip)
		}
	}
	out.IPv4 = compactAddrs(out.IPv4)
	out.IPv6 = compactAddrs(out.IPv6)
	if out.Empty() {
		if len(refused) == 0 {
			return out, fmt.Errorf("no status address is an IP address")
		}
		return out, fmt.Errorf("every IP status address is refused: %s", strings.Join(refused, "; "))
	}
	return out, nil
}

// compactAddrs sorts addrs, drops duplicates and keeps at most maxSliceAddresses, so that
// the same status gives the same slice whatever its order.
func compactAddrs(addrs []netip.Addr) []netip.Addr {
	slices.SortFunc(addrs, func(a, b netip.Addr) int { return a.Compare(b) })
	addrs = slices.Compact(addrs)
	if len(addrs) > maxSliceAddresses {
		addrs = addrs[:maxSliceAddresses]
	}
	return addrs
}
