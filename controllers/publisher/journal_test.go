package publisher

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/publish"
)

var errAPI = errors.New("the API server is unavailable")

// journalFixture is a reconciler whose client fails the calls funcs fail.
func journalFixture(t *testing.T, funcs interceptor.Funcs, objects ...client.Object) *Reconciler {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(objects...).
		WithIndex(&omev1beta1.TrafficMap{}, claimedTargetIndex, claimedTargets).WithInterceptorFuncs(funcs).Build()
	return &Reconciler{Client: c, Reader: c}
}

// claimingMap is chat's map with a journal claiming the route at old.
func claimingMap(old string) *omev1beta1.TrafficMap {
	return &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Namespace: chatKey.Namespace, Name: chatKey.Name},
		Status: omev1beta1.TrafficMapStatus{Publisher: &omev1beta1.TrafficMapPublisherStatus{
			PublisherName: publish.PublisherName, ClaimedTargets: []string{old}}}}
}

// ownRoute is a route of chat's, labelled as the publisher labels it, at weight 1.
func ownRoute(namespace, name string) *gatewayv1.HTTPRoute {
	return &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: publish.Labels(chatKey.Namespace, chatKey.Name)},
		Spec: gatewayv1.HTTPRouteSpec{Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{
			{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{Name: "b"}, Weight: ptr.To[int32](1)}}}}}}}
}

func TestDrainStaleSaysWhichStepFailed(t *testing.T) {
	const old = "v1:httproute:routes/chat-old"
	for name, c := range map[string]struct {
		funcs interceptor.Funcs
		want  string
	}{
		"read": {interceptor.Funcs{Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return errAPI
		}}, "read claimed HTTPRoute routes/chat-old: the API server is unavailable"},
		"drain": {interceptor.Funcs{Patch: func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error {
			return errAPI
		}}, "set HTTPRoute routes/chat-old to weight 0: the API server is unavailable"},
		"delete": {interceptor.Funcs{Delete: func(context.Context, client.WithWatch, client.Object, ...client.DeleteOption) error {
			return errAPI
		}}, "delete drained HTTPRoute routes/chat-old: the API server is unavailable"},
	} {
		t.Run(name, func(t *testing.T) {
			r := journalFixture(t, c.funcs, ownRoute("routes", "chat-old"))
			err := r.drainStale(context.Background(), claimingMap(old), "v1:httproute:prod/chat-global")
			var d *drainFailed
			if !errors.As(err, &d) || err.Error() != c.want {
				t.Fatalf("drainStale() = %v, want a DrainFailed %q", err, c.want)
			}
		})
	}
}

func TestJournalClaimThatCannotListTheOtherMapsIsRetried(t *testing.T) {
	r := journalFixture(t, interceptor.Funcs{List: func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error {
		return errAPI
	}})
	plan := publish.Plan{Route: &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "chat-global"}}}
	_, err := r.journalClaim(context.Background(), claimingMap("v1:httproute:prod/chat-global"), plan)
	var unread *claimUnread
	if !errors.As(err, &unread) || err.Error() != "list TrafficMaps for publisher claim ownership: the API server is unavailable" {
		t.Fatalf("journalClaim() = %v", err)
	}
}

type failingIndexer struct{}

func (failingIndexer) IndexField(context.Context, client.Object, string, client.IndexerFunc) error {
	return errors.New("indexer conflict: map[field:status.publisher.claimedTargets:{}]")
}

func TestIndexClaimedTargetsNamesWhatItIndexes(t *testing.T) {
	err := indexClaimedTargets(failingIndexer{})
	if err == nil || err.Error() != "index TrafficMaps by claimed target: indexer conflict: map[field:status.publisher.claimedTargets:{}]" {
		t.Fatalf("indexClaimedTargets() = %v", err)
	}
}
