// Package recorder is the operator's event recorder: events.k8s.io/v1 Events, one per
// distinct cause, with identical occurrences counted into a series. pkg/eventseries
// decides what each occurrence becomes and says why client-go's recorder is not used;
// this package builds the Events and writes them.
package recorder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	typedeventsv1 "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/reference"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/ome-routing/operator/pkg/eventseries"
	"github.com/ome-routing/operator/pkg/text"
)

// maxNoteBytes is the events API's limit on a note: a longer one is refused and lost.
const maxNoteBytes = 1024

// writers is how many goroutines write, each for its share of the homes (an object
// regarded and the one related), so that one slow write holds up only its share. A home's
// occurrences all go to one writer: its series and its budget are that writer's.
const writers = 4

// queueLength is how many occurrences wait for a writer before new ones are dropped, as
// client-go's broadcaster drops past its maxQueuedEvents.
const queueLength = 1000

// namespaceShare is how many occurrences of one namespace may wait for the writers at once,
// across all of them. It is checked before an occurrence is queued: one namespace whose
// hundreds of services each record their burst fills its own share and no more, and an
// event of another namespace still finds room in the queues (which a namespace's share
// cannot fill: it is a quarter of one writer's queue, and occurrences of a namespace
// spread over the writers).
const namespaceShare = queueLength / 4

// writeTimeout bounds one call to the API server.
const writeTimeout = 10 * time.Second

// stopGrace is how long a stopping recorder spends writing what it still holds. The
// manager's leader hands over only once it has stopped, so this is short.
const stopGrace = 2 * time.Second

// Recorder records events.k8s.io/v1 Events as controller. Eventf only queues; Start runs
// the writers, each of which decides for its homes (an eventseries.Book) and writes.
type Recorder struct {
	client     typedeventsv1.EventsV1Interface
	scheme     *runtime.Scheme
	controller string
	instance   string
	limits     eventseries.Limits
	log        logr.Logger
	queues     [writers]chan *eventsv1.Event

	// mu guards waiting: the occurrences of each namespace queued and not yet taken by a
	// writer.
	mu      sync.Mutex
	waiting map[string]int
}

var _ events.EventRecorder = (*Recorder)(nil)

// New is a recorder writing with client, naming objects with scheme, under limits.
func New(client typedeventsv1.EventsV1Interface, scheme *runtime.Scheme, controller string, limits eventseries.Limits, log logr.Logger) *Recorder {
	hostname, _ := os.Hostname()
	r := &Recorder{
		client: client, scheme: scheme, controller: controller,
		// client-go's reporting instance: the controller on this host.
		instance: text.Cap(controller+"-"+hostname, 128),
		limits:   limits, log: log.WithValues("reportingController", controller),
		waiting: map[string]int{},
	}
	for i := range r.queues {
		r.queues[i] = make(chan *eventsv1.Event, queueLength)
	}
	return r
}

// ForManager is a recorder on mgr's API server, credentials and scheme, with the default
// limits, added to mgr so that it runs (and stops) with it.
func ForManager(mgr ctrl.Manager, controller string) (*Recorder, error) {
	client, err := typedeventsv1.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("events client for %s: %w", controller, err)
	}
	r := New(client, mgr.GetScheme(), controller, eventseries.DefaultLimits, mgr.GetLogger().WithName("events"))
	if err := mgr.Add(r); err != nil {
		return nil, err
	}
	return r, nil
}

// Eventf queues an event about regarding (and related, which may be nil). It never
// blocks: with the queue full, the event is logged and dropped.
func (r *Recorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	ev, err := r.makeEvent(regarding, related, eventtype, reason, action, fmt.Sprintf(note, args...))
	if err != nil {
		r.log.Error(err, "Event not recorded", "reason", reason)
		return
	}
	if !r.admit(ev.Namespace) {
		eventsDropped.WithLabelValues(r.controller, DropNamespaceShare).Inc()
		r.log.Info("Event not recorded: its namespace has its share of the queue waiting", "namespace", ev.Namespace, "reason", reason, "note", ev.Note)
		return
	}
	select {
	case r.queues[writerOf(ev)] <- ev:
	default:
		r.taken(ev.Namespace)
		eventsDropped.WithLabelValues(r.controller, DropQueueFull).Inc()
		r.log.Info("Event not recorded: the queue is full", "reason", reason, "note", ev.Note)
	}
}

// admit counts an occurrence of namespace into its share, or says that the share is full.
func (r *Recorder) admit(namespace string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.waiting[namespace] >= namespaceShare {
		return false
	}
	r.waiting[namespace]++
	return true
}

// taken gives an occurrence's place in its namespace's share back: a writer took it, or it
// was never queued.
func (r *Recorder) taken(namespace string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.waiting[namespace] <= 1 {
		delete(r.waiting, namespace)
		return
	}
	r.waiting[namespace]--
}

// makeEvent is client-go's Event for an occurrence now, with its note cut to the limit.
func (r *Recorder) makeEvent(regarding, related runtime.Object, eventtype, reason, action, note string) (*eventsv1.Event, error) {
	ref, err := reference.GetReference(r.scheme, regarding)
	if err != nil {
		return nil, fmt.Errorf("reference the object regarded: %w", err)
	}
	var relatedRef *corev1.ObjectReference
	if related != nil {
		if relatedRef, err = reference.GetReference(r.scheme, related); err != nil {
			return nil, fmt.Errorf("reference the related object: %w", err)
		}
	}
	namespace := ref.Namespace
	if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	now := time.Now()
	return &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: eventName(ref.Name, now), Namespace: namespace},
		EventTime:           metav1.NewMicroTime(now),
		ReportingController: r.controller,
		ReportingInstance:   r.instance,
		Action:              action,
		Reason:              reason,
		Regarding:           *ref,
		Related:             relatedRef,
		Note:                text.Cap(note, maxNoteBytes),
		Type:                eventtype,
	}, nil
}

// eventName is client-go's: the object's name and the time in hex, the name cut so that
// the whole stays a valid object name.
func eventName(object string, at time.Time) string {
	suffix := fmt.Sprintf(".%x", at.UnixNano())
	return text.Cap(object, 253-len(suffix)) + suffix
}

// writerOf is the writer of an event's home.
func writerOf(ev *eventsv1.Event) int {
	h := fnv.New32a()
	for _, part := range []string{ev.Regarding.Kind, ev.Regarding.Namespace, ev.Regarding.Name, string(ev.Regarding.UID)} {
		_, _ = h.Write([]byte(part))
		_, _ = h.Write([]byte{0})
	}
	if ev.Related != nil {
		for _, part := range []string{ev.Related.Kind, ev.Related.Namespace, ev.Related.Name} {
			_, _ = h.Write([]byte(part))
			_, _ = h.Write([]byte{0})
		}
	}
	return int(h.Sum32() % writers)
}

// NeedLeaderElection is true: the recorder runs with the controllers that record, which
// lead, and stops with them. (The manager stops the runnables that do not lead first,
// while the controllers still run: a recorder writing its last counts there would keep a
// stopping leader's controllers writing maps for as long.) Occurrences recorded before it
// starts wait in the queue.
func (r *Recorder) NeedLeaderElection() bool { return true }

// Start writes events until ctx ends, then for stopGrace more what it still holds.
func (r *Recorder) Start(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, q := range r.queues {
		wg.Go(func() { r.write(ctx, q) })
	}
	wg.Wait()
	return nil
}

// write is one writer: it takes its homes' occurrences from q until ctx ends.
func (r *Recorder) write(ctx context.Context, q <-chan *eventsv1.Event) {
	book := eventseries.NewBook(r.limits)
	tick := time.NewTicker(max(r.limits.WriteGap/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case ev := <-q:
			r.taken(ev.Namespace)
			r.observe(ctx, book, ev)
		case now := <-tick.C:
			for _, k := range book.Due(now) {
				r.writeSeries(ctx, book, k)
			}
			book.Sweep(now)
		case <-ctx.Done():
			r.stop(book, q)
			return
		}
	}
}

// stop writes the queued occurrences and every count not written yet.
func (r *Recorder) stop(book *eventseries.Book, q <-chan *eventsv1.Event) {
	ctx, cancel := context.WithTimeout(context.Background(), stopGrace)
	defer cancel()
queued:
	for {
		select {
		case ev := <-q:
			r.taken(ev.Namespace)
			r.observe(ctx, book, ev)
		default:
			break queued
		}
	}
	for _, k := range book.Pending() {
		if ctx.Err() != nil {
			return
		}
		r.writeSeries(ctx, book, k)
	}
}

// observe counts an occurrence and writes what the book says to.
func (r *Recorder) observe(ctx context.Context, book *eventseries.Book, ev *eventsv1.Event) {
	k, d := book.Observe(ev)
	switch d {
	case eventseries.Create, eventseries.Write:
		r.writeSeries(ctx, book, k)
	case eventseries.Drop:
		eventsDropped.WithLabelValues(r.controller, DropBudget).Inc()
		r.log.Info("Event not recorded: too many new events for this object and cluster at once",
			"regarding", ev.Regarding.Kind+"/"+ev.Regarding.Namespace+"/"+ev.Regarding.Name, "reason", ev.Reason, "note", ev.Note)
	}
}

// writeSeries makes the API server hold the series as the book has it: its Event created,
// or its count patched (and the Event created again if it has expired meanwhile).
func (r *Recorder) writeSeries(ctx context.Context, book *eventseries.Book, k eventseries.Key) {
	s := book.Series(k)
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	count := s.Count
	var written *eventsv1.Event
	var err error
	if s.Written > 0 {
		written, err = r.patchSeries(ctx, s)
	}
	if s.Written == 0 || apierrors.IsNotFound(err) {
		written, err = r.create(ctx, s)
	}
	if err == nil {
		book.Wrote(k, written.Name, count)
		r.log.V(1).Info("Event recorded", "regarding", k.Regarding.Kind+"/"+k.Regarding.Namespace+"/"+k.Regarding.Name,
			"reason", k.Reason, "note", k.Note, "count", count)
		return
	}
	retry := retryable(err)
	if book.Failed(k, time.Now(), retry) {
		r.log.Error(err, "Event not recorded", "reason", k.Reason, "note", k.Note, "willRetry", false)
	} else {
		r.log.V(1).Info("Event not written yet; retrying", "reason", k.Reason, "error", err.Error())
	}
}

// create creates the series' Event with its count so far, under a new name if the
// first is taken.
func (r *Recorder) create(ctx context.Context, s *eventseries.Series) (*eventsv1.Event, error) {
	ev := s.Event.DeepCopy()
	ev.ResourceVersion = ""
	if s.Count > 1 {
		ev.Series = &eventsv1.EventSeries{Count: s.Count, LastObservedTime: metav1.NewMicroTime(s.Last)}
	}
	created, err := r.client.Events(ev.Namespace).Create(ctx, ev, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		ev.Name = eventName(ev.Regarding.Name, time.Now())
		created, err = r.client.Events(ev.Namespace).Create(ctx, ev, metav1.CreateOptions{})
	}
	return created, err
}

// patchSeries sets the Event's series to the count so far. Only the series may change:
// the API refuses a change to any other field of an Event, its note included.
func (r *Recorder) patchSeries(ctx context.Context, s *eventseries.Series) (*eventsv1.Event, error) {
	patch, err := json.Marshal(map[string]any{"series": eventsv1.EventSeries{Count: s.Count, LastObservedTime: metav1.NewMicroTime(s.Last)}})
	if err != nil {
		return nil, err
	}
	return r.client.Events(s.Event.Namespace).Patch(ctx, s.Event.Name, types.MergePatchType, patch, metav1.PatchOptions{})
}

// retryable says whether a failed write may succeed later unchanged: the API server was
// away, slow or busy, rather than refusing the Event.
func retryable(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true
	}
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsUnexpectedServerError(err)
}
