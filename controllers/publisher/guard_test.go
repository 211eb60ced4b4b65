package publisher

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
)

// zoneFile is a resolver whose answers a test changes: a name is re-pointed, or the
// resolver fails, between two publications. It counts the lookups of each name.
type zoneFile struct {
	mu      sync.Mutex
	records map[string][]netip.Addr
	failing bool
	lookups map[string]int
}

func (z *zoneFile) lookup(_ context.Context, host string) ([]netip.Addr, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.lookups[host]++
	if z.failing {
		return nil, &net.DNSError{Err: "i/o timeout", Name: host, IsTimeout: true}
	}
	if a, ok := z.records[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (z *zoneFile) set(host string, addrs ...string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.records[host] = nil
	for _, a := range addrs {
		z.records[host] = append(z.records[host], netip.MustParseAddr(a))
	}
}

func (z *zoneFile) fail(on bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.failing = on
}

func (z *zoneFile) count(host string) int {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.lookups[host]
}

// guardFixture is a publish guard on a fake clock and a zone file, recheck one minute.
type guardFixture struct {
	*publishGuard
	zone *zoneFile
	at   time.Time
	rec  *events.FakeRecorder
	// published are the hosts the map's own published backends name, by cluster, and
	// asked counts the times the guard read them.
	published map[string]string
	asked     int
}

// epoch is where the fake clock starts.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newGuardFixture() *guardFixture {
	f := &guardFixture{zone: &zoneFile{records: map[string][]netip.Addr{}, lookups: map[string]int{}}, at: epoch,
		rec: events.NewFakeRecorder(64)}
	f.publishGuard = newPublishGuard(observer.DefaultGuard(), nil, time.Minute)
	f.lookup = f.zone.lookup
	f.now = func() time.Time { return f.at }
	return f
}

// admitted is which clusters of tm the guard lets into the route.
func (f *guardFixture) admitted(tm *omev1beta1.TrafficMap) []string {
	var out []string
	published := func(context.Context, []string) (map[string]string, error) {
		f.asked++
		return f.published, nil
	}
	for _, e := range f.admit(context.Background(), tm, published, f.rec).Spec.Entries {
		out = append(out, e.Cluster)
	}
	return out
}

// expectNotesStarting fails t for each of wants that no note starts with.
func expectNotesStarting(t *testing.T, notes []string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
			t.Errorf("no event starting %q in %q", want, notes)
		}
	}
}

// notes are the events recorded so far.
func (f *guardFixture) notes() []string {
	var out []string
	for {
		select {
		case e := <-f.rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func guardedMap(entries ...omev1beta1.TrafficMapEntry) *omev1beta1.TrafficMap {
	return &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "chat"},
		Spec: omev1beta1.TrafficMapSpec{Service: "chat", Entries: entries}}
}

func entryAt(cluster, endpoint string) omev1beta1.TrafficMapEntry {
	return omev1beta1.TrafficMapEntry{Cluster: cluster, Endpoint: endpoint, Weight: 1, Healthy: true}
}

func TestPublishGuardAdmitsOnlyWhatTheGuardAccepts(t *testing.T) {
	f := newGuardFixture()
	f.zone.set("llm.worker-a.example.com", "203.0.113.10")
	f.zone.set("metadata.google.internal", "169.254.169.254")
	f.zone.set("localhost.example.com", "127.0.0.1")
	f.zone.set("ingress.worker-d.example.com", "10.0.0.7")
	tm := guardedMap(
		entryAt("worker-a", "http://llm.worker-a.example.com/qwen"),
		entryAt("worker-b", "http://metadata.google.internal/"),
		entryAt("worker-c", "http://localhost.example.com:8080/"),
		entryAt("worker-d", "https://ingress.worker-d.example.com/"),
		entryAt("worker-e", "http://127.1:8080/"),
		entryAt("worker-f", "http://0x7f.1/"),
		omev1beta1.TrafficMapEntry{Cluster: "worker-g", Endpoint: "http://llm.worker-a.example.com/", Refused: "outside its domains"},
	)
	if got := f.admitted(tm); !slices.Equal(got, []string{"worker-a"}) {
		t.Fatalf("admitted %v, want only worker-a", got)
	}
	if len(tm.Spec.Entries) != 7 {
		t.Fatal("admit changed the map it was given")
	}
	notes := f.notes()
	expectNotesStarting(t, notes,
		`Warning BackendRefused Cluster worker-b left out of the route: host "metadata.google.internal" resolves to 169.254.169.254: destination 169.254.169.254 is link-local`,
		`Warning BackendRefused Cluster worker-c left out of the route: host "localhost.example.com" resolves to 127.0.0.1: destination 127.0.0.1 is loopback and refused by the observer's network guard (routing.observer.allowLoopback is off)`,
		`Warning BackendRefused Cluster worker-d left out of the route: host "ingress.worker-d.example.com" resolves to 10.0.0.7: destination 10.0.0.7 is in a private network and refused by the observer's network guard (routing.observer.allowPrivateNetworks is off)`,
		`Warning BackendRefused Cluster worker-e left out of the route: host "127.1" ends in a number`,
		`Warning BackendRefused Cluster worker-f left out of the route: host "0x7f.1" ends in a number`,
	)
	if f.zone.count("127.1") != 0 || f.zone.count("0x7f.1") != 0 {
		t.Error("a host refused by its form was looked up")
	}
	// The same refusals next round: no new events.
	f.admitted(tm)
	if notes := f.notes(); len(notes) != 0 {
		t.Errorf("events repeated for unchanged refusals: %q", notes)
	}
}

// An entry whose endpoint the plan could not publish (no host, a scheme other than http
// or https, a host that is no DNS name) is left out on its own, with BackendRefused, so the
// plan never sees it and the other clusters' weights still reach the route; a host with a
// trailing dot or capitals is the same name as its canonical form, checked and published
// as that.
func TestPublishGuardRefusesAnUnpublishableEntryAlone(t *testing.T) {
	f := newGuardFixture()
	f.zone.set("llm.worker-a.example.com", "203.0.113.10")
	f.zone.set("llm.worker-b.example.com", "203.0.113.11")
	f.zone.set("llm_c.example.com", "203.0.113.12")
	tm := guardedMap(
		entryAt("worker-a", "http://llm.worker-a.example.com/"),
		entryAt("worker-b", "http://LLM.worker-b.example.com./"),
		entryAt("worker-c", "http://llm_c.example.com/"),
		entryAt("worker-d", "http://:80/"),
		entryAt("worker-e", "ftp://llm.worker-a.example.com/"),
	)
	if got := f.admitted(tm); !slices.Equal(got, []string{"worker-a", "worker-b"}) {
		t.Fatalf("admitted %v, want worker-a and worker-b", got)
	}
	notes := f.notes()
	expectNotesStarting(t, notes,
		`Warning BackendRefused Cluster worker-c left out of the route: backend hostname: hostname "llm_c.example.com" is invalid: a lowercase RFC 1123 subdomain`,
		`Warning BackendRefused Cluster worker-d left out of the route: the endpoint has no host`,
		`Warning BackendRefused Cluster worker-e left out of the route: the endpoint has the scheme "ftp", not http or https`,
	)
	if len(notes) != 3 {
		t.Errorf("events %q, want three", notes)
	}
	if f.zone.count("llm_c.example.com") != 0 {
		t.Error("a host the plan cannot publish was looked up")
	}
}

// A route follows the probes' settings: with allowLoopback and allowPrivateNetworks on,
// loopback and private hosts are published; the metadata service never is.
func TestPublishGuardFollowsTheObserverSettings(t *testing.T) {
	f := newGuardFixture()
	f.guard = observer.Guard{
		Loopback: observer.Allowance{Allowed: true, Setting: observer.LoopbackSetting},
		Private:  observer.Allowance{Allowed: true, Setting: observer.PrivateSetting},
	}
	f.zone.set("lo.example.test", "127.0.0.1")
	f.zone.set("private.example.test", "10.0.0.7")
	f.zone.set("metadata.example.test", "169.254.169.254")
	tm := guardedMap(entryAt("worker-a", "http://lo.example.test/"), entryAt("worker-b", "http://private.example.test/"),
		entryAt("worker-c", "http://metadata.example.test/"))
	if got := f.admitted(tm); !slices.Equal(got, []string{"worker-a", "worker-b"}) {
		t.Fatalf("admitted %v, want worker-a and worker-b", got)
	}
}

// A name is resolved again once its decision is a recheck interval old, so a host
// re-pointed at a refused address leaves the route then; until then it is not looked up.
func TestPublishGuardRechecksAtTheResync(t *testing.T) {
	f := newGuardFixture()
	f.zone.set("llm.worker-a.example.com", "203.0.113.10")
	tm := guardedMap(entryAt("worker-a", "http://llm.worker-a.example.com/"))
	if got := f.admitted(tm); !slices.Equal(got, []string{"worker-a"}) {
		t.Fatalf("admitted %v", got)
	}
	f.zone.set("llm.worker-a.example.com", "169.254.169.254")
	f.at = f.at.Add(59 * time.Second)
	if got := f.admitted(tm); !slices.Equal(got, []string{"worker-a"}) || f.zone.count("llm.worker-a.example.com") != 1 {
		t.Fatalf("before the recheck: admitted %v after %d lookups, want the last decision and no new lookup", got, f.zone.count("llm.worker-a.example.com"))
	}
	f.at = f.at.Add(time.Second)
	if got := f.admitted(tm); len(got) != 0 {
		t.Fatalf("after the recheck: admitted %v, want the re-pointed host refused", got)
	}
	f.zone.set("llm.worker-a.example.com", "203.0.113.10")
	f.at = f.at.Add(time.Minute)
	if got := f.admitted(tm); !slices.Equal(got, []string{"worker-a"}) {
		t.Fatalf("pointed back: admitted %v", got)
	}
}

// A resolver that fails keeps each host's last decision: a healthy cluster stays in the
// route and a refused one stays out. A host never resolved waits outside, and is tried
// again after publishLookupRetry, not at every publication.
func TestPublishGuardKeepsTheLastDecisionThroughAResolverFailure(t *testing.T) {
	f := newGuardFixture()
	f.zone.set("llm.worker-a.example.com", "203.0.113.10")
	f.zone.set("llm.worker-b.example.com", "169.254.169.254")
	tm := guardedMap(entryAt("worker-a", "http://llm.worker-a.example.com/"), entryAt("worker-b", "http://llm.worker-b.example.com/"))
	if got := f.admitted(tm); !slices.Equal(got, []string{"worker-a"}) {
		t.Fatalf("admitted %v", got)
	}
	f.zone.fail(true)
	f.at = f.at.Add(time.Minute)
	if got := f.admitted(tm); !slices.Equal(got, []string{"worker-a"}) {
		t.Fatalf("resolver failing: admitted %v, want worker-a kept and worker-b still out", got)
	}

	// A new cluster whose host has never resolved.
	tm.Spec.Entries = append(tm.Spec.Entries, entryAt("worker-c", "http://llm.worker-c.example.com/"))
	if got := f.admitted(tm); !slices.Equal(got, []string{"worker-a"}) {
		t.Fatalf("new host, resolver failing: admitted %v", got)
	}
	if notes := f.notes(); !slices.ContainsFunc(notes, func(n string) bool {
		return strings.Contains(n, `Cluster worker-c left out of the route: host "llm.worker-c.example.com" could not be resolved to check its addresses`)
	}) {
		t.Errorf("no event for the unresolved host: %q", notes)
	}
	n := f.zone.count("llm.worker-c.example.com")
	f.at = f.at.Add(publishLookupRetry - time.Second)
	f.admitted(tm)
	if f.zone.count("llm.worker-c.example.com") != n {
		t.Fatal("a failed host was looked up again before publishLookupRetry")
	}
	f.zone.fail(false)
	f.zone.set("llm.worker-c.example.com", "203.0.113.12")
	f.at = f.at.Add(time.Second)
	if got := f.admitted(tm); !slices.Equal(got, []string{"worker-a", "worker-c"}) {
		t.Fatalf("resolver back: admitted %v, want worker-a and worker-c", got)
	}
}

// After a restart there is no last decision: a host whose lookup fails keeps its place in
// a map's route if that map's published backends already name it (an earlier publication
// accepted it), and stays out if they do not. A host that resolves is judged as always,
// whatever was published, and the published backends are read only for a host no lookup
// has answered.
func TestPublishGuardKeepsPublishedHostsThroughAResolverFailureAtStart(t *testing.T) {
	f := newGuardFixture()
	f.published = map[string]string{"worker-a": "llm.worker-a.example.com", "worker-b": "llm.worker-b.example.com"}
	f.zone.set("llm.worker-b.example.com", "169.254.169.254")
	f.zone.set("llm.worker-c.example.com", "203.0.113.12")
	tm := guardedMap(entryAt("worker-a", "http://LLM.worker-a.example.com/"), entryAt("worker-b", "http://llm.worker-b.example.com/"),
		entryAt("worker-c", "http://llm.worker-c.example.com/"))
	f.zone.fail(false)
	// worker-a's name has no record here (the resolver answers "no such host"), worker-b's
	// resolves to the metadata address, worker-c's to a public one.
	if got := f.admitted(tm); !slices.Equal(got, []string{"worker-a", "worker-c"}) {
		t.Fatalf("admitted %v, want worker-a (published, lookup failed) and worker-c (resolves), not worker-b (resolves to metadata)", got)
	}
	if f.asked != 1 {
		t.Fatalf("the published backends were read %d times, want once", f.asked)
	}

	// Past the recheck, while the resolver times out, the decisions stand.
	f.zone.fail(true)
	f.at = f.at.Add(time.Minute)
	if got := f.admitted(tm); !slices.Equal(got, []string{"worker-a", "worker-c"}) {
		t.Fatalf("resolver failing: admitted %v", got)
	}

	// A fresh guard (another restart) with the resolver still failing: a host the backends
	// do not name stays out.
	g := newGuardFixture()
	g.zone.fail(true)
	g.published = map[string]string{"worker-a": "llm.worker-a.example.com"}
	if got := g.admitted(tm); !slices.Equal(got, []string{"worker-a"}) {
		t.Fatalf("restart during the outage: admitted %v, want only the published worker-a", got)
	}

	// The decision is the host's, the keeping the map's: a map whose backends do not name
	// the host, judged first, leaves it out, and one whose backends do still keeps it.
	k := newGuardFixture()
	k.zone.fail(true)
	other := guardedMap(entryAt("worker-a", "http://llm.worker-a.example.com/"))
	other.Name = "other"
	if got := k.admitted(other); len(got) != 0 {
		t.Fatalf("a map without published backends: admitted %v", got)
	}
	k.published = map[string]string{"worker-a": "llm.worker-a.example.com"}
	if got := k.admitted(tm); !slices.Equal(got, []string{"worker-a"}) {
		t.Fatalf("the published map after the other: admitted %v, want worker-a", got)
	}

	// A host another cluster's backend names is no evidence for this one.
	m := newGuardFixture()
	m.zone.fail(true)
	m.published = map[string]string{"worker-b": "llm.worker-a.example.com"}
	if got := m.admitted(tm); len(got) != 0 {
		t.Fatalf("worker-a's host named by worker-b's backend: admitted %v", got)
	}

	// With every lookup answered the published backends are never read.
	h := newGuardFixture()
	h.zone.set("llm.worker-a.example.com", "203.0.113.10")
	h.zone.set("llm.worker-b.example.com", "203.0.113.11")
	h.zone.set("llm.worker-c.example.com", "203.0.113.12")
	if got := h.admitted(tm); len(got) != 3 || h.asked != 0 {
		t.Fatalf("admitted %v, published backends read %d times", got, h.asked)
	}
}
