package routing

import (
	"context"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// ownWrites keeps the routing reconciler from reconciling its own writes. Every write of
// a map comes back as a watch event, and a reconcile for it has nothing to do; worse, it
// often runs before the cache has the status written just after the spec, so it applied
// that status a second time, and when it landed in the middle of a round of probes it
// wrote the round in two halves. At steady state those echoes were over half the
// reconciles. A version anybody else wrote (a hand edit, the publisher) still brings a
// reconcile, so a hand edit is put back as before.
//
// The watch event of a write can arrive before the write's answer, so while a write of a
// map is in flight its events are held, and once the answer gives the version written,
// the held events of other versions are let through.
type ownWrites struct {
	mu   sync.Mutex
	maps map[types.NamespacedName]*mapWrites
}

type mapWrites struct {
	// versions are the last two resourceVersions written: a reconcile writes at most the
	// spec and then the status.
	versions [2]string
	// writing is set while a write is in flight; held are the events that came meanwhile.
	writing bool
	held    []heldEvent
}

type heldEvent struct {
	resourceVersion string
	deliver         func()
}

func (o *ownWrites) entry(key types.NamespacedName) *mapWrites {
	if o.maps == nil {
		o.maps = map[types.NamespacedName]*mapWrites{}
	}
	m := o.maps[key]
	if m == nil {
		m = &mapWrites{}
		o.maps[key] = m
	}
	return m
}

// writing notes that a write of the map is about to be sent.
func (o *ownWrites) writing(key types.NamespacedName) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.entry(key).writing = true
}

// wrote notes the answer to that write: the resourceVersion written, or "" when the
// write failed or wrote nothing. The events held meanwhile of other versions are
// delivered.
func (o *ownWrites) wrote(key types.NamespacedName, rv string) {
	o.mu.Lock()
	m := o.entry(key)
	if rv != "" {
		m.versions = [2]string{rv, m.versions[0]}
	}
	m.writing = false
	held := m.held
	m.held = nil
	o.mu.Unlock()
	for _, e := range held {
		if e.resourceVersion != rv {
			e.deliver()
		}
	}
}

// do sends one write of the map, which returns the resourceVersion it wrote ("" when it
// wrote nothing), with writing before it and wrote after it.
func (o *ownWrites) do(key types.NamespacedName, write func() (string, error)) error {
	o.writing(key)
	rv, err := write()
	if err != nil {
		rv = ""
	}
	o.wrote(key, rv)
	return err
}

// forget drops what is remembered of a map.
func (o *ownWrites) forget(key types.NamespacedName) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.maps, key)
}

// admit says whether an event of obj should be delivered now. It is not when obj is a
// version the reconciler wrote; while a write is in flight it is held, and deliver is
// called later if it turns out not to be that write's.
func (o *ownWrites) admit(obj client.Object, deliver func()) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	m := o.maps[client.ObjectKeyFromObject(obj)]
	if m == nil {
		return true
	}
	rv := obj.GetResourceVersion()
	if rv != "" && slices.Contains(m.versions[:], rv) {
		return false
	}
	if m.writing {
		m.held = append(m.held, heldEvent{resourceVersion: rv, deliver: deliver})
		return false
	}
	return true
}

// skipOwn wraps the handler of the maps' events so that it sees none of the reconciler's
// own writes. Deletions always pass.
func (o *ownWrites) skipOwn(next handler.EventHandler) handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			deliver := func() { next.Create(ctx, e, q) }
			if o.admit(e.Object, deliver) {
				deliver()
			}
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			deliver := func() { next.Update(ctx, e, q) }
			if o.admit(e.ObjectNew, deliver) {
				deliver()
			}
		},
		DeleteFunc:  next.Delete,
		GenericFunc: next.Generic,
	}
}
