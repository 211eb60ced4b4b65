package publisher

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// phaseFixture is a reconciler on a fake client that counts every write, for the phases
// that decide without writing.
type phaseFixture struct {
	r      *Reconciler
	writes int
}

func newPhaseFixture(t *testing.T, objects ...client.Object) *phaseFixture {
	t.Helper()
	scheme := testScheme(t)
	f := &phaseFixture{}
	count := func() { f.writes++ }
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objects...).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			count()
			return c.Create(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			count()
			return c.Patch(ctx, obj, p, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			count()
			return c.SubResource(sub).Patch(ctx, obj, p, opts...)
		},
		SubResourceApply: func(ctx context.Context, c client.Client, sub string, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
			count()
			return c.SubResource(sub).Apply(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			count()
			return c.Delete(ctx, obj, opts...)
		},
	}).Build()
	f.r = &Reconciler{Client: c, Reader: c, RoutingEnabled: true, guard: newGuardFixture().publishGuard,
		now: func() time.Time { return time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC) }}
	return f
}

// testScheme knows the kinds the publisher reads and writes.
func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, omev1beta1.AddToScheme, gatewayv1.Install} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	return scheme
}

var chatKey = types.NamespacedName{Namespace: "prod", Name: "chat"}

func chatService(generation int64) *omev1beta1.InferenceService {
	return &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "chat", UID: "isvc-uid", Generation: generation},
		Spec: omev1beta1.InferenceServiceSpec{Placement: &omev1beta1.Placement{}}}
}

// chatMap is the service's map, built from generation builtFrom.
func chatMap(builtFrom int64, conditions ...metav1.Condition) *omev1beta1.TrafficMap {
	return &omev1beta1.TrafficMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "chat", Generation: 7, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: omev1beta1.GroupVersion.String(), Kind: "InferenceService", Name: "chat", UID: "isvc-uid", Controller: ptr.To(true)}}},
		Spec:   omev1beta1.TrafficMapSpec{Service: "chat", ObservedISVCGeneration: builtFrom},
		Status: omev1beta1.TrafficMapStatus{Conditions: conditions},
	}
}

// With routing off the publisher reads the map and does nothing more: it only removes
// what it published, when a map goes.
func TestReadMapWithRoutingOff(t *testing.T) {
	f := newPhaseFixture(t, chatMap(3))
	f.r.RoutingEnabled = false
	s := &publishScope{key: chatKey}
	out := f.r.readMap(context.Background(), s)
	if !out.Done || out.Err != nil || s.tm != nil || f.writes != 0 {
		t.Errorf("routing off: done %t, err %v, map kept %t, %d write(s); want the reconcile ended with nothing written", out.Done, out.Err, s.tm != nil, f.writes)
	}
	f.r.RoutingEnabled = true
	if out := f.r.readMap(context.Background(), s); out.Done || s.tm == nil {
		t.Errorf("routing on: done %t, map read %t; want the next phase to run on the map", out.Done, s.tm != nil)
	}
}

// A map behind its service's generation waits for the routing reconciler within the
// grace, and a frozen one keeps its route past it; neither writes anything. Past the grace
// an unfrozen map is InvalidOwner.
func TestCheckOwnerOfAMapBehindItsService(t *testing.T) {
	refused := metav1.Condition{Type: omev1beta1.TrafficMapSettingsAccepted, Status: metav1.ConditionFalse, Reason: string(omev1beta1.TrafficMapReasonRoutingPolicyRefused)}
	for _, tc := range []struct {
		name      string
		tm        *omev1beta1.TrafficMap
		pastGrace bool
		wantWait  bool
		wantWrite bool
	}{
		{name: "within the grace", tm: chatMap(3), wantWait: true},
		{name: "frozen, past the grace", tm: chatMap(3, refused), pastGrace: true},
		{name: "past the grace", tm: chatMap(3), pastGrace: true, wantWrite: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newPhaseFixture(t, chatService(4), tc.tm)
			f.r.Recorder = events.NewFakeRecorder(16)
			s := &publishScope{key: chatKey, tm: tc.tm}
			if tc.pastGrace {
				start := f.r.now()
				f.r.memory.behind(chatKey, 4, start.Add(-ownerCatchUpGrace-time.Second))
			}
			out := f.r.checkOwner(context.Background(), s)
			if !out.Done || s.isvc != nil {
				t.Fatalf("done %t, owner taken %t: a map behind its service is not planned", out.Done, s.isvc != nil)
			}
			if waits := out.Result.RequeueAfter > 0; waits != tc.wantWait {
				t.Errorf("requeue after %s, want a wait: %t", out.Result.RequeueAfter, tc.wantWait)
			}
			if wrote := f.writes > 0; wrote != tc.wantWrite {
				t.Errorf("%d write(s), want a write (InvalidOwner): %t", f.writes, tc.wantWrite)
			}
		})
	}
}

// A map that is its service's current one goes on to be planned, with the service.
func TestCheckOwnerOfACurrentMap(t *testing.T) {
	f := newPhaseFixture(t, chatService(3), chatMap(3))
	s := &publishScope{key: chatKey, tm: chatMap(3)}
	if out := f.r.checkOwner(context.Background(), s); out.Done || s.isvc == nil || f.writes != 0 {
		t.Errorf("done %t (%v), owner %v, %d write(s); want the plan phase next", out.Done, out.Err, s.isvc, f.writes)
	}
}
