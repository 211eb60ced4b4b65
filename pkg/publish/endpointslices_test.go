package publish

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/observer"
)

func statusAddr(t gatewayv1.AddressType, v string) gatewayv1.GatewayStatusAddress {
	return gatewayv1.GatewayStatusAddress{Type: ptr.To(t), Value: v}
}

func ipList(s ...string) []netip.Addr {
	var out []netip.Addr
	for _, a := range s {
		out = append(out, netip.MustParseAddr(a))
	}
	return out
}

func TestGatewayAddresses(t *testing.T) {
	open := observer.Guard{Loopback: observer.Allowance{Allowed: true}, Private: observer.Allowance{Allowed: true}}
	for _, tc := range []struct {
		name    string
		status  []gatewayv1.GatewayStatusAddress
		guard   observer.Guard
		want    BackendAddresses
		wantErr string
	}{
		{name: "IPs of both families, hostnames skipped, sorted and without duplicates",
			status: []gatewayv1.GatewayStatusAddress{statusAddr(gatewayv1.IPAddressType, "203.0.113.10"), statusAddr(gatewayv1.HostnameAddressType, "gw.example.com"),
				statusAddr(gatewayv1.IPAddressType, "2001:db8::1"), statusAddr(gatewayv1.IPAddressType, "198.51.100.10"),
				statusAddr(gatewayv1.IPAddressType, "203.0.113.10"), {Value: "198.51.100.9"}, {Value: "untyped.example.com"}},
			want: BackendAddresses{IPv4: ipList("198.51.100.9", "198.51.100.10", "203.0.113.10"), IPv6: ipList("2001:db8::1")}},
		{name: "an IPv4-mapped IPv6 address is IPv4",
			status: []gatewayv1.GatewayStatusAddress{statusAddr(gatewayv1.IPAddressType, "::ffff:203.0.113.10")},
			want:   BackendAddresses{IPv4: ipList("203.0.113.10")}},
		{name: "hostnames only", status: []gatewayv1.GatewayStatusAddress{statusAddr(gatewayv1.HostnameAddressType, "gw.example.com")},
			wantErr: "no status address is an IP address"},
		{name: "no addresses", wantErr: "no status address is an IP address"},
		{name: "a metadata address is refused, the public one kept",
			status: []gatewayv1.GatewayStatusAddress{statusAddr(gatewayv1.IPAddressType, "169.254.169.254"), statusAddr(gatewayv1.IPAddressType, "203.0.113.10")},
			guard:  open, want: BackendAddresses{IPv4: ipList("203.0.113.10")}},
		{name: "only a metadata address, whatever the settings",
			status: []gatewayv1.GatewayStatusAddress{statusAddr(gatewayv1.IPAddressType, "169.254.169.254")}, guard: open,
			wantErr: "every IP status address is refused: destination 169.254.169.254 is link-local and refused by the observer's network guard"},
		{name: "private addresses follow allowPrivateNetworks",
			status:  []gatewayv1.GatewayStatusAddress{statusAddr(gatewayv1.IPAddressType, "10.0.0.7")},
			guard:   observer.Guard{Private: observer.Allowance{Setting: observer.PrivateSetting}},
			wantErr: "destination 10.0.0.7 is in a private network and refused by the observer's network guard (routing.observer.allowPrivateNetworks is off)"},
		{name: "loopback never goes into a slice, even with allowLoopback",
			status: []gatewayv1.GatewayStatusAddress{statusAddr(gatewayv1.IPAddressType, "127.0.0.1")}, guard: open,
			wantErr: "127.0.0.1 is loopback, which an EndpointSlice cannot hold"},
		{name: "a typed IP that is not one",
			status:  []gatewayv1.GatewayStatusAddress{statusAddr(gatewayv1.IPAddressType, "gw.example.com")},
			wantErr: `"gw.example.com" is not an IP address`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := GatewayAddresses(tc.status, tc.guard)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("GatewayAddresses() error = %v, want one containing %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatalf("GatewayAddresses() = %v", err)
			case !reflect.DeepEqual(got, tc.want):
				t.Fatalf("GatewayAddresses() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestEndpointSlicesOfABackend(t *testing.T) {
	b := Backend{Name: BackendName("prod", "chat", "worker-a"), Namespace: "prod", Cluster: "worker-a", Port: 80,
		Labels: map[string]string{LabelManagedBy: ManagedByValue, LabelCluster: "worker-a"}}
	got := b.EndpointSlices(BackendAddresses{IPv4: ipList("198.51.100.10", "203.0.113.10"), IPv6: ipList("2001:db8::1")})
	if len(got) != 2 {
		t.Fatalf("EndpointSlices() = %d slices, want 2", len(got))
	}
	for i, want := range []struct {
		family discoveryv1.AddressType
		addrs  []string
	}{{discoveryv1.AddressTypeIPv4, []string{"198.51.100.10", "203.0.113.10"}}, {discoveryv1.AddressTypeIPv6, []string{"2001:db8::1"}}} {
		s := got[i]
		if s.Name != b.Name+"-"+strings.ToLower(string(want.family)) || s.AddressType != want.family || s.Namespace != "prod" {
			t.Errorf("slice %d is %s/%s %s", i, s.Namespace, s.Name, s.AddressType)
		}
		if s.Labels[discoveryv1.LabelServiceName] != b.Name || s.Labels[LabelCluster] != "worker-a" || s.Labels[LabelManagedBy] != ManagedByValue ||
			s.Labels[discoveryv1.LabelManagedBy] != SliceManagedBy {
			t.Errorf("slice %s labels = %v", s.Name, s.Labels)
		}
		var got []string
		for _, e := range s.Endpoints {
			got = append(got, e.Addresses...)
			if !ptr.Deref(e.Conditions.Ready, false) {
				t.Errorf("slice %s endpoint %v is not ready", s.Name, e.Addresses)
			}
		}
		if !reflect.DeepEqual(got, want.addrs) || len(s.Ports) != 1 || ptr.Deref(s.Ports[0].Port, 0) != 80 {
			t.Errorf("slice %s endpoints %v ports %v", s.Name, got, s.Ports)
		}
	}
	if keys := b.SliceKeys(); !reflect.DeepEqual(keys, []string{b.Name + "-ipv4", b.Name + "-ipv6"}) {
		t.Errorf("SliceKeys() = %v", keys)
	}
	if only := b.EndpointSlices(BackendAddresses{IPv6: ipList("2001:db8::1")}); len(only) != 1 || only[0].AddressType != discoveryv1.AddressTypeIPv6 {
		t.Errorf("EndpointSlices() of IPv6 only = %v", only)
	}
}

// The plan's objects hold the slices after the Services and before the policies and the
// route, in the backends' name order; without addresses for a cluster there is no plan.
func TestObjectsWithEndpointSlices(t *testing.T) {
	ep := guideEndpoint()
	ep.EndpointSlices, ep.AddressRefreshInterval, ep.BackendTLS = true, time.Minute, true
	tm := makeMap().entry("worker-a", "http://a.example.com", 1).entry("worker-b", "http://b.example.com", 0).obj()
	plan, err := Build(input(tm, ep))
	if err != nil || !plan.EndpointSlices {
		t.Fatalf("Build() = %v, EndpointSlices %v", err, plan.EndpointSlices)
	}
	if _, err := plan.Objects(); err == nil || !strings.Contains(err.Error(), `no Gateway addresses were resolved for cluster "worker-`) {
		t.Fatalf("Objects() without addresses = %v", err)
	}
	plan.Addresses = map[string]BackendAddresses{"worker-a": {IPv4: ipList("203.0.113.10")}, "worker-b": {IPv4: ipList("198.51.100.10"), IPv6: ipList("2001:db8::1")}}
	objects, err := plan.Objects()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, o := range objects {
		kinds = append(kinds, o.Kind)
	}
	want := []string{"backend Service", "backend Service", KindEndpointSlice, KindEndpointSlice, KindEndpointSlice, KindTLSPolicy, KindTLSPolicy, "HTTPRoute"}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("Objects() kinds = %v, want %v", kinds, want)
	}
	envoy := ep
	envoy.BackendKind = config.BackendEnvoyGateway
	if plan, _ := Build(input(tm, envoy)); plan.EndpointSlices {
		t.Error("Envoy Gateway Backends got EndpointSlices")
	}
}
