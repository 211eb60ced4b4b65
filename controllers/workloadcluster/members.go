package workloadcluster

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
)

// Members holds one live connection per registered workload cluster: a cache of the
// InferenceService copies on it, watched so that a change there reaches the source's map
// within moments, and a client for the member's /version health check.
type Members struct {
	scheme *runtime.Scheme
	// timeout bounds each call to a member, so one that stops answering only ever costs
	// its own reconcile this long, never the others'.
	timeout time.Duration
	// dial opens every connection to a member, through the probes' network guard.
	dial func(ctx context.Context, network, address string) (net.Conn, error)
	// events receives every changed copy; the routing controller maps it to its source.
	events chan event.GenericEvent

	// base outlives any reconcile: member caches run until they are replaced or the
	// manager stops.
	base   context.Context
	stop   context.CancelFunc
	mu     sync.RWMutex
	byName map[string]*member
}

type member struct {
	fingerprint [sha256.Size]byte
	cache       cache.Cache
	discovery   discovery.DiscoveryInterface
	// gateways reads the member's Gateways and HTTPRoutes (members_gateways.go).
	gateways client.Client
	cancel   context.CancelFunc
}

// NewMembers returns an empty member set. timeout bounds every call to a member. Every
// connection to a member is dialled through obs's network guard (nil: the guard of an
// installation that opens nothing), as a probe's would be: a kubeconfig or a
// ClusterProfile names the server, and neither may point the manager, with a member's
// credential, at the cloud metadata service or at networks the installation keeps closed.
func NewMembers(scheme *runtime.Scheme, timeout time.Duration, obs *observer.Observer) *Members {
	base, stop := context.WithCancel(context.Background())
	return &Members{
		scheme:  scheme,
		timeout: timeout,
		dial:    obs.DialMember,
		events:  make(chan event.GenericEvent, 1024),
		base:    base,
		stop:    stop,
		byName:  map[string]*member{},
	}
}

// Events is the channel of changed copies on any member.
func (m *Members) Events() <-chan event.GenericEvent { return m.events }

// Start waits for the manager to stop, then closes every member connection.
func (m *Members) Start(ctx context.Context) error {
	<-ctx.Done()
	m.stop()
	return nil
}

// Connect makes sure the member named name is connected with cfg and that its API server
// answers /version. identity is what cfg was built from (the kubeconfig, or what a
// ClusterProfile gave): when it changes, the connection is replaced.
func (m *Members) Connect(ctx context.Context, name string, identity []byte, cfg *rest.Config) error {
	fp := sha256.Sum256(identity)
	m.mu.RLock()
	cur := m.byName[name]
	m.mu.RUnlock()
	if cur != nil && cur.fingerprint == fp {
		return m.ping(ctx, cur)
	}

	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = m.timeout
	cfg.Dial = m.dial
	cfg.Wrap(refuseProtocolSwitch)
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	gateways, err := newGatewayClient(cfg, m.scheme)
	if err != nil {
		return err
	}
	next := &member{fingerprint: fp, discovery: disc, gateways: gateways}
	if err := m.ping(ctx, next); err != nil {
		return err
	}
	if err := m.startCache(ctx, name, next, cfg); err != nil {
		return err
	}
	m.mu.Lock()
	old := m.byName[name]
	m.byName[name] = next
	m.mu.Unlock()
	if old != nil {
		old.cancel()
	}
	m.notifyAll(next)
	return nil
}

// ping asks the member's /version, for at most the member timeout whatever the server
// sends: rest.Config.Timeout bounds an ordinary answer, and the wait here bounds
// everything else, since the reconcile's own context has no deadline.
func (m *Members) ping(ctx context.Context, mem *member) error {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := mem.discovery.ServerVersion()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("GET /version: %w", err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("GET /version: no answer within %s", m.timeout)
	}
}

func (m *Members) startCache(ctx context.Context, name string, mem *member, cfg *rest.Config) error {
	// Reads of copies come from this cache; no request to the member is made per
	// reconcile, and the reflector's own timeouts keep a dead member from blocking it.
	cacheCfg := rest.CopyConfig(cfg)
	cacheCfg.Timeout = 0
	c, err := cache.New(cacheCfg, cache.Options{Scheme: m.scheme, Mapper: memberMapper})
	if err != nil {
		return err
	}
	inf, err := c.GetInformer(ctx, &omev1beta1.InferenceService{}, cache.BlockUntilSynced(false))
	if err != nil {
		return err
	}
	forward := func(obj any) {
		if o, ok := obj.(client.Object); ok {
			select {
			case m.events <- event.GenericEvent{Object: o}:
			case <-m.base.Done():
			}
		}
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    forward,
		UpdateFunc: func(_, obj any) { forward(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			forward(obj)
		},
	}); err != nil {
		return err
	}
	cacheCtx, cancel := context.WithCancel(m.base)
	go func() { _ = c.Start(cacheCtx) }()
	syncCtx, syncCancel := context.WithTimeout(ctx, m.timeout)
	defer syncCancel()
	if !c.WaitForCacheSync(syncCtx) {
		cancel()
		return fmt.Errorf("list InferenceServices on member %s: cache did not sync within %s", name, m.timeout)
	}
	mem.cache, mem.cancel = c, cancel
	return nil
}

// memberMapper maps the one kind a member cache holds. Without it each cache builds a
// REST mapper from its member's discovery: requests at every connect, and about 340 KiB
// of heap per member (make bench-fleet's heap profile), for a mapping that is fixed.
var memberMapper = func() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{omev1beta1.GroupVersion})
	m.Add(omev1beta1.GroupVersion.WithKind("InferenceService"), meta.RESTScopeNamespace)
	return m
}()

// notifyAll sends every copy the new connection sees, so the routing controller reads
// the member again through the new cache.
func (m *Members) notifyAll(mem *member) {
	list := &omev1beta1.InferenceServiceList{}
	if err := mem.cache.List(m.base, list); err != nil {
		return
	}
	for i := range list.Items {
		select {
		case m.events <- event.GenericEvent{Object: &list.Items[i]}:
		case <-m.base.Done():
			return
		}
	}
}

// Disconnect closes the member's connection, if there is one.
func (m *Members) Disconnect(name string) {
	m.mu.Lock()
	cur := m.byName[name]
	delete(m.byName, name)
	m.mu.Unlock()
	if cur != nil {
		cur.cancel()
	}
}

// Reader is the cache of the member's InferenceService copies, or nil when the member is
// not connected.
func (m *Members) Reader(name string) client.Reader {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if cur := m.byName[name]; cur != nil {
		return cur.cache
	}
	return nil
}
