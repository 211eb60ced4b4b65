package publisher

import (
	"maps"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/pkg/publish"
)

// objectRef names one object the publisher writes.
type objectRef struct {
	apiVersion, kind, namespace, name string
}

// refsOf are the names of the plan's objects.
func refsOf(objects []publish.Object) map[objectRef]bool {
	out := make(map[objectRef]bool, len(objects))
	for _, o := range objects {
		u := o.Object
		out[objectRef{u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName()}] = true
	}
	return out
}

// publications is what the publisher remembers of each map between reconciles. It is
// only an economy: a publisher that starts with an empty memory (a restart, a new
// leader) looks for stale objects once per map and reads everything else from the cache.
type publications struct {
	mu   sync.Mutex
	maps map[types.NamespacedName]*publication
	// claims are the names that must not be published for two maps (a route's name, a
	// hostname on a Gateway), each with the map that holds it and the route that
	// publishes it. The publisher's workers share them, so that two workers publishing two
	// maps at once cannot both take a name that neither finds taken in the cache.
	claims map[string]claimHolder
}

// claimHolder is the map that holds a claim, and its route.
type claimHolder struct {
	owner types.NamespacedName
	route types.NamespacedName
}

type publication struct {
	// claimed are the claims the map holds.
	claimed []string
	// objects are what the last publication wrote; pruned is when objects of the map
	// outside them were last looked for.
	objects map[objectRef]bool
	pruned  time.Time
	// behindSince is when the map was first seen built from an older generation of its
	// service than behindGeneration.
	behindSince      time.Time
	behindGeneration int64
	// withdrawn is why the map's publication was last withdrawn, until it is published
	// again: the event that says so goes out once, even when a second reconcile reads the
	// map from the cache before the first one's Withdrawn condition has reached it.
	withdrawn string
	// held is the message of the hold last announced (see hold), until the map is
	// published again, for the same reason.
	held string
	// holdEnded is whether this process announced the end of the map's last hold (see
	// announceHoldEnded), until a new hold starts: the cache can show the hold's condition
	// to a second reconcile after the first has published.
	holdEnded bool
}

func (p *publications) entry(key types.NamespacedName) *publication {
	if p.maps == nil {
		p.maps = map[types.NamespacedName]*publication{}
	}
	e := p.maps[key]
	if e == nil {
		e = &publication{}
		p.maps[key] = e
	}
	return e
}

// pruneDue says whether to look for the map's stale objects: when the plan's objects are
// not the ones last published (or nothing is remembered), and once per resync interval,
// because an object can be left over in ways no event reports (a failed delete, a
// publisher that stopped halfway).
func (p *publications) pruneDue(key types.NamespacedName, objects map[objectRef]bool, now time.Time, resync time.Duration) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entry(key)
	return e.objects == nil || !maps.Equal(e.objects, objects) || now.Sub(e.pruned) >= resync
}

// pruned notes that nothing of the map's but objects is left.
func (p *publications) pruned(key types.NamespacedName, objects map[objectRef]bool, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entry(key)
	e.objects, e.pruned = objects, now
}

// behind notes that the map lags behind generation of its service, and says how much
// longer that may last (ownerCatchUpGrace in all) before it is a failure (zero: no longer).
func (p *publications) behind(key types.NamespacedName, generation int64, now time.Time) time.Duration {
	grace := ownerCatchUpGrace
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entry(key)
	if e.behindSince.IsZero() || e.behindGeneration != generation {
		e.behindSince, e.behindGeneration = now, generation
	}
	return max(grace-now.Sub(e.behindSince), 0)
}

// caughtUp notes that the map is built from its service's generation.
func (p *publications) caughtUp(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.maps[key]; e != nil {
		e.behindSince, e.behindGeneration = time.Time{}, 0
	}
}

// claim takes names for the map key, whose route is route, and lets go of the other names
// it held. When another map holds one of them, nothing changes, and that name and its
// holder are returned.
func (p *publications) claim(key, route types.NamespacedName, names []string) (string, claimHolder, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.claims == nil {
		p.claims = map[string]claimHolder{}
	}
	for _, n := range names {
		if h, ok := p.claims[n]; ok && h.owner != key {
			return n, h, false
		}
	}
	e := p.entry(key)
	p.releaseLocked(e)
	for _, n := range names {
		p.claims[n] = claimHolder{owner: key, route: route}
	}
	e.claimed, e.withdrawn, e.held = names, "", ""
	return "", claimHolder{}, true
}

// holding notes that the map's route is kept as last published, with message, and says
// whether that is news: the first hold since the map was last published, or one for
// another reason.
func (p *publications) holding(key types.NamespacedName, message string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entry(key)
	news := e.held != message
	e.held, e.holdEnded = message, false
	return news
}

// endingHold notes that the map's hold ends, and says whether that is news: the first
// end this process announces since the hold started (or since it started, after a
// restart, when it never saw the hold).
func (p *publications) endingHold(key types.NamespacedName) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entry(key)
	news := !e.holdEnded
	e.holdEnded = true
	return news
}

// withdrawing notes that the map's publication is withdrawn because of because, and says
// whether that is news: the first withdrawal since the map was last published, or one for
// another reason.
func (p *publications) withdrawing(key types.NamespacedName, because string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entry(key)
	news := e.withdrawn != because
	e.withdrawn = because
	return news
}

// unpublished notes that nothing of the map's is left: it holds no claim any more.
func (p *publications) unpublished(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.maps[key]; e != nil {
		p.releaseLocked(e)
		e.objects, e.held = nil, ""
	}
}

func (p *publications) releaseLocked(e *publication) {
	for _, n := range e.claimed {
		delete(p.claims, n)
	}
	e.claimed = nil
}

// forget drops what is remembered of a map that is gone.
func (p *publications) forget(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.maps[key]; e != nil {
		p.releaseLocked(e)
	}
	delete(p.maps, key)
}
