package framework

import (
	"context"
	"testing"

	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ome-routing/operator/internal/envfleet"
)

// Watched is one kind a test's watch follows and what it does with each object it sees.
type Watched struct {
	Object  client.Object
	Handler toolscache.ResourceEventHandler
}

// On follows the kind of obj: add is called with each object as it first appears (the
// ones already there when the watch starts included), update with each new version and
// the one before it. Either may be nil.
func On[T client.Object](obj T, add func(T), update func(old, obj T)) Watched {
	var h toolscache.ResourceEventHandlerFuncs
	if add != nil {
		h.AddFunc = func(o any) { add(o.(T)) }
	}
	if update != nil {
		h.UpdateFunc = func(old, o any) { update(old.(T), o.(T)) }
	}
	return Watched{Object: obj, Handler: h}
}

// StartWatch starts a cache of the test's own on cfg with informers for the kinds
// watched, their handlers added, and returns it once every informer has synced, so that
// the handlers have seen everything that existed before. The bench and the soak follow
// the operator's writes with it, from outside the manager. opts.Scheme defaults to
// envfleet.Scheme. The cache stops with ctx.
func StartWatch(ctx context.Context, t testing.TB, cfg *rest.Config, opts cache.Options, watched ...Watched) cache.Cache {
	t.Helper()
	if opts.Scheme == nil {
		opts.Scheme = envfleet.Scheme
	}
	c, err := cache.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range watched {
		inf, err := c.GetInformer(ctx, w.Object)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := inf.AddEventHandler(w.Handler); err != nil {
			t.Fatal(err)
		}
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		t.Fatalf("the watch's informers on %s did not sync", cfg.Host)
	}
	return c
}
