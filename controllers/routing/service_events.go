package routing

import (
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/recorder"
)

// serviceEvents is the routing reconciler's recorder. Every event it is given about an
// InferenceService (a gate, a lift, a drain, a capacity cap, a refusal, a home leaving or
// joining the map, a refused setting) is recorded on the service, recorded again on the
// service's TrafficMap once the reconciler has bound one, so that `kubectl describe
// trafficmap` shows it too, and logged at info with its reason and note, so that the
// manager's log says what it decided and why. Events about anything else pass through.
//
// The map is bound by the reconciler after it wrote it (bindMap), because an event needs
// the map's UID and a map just created is not in the cache yet.
type serviceEvents struct {
	events.EventRecorder
	log logr.Logger
	// maps holds, per service, the TrafficMap last written for it (a mapBinding).
	maps sync.Map
}

// mapBinding is a service's TrafficMap, for the service with that UID.
type mapBinding struct {
	serviceUID types.UID
	mapUID     types.UID
}

// NewEventRecorder is the routing reconciler's recorder on mgr: serviceEvents over the
// operator's own recorder (controllers/recorder), which writes each distinct
// cause as its own Event and counts identical ones into a series, each note cut to the
// events API's limit. The manager's recorder (client-go's) would write a home's second
// gate under its first gate's cause.
func NewEventRecorder(mgr ctrl.Manager) (events.EventRecorder, error) {
	rec, err := recorder.ForManager(mgr, "ome-routing")
	if err != nil {
		return nil, err
	}
	return newServiceEvents(rec, mgr.GetLogger().WithName("routing")), nil
}

// newServiceEvents wraps a recorder; log is where the events are logged.
func newServiceEvents(rec events.EventRecorder, log logr.Logger) *serviceEvents {
	return &serviceEvents{EventRecorder: rec, log: log}
}

// Eventf records the event, and for a service also on its map and in the log.
func (s *serviceEvents) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	s.EventRecorder.Eventf(regarding, related, eventtype, reason, action, note, args...)
	isvc, ok := regarding.(*omev1beta1.InferenceService)
	if !ok || isvc == nil {
		return
	}
	text := fmt.Sprintf(note, args...)
	kv := []any{"InferenceService", klog.KObj(isvc), "reason", reason, "type", eventtype, "note", text}
	if wc, ok := related.(*omev1beta1.WorkloadCluster); ok && wc != nil {
		kv = append(kv, "WorkloadCluster", wc.Name)
	}
	s.log.Info("Routing event", kv...)
	key := types.NamespacedName{Namespace: isvc.Namespace, Name: isvc.Name}
	if b, ok := s.maps.Load(key); ok && b.(mapBinding).serviceUID == isvc.UID {
		tm := &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Namespace: isvc.Namespace, Name: isvc.Name, UID: b.(mapBinding).mapUID}}
		s.EventRecorder.Eventf(tm, related, eventtype, reason, action, "%s", text)
	}
}

// bind makes the service's events go on tm too.
func (s *serviceEvents) bind(isvc *omev1beta1.InferenceService, tm *omev1beta1.TrafficMap) {
	if tm.UID == "" {
		return
	}
	s.maps.Store(types.NamespacedName{Namespace: isvc.Namespace, Name: isvc.Name}, mapBinding{serviceUID: isvc.UID, mapUID: tm.UID})
}

// forget drops the service's map, once the map or the service is gone.
func (s *serviceEvents) forget(key types.NamespacedName) {
	s.maps.Delete(key)
}

// mapBinder is what the reconciler needs of a recorder that puts events on maps too; a
// recorder without it (as in unit tests) records on the service alone.
type mapBinder interface {
	bind(*omev1beta1.InferenceService, *omev1beta1.TrafficMap)
	forget(types.NamespacedName)
}

// bindMap makes the service's events go on its map from now on.
func (r *Reconciler) bindMap(isvc *omev1beta1.InferenceService, tm *omev1beta1.TrafficMap) {
	if b, ok := r.Recorder.(mapBinder); ok {
		b.bind(isvc, tm)
	}
}

// forgetMap stops putting the service's events on a map.
func (r *Reconciler) forgetMap(key types.NamespacedName) {
	if b, ok := r.Recorder.(mapBinder); ok {
		b.forget(key)
	}
}
