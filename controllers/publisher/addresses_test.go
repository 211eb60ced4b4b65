package publisher

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/publish"
)

// fakeMembers serves each connected cluster's objects from one fake client, counting the
// Gateway reads.
type fakeMembers struct {
	clients map[string]client.Client
	reads   int
}

func (f *fakeMembers) Reader(cluster string) client.Reader {
	if c, ok := f.clients[cluster]; ok {
		return c
	}
	return nil
}

func (f *fakeMembers) GatewayReader(cluster string) client.Reader {
	if c, ok := f.clients[cluster]; ok {
		return countingReader{c, &f.reads}
	}
	return nil
}

type countingReader struct {
	client.Reader
	n *int
}

func (c countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*gatewayv1.Gateway); ok {
		*c.n++
	}
	return c.Reader.Get(ctx, key, obj, opts...)
}

func memberObjects(addrs ...string) []client.Object {
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "serving", Namespace: "gw"}}
	for _, a := range addrs {
		gw.Status.Addresses = append(gw.Status.Addresses, gatewayv1.GatewayStatusAddress{Type: ptr.To(gatewayv1.IPAddressType), Value: a})
	}
	ns := gatewayv1.Namespace("gw")
	return []client.Object{
		&omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "prod"}},
		&gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "prod"},
			Spec: gatewayv1.HTTPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{
				{Kind: ptr.To(gatewayv1.Kind("Service")), Name: "mesh"}, // not a Gateway: skipped
				{Name: "serving", Namespace: &ns},
			}}}},
		gw,
	}
}

func memberClient(t *testing.T, objs ...client.Object) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := omev1beta1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := gatewayv1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
}

func plannedFor(clusters ...string) publish.Plan {
	var p publish.Plan
	for _, c := range clusters {
		p.Backends = append(p.Backends, publish.Backend{Cluster: c})
	}
	return p
}

func TestAddressResolverFailures(t *testing.T) {
	service := types.NamespacedName{Namespace: "prod", Name: "chat"}
	objs := memberObjects("203.0.113.10")
	for _, tc := range []struct {
		name    string
		members MemberAccess
		want    string
	}{
		{"no member access at all", nil, `resolve backend addresses for cluster "a": workload cluster is not connected`},
		{"the cluster is not connected", &fakeMembers{clients: map[string]client.Client{"a": memberClient(t, objs...)}},
			`resolve backend addresses for cluster "b": workload cluster is not connected`},
		{"no copy of the service", &fakeMembers{clients: map[string]client.Client{"a": memberClient(t, objs...), "b": memberClient(t, objs[1:]...)}},
			`resolve backend addresses for cluster "b": read serving HTTPRoute prod/chat: the cluster holds no copy of InferenceService prod/chat`},
		{"no route", &fakeMembers{clients: map[string]client.Client{"a": memberClient(t, objs...), "b": memberClient(t, objs[0], objs[2])}},
			`resolve backend addresses for cluster "b": read serving HTTPRoute prod/chat: httproutes.gateway.networking.k8s.io "chat" not found`},
		{"no Gateway", &fakeMembers{clients: map[string]client.Client{"a": memberClient(t, objs...), "b": memberClient(t, objs[:2]...)}},
			`resolve backend addresses for cluster "b": read serving Gateway gw/serving: `},
		{"no IP address", &fakeMembers{clients: map[string]client.Client{"a": memberClient(t, objs...), "b": memberClient(t, memberObjects()...)}},
			`resolve backend addresses for cluster "b": serving Gateway gw/serving has no IP status addresses: no status address is an IP address`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newAddressResolver(tc.members, observer.Guard{}, time.Minute)
			_, err := r.resolve(context.Background(), service, plannedFor("a", "b"))
			// The fake client's not-found guesses a plural ("gatewaies"); the member
			// suite checks the API server's word for word.
			prefixOnly := strings.HasSuffix(tc.want, ": ")
			if err == nil || (err.Error() != tc.want && (!prefixOnly || !strings.HasPrefix(err.Error(), tc.want))) {
				t.Fatalf("resolve() = %v, want %q", err, tc.want)
			}
		})
	}
}

// A resolution is used for the interval, then read again; so is a failure.
func TestAddressResolverRefreshesAfterTheInterval(t *testing.T) {
	service := types.NamespacedName{Namespace: "prod", Name: "chat"}
	member := memberClient(t, memberObjects("203.0.113.10")...)
	members := &fakeMembers{clients: map[string]client.Client{"a": member}}
	now := time.Unix(1000, 0)
	r := newAddressResolver(members, observer.Guard{}, time.Minute)
	r.now = func() time.Time { return now }
	resolve := func() string {
		t.Helper()
		got, err := r.resolve(context.Background(), service, plannedFor("a"))
		if err != nil {
			return err.Error()
		}
		return got["a"].IPv4[0].String()
	}
	if got := resolve(); got != "203.0.113.10" || members.reads != 1 {
		t.Fatalf("first resolve() = %s after %d reads", got, members.reads)
	}
	gw := &gatewayv1.Gateway{}
	if err := member.Get(context.Background(), client.ObjectKey{Namespace: "gw", Name: "serving"}, gw); err != nil {
		t.Fatal(err)
	}
	gw.Status.Addresses[0].Value = "198.51.100.10"
	if err := member.Update(context.Background(), gw); err != nil {
		t.Fatal(err)
	}
	now = now.Add(59 * time.Second)
	if got := resolve(); got != "203.0.113.10" || members.reads != 1 {
		t.Fatalf("resolve() within the interval = %s after %d reads, want the kept answer and no read", got, members.reads)
	}
	now = now.Add(time.Second)
	if got := resolve(); got != "198.51.100.10" || members.reads != 2 {
		t.Fatalf("resolve() at the interval = %s after %d reads, want the new address", got, members.reads)
	}
	if err := member.Delete(context.Background(), gw); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	if got := resolve(); !strings.Contains(got, "read serving Gateway") {
		t.Fatalf("resolve() with the Gateway gone = %s", got)
	}
	if err := member.Create(context.Background(), &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "serving", Namespace: "gw"},
		Status: gatewayv1.GatewayStatus{Addresses: []gatewayv1.GatewayStatusAddress{{Value: "203.0.113.20"}}}}); err != nil {
		t.Fatal(err)
	}
	reads := members.reads
	if got := resolve(); !strings.Contains(got, "read serving Gateway") || members.reads != reads {
		t.Fatalf("resolve() within the interval after a failure = %s after %d more reads, want the kept failure and no read", got, members.reads-reads)
	}
	now = now.Add(time.Minute)
	if got := resolve(); got != "203.0.113.20" {
		t.Fatalf("resolve() an interval after a failure = %s, want a fresh read", got)
	}
}

// hangingReader is a member API server that answers no read, as one that hangs does once
// the member timeout cuts the read short.
type hangingReader struct {
	client.Reader
	reads *int
}

func (h hangingReader) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	*h.reads++
	return errors.New(`Get "https://member.example.test/apis/gateway.networking.k8s.io/v1/namespaces/prod/httproutes/chat": context deadline exceeded`)
}

type hangingMembers struct {
	copies client.Client
	reads  int
}

func (h *hangingMembers) Reader(string) client.Reader { return h.copies }
func (h *hangingMembers) GatewayReader(string) client.Reader {
	return hangingReader{h.copies, &h.reads}
}

// A member that does not answer costs one read per interval, whichever services are on it:
// the others fail at once with the same error, so a hanging member cannot hold the
// publisher's workers service after service.
func TestAddressResolverFailsEveryServiceAtOnceOnAMemberThatDoesNotAnswer(t *testing.T) {
	members := &hangingMembers{copies: memberClient(t,
		&omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "prod"}},
		&omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: "code", Namespace: "prod"}})}
	now := time.Unix(1000, 0)
	r := newAddressResolver(members, observer.Guard{}, time.Minute)
	r.now = func() time.Time { return now }
	for _, name := range []string{"chat", "code", "chat"} {
		_, err := r.resolve(context.Background(), types.NamespacedName{Namespace: "prod", Name: name}, plannedFor("a"))
		if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") {
			t.Fatalf("%s: resolve() = %v", name, err)
		}
	}
	if members.reads != 1 {
		t.Fatalf("%d reads of a member that does not answer within one interval, want 1", members.reads)
	}
	now = now.Add(time.Minute)
	if _, err := r.resolve(context.Background(), types.NamespacedName{Namespace: "prod", Name: "code"}, plannedFor("a")); err == nil || members.reads != 2 {
		t.Fatalf("after the interval: %v after %d reads, want a fresh read", err, members.reads)
	}
}
