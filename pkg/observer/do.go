package observer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Request is one probe to send.
type Request struct {
	// Method is the HTTP method; empty means GET.
	Method string
	// URL is the full http or https URL.
	URL string
	// Timeout bounds the request from the moment it gets a slot until its body has been
	// read. It must be positive.
	Timeout time.Duration
	// KeepBody returns the body read (up to the cap) in Result.Body, for callers that
	// read the answer, such as capacity polls; probes only count it.
	KeepBody bool
	// Tenant names whose request this is (the prober uses the service's namespace). While
	// other tenants wait, a freed slot goes to the one holding the fewest, so a tenant
	// whose requests hang delays the others by at most one Timeout. Empty is a tenant too.
	Tenant string
	// Group names the part of the tenant the request is for (the prober uses the
	// service). Among one tenant's waiters, a freed slot goes to the group holding the
	// fewest; a tenant with many groups still counts as one tenant against the others.
	Group string
	// Header is sent with the request (a query API's Authorization, say). It appears in
	// no error or metric.
	Header http.Header
	// InstallerEndpoint says the URL is the installer's own setting (the traffic signal's
	// query API), not a member's or a tenant's: loopback and private networks are allowed
	// whatever the guard's settings, while link-local and the other metadata addresses
	// stay refused. The request takes a slot like any other.
	InstallerEndpoint bool
}

// Outcome says how far a request got.
type Outcome string

const (
	// OutcomeResponse means a final status arrived and the body was read to its end or up to
	// the byte cap. A 101 Switching Protocols is a final status too: nothing after it is
	// read, and its connection is closed.
	OutcomeResponse Outcome = "Response"
	// OutcomeTransportError means no response. The URL was refused (scheme, guard), or
	// resolving, connecting, the TLS handshake or waiting for the headers failed or ran
	// out of time.
	OutcomeTransportError Outcome = "TransportError"
	// OutcomeBodyError means the headers arrived, then reading the body within the cap failed
	// or ran out of time.
	OutcomeBodyError Outcome = "BodyError"
	// OutcomeCancelled means the caller's context ended while the request waited for a slot or
	// ran. It says nothing about the endpoint and must not be counted as a failure.
	OutcomeCancelled Outcome = "Cancelled"
)

// Result is what became of one request.
type Result struct {
	Outcome Outcome
	// StatusCode is set with OutcomeResponse and OutcomeBodyError.
	StatusCode int
	// Err is set with every outcome but OutcomeResponse.
	Err error
	// BytesRead counts body bytes read, never more than MaxResponseBytes.
	BytesRead int64
	// Truncated means reading stopped at MaxResponseBytes before the body ended. It is
	// not an error.
	Truncated bool
	// Body is what was read of the body when Request.KeepBody is set.
	Body []byte
	// SlotWait is how long the request waited for a slot.
	SlotWait time.Duration
	// Duration is how long the request ran once it had a slot.
	Duration time.Duration
}

// Do sends req once and reads its body up to the cap. It waits for a slot first; the
// wait ends early, with OutcomeCancelled, if ctx ends. req.Timeout starts only once the
// slot is held, so a saturated observer shows up as SlotWait, not as endpoint timeouts.
func (o *Observer) Do(ctx context.Context, req Request) Result {
	if o == nil || o.slots == nil || o.client == nil {
		// A zero or nil Observer has no cap and no client: nothing may be sent through it.
		return Result{Outcome: OutcomeTransportError, Err: &NotSentError{Reason: "the observer is not set up (make it with observer.New)"}}
	}
	res := o.do(ctx, req)
	o.metrics.countOutcome(res.Outcome)
	return res
}

// Waiting is how many requests wait for a slot now: with Do's callers' own counts, it
// tells where every request is (waiting, or holding a slot).
func (o *Observer) Waiting() int {
	if o == nil || o.slots == nil {
		return 0
	}
	return o.slots.waiters()
}

func (o *Observer) do(ctx context.Context, req Request) Result {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	// Everything that can be refused without the network is refused before taking a
	// slot: a bad URL costs the other probes nothing.
	httpReq, err := http.NewRequestWithContext(ctx, method, req.URL, nil)
	if err != nil {
		return Result{Outcome: OutcomeTransportError, Err: fmt.Errorf("%w: %w", &NotSentError{Reason: "the endpoint is not a valid URL"}, err)}
	}
	if s := httpReq.URL.Scheme; s != "http" && s != "https" {
		return Result{Outcome: OutcomeTransportError, Err: urlError(httpReq,
			&NotSentError{Reason: fmt.Sprintf("scheme %q refused: the observer only sends http and https", s)})}
	}
	if req.Timeout <= 0 {
		return Result{Outcome: OutcomeTransportError, Err: urlError(httpReq,
			&NotSentError{Reason: fmt.Sprintf("request timeout must be positive, got %s", req.Timeout)})}
	}

	waitStart := time.Now()
	who := owner{tenant: req.Tenant, group: req.Group}
	if err := o.slots.acquire(ctx, who); err != nil {
		wait := time.Since(waitStart)
		o.metrics.observeSlotWait(wait)
		return Result{Outcome: OutcomeCancelled, SlotWait: wait,
			Err: urlError(httpReq, fmt.Errorf("waiting for an observer slot: %w", err))}
	}
	start := time.Now()
	wait := start.Sub(waitStart)
	// Recorded now rather than with the outcome, so that saturation shows while the
	// slow requests holding the slots are still running.
	o.metrics.observeSlotWait(wait)
	for k, v := range req.Header {
		httpReq.Header[k] = v
	}
	c := o.client
	if req.InstallerEndpoint {
		c = o.installerClient
	}
	res := o.run(ctx, c, httpReq, req.Timeout, req.KeepBody)
	res.SlotWait = wait
	res.Duration = time.Since(start)
	o.slots.release(who)
	o.metrics.observeDuration(res.Duration)
	return res
}

// run sends the request while the caller holds a slot.
func (o *Observer) run(ctx context.Context, c *http.Client, httpReq *http.Request, timeout time.Duration, keep bool) Result {
	o.metrics.startRun()
	defer o.metrics.endRun()

	// The timeout's context is a child of the caller's, so either ends the request. After
	// a failure the caller's own ctx tells the two apart: if it has ended, the caller went
	// away (Cancelled); if not, the observer's timeout fired (a transport or body error).
	reqCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	resp, err := c.Do(httpReq.WithContext(reqCtx))
	if err != nil {
		if ctx.Err() != nil {
			return Result{Outcome: OutcomeCancelled, Err: err}
		}
		return Result{Outcome: OutcomeTransportError, Err: err}
	}
	if resp.StatusCode < http.StatusOK {
		// net/http reads past every 1xx but 101 Switching Protocols, and hands a 101 back
		// with the raw connection as its body: no deadline of the request applies to it
		// any more, so reading it would hold the slot for as long as the endpoint stays
		// silent. The status is the answer (the caller classifies it, like any other);
		// what follows it is another protocol, which is not read. Closing the body
		// closes the connection.
		resp.Body.Close()
		return Result{Outcome: OutcomeResponse, StatusCode: resp.StatusCode}
	}
	// A probe only counts the body; a poll keeps it to read the report.
	var kept *bytes.Buffer
	sink := io.Discard
	if keep {
		kept = &bytes.Buffer{}
		sink = kept
	}
	n, truncated, err := readBody(boundBody(reqCtx, resp.Body), o.maxBody, sink)
	// Closing a body that was not read to its end makes net/http close the connection
	// instead of draining it, so a truncated body costs no further reading.
	resp.Body.Close()
	if err != nil {
		err = urlError(httpReq, fmt.Errorf("reading the response body: %w", err))
		if ctx.Err() != nil {
			return Result{Outcome: OutcomeCancelled, BytesRead: n, Err: err}
		}
		return Result{Outcome: OutcomeBodyError, StatusCode: resp.StatusCode, BytesRead: n, Err: err}
	}
	res := Result{Outcome: OutcomeResponse, StatusCode: resp.StatusCode, BytesRead: n, Truncated: truncated}
	if kept != nil {
		res.Body = kept.Bytes()[:n]
	}
	return res
}

// urlError phrases an error the way net/http phrases its own (`Get "http://…": …`), so
// every Err names the request it belongs to. Like net/http it hides a password in the
// URL: the error text ends up in the TrafficMap's probe message and in events.
func urlError(req *http.Request, err error) error {
	op := req.Method
	if len(op) > 1 {
		op = op[:1] + strings.ToLower(op[1:])
	}
	text := req.URL.String()
	if _, has := req.URL.User.Password(); has {
		// The same substitution net/http makes, so all errors for one URL read alike.
		text = strings.Replace(text, req.URL.User.String()+"@", req.URL.User.Username()+":***@", 1)
	}
	return &url.Error{Op: op, URL: text, Err: err}
}
