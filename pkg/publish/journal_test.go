package publish

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestRouteClaimRoundTrip(t *testing.T) {
	key := types.NamespacedName{Namespace: "prod", Name: "chat-global"}
	claim := RouteClaim(key)
	if claim != "v1:httproute:prod/chat-global" {
		t.Fatalf("claim = %q", claim)
	}
	if got, ok := ClaimedRoute(claim); !ok || got != key {
		t.Fatalf("ClaimedRoute(%q) = %v, %v", claim, got, ok)
	}
	for _, bad := range []string{"v2:httproute:prod/chat", "v1:httproute:prod", "v1:httproute:/chat", "v1:httproute:prod/", "v1:httproute:a/b/c", "v1:service:prod/x"} {
		if _, ok := ClaimedRoute(bad); ok {
			t.Errorf("ClaimedRoute(%q) names a route", bad)
		}
	}
}

func TestClaimUnion(t *testing.T) {
	got, err := ClaimUnion([]string{"v1:httproute:b/r"}, "v1:httproute:a/r")
	if err != nil || !slices.Equal(got, []string{"v1:httproute:a/r", "v1:httproute:b/r"}) {
		t.Fatalf("union = %v, %v", got, err)
	}
	if got, _ := ClaimUnion(got, "v1:httproute:a/r"); len(got) != 2 {
		t.Fatalf("a claim held twice: %v", got)
	}
	full := make([]string, MaxClaims)
	for i := range full {
		full[i] = fmt.Sprintf("v1:httproute:ns/r%02d", i)
	}
	if _, err := ClaimUnion(full, full[0]); err != nil {
		t.Fatalf("a full journal re-claiming its own target: %v", err)
	}
	_, err = ClaimUnion(full, "v1:httproute:ns/new")
	if err == nil || err.Error() != "publisher claim union has 33 targets, maximum is 32" {
		t.Fatalf("err = %v", err)
	}
	if stale := StaleClaims([]string{"v1:httproute:a/r", "v1:httproute:b/r"}, "v1:httproute:a/r"); !slices.Equal(stale, []string{"v1:httproute:b/r"}) {
		t.Fatalf("stale = %v", stale)
	}
}

func TestCheckPublisher(t *testing.T) {
	key := types.NamespacedName{Namespace: "prod", Name: "chat"}
	for _, j := range []*omev1beta1.TrafficMapPublisherStatus{
		nil,
		{PublisherName: "other"}, // no claims: nothing of the other publisher's stands
		{PublisherName: PublisherName, ClaimedTargets: []string{"v1:httproute:prod/chat-global"}},
	} {
		if err := CheckPublisher(key, j, PublisherName); err != nil {
			t.Errorf("%+v: %v", j, err)
		}
	}
	err := CheckPublisher(key, &omev1beta1.TrafficMapPublisherStatus{PublisherName: "legacy", ClaimedTargets: []string{"v1:httproute:prod/chat-global"}}, PublisherName)
	want := `TrafficMap prod/chat retains claims for publisher "legacy" while publisher "gatewayapi" is selected`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
	if got := ClaimCollision("v1:httproute:prod/chat-global", types.NamespacedName{Namespace: "prod", Name: "other"}).Error(); got !=
		`publisher target "v1:httproute:prod/chat-global" is already claimed by TrafficMap prod/other` {
		t.Fatalf("collision = %s", got)
	}
}

func TestOptionsDigest(t *testing.T) {
	sum := sha256.Sum256([]byte(`{"version":"v1","publisher":"gatewayapi","options":{}}`))
	if got, want := OptionsDigest(PublisherName, nil), "sha256:"+hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("digest = %s, want %s", got, want)
	}
	a := OptionsDigest(PublisherName, map[string]string{"a": "1", "b": "2"})
	if b := OptionsDigest(PublisherName, map[string]string{"b": "2", "a": "1"}); a != b {
		t.Fatal("the digest depends on the options' order")
	}
	if a == OptionsDigest(PublisherName, map[string]string{"a": "1"}) || a == OptionsDigest("other", map[string]string{"a": "1", "b": "2"}) {
		t.Fatal("different options or publishers give one digest")
	}
}

func journalPlan(weights ...int32) Plan {
	p := Plan{Namespace: "prod", Hostname: "chat.prod.global.example.com",
		Gateway: gatewayv1.ParentReference{Name: "global", Namespace: ptr.To[gatewayv1.Namespace]("gateway-system")},
		Route:   &gatewayv1.HTTPRoute{}}
	p.Route.Name = "chat-global"
	for i, w := range weights {
		p.Backends = append(p.Backends, Backend{Cluster: fmt.Sprintf("worker-%c", 'a'+i), Kind: "ExternalNameService", Port: 80, Weight: w})
	}
	return p
}

func TestLastPositive(t *testing.T) {
	if LastPositive(journalPlan(0, 0), 4, 2) != nil || LastPositive(journalPlan(), 4, 2) != nil {
		t.Fatal("a route that sends nothing is a positive publication")
	}
	last := LastPositive(journalPlan(3, 0), 4, 2)
	if last == nil || last.TrafficMapGeneration != 4 || last.ObservedISVCGeneration != 2 {
		t.Fatalf("last = %+v", last)
	}
	want := []omev1beta1.TrafficMapPublisherTarget{{Target: "v1:cluster:worker-a", Weight: 3}, {Target: "v1:cluster:worker-b", Weight: 0}}
	if !slices.Equal(last.Targets, want) {
		t.Fatalf("targets = %+v", last.Targets)
	}
	if last.PlanCompatibilityDigest != CompatibilityDigest(journalPlan(1, 1)) {
		t.Fatal("weights changed the compatibility digest")
	}
	moved := journalPlan(3, 0)
	moved.Namespace = "routes"
	other := journalPlan(3, 0)
	other.Hostname = "chat.example.com"
	tls := journalPlan(3, 0)
	tls.TLS = true
	for _, p := range []Plan{moved, other, tls} {
		if CompatibilityDigest(p) == last.PlanCompatibilityDigest {
			t.Errorf("%+v has the same compatibility digest", p)
		}
	}
}
